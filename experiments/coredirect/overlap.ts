/**
 * The seed's experiments as tables (section V): barrier latency per call for a list of process
 * counts in one mode, and both overlap measures for every mode (Figures 6 and 7), with the seed's
 * figures where it gives numbers (64 processes: 32 us MQ-RDMA; about 80 % available with MQ-RDMA,
 * at most 30 % CPU-progressed).
 */
import { BARRIER_MODES, type BarrierMode, type ClusterConfig } from '../../rtl/coredirect/cluster.ts';
import { availabilityTestLoop, availabilityWorkLoop, barrierLatency } from './run.ts';

export interface LatencyRow {
  procs: number;
  mode: BarrierMode;
  connections: 'sparse' | 'dense';
  latency_us: number;
  /** the seed's figure where it gives one */
  seed_us: number | null;
}

export function seedLatency(procs: number, mode: BarrierMode, connections: string): number | null {
  if (procs !== 64 || mode.startsWith('ptp')) return null;
  if (mode === 'mq-rdma' && connections === 'sparse') return 32;
  if (mode === 'mq-send' && connections === 'dense') return 54;
  return null;
}

export function latencyTable(procs: readonly number[], mode: BarrierMode, base: Partial<ClusterConfig> = {}): LatencyRow[] {
  const connections = base.connections ?? 'sparse';
  return procs.map((p) => ({ procs: p, mode, connections, latency_us: barrierLatency({ ...base, procs: p, mode }), seed_us: seedLatency(p, mode, connections) }));
}

export interface OverlapRow {
  procs: number;
  mode: BarrierMode;
  raw_us: number;
  /** measure 1: work quanta alternating with MPI_Test */
  test_loop_availability: number;
  test_loop_quantum_us: number;
  /** measure 2: one work loop grown in 10 % steps */
  work_loop_availability: number;
  /** what the seed says for this cell (text), if anything */
  seed: string | null;
}

/**
 * What the seed says about a cell (its testbed has 8 nodes x 8 processes, so nothing beyond 64):
 * Fig. 6 (test loop, every algorithm) "approximately 30-45% CPU availability at eight processes,
 * and up to around 90% at 64"; Fig. 7 (work loop) MQ-RDMA "about 80%" at 64, which "tends to
 * increase as the number of processes involved in the collective increases", the CPU-progressed
 * algorithms "at most 30% CPU availability at 64 processes".
 */
export function seedOverlap(procs: number, mode: BarrierMode): string | null {
  const test = procs === 8 ? 'test ~30-45 %' : procs === 64 ? 'test ~90 %' : null;
  let work: string | null = null;
  if (procs === 64) work = mode === 'mq-rdma' ? 'work ~80 %' : mode.startsWith('ptp') ? 'work <= 30 %' : null;
  else if (mode === 'mq-rdma' && procs < 64) work = 'work rising to ~80 % at 64';
  const parts = [test, work].filter((x) => x !== null);
  return parts.length > 0 ? parts.join(', ') : null;
}

/** `onRow(row)` (optional) is called as each row is finished, in order (for progress reports). */
export function overlapTable(procs: readonly number[], modes: readonly BarrierMode[] = BARRIER_MODES, base: Partial<ClusterConfig> = {}, onRow?: (row: OverlapRow) => void): OverlapRow[] {
  const rows: OverlapRow[] = [];
  for (const p of procs)
    for (const mode of modes) {
      const cfg = { ...base, procs: p, mode };
      const raw = barrierLatency(cfg);
      const m1 = availabilityTestLoop(cfg, raw);
      const m2 = availabilityWorkLoop(cfg, raw);
      const row: OverlapRow = { procs: p, mode, raw_us: raw, test_loop_availability: m1.availability, test_loop_quantum_us: m1.quantum_us, work_loop_availability: m2.availability, seed: seedOverlap(p, mode) };
      rows.push(row);
      onRow?.(row);
    }
  return rows;
}
