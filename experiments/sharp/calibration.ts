/**
 * Calibration of the SHArP fabric timing against the seed's published latencies.
 *
 * Procedure (docs/sharp-fabric.md "Calibration"):
 * 1. Six parameters are fitted (FITTED in rtl/sharp/params.ts); every other timing parameter is
 *    fixed from its physical source.
 * 2. The data: only the 32-host column of Table I (7 cells, 0..256 bytes).
 * 3. The objective: the sum of squared relative errors of those cells, plus a weak prior
 *    (lambda x sum of squared log-ratios to documented nominal values) that makes the problem
 *    well posed: within one column, constants such as host software time, HCA latency and TCA
 *    per-packet time all shift every cell alike and cannot be told apart by the data alone.
 * 4. Nelder-Mead in log-parameter space from the nominal point, a fixed number of evaluations:
 *    deterministic, so the fit reruns to the same numbers.
 * 5. Without refitting, Table I's 64- and 128-host columns, Table V and Table VI are predicted and
 *    every cell's error reported.
 */
import { DEFAULT_TIMING, FITTED, PAPER, type FabricTiming } from '../../rtl/sharp/params.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import type { DistMode } from '../../rtl/sharp/packet/index.ts';
import { runAllreduce } from './scenario.ts';

export interface Cell {
  table: 'I' | 'V' | 'VI';
  label: string;
  hosts: number;
  bytes: number;
  dist: DistMode;
  paper_us: number;
}

export function table1Cells(): Cell[] {
  const out: Cell[] = [];
  PAPER.table1.hosts.forEach((hosts, col) => {
    for (const row of PAPER.table1.rows) out.push({ table: 'I', label: `Table I ${hosts} hosts ${row[0]} B`, hosts, bytes: row[0], dist: 'rc', paper_us: row[col + 1]! });
  });
  return out;
}

export function table5Cells(): Cell[] {
  return PAPER.table5.map(([bytes, us]) => ({ table: 'V' as const, label: `Table V ${bytes} B`, hosts: 128, bytes, dist: 'rc' as DistMode, paper_us: us }));
}

export function table6Cells(): Cell[] {
  const out: Cell[] = [];
  const modes: DistMode[] = ['rc', 'rc+ud', 'ud'];
  for (const row of PAPER.table6) modes.forEach((dist, i) => out.push({ table: 'VI', label: `Table VI ${row[0]} B ${dist}`, hosts: 128, bytes: row[0], dist, paper_us: row[i + 1]! }));
  return out;
}

/** The nominal values the prior pulls toward (their sources are in docs/sharp-fabric.md). */
export const NOMINAL: Readonly<Record<string, number>> = {
  hostSwNs: 300, // verbs post + CQ poll on a 2.6 GHz Haswell, ~150 ns each
  hcaNs: 400, // ConnectX-4 send + receive processing (half of a ~0.8 us verbs round trip beyond the wire)
  pcieReadNs: 500, // PCIe gen3 DMA read round trip
  tcaPacketNs: 20, // a few TCA pipeline cycles per packet
  tcaByteNs: 0.04, // ~200 Gb/s TCA datapath
  hostByteNs: 0.5, // host byte moves (write-combining stores / cache-missing copy)
};

export const PRIOR_WEIGHT = 0.002;

/** Simulated latency (us) of each cell, all on one fabric per distinct host count. */
export function simulateCells(timing: Partial<FabricTiming>, cells: readonly Cell[], iterations = 4, onCell?: (done: number) => void): number[] {
  const out = new Array<number>(cells.length);
  const fabric = new Fabric({ hosts: 128, timing });
  cells.forEach((c, i) => {
    const job = i + 1;
    const r = runAllreduce({ fabric, hosts: c.hosts, bytes: c.bytes, dist: c.dist, iterations, warmup: 1, job, group: 1, tree: 0 });
    if (!r.ok) throw new Error(`${c.label}: simulated result does not match the golden model: ${r.mismatches[0]}`);
    out[i] = r.latency_us;
    fabric.am.endJob(job);
    fabric.settle();
    onCell?.(i + 1);
  });
  return out;
}

export interface FitResult {
  params: Record<string, number>;
  objective: number;
  evaluations: number;
  cells: { label: string; paper_us: number; sim_us: number; err_pct: number }[];
}

