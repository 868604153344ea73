/**
 * `netoffload nic sweep`: bad flags are usage errors naming the flag; the same flags and seed give
 * the same bytes; and three properties of the model that the sweep must show: more transmit-engine
 * payload reads in flight raise the bandwidth of large writes (read-bound: each read waits a PCIe
 * round trip), more SDQ descriptor reads outstanding raise the rate of small writes from DMA VPs
 * (descriptor-fetch bound), small writes posted on PIO VPs complete sooner than on DMA VPs, and
 * with the reliable protocol fewer sender or receiver contexts lower the rate of small writes.
 */
import { describe, expect, it } from 'vitest';
import { runSweepPoint, type SweepPoint, sweepPoints } from '../../experiments/nic/rdmaSweep.ts';
import { cli } from '../lib/cli.ts';

interface Row {
  pio_vps: number;
  max_reads: number;
  tx_reads: number;
  p50_ns: number;
  p50_pio_ns: number | null;
  p50_dma_ns: number | null;
  gbps: number;
  mops: number;
  bytes: number;
  operations: number;
}

const sweep = async (...a: string[]): Promise<{ rows: Row[]; out: string }> => {
  const r = await cli(['nic', 'sweep', '--json', ...a]);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return { rows: (JSON.parse(r.out) as { rows: Row[] }).rows, out: r.out };
};

const BASE: SweepPoint = { pioVps: 0, dmaVps: 16, depth: 64, maxReads: 8, txReads: 16, pcieNs: 100, txContexts: 16, rxContexts: 16 };

describe('nic sweep', () => {
  it.each([
    [['--depth', '0'], /^--depth: '0' is not an integer in 1\.\.4096/],
    [['--pcie-ns', '100,x'], /^--pcie-ns: 'x' is not an integer in 0\.\.100000/],
    [['--max-reads', '2,2'], /^--max-reads: a value is listed twice \(2,2\)/],
    [['--pio-vps', ''], /^--pio-vps: expected a comma-separated list/],
    [['--mix', 'huge'], /^--mix: expected one of mixed, small, large/],
    [['--window', '5'], /^--window: must be <= 4/],
    [['--contexts', '4'], /contexts/],
    [['--tx-contexts', '0'], /^--tx-contexts: '0' is not an integer in 1\.\.1024/],
    [['--procs', '4096', '--ops', '16'], /^--procs \/ --ops: procs x \(ops \+ 1\) must be at most 65536/],
    [['--pio-vps', '0', '--dma-vps', '1', '--procs', '100', '--ops', '1000'], /^--procs \/ --ops: ceil\(procs \/ VPs\) x \(ops \+ 1\) must be at most 32768/],
  ])('%j is refused (exit 2) naming the flag', async (args, msg) => {
    const r = await cli(['nic', 'sweep', ...args]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err.replace(/^netoffload: /, '')).toMatch(msg);
  });

  it('the same flags and seed give the same bytes; another seed other sizes; a table with a row per configuration', async () => {
    const args = ['--pio-vps', '0,4', '--dma-vps', '4', '--procs', '6', '--ops', '3'];
    const a = await sweep(...args);
    const b = await sweep(...args);
    expect(b.out).toBe(a.out);
    expect(a.rows.map((r) => r.pio_vps)).toEqual([0, 4]);
    expect(a.rows.every((r) => r.operations === 18 && r.p50_ns > 0 && r.gbps > 0)).toBe(true);
    const c = await sweep(...args, '--seed', '2');
    expect(c.rows[0]!.bytes).not.toBe(a.rows[0]!.bytes);
    const t = await cli(['nic', 'sweep', ...args]);
    expect(t.code).toBe(0);
    expect(t.out.split('\n').filter((l) => /^\|\s+\d/.test(l))).toHaveLength(2);
  });

  it('read-bound (large writes): more transmit-engine reads in flight never lower the bandwidth', () => {
    const load = { procs: 2, ops: 2, window: 2, mix: 'large', seed: 3, connect: false };
    const g = [1, 2, 8].map((txReads) => runSweepPoint({ ...BASE, txReads }, load).gbps);
    expect(g[1]!).toBeGreaterThan(g[0]! * 1.5);
    expect(g[2]!).toBeGreaterThan(g[1]! * 1.5);
  });

  it('descriptor-fetch bound (small writes, DMA VPs only): more SDQ reads outstanding never lower the operation rate', () => {
    const load = { procs: 16, ops: 3, window: 2, mix: 'small', seed: 1, connect: false };
    const m = [1, 2, 8].map((maxReads) => runSweepPoint({ ...BASE, maxReads }, load).mops);
    expect(m[1]!).toBeGreaterThan(m[0]! * 1.3);
    expect(m[2]!).toBeGreaterThan(m[1]! * 1.3);
  });

  it('small writes on PIO VPs complete sooner than on DMA VPs (the SDQ fetch costs a PCIe read round trip)', () => {
    const load = { procs: 8, ops: 3, window: 1, mix: 'small', seed: 1, connect: false };
    const pio = runSweepPoint({ ...BASE, pioVps: 8, dmaVps: 8 }, load);
    const dma = runSweepPoint({ ...BASE, pioVps: 0, dmaVps: 8 }, load);
    expect(pio.p50_dma_ns).toBeNull();
    expect(dma.p50_pio_ns).toBeNull();
    expect(dma.p50_ns - pio.p50_ns).toBeGreaterThan(200);
  });

  it('reliable protocol (--connect): every write completes once; fewer sender or receiver contexts lower the rate of small writes', () => {
    const load = { procs: 16, ops: 3, window: 2, mix: 'small', seed: 1, connect: true };
    const tx = [1, 16].map((txContexts) => runSweepPoint({ ...BASE, txContexts }, load));
    const rx = runSweepPoint({ ...BASE, rxContexts: 1 }, load);
    expect(tx.every((r) => r.operations === 48)).toBe(true);
    expect(tx[1]!.mops).toBeGreaterThan(tx[0]!.mops * 3);
    expect(tx[1]!.mops).toBeGreaterThan(rx.mops * 3);
    // connectless writes need no connection: faster still
    expect(runSweepPoint(BASE, { ...load, connect: false }).mops).toBeGreaterThan(tx[1]!.mops);
  });

  it('points: the cartesian product of the axes, the last axis fastest', () => {
    const pts = sweepPoints({ pioVps: [0, 8], dmaVps: [32], depth: [64], maxReads: [1, 8], txReads: [16], pcieNs: [100], txContexts: [16], rxContexts: [16] });
    expect(pts.map((p) => [p.pioVps, p.maxReads])).toEqual([
      [0, 1],
      [0, 8],
      [8, 1],
      [8, 8],
    ]);
  });
});
