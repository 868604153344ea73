/**
 * Running a CORE-Direct barrier cluster: to completion under a watchdog (a missing peer is
 * reported as a hang naming what every waiting rank waits for, never as a completion), and the
 * seed's measures: latency per call, and the two overlap measures (section V.A).
 */
import { Simulator, SimulationLimitError } from '../../rtl/kernel/index.ts';
import { buildCluster, type Cluster, type ClusterConfig } from '../../rtl/coredirect/cluster.ts';

export interface RunReport {
  cluster: Cluster;
  sim: Simulator;
  completed: boolean;
  /** ranks that did not finish, with their state (empty when completed) */
  hung: { rank: number; state: string; iteration: number; mq: string }[];
  /** HCA and driver errors reported to hosts */
  errors: string[];
  cycles: number;
}

/** Watchdog period: if no rank finishes a barrier within this many ns, the run is declared hung. */
export const WATCHDOG_NS = 2_000_000;

export function runCluster(cfg: Partial<ClusterConfig>, watchdogNs = WATCHDOG_NS): RunReport {
  const sim = new Simulator({ freqHz: 1e9 });
  const cluster = buildCluster(sim, cfg);
  const progress = (): number => cluster.tally.left;
  let last = -1;
  let completed = false;
  for (;;) {
    const before = progress();
    try {
      sim.runUntil(() => cluster.settled() || progress() !== before, watchdogNs);
    } catch (e) {
      if (!(e instanceof SimulationLimitError)) throw e;
      break; // no progress for a whole watchdog period (or nothing left to run): hung
    }
    if (cluster.settled()) {
      completed = cluster.hosts.every((h) => h.done);
      break;
    }
    if (progress() === last) break;
    last = progress();
  }
  const errors: string[] = [];
  for (const h of cluster.hcas) errors.push(...h.errors);
  for (const h of cluster.hosts) if (h.error !== null && !h.error.startsWith('HCA error')) errors.push(h.error);
  const hung = completed
    ? []
    : cluster.hosts
        .filter((h) => !h.done || h.iter < cluster.cfg.iterations)
        .filter((h) => !cluster.cfg.absent.includes(h.rank))
        .map((h) => ({ rank: h.rank, state: h.stateName, iteration: h.iter, mq: cluster.hcas[Math.floor(h.rank / cluster.cfg.ppn)]!.mqStatus(h.rank % cluster.cfg.ppn) }));
  return { cluster, sim, completed, hung, errors, cycles: sim.cycle };
}

/** Rank 0's mean time per barrier over the last half of the loop (the first half warms the caches), in us. */
export function latencyUs(r: RunReport): number {
  const h = r.cluster.hosts[0]!;
  const n = h.left.length;
  const from = Math.floor(n / 2);
  const start = from === 0 ? h.entered[0]! : h.left[from - 1]!;
  return (h.left[n - 1]! - start) / (n - from) / 1000;
}

export interface BarrierPoint {
  procs: number;
  mode: string;
  latency_us: number;
}

/** A barrier that should have completed did not (a failed check: exit 1). */
export class BarrierIncomplete extends Error {}

export function barrierLatency(cfg: Partial<ClusterConfig>): number {
  const r = runCluster({ iterations: 20, ...cfg });
  if (!r.completed) throw new BarrierIncomplete(`${cfg.procs} processes, ${cfg.mode}: barrier did not complete: ${r.errors[0] ?? JSON.stringify(r.hung[0])}`);
  return latencyUs(r);
}

/**
 * Overlap measure 1 (the seed's first): nonblocking barrier, then (work quantum, MPI_Test) until it
 * completes. The quantum is the largest of 1 %, 2 %, 5 % of the raw time that does not make the
 * barrier slower than the raw one by more than `tolerance`; availability = work done / barrier time.
 */
export function availabilityTestLoop(cfg: Partial<ClusterConfig>, rawUs: number, tolerance = 0.05): { availability: number; quantum_us: number; barrier_us: number } {
  let best = { availability: 0, quantum_us: 0, barrier_us: rawUs };
  for (const f of [0.01, 0.02, 0.05]) {
    const q = Math.max(1, Math.round(rawUs * 1000 * f));
    const r = runCluster({ iterations: 20, ...cfg, pattern: 'test-loop', workNs: q });
    if (!r.completed) continue;
    const t = latencyUs(r);
    if (t > rawUs * (1 + tolerance)) continue;
    const h = r.cluster.hosts[0]!;
    const avail = h.workDone / 1000 / r.cluster.cfg.iterations / t;
    if (avail > best.availability) best = { availability: avail, quantum_us: q / 1000, barrier_us: t };
  }
  return best;
}

/**
 * Overlap measure 2 (the seed's second): post, one work loop, wait. The loop starts at 10 % of the
 * raw time and grows in 10 % steps up to 100 %; availability is the largest loop (as a fraction of
 * the raw time) with which the barrier takes no longer than raw + `tolerance`.
 */
export function availabilityWorkLoop(cfg: Partial<ClusterConfig>, rawUs: number, tolerance = 0.05): { availability: number; steps: { fraction: number; barrier_us: number }[] } {
  const steps: { fraction: number; barrier_us: number }[] = [];
  let availability = 0;
  for (let k = 1; k <= 10; k++) {
    const f = k / 10;
    const r = runCluster({ iterations: 20, ...cfg, pattern: 'work-then-wait', workNs: Math.round(rawUs * 1000 * f) });
    const t = r.completed ? latencyUs(r) : Infinity;
    steps.push({ fraction: f, barrier_us: t });
    if (t <= rawUs * (1 + tolerance)) availability = f;
    else break;
  }
  return { availability, steps };
}
