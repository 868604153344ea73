/**
 * Benchmark harness shared by the suites in bench/suites/. Measures with tinybench: a task runs
 * one chunk of work and returns how many units it did (cycles, operations...); the figure is
 * units per second from the median chunk time. Benchmarks measure; tests never time anything.
 */
import { Bench } from 'tinybench';

export interface Figure {
  /** stable key, e.g. "kernel.ring.stage_cycles_per_s" */
  key: string;
  label: string;
  value: number;
  unit: string;
  /** the target, where there is one */
  target?: { op: '>=' | '<='; value: number };
  note?: string;
}

export interface BenchSuite {
  name: string;
  run(opts: { quick: boolean }): Promise<Figure[]>;
}

/**
 * Units per second of `chunk`. `chunk()` returns the units of work it did; setup work belongs
 * outside. The median chunk time is used (robust to GC pauses on a shared 2-core machine).
 */
export async function rate(name: string, chunk: () => number, opts: { time?: number; warmup?: number } = {}): Promise<{ perSecond: number; samples: number }> {
  let units = 0;
  const bench = new Bench({ name, time: opts.time ?? 1500, warmupTime: opts.warmup ?? 300, warmupIterations: 3, iterations: 5 });
  bench.add(name, () => {
    units = chunk();
  });
  await bench.run();
  const r = bench.tasks[0]!.result as { state: string; latency?: { p50: number; samplesCount: number }; error?: unknown };
  if (r.state !== 'completed' || !r.latency) throw new Error(`benchmark ${name} failed: ${String(r.error ?? r.state)}`);
  return { perSecond: units / (r.latency.p50 / 1000), samples: r.latency.samplesCount };
}

/** Median of `xs` (the mean of the two middle values for an even count). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) throw new RangeError('median of no values');
  const s = [...xs].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 === 1 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}

export function heapUsedMiB(): number {
  return process.memoryUsage().heapUsed / 1048576;
}

/** Resident memory attributable to `build()`: heap + array buffers before and after, after GC where exposed. */
export function footprintMiB<T>(build: () => T): { value: T; mib: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m0 = process.memoryUsage();
  const value = build();
  gc?.();
  const m1 = process.memoryUsage();
  const mib = (m1.heapUsed - m0.heapUsed + (m1.arrayBuffers - m0.arrayBuffers) + (m1.external - m0.external - (m1.arrayBuffers - m0.arrayBuffers))) / 1048576;
  return { value, mib };
}
