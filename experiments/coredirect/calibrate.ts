/**
 * Calibration of the CORE-Direct model on the seed's one published latency pair (section V.B): at
 * 64 processes (8 nodes x 8 processes, the seed's testbed) the offloaded barrier went from 54 us to
 * 32 us with two changes: sparse connections (QPs only to the log2 peers, so the QP contexts fit
 * the HCA's context cache) and RDMA write with immediate instead of send (no receive WQE fetch).
 * Two parameters are fitted, each by bisection on one figure:
 *   taskNs     on MQ-RDMA, sparse  = 32 us  (no context misses once warm: the engine time per task)
 *   ctxMissNs  on MQ-send, dense   = 54 us  (with taskNs fixed: the context fetch on a miss)
 * Every other parameter keeps its documented default (rtl/coredirect/params.ts, host.ts).
 */
import { HCA_DEFAULTS, type HcaParams } from '../../rtl/coredirect/params.ts';
import { barrierLatency } from './run.ts';

export const SEED_BEFORE_US = 54;
export const SEED_AFTER_US = 32;
export const FIT_PROCS = 64;
export const FIT_PPN = 8;

export interface FitResult {
  taskNs: number;
  ctxMissNs: number;
  after_us: number;
  before_us: number;
  runs: number;
}

/** The most simulations bisect() runs on [lo, hi]: one per halving step (the wider half each time), plus the two ends. */
export function bisectRuns(lo: number, hi: number): number {
  let runs = 2;
  for (let w = hi - lo; w > 1; w -= Math.floor(w / 2)) runs++;
  return runs;
}

export function bisect(f: (x: number) => number, target: number, lo: number, hi: number): { x: number; runs: number } {
  let runs = 0;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    runs++;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return { x: Math.abs(f(lo) - target) <= Math.abs(f(hi) - target) ? lo : hi, runs: runs + 2 };
}

export function after(hca: Partial<HcaParams>): number {
  return barrierLatency({ procs: FIT_PROCS, ppn: FIT_PPN, mode: 'mq-rdma', connections: 'sparse', hca });
}
export function before(hca: Partial<HcaParams>): number {
  return barrierLatency({ procs: FIT_PROCS, ppn: FIT_PPN, mode: 'mq-send', connections: 'dense', hca });
}

const TASK_RANGE = [1, 1000] as const;
const CTX_RANGE = [0, 5000] as const;
/** The most simulations fit() can run (its `runs` is at most this), known before it starts. */
export const FIT_RUNS = bisectRuns(...TASK_RANGE) + bisectRuns(...CTX_RANGE) + 2;

/**
 * `onRun(done, total)` (optional) is called after each simulation with total = FIT_RUNS; a
 * bisection that ends in fewer steps than its bound skips the rest of its share, so the count
 * reaches FIT_RUNS exactly at the end.
 */
export function fit(onRun?: (done: number, total: number) => void): FitResult {
  let done = 0;
  const counted =
    (g: (hca: Partial<HcaParams>) => number) =>
    (hca: Partial<HcaParams>): number => {
      const v = g(hca);
      onRun?.(++done, FIT_RUNS);
      return v;
    };
  const aft = counted(after);
  const bef = counted(before);
  const a = bisect((x) => aft({ taskNs: x, ctxMissNs: 0 }), SEED_AFTER_US, ...TASK_RANGE);
  done = bisectRuns(...TASK_RANGE);
  const b = bisect((x) => bef({ taskNs: a.x, ctxMissNs: x }), SEED_BEFORE_US, ...CTX_RANGE);
  done = bisectRuns(...TASK_RANGE) + bisectRuns(...CTX_RANGE);
  const hca = { taskNs: a.x, ctxMissNs: b.x };
  return { ...hca, after_us: aft(hca), before_us: bef(hca), runs: a.runs + b.runs + 2 };
}

/** The fitted values the defaults hold (HCA_DEFAULTS), for the check that they are current. */
export const FITTED = { taskNs: HCA_DEFAULTS.taskNs, ctxMissNs: HCA_DEFAULTS.ctxMissNs };
