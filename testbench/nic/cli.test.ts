/**
 * `netoffload atc sweep` and `netoffload atc refresh-check`: output shapes, the expected trends on a
 * zipf trace, and clear errors for bad input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';

const tempDirs: string[] = [];
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

interface Row {
  ways: number;
  sets: number;
  entries: number;
  hit_rate: number;
  avg_latency_cycles: number;
  p99_latency_cycles: number;
  mshr_stall_cycles: number;
}

describe('atc sweep', () => {
  it('the documented exploration: hit rate rises with the ways on a zipf trace', async () => {
    const r = await cli('atc', 'sweep', '--ways', '1,2,4,8,16', '--entries', '65536', '--replacement', 'lru', '--trace', 'zipf', '--requests', '200000', '--seed', '1', '--json');
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.out) as { rows: Row[] }).rows;
    expect(rows.map((x) => x.ways)).toEqual([1, 2, 4, 8, 16]);
    expect(rows.map((x) => x.sets)).toEqual([65536, 32768, 16384, 8192, 4096]);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.hit_rate).toBeGreaterThan(rows[i - 1]!.hit_rate);
    for (const x of rows) {
      expect(x.p99_latency_cycles).toBeGreaterThanOrEqual(500);
      expect(x.avg_latency_cycles).toBeGreaterThan(4);
    }
  });

  it('hit rate rises with the entries too, for both policies, and the table is readable', async () => {
    for (const pol of ['lru', 'plru']) {
      const r = await cli('atc', 'sweep', '--ways', '2,8', '--entries', '1024,4096,16384', '--replacement', pol, '--trace', 'zipf', '--pages', '32768', '--requests', '30000', '--json');
      const rows = (JSON.parse(r.out) as { rows: Row[] }).rows;
      for (const w of [2, 8]) {
        const hr = rows.filter((x) => x.ways === w).map((x) => x.hit_rate);
        expect(hr[1]!).toBeGreaterThan(hr[0]!);
        expect(hr[2]!).toBeGreaterThan(hr[1]!);
      }
    }
    const t = await cli('atc', 'sweep', '--ways', '4', '--entries', '1024', '--trace', 'uniform', '--requests', '2000');
    expect(t.code).toBe(0);
    const lines = t.out.trim().split('\n');
    expect(lines[0]).toMatch(/^ATC sweep: uniform trace \(262,144 pages\), 2,000 requests, seed 1, lru replacement$/);
    expect(lines[3]!.trim().split(/\s+/)).toEqual(['ways', 'sets', 'entries', 'hit_rate', 'avg_latency_cycles', 'p99_latency_cycles', 'mshr_stall_cycles']);
    expect(lines[4]!.trim().split(/\s+/).slice(0, 3)).toEqual(['4', '256', '1024']);
  });

  it('reads a trace file of hexadecimal addresses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atc-'));
    tempDirs.push(dir);
    const f = join(dir, 'ok.txt');
    writeFileSync(f, '# warm then hit\n0x1000\n1008\n\n0x0000000002000  # another page\n0x1010\n');
    const r = await cli('atc', 'sweep', '--ways', '2', '--entries', '16', '--trace', `file:${f}`, '--pcie-latency', '20', '--jitter', '0', '--json');
    expect(r.code).toBe(0);
    const row = (JSON.parse(r.out) as { requests: number; rows: (Row & { hits: number; misses: number; merged_misses: number })[] }).rows[0]!;
    expect(row.hits + row.misses + row.merged_misses).toBe(4);
    expect(row.misses).toBe(2);
  });

  it('reports malformed trace lines with their line number, and other bad input, with exit code 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atc-'));
    tempDirs.push(dir);
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, '0x1000\n0x2000\n\n0x12g4\n');
    let r = await cli('atc', 'sweep', '--trace', `file:${bad}`, '--entries', '64');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/bad\.txt:4: '0x12g4' is not a hexadecimal address/);
    writeFileSync(bad, '0x1000\n0x1000000000000\n');
    r = await cli('atc', 'sweep', '--trace', `file:${bad}`, '--entries', '64');
    expect(r.err).toMatch(/bad\.txt:2: address 0x1000000000000 does not fit in 48 bits/);
    writeFileSync(bad, '# nothing\n\n');
    r = await cli('atc', 'sweep', '--trace', `file:${bad}`, '--entries', '64');
    expect(r.err).toMatch(/no addresses/);
    r = await cli('atc', 'sweep', '--trace', `file:${join(dir, 'missing.txt')}`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot read trace .*missing\.txt: ENOENT/);
    r = await cli('atc', 'sweep', '--ways', '3', '--entries', '64');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--ways 3 with --entries 64: ATC config: ways \(3\) must divide entries \(64\)/);
    r = await cli('atc', 'sweep', '--mshrs', '0');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--mshrs/);
    r = await cli('atc', 'sweep', '--trace', 'gaussian');
    expect(r.err).toMatch(/--trace: expected uniform, zipf, stream or file:PATH/);
    r = await cli('atc', 'sweep', '--replacement', 'fifo');
    expect(r.err).toMatch(/--replacement/);
  });
});

describe('atc refresh-check', () => {
  it('reports lookups, refreshes and zero stale translations', async () => {
    const r = await cli('atc', 'refresh-check', '--ops', '2000', '--seed', '3', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as Record<string, number | boolean>;
    expect(j.stale_translations).toBe(0);
    expect(j.pass).toBe(true);
    expect(j.lookups).toBeGreaterThan(500);
    expect(j.refreshes).toBeGreaterThan(100);
    const t = await cli('atc', 'refresh-check', '--ops', '300');
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/^lookups\s+\d+$/m);
    expect(t.out).toMatch(/^refreshes\s+\d+$/m);
    expect(t.out).toMatch(/^stale_translations\s+0$/m);
    expect(t.out).toMatch(/PASS/);
  });
});
