/**
 * `netoffload nic bandwidth` and `runPutBandwidth` (experiments/nic/bandwidth.ts): bad flags are
 * usage errors naming the flag; the figure is the payload that landed over the measured span;
 * bandwidth grows with the message size and stays under the link's rate per direction; both
 * directions at once carry more than one; PIO and DMA VPs both run; the same run gives the same
 * bytes.
 */
import { describe, expect, it } from 'vitest';
import { runPutBandwidth } from '../../experiments/nic/bandwidth.ts';
import { cli } from '../lib/cli.ts';

/** the link's default rate: 14 bytes per cycle at 1 GHz (rtl/nic/link) */
const LINK_GBPS = 14;

describe('nic bandwidth', () => {
  it.each([
    [['--sizes', '0'], /^--sizes: '0' is not an integer in 1\.\.1048576/],
    [['--sizes', '8,x'], /^--sizes: 'x' is not an integer/],
    [['--sizes', '64,64'], /^--sizes: a size is listed twice/],
    [['--sizes', ''], /^--sizes: expected a comma-separated list/],
    [['--path', 'rdma'], /^--path: expected one of pio, dma/],
    [['--count', '0'], /^--count: must be >= 1/],
    [['--bidir=maybe'], /^--bidir: expected true or false/],
    [['--size', '8'], /size/],
    [['--tx-ops', '0'], /^--tx-ops: must be >= 1/],
    [['--tx-reads', '257'], /^--tx-reads: must be <= 256/],
    [['--rx-packets', 'x'], /^--rx-packets: expected an integer/],
  ])('%j is refused (exit 2) naming the flag', async (args, msg) => {
    const r = await cli(['nic', 'bandwidth', ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.replace(/^netoffload: /, '')).toMatch(msg);
  });

  it('runPutBandwidth refuses bad options with a message naming them', () => {
    expect(() => runPutBandwidth({ bytes: 0, bidirectional: false, path: 'pio' })).toThrow(/^bytes must be an integer/);
    expect(() => runPutBandwidth({ bytes: 64, bidirectional: false, path: 'pio', count: 0 })).toThrow(/^count must be an integer/);
    expect(() => runPutBandwidth({ bytes: 64, bidirectional: false, path: 'x' as 'pio' })).toThrow(/^path must be pio or dma/);
  });

  it('the figure is the payload landed over the span; it grows with size and stays under the link rate; both paths', () => {
    for (const path of ['pio', 'dma'] as const) {
      const rows = [64, 4096, 32768].map((bytes) => runPutBandwidth({ bytes, bidirectional: false, path, count: 8 }));
      for (const r of rows) {
        expect(r.path).toBe(path);
        expect(r.count).toBe(8);
        expect(r.directions).toHaveLength(1);
        expect(r.directions[0]!.bytes).toBe(8 * r.bytes);
        expect(r.gbPerS).toBeCloseTo((8 * r.bytes) / r.ns, 9);
        expect(r.cycles).toBe(r.ns);
        expect(r.gbPerS).toBeLessThan(LINK_GBPS);
      }
      expect(rows[1]!.gbPerS).toBeGreaterThan(10 * rows[0]!.gbPerS);
      expect(rows[2]!.gbPerS).toBeGreaterThan(rows[1]!.gbPerS);
    }
  });

  it('bidirectional: both directions land their bytes, and together carry more than one direction alone', () => {
    const uni = runPutBandwidth({ bytes: 8192, bidirectional: false, path: 'pio', count: 8 });
    const bi = runPutBandwidth({ bytes: 8192, bidirectional: true, path: 'pio', count: 8 });
    expect(bi.directions.map((d) => [d.from, d.bytes])).toEqual([
      [0, 8 * 8192],
      [1, 8 * 8192],
    ]);
    expect(bi.gbPerS).toBeCloseTo(bi.directions[0]!.gbPerS + bi.directions[1]!.gbPerS, 9);
    expect(bi.gbPerS).toBeGreaterThan(1.5 * uni.gbPerS);
    expect(bi.directions.every((d) => d.gbPerS < LINK_GBPS)).toBe(true);
  });

  it('the command prints the curve with the seed peak beside it; --json is deterministic', async () => {
    const args = ['nic', 'bandwidth', '--sizes', '256,4096', '--count', '4', '--path', 'dma'];
    const a = await cli([...args, '--json']);
    const b = await cli([...args, '--json']);
    expect(a.code).toBe(0);
    expect(b.out).toBe(a.out);
    const j = JSON.parse(a.out) as { seed_peak_gbps: number; rows: { bytes: number; gbPerS: number; path: string }[] };
    expect(j.seed_peak_gbps).toBe(11.7);
    expect(j.rows.map((r) => [r.bytes, r.path])).toEqual([
      [256, 'dma'],
      [4096, 'dma'],
    ]);
    const t = await cli([...args, '--bidir']);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/bidirectional/);
    expect(t.out).toMatch(/20\.6 GB\/s from 8 KB/);
    expect(t.out.split('\n').filter((l) => /^\|\s+(256|4096) \|/.test(l))).toHaveLength(2);
  });
});
