/**
 * CORE-Direct plot: barrier latency per call against process count for the offloaded and
 * CPU-progressed modes, with seed 001's 64-process figures, from `latencyTable` (what
 * `netoffload coredirect barrier` calls).
 */
import type { BarrierMode } from '../../rtl/coredirect/cluster.ts';
import { latencyTable } from '../coredirect/overlap.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

export const CD_PROCS = [8, 16, 32, 64];
export const CD_RUNS: { mode: BarrierMode; connections: 'sparse' | 'dense' }[] = [
  { mode: 'mq-rdma', connections: 'sparse' },
  { mode: 'mq-send', connections: 'dense' },
  { mode: 'ptp-rdma', connections: 'sparse' },
];

export function coredirectPlot(o: ReportOptions): Plot {
  const rows: PlotRow[] = [];
  const seeds: PlotRow[] = [];
  for (const { mode, connections } of CD_RUNS) {
    for (const r of latencyTable(CD_PROCS, mode, { connections })) {
      rows.push({ x: r.procs, y: r.latency_us, series: `${mode} ${connections} (model)` });
      if (r.seed_us !== null) seeds.push({ x: r.procs, y: r.seed_us, series: `${mode} ${connections} (seed)` });
    }
  }
  return {
    id: 'coredirect-barrier',
    section: 'CORE-Direct (seed 001)',
    title: 'Recursive-doubling barrier: latency per call',
    caption: "Rank 0's mean time per barrier over the second half of a 20-barrier loop, 8 processes per node. The seed's figures are at 64 processes: 32 us MQ-RDMA with sparse connections and 54 us MQ-send with dense connections (both calibration points).",
    command: `netoffload coredirect barrier --procs ${CD_PROCS.join(',')} --mode M [--connections dense] (${CD_RUNS.map((r) => `${r.mode} ${r.connections}`).join('; ')})`,
    kind: 'lines',
    xTitle: 'processes (log scale)',
    xLog: true,
    yTitle: 'latency per barrier (us)',
    seriesTitle: 'mode, source',
    rows: [...rows, ...seeds],
  };
}
