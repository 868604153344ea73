/**
 * `netoffload gemini table` and `gemini amo-scale`: every seed row printed next to the model,
 * JSON shapes, the counter check, the saturation trend, and usage errors (exit 2).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { SEED_ROWS } from '../../experiments/gemini/seedFigures.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('gemini table', () => {
  it('prints every seed row with the seed figure, the model and the error, and the PIO/DMA switch', async () => {
    const r = await cli('gemini', 'table');
    expect(r.code).toBe(0);
    for (const row of SEED_ROWS) {
      const line = r.out.split('\n').find((l) => l.startsWith(row.label))!;
      expect(line, row.label).toBeDefined();
      expect(line).toContain(row.unit === 'us' ? row.seed.toFixed(2) : Math.round(row.seed).toLocaleString('en-US'));
      expect(line).toMatch(/[+-]\d+\.\d %/);
      expect(line).toMatch(row.fit ? /fitted$/ : /predicted/);
    }
    expect(r.out).toMatch(/2047 B {2}PIO \(FMA\)/);
    expect(r.out).toMatch(/2048 B {2}DMA \(BTE\)/);
  });

  it('--json: rows with seed, model and error; the switch drops at 2 KB', async () => {
    const r = await cli('gemini', 'table', '--json');
    const j = JSON.parse(r.out) as { rows: { key: string; seed: number; model: number; error_pct: number }[]; pio_switch: { bytes: number; pio: boolean; bandwidth_mb_s: number }[] };
    expect(j.rows.map((x) => x.key)).toEqual(SEED_ROWS.map((x) => x.key));
    for (const x of j.rows) expect(x.error_pct).toBeCloseTo(((x.model - x.seed) / x.seed) * 100, 6);
    const s = Object.fromEntries(j.pio_switch.map((x) => [x.bytes, x]));
    expect(s[2047]!.pio).toBe(true);
    expect(s[2048]!.pio).toBe(false);
    expect(s[2048]!.bandwidth_mb_s).toBeLessThan(s[2047]!.bandwidth_mb_s);
    // issue 13 item 1: the intra-NIC bandwidths fall out of the shared host end, within 10 % (not fitted)
    const rows = Object.fromEntries(j.rows.map((x) => [x.key, x]));
    for (const k of ['put_bw_intra_nic', 'get_bw_intra_nic', 'put_bw_inter_nic', 'get_bw_inter_nic']) expect(Math.abs(rows[k]!.error_pct), k).toBeLessThan(10);
  });

  it('bad flags exit 2 naming the flag', async () => {
    const r = await cli('gemini', 'table', '--ht-gbs', '-3');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--ht-gbs/);
    expect((await cli('gemini', 'table', '--colour', 'red')).code).toBe(2);
    const h = await cli('gemini', 'table', '--host-gbs', '0');
    expect(h.code).toBe(2);
    expect(h.err).toMatch(/--host-gbs/);
  });
});

describe('gemini amo-scale', () => {
  it('the counter is right at every scale; the rate grows, then saturates while latency climbs', async () => {
    const r = await cli('gemini', 'amo-scale', '--procs', '1,16,256,1024', '--ops', '4', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { rows: { procs: number; fadds: number; rate_mops: number; mean_latency_us: number; counter_ok: boolean }[]; pass: boolean };
    expect(j.pass).toBe(true);
    const [a, b, c, d] = j.rows;
    expect(j.rows.every((x) => x.counter_ok && x.fadds === x.procs * 4)).toBe(true);
    expect(b!.rate_mops).toBeGreaterThan(6 * a!.rate_mops);
    expect(c!.rate_mops).toBeGreaterThan(4 * b!.rate_mops);
    expect(d!.rate_mops).toBeLessThan(2 * c!.rate_mops); // saturated: 4x the processes, far less than 4x the rate
    expect(d!.mean_latency_us).toBeGreaterThan(1.5 * c!.mean_latency_us);
  });

  it('rejects a bad process count with exit 2', async () => {
    const r = await cli('gemini', 'amo-scale', '--procs', '4,zero');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--procs: 'zero'/);
  });
});