function objective(params: number[], cells: Cell[]): { value: number; sims: number[] } {
  const timing: Partial<FabricTiming> = {};
  FITTED.forEach((k, i) => ((timing as Record<string, number>)[k] = params[i]!));
  const sims = simulateCells(timing, cells);
  let v = 0;
  cells.forEach((c, i) => (v += (sims[i]! / c.paper_us - 1) ** 2));
  FITTED.forEach((k, i) => (v += PRIOR_WEIGHT * Math.log(params[i]! / NOMINAL[k]!) ** 2));
  return { value: v, sims };
}

/** Deterministic Nelder-Mead in log space over the FITTED parameters, on the 32-host column of Table I; `onProgress` after every evaluation with the best objective so far. */
export function fit(opts: { maxEvaluations?: number; onProgress?: (evals: number, best: number) => void } = {}): FitResult {
  const cells = table1Cells().filter((c) => c.hosts === 32);
  const maxEval = opts.maxEvaluations ?? 300;
  const n = FITTED.length;
  const x0 = FITTED.map((k) => Math.log(NOMINAL[k]!));
  let evals = 0;
  let bestSoFar = Infinity;
  const f = (x: number[]): number => {
    evals++;
    const v = objective(x.map(Math.exp), cells).value;
    bestSoFar = Math.min(bestSoFar, v);
    opts.onProgress?.(evals, bestSoFar);
    return v;
  };
  // initial simplex: nominal point and one 40 % step per parameter
  let simplex = [x0, ...x0.map((_, i) => x0.map((v, j) => (i === j ? v + Math.log(1.4) : v)))];
  let values = simplex.map(f);
  while (evals < maxEval) {
    const idx = values.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    simplex = idx.map(([, i]) => simplex[i]!);
    values = idx.map(([v]) => v);
    const centroid = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) centroid[j]! += simplex[i]![j]! / n;
    const worst = simplex[n]!;
    const at = (a: number): number[] => centroid.map((c, j) => c + a * (c - worst[j]!));
    const xr = at(1);
    const fr = f(xr);
    if (fr < values[0]!) {
      const xe = at(2);
      const fe = f(xe);
      if (fe < fr) {
        simplex[n] = xe;
        values[n] = fe;
      } else {
        simplex[n] = xr;
        values[n] = fr;
      }
    } else if (fr < values[n - 1]!) {
      simplex[n] = xr;
      values[n] = fr;
    } else {
      const xc = fr < values[n]! ? at(0.5) : at(-0.5);
      const fcv = f(xc);
      if (fcv < Math.min(fr, values[n]!)) {
        simplex[n] = xc;
        values[n] = fcv;
      } else {
        for (let i = 1; i <= n; i++) {
          simplex[i] = simplex[i]!.map((v, j) => simplex[0]![j]! + 0.5 * (v - simplex[0]![j]!));
          values[i] = f(simplex[i]!);
        }
      }
    }
  }
  const best = values.indexOf(Math.min(...values));
  const p = simplex[best]!.map(Math.exp);
  const params: Record<string, number> = {};
  FITTED.forEach((k, i) => (params[k] = round3(p[i]!)));
  const sims = simulateCells(params, cells);
  return {
    params,
    objective: values[best]!,
    evaluations: evals,
    cells: cells.map((c, i) => ({ label: c.label, paper_us: c.paper_us, sim_us: sims[i]!, err_pct: (100 * (sims[i]! - c.paper_us)) / c.paper_us })),
  };
}

function round3(v: number): number {
  return Number(v.toPrecision(3));
}

export interface TableRow extends Cell {
  sim_us: number;
  err_pct: number;
  fitted: boolean;
}

/** The cells of Tables I, V and VI, in the order `buildTable` simulates them. */
export function tableCells(): Cell[] {
  return [...table1Cells(), ...table5Cells(), ...table6Cells()];
}

/** Every cell of Tables I, V and VI simulated with `timing` (default: the calibrated defaults); `onProgress(cellsDone)` after each cell. */
export function buildTable(timing: Partial<FabricTiming> = {}, onProgress?: (cellsDone: number) => void): TableRow[] {
  const cells = tableCells();
  const sims = simulateCells({ ...DEFAULT_TIMING, ...timing }, cells, 4, onProgress);
  return cells.map((c, i) => ({
    table: c.table,
    label: c.label,
    hosts: c.hosts,
    bytes: c.bytes,
    dist: c.dist,
    paper_us: c.paper_us,
    sim_us: round3(sims[i]!),
    err_pct: Number(((100 * (sims[i]! - c.paper_us)) / c.paper_us).toFixed(1)),
    fitted: c.table === 'I' && c.hosts === 32,
  }));
}
