/**
 * How the CPU share of the offloaded barrier sets its availability (issue 13). The seed's one
 * latency pair (32 us for MQ-RDMA at 64 processes) fixes the sum of the host's time (entering the
 * call, reaping the previous call's send completions, building the MWR and ringing its doorbells:
 * enterNs + sends x reapNs + tasks x postTaskNs + queues x doorbellNs, then the completion poll)
 * and the HCA's (taskNs per task), not the split; the work-loop availability is exactly what the
 * split decides, since the HCA needs no CPU. For each host cost per MWR task this experiment refits
 * taskNs so that the barrier stays at the seed's 32 us at 64 processes (8 x 8), then, with that
 * taskNs, runs both overlap measures at every process count asked for.
 */
import { CPU_DEFAULTS } from '../../rtl/coredirect/host.ts';
import { HCA_DEFAULTS } from '../../rtl/coredirect/params.ts';
import { type BarrierMode, type ClusterConfig } from '../../rtl/coredirect/cluster.ts';
import { bisect, FIT_PPN, FIT_PROCS, SEED_AFTER_US } from './calibrate.ts';
import { availabilityTestLoop, availabilityWorkLoop, barrierLatency, BarrierIncomplete, runCluster } from './run.ts';

export interface HostShareRow {
  procs: number;
  post_task_ns: number;
  /** taskNs refitted so that MQ-RDMA sparse at 64 processes takes the seed's 32 us */
  task_ns: number;
  raw_us: number;
  /** host CPU time of one barrier call outside the work: enter, reap, MWR build, doorbells, one poll */
  host_us: number;
  host_share: number;
  test_loop_availability: number;
  work_loop_availability: number;
}

/** taskNs that keeps MQ-RDMA sparse at 64 processes at the seed's 32 us with this host cost per MWR task (the default host cost: the calibrated default). */
export function refitTaskNs(postTaskNs: number, mode: BarrierMode = 'mq-rdma'): number {
  if (postTaskNs === CPU_DEFAULTS.postTaskNs) return HCA_DEFAULTS.taskNs;
  const lat = (taskNs: number): number => barrierLatency({ procs: FIT_PROCS, ppn: FIT_PPN, mode, connections: 'sparse', cpu: { postTaskNs }, hca: { taskNs, ctxMissNs: HCA_DEFAULTS.ctxMissNs } });
  return bisect(lat, SEED_AFTER_US, 1, 1000).x;
}

/** One row: `procs` processes (8 per node), host cost postTaskNs per MWR task, HCA taskNs as refitted for it. */
export function hostShareRow(postTaskNs: number, procs: number = FIT_PROCS, taskNs: number = refitTaskNs(postTaskNs), mode: BarrierMode = 'mq-rdma'): HostShareRow {
  const cfg: Partial<ClusterConfig> = { procs, ppn: FIT_PPN, mode, connections: 'sparse', cpu: { postTaskNs }, hca: { taskNs, ctxMissNs: HCA_DEFAULTS.ctxMissNs } };
  const raw = barrierLatency(cfg);
  // rank 0's work per call, as its host counted it at its first post
  const probe = runCluster({ ...cfg, iterations: 2 });
  const c = probe.cluster.hosts[0]!.counts;
  if (c === null) throw new BarrierIncomplete(`${procs} processes: rank 0 never posted its MWR`);
  const cpu = CPU_DEFAULTS;
  const hostNs = cpu.enterNs + c.sends * cpu.reapNs + c.tasks * postTaskNs + c.doorbells * cpu.doorbellNs + cpu.pollNs;
  const m1 = availabilityTestLoop(cfg, raw);
  const m2 = availabilityWorkLoop(cfg, raw);
  return { procs, post_task_ns: postTaskNs, task_ns: taskNs, raw_us: raw, host_us: hostNs / 1000, host_share: hostNs / 1000 / raw, test_loop_availability: m1.availability, work_loop_availability: m2.availability };
}

/** Every (postTaskNs, procs) pair, taskNs refitted once per postTaskNs. `onRow` (optional) is told each row as it is finished. */
export function hostShareTable(postTaskNs: readonly number[], procs: readonly number[], onRow?: (row: HostShareRow) => void): HostShareRow[] {
  const rows: HostShareRow[] = [];
  for (const v of postTaskNs) {
    const taskNs = refitTaskNs(v);
    for (const p of procs) {
      const row = hostShareRow(v, p, taskNs);
      rows.push(row);
      onRow?.(row);
    }
  }
  return rows;
}
