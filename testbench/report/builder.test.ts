/**
 * The report builder (experiments/report/): a plot for every expected section, each cheap section
 * built for real and its numbers equal to what the command its caption names prints, histograms
 * whose counts add up to the samples, the benchmark history from bench/results.json, and the
 * `report` / `report plot` command's input errors.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../rtl/kernel/errors.ts';
import { benchPlots, type BenchRevision, parseBenchResults, readBenchRevisions, targetRatio } from '../../experiments/report/benchHistory.ts';
import { histogram, sharpAllreduceLatency } from '../../experiments/report/latency.ts';
import type { ReportOptions } from '../../experiments/report/options.ts';
import { buildPlots, plotIds, SECTIONS } from '../../experiments/report/sections.ts';
import { cli } from '../lib/cli.ts';

const REVS: BenchRevision[] = [
  { label: 'aaaaaaa', suites: { kernel: [{ key: 'kernel.ring.cycles_per_s', label: 'ring', value: 1e6, unit: 'cycles/s', target: { op: '>=', value: 2e6 } }] } },
  {
    label: 'bbbbbbb',
    suites: {
      kernel: [{ key: 'kernel.ring.cycles_per_s', label: 'ring', value: 3e6, unit: 'cycles/s', target: { op: '>=', value: 2e6 } }],
      atc: [
        { key: 'atc.storage_mib', label: 'storage', value: 20, unit: ' MiB', target: { op: '<=', value: 100 } },
        { key: 'atc.lookups_per_s', label: 'lookups', value: 5e5, unit: ' /s' },
      ],
    },
  },
];
const quick: ReportOptions = { quick: true, bench: REVS };

describe('report builder', () => {
  it('declares a plot for every expected section, ids unique', () => {
    const ids = plotIds(quick);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ['sharp-table-1', 'sharp-table-5', 'sharp-table-6', 'nic-desc', 'nic-rdma', 'spin-table-ns', 'spin-table-gbits', 'spin-hpus-needed', 'coredirect-barrier', 'gemini-latency', 'gemini-bandwidth', 'gemini-pio-switch', 'atc-hit-rate', 'atc-latency', 'latency-sharp-allreduce', 'latency-spin-packet', 'bench-targets', 'bench-kernel', 'bench-atc']) expect(ids).toContain(id);
    for (const s of SECTIONS) expect(s.ids(quick).length, s.name).toBeGreaterThan(0);
  });

  it('nic desc: the plotted latencies are what `nic desc --descriptors 2000 --json` prints, the seed range beside them', async () => {
    const [p] = buildPlots(quick, 'nic-desc');
    expect(p!.command).toBe('netoffload nic desc --descriptors 2000');
    const r = JSON.parse((await cli(['nic', 'desc', '--descriptors', '2000', '--json'])).out);
    const y = (x: string, series: string): number | undefined => p!.rows.find((row) => row.x === x && row.series === series)?.y;
    expect(y('PIO: store to readout grant', 'model')).toBe(r.pio_store_to_dispatch_ns);
    expect(y('DMA: doorbell to readout grant', 'model')).toBe(r.dma_store_to_dispatch_ns);
    expect(y('DMA minus PIO', 'model')).toBe(r.dma_minus_pio_ns);
    expect([y('DMA minus PIO', 'seed, low end'), y('DMA minus PIO', 'seed, high end')]).toEqual(r.seed_dma_minus_pio_ns);
    expect(p!.rows).toHaveLength(5);
  }, 60_000);

  it('coredirect: the MQ-RDMA curve is `coredirect barrier --procs 8,16,32,64 --json`, with the seed at 64 processes', async () => {
    const [p] = buildPlots(quick, 'coredirect-barrier');
    const r = JSON.parse((await cli(['coredirect', 'barrier', '--procs', '8,16,32,64', '--mode', 'mq-rdma', '--json'])).out) as { rows: { procs: number; latency_us: number; seed_us: number | null }[] };
    expect(p!.rows.filter((x) => x.series === 'mq-rdma sparse (model)').map((x) => [x.x, x.y])).toEqual(r.rows.map((x) => [x.procs, x.latency_us]));
    expect(p!.rows.filter((x) => x.series.endsWith('(seed)')).map((x) => [x.series, x.x, x.y])).toEqual([['mq-rdma sparse (seed)', 64, 32], ['mq-send dense (seed)', 64, 54]]);
  }, 60_000);

  it('latency histograms: every sample binned, and the mean (sPIN: min/mean/max) is what the named run prints', async () => {
    const [sharp, spin] = [...buildPlots(quick, 'latency-sharp-allreduce'), ...buildPlots(quick, 'latency-spin-packet')];
    expect(sharp!.rows.reduce((a, r) => a + r.y, 0)).toBe(128 * 10);
    const a = JSON.parse((await cli(['sharp', 'allreduce', '--hosts', '128', '--bytes', '8', '--iterations', '10', '--json'])).out);
    const d = sharpAllreduceLatency(true);
    expect(Math.abs(d.mean - a.latency_us)).toBeLessThan(1e-4); // the command prints 4 decimals
    expect(sharp!.caption).toContain(`mean ${d.mean.toFixed(3)},`);
    expect(sharp!.rows).toEqual(d.bins.map((b) => ({ x: b.lo, x2: b.hi, y: b.count, series: 'samples' })));
    expect(sharp!.caption).toContain('`netoffload sharp allreduce --hosts 128 --bytes 8 --iterations 10`');
    expect(spin!.rows.reduce((a, r) => a + r.y, 0)).toBe(400);
    const s = JSON.parse((await cli(['spin', 'run', '--handler', 'pingpong', '--bytes', '1024', '--packets', '400', '--json'])).out);
    expect(spin!.caption).toContain(`min ${s.latencyMinNs.toFixed(1)}, mean ${s.latencyMeanNs.toFixed(1)}, max ${s.latencyMaxNs.toFixed(1)} ns`);
    expect(spin!.rows[0]!.x).toBe(s.latencyMinNs);
    expect(spin!.rows.at(-1)!.x2).toBe(s.latencyMaxNs);
    // deterministic: built again, the same rows
    expect(buildPlots(quick, 'latency-spin-packet')[0]!.rows).toEqual(spin!.rows);
  }, 120_000);

  it('histogram: equal bins from min to max, the largest sample in the last, all equal in one bin', () => {
    const h = histogram([1, 2, 3, 4, 5, 5, 9], 4);
    expect(h.map((b) => [b.lo, b.hi, b.count])).toEqual([[1, 3, 2], [3, 5, 2], [5, 7, 2], [7, 9, 1]]);
    expect(histogram([7, 7, 7])).toEqual([{ lo: 7, hi: 8, count: 3 }]);
    expect(histogram([])).toEqual([]);
  });

  it('benchmarks: targets as ratios, one history plot per suite with rate figures, rows only where a revision has the figure', () => {
    const plots = benchPlots(REVS);
    expect(plots.map((p) => p.id)).toEqual(['bench-targets', 'bench-kernel', 'bench-atc']);
    expect(plots[0]!.rows.map((r) => [r.x, r.y, r.series])).toEqual([['kernel.ring.cycles_per_s', 1.5, 'meets target'], ['atc.storage_mib', 5, 'meets target']]);
    expect(targetRatio({ key: 'k', label: 'k', value: 4, unit: 's', target: { op: '<=', value: 2 } })).toBe(0.5);
    expect(plots[1]!.rows.map((r) => [r.x, r.y])).toEqual([[1, 1e6], [2, 3e6]]);
    expect(plots[2]!.rows.map((r) => [r.x, r.y, r.series])).toEqual([[2, 5e5, 'lookups_per_s (/s)']]);
    expect(benchPlots([])).toEqual([]);
  });

  it('benchmarks: the history of the real bench/results.json, and malformed files named', () => {
    const revs = readBenchRevisions(process.cwd());
    expect(revs.length).toBeGreaterThan(0);
    expect(Object.keys(revs.at(-1)!.suites).length).toBeGreaterThan(0);
    expect(() => parseBenchResults('{', 'r.json at abc')).toThrow(InputError);
    expect(() => parseBenchResults('{"suites": {"x": [{"key": "k", "value": "fast", "unit": "/s"}]}}', 'r.json')).toThrow(/r.json: suite x figure 0 needs/);
    expect(() => parseBenchResults('{}', 'r.json')).toThrow(/no "suites" object/);
    const dir = mkdtempSync(join(tmpdir(), 'bench-'));
    try {
      expect(() => readBenchRevisions(dir)).toThrow(/bench\/results.json: missing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('report / report plot: bad --out and unknown plot ids are usage errors (exit 2); report plot prints the rows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-cli-'));
    try {
      writeFileSync(join(dir, 'file'), 'x');
      const r = await cli(['report', '--out', join(dir, 'file'), '--quick']);
      expect(r.code).toBe(2);
      expect(r.err).toContain('exists and is not a directory');
      const u = await cli(['report', 'plot', 'no-such-plot']);
      expect(u.code).toBe(2);
      expect(u.err).toMatch(/no plot 'no-such-plot' \(one of sharp-table-1, .*bench-targets/);
      const l = await cli(['report', 'plot', 'list', '--json']);
      expect(JSON.parse(l.out)).toContain('latency-spin-packet');
      const b = await cli(['report', 'plot', 'bench-targets', '--json']);
      expect(b.code).toBe(0);
      const rows = JSON.parse(b.out).rows as { series: string }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((x) => x.series === 'meets target' || x.series === 'misses target')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
