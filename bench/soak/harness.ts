/**
 * The soak harness: runs one block for a number of simulated cycles in equal slices and, after each
 * slice, records the live heap (after a forced GC) and the simulation rate of the slice: simulated
 * cycles per second of this process's CPU time (user + system) over the slice, not counting the
 * GC, so that other processes on a shared machine do not move it. It judges the run
 * (docs/long-runs.md):
 * - heap growth: the heap at the end may exceed the heap at 10 % of the run by at most 5 MB;
 * - slowdown: the rate at the end (median of the last three slices) may be at most 20 % below the
 *   rate at the start (median of slices 2 to 4; the first slice includes the JIT warm-up);
 * - function: the block's own check (results against the golden model, progress) after every slice.
 * Rates are timing figures: the rate rule is for benchmarks only (`checkRate`), never a test.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SoakBlock } from './block.ts';
import { liveHeapBytes } from './heap.ts';

const here = dirname(fileURLToPath(import.meta.url));

export interface SoakOptions {
  /** simulated cycles (default 10^8) */
  cycles?: number;
  /** slices, so samples: a multiple of 10, so that 10 % of the run is a sample (default 20) */
  samples?: number;
  seed?: number;
  /** apply the 20 % slowdown rule (benchmarks yes, tests no: they never time anything) */
  checkRate?: boolean;
  /** growth allowed from 10 % of the run to the end, bytes (default 5 MB) */
  maxGrowthBytes?: number;
  onSample?: (s: SoakSample) => void;
}

export interface SoakSample {
  cycle: number;
  heap_mb: number;
  /** simulated cycles per CPU second of this process over the slice that ended here */
  rate: number;
}

export interface SoakResult {
  block: string;
  what: string;
  seed: number;
  cycles: number;
  heap_start_mb: number;
  heap_10pct_mb: number;
  heap_end_mb: number;
  growth_kb_per_mcycle: number;
  /** least-squares slope of the heap over the samples from 10 % of the run to the end, KB per 10^6 cycles */
  slope_kb_per_mcycle: number;
  rate_start: number;
  rate_end: number;
  summary: string;
  samples: SoakSample[];
  failures: string[];
  ok: boolean;
}

const MB = 1e6;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** Least-squares slope of heap (MB) against cycle over `samples`, in KB per 10^6 cycles. */
export function heapSlope(samples: readonly SoakSample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  let sx = 0;
  let sy = 0;
  for (const s of samples) {
    sx += s.cycle;
    sy += s.heap_mb;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.cycle - mx) * (s.heap_mb - my);
    den += (s.cycle - mx) ** 2;
  }
  return den === 0 ? 0 : ((num / den) * 1e6 * MB) / 1e3;
}

export function soak(block: SoakBlock, o: SoakOptions = {}): SoakResult {
  const cycles = o.cycles ?? 1e8;
  const n = o.samples ?? 20;
  if (!Number.isInteger(cycles) || cycles < n) throw new RangeError(`soak: cycles must be an integer >= the number of samples (${n}), got ${cycles}`);
  if (!Number.isInteger(n) || n < 10 || n % 10 !== 0) throw new RangeError(`soak: samples must be a multiple of 10 (so 10 % of the run is a sample), got ${n}`);
  const maxGrowth = o.maxGrowthBytes ?? 5 * MB;
  const run = block.start(o.seed ?? 1);
  const c0 = run.cycle;
  const heapStart = liveHeapBytes();
  const samples: SoakSample[] = [];
  const failures: string[] = [];
  let heap10 = heapStart;
  for (let k = 1; k <= n; k++) {
    const from = run.cycle;
    const t0 = process.cpuUsage();
    run.runTo(c0 + Math.round((cycles * k) / n));
    const used = process.cpuUsage(t0);
    const cpu = (used.user + used.system) / 1e6;
    const heap = liveHeapBytes();
    const s = { cycle: run.cycle - c0, heap_mb: heap / MB, rate: (run.cycle - from) / Math.max(cpu, 1e-6) };
    samples.push(s);
    o.onSample?.(s);
    if (k * 10 === n) heap10 = heap;
    for (const p of run.check()) if (failures.length < 10) failures.push(`at cycle ${s.cycle}: ${p}`);
  }
  const heapEnd = samples[n - 1]!.heap_mb * MB;
  const growth = heapEnd - heap10;
  if (growth > maxGrowth) failures.push(`heap grew ${(growth / MB).toFixed(2)} MB from 10 % of the run to the end (limit ${(maxGrowth / MB).toFixed(1)} MB)`);
  const rateStart = median(samples.slice(1, 4).map((s) => s.rate));
  const rateEnd = median(samples.slice(-3).map((s) => s.rate));
  if (o.checkRate && rateEnd < 0.8 * rateStart) failures.push(`simulation rate fell ${((100 * (rateStart - rateEnd)) / rateStart).toFixed(0)} % from start to end (limit 20 %)`);
  return {
    block: block.name,
    what: block.what,
    seed: o.seed ?? 1,
    cycles: run.cycle - c0,
    heap_start_mb: heapStart / MB,
    heap_10pct_mb: heap10 / MB,
    heap_end_mb: heapEnd / MB,
    growth_kb_per_mcycle: growth / 1e3 / ((0.9 * cycles) / 1e6),
    slope_kb_per_mcycle: heapSlope(samples.slice(n / 10 - 1)),
    rate_start: rateStart,
    rate_end: rateEnd,
    summary: run.summary(),
    samples,
    failures,
    ok: failures.length === 0,
  };
}

/** Every block of every file in bench/soak/blocks/, in file then declaration order. */
export async function loadBlocks(): Promise<SoakBlock[]> {
  const dir = join(here, 'blocks');
  const out: SoakBlock[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { blocks?: SoakBlock[] };
    if (!Array.isArray(mod.blocks) || mod.blocks.length === 0) throw new Error(`bench/soak/blocks/${f} does not export 'blocks' (a non-empty SoakBlock[])`);
    out.push(...mod.blocks);
  }
  const names = new Set<string>();
  for (const b of out) {
    if (names.has(b.name)) throw new Error(`two soak blocks are named '${b.name}'`);
    names.add(b.name);
  }
  return out;
}

/** The table of one block (cycles, heap at 10 % and at the end, growth, rates, verdict). */
export function soakTable(r: SoakResult): string {
  const f = (v: number): string => (v >= 1e6 ? `${(v / 1e6).toFixed(2)} M` : v >= 1e3 ? `${(v / 1e3).toFixed(1)} k` : v.toFixed(0));
  const lines = [
    `${r.block}: ${r.what}`,
    `  ${'cycle'.padStart(14)}${'heap MB'.padStart(10)}${'cycles/s'.padStart(12)}`,
    ...r.samples.map((s) => `  ${s.cycle.toLocaleString('en-US').padStart(14)}${s.heap_mb.toFixed(2).padStart(10)}${f(s.rate).padStart(12)}`),
    `  cycles ${r.cycles.toLocaleString('en-US')}; heap ${r.heap_10pct_mb.toFixed(2)} MB at 10 % -> ${r.heap_end_mb.toFixed(2)} MB at the end (${r.growth_kb_per_mcycle.toFixed(2)} KB per 10^6 cycles, least-squares slope ${r.slope_kb_per_mcycle.toFixed(2)}); rate ${f(r.rate_start)} -> ${f(r.rate_end)} cycles/s`,
    `  ${r.summary}`,
    r.ok ? '  PASS' : `  FAIL: ${r.failures.join('; ')}`,
  ];
  return lines.join('\n') + '\n';
}
