/**
 * How the CPU share of the offloaded barrier sets its availability (issue 13 item 5). The seed's
 * one latency pair (32 us for MQ-RDMA at 64 processes) fixes the sum of the host's time (entering
 * the call and building the MWR: enterNs + tasks x postTaskNs, then the completion poll) and the
 * HCA's (taskNs per task), not the split; the work-loop availability is exactly what the split
 * decides, since the HCA needs no CPU. For each host cost per MWR task this experiment refits
 * taskNs so that the barrier stays at the seed's 32 us, then runs both overlap measures.
 */
import { CPU_DEFAULTS } from '../../rtl/coredirect/host.ts';
import { HCA_DEFAULTS } from '../../rtl/coredirect/params.ts';
import { type BarrierMode, type ClusterConfig } from '../../rtl/coredirect/cluster.ts';
import { bisect, FIT_PPN, FIT_PROCS, SEED_AFTER_US } from './calibrate.ts';
import { availabilityTestLoop, availabilityWorkLoop, barrierLatency } from './run.ts';

export interface HostShareRow {
  post_task_ns: number;
  /** taskNs refitted so that MQ-RDMA sparse at 64 processes takes the seed's 32 us */
  task_ns: number;
  raw_us: number;
  /** host CPU time of one barrier call outside the work: enter + MWR build + one poll */
  host_us: number;
  host_share: number;
  test_loop_availability: number;
  work_loop_availability: number;
}

/** MWR tasks of one rank in the recursive-doubling barrier (a send and a wait per step; the extra-rank steps for non-powers of two). */
export function barrierTasks(procs: number): number {
  const n = 2 ** Math.floor(Math.log2(procs));
  return 2 * Math.log2(n) + (procs > n ? 2 : 0);
}

export function hostShareRow(postTaskNs: number, mode: BarrierMode = 'mq-rdma'): HostShareRow {
  const base: Partial<ClusterConfig> = { procs: FIT_PROCS, ppn: FIT_PPN, mode, connections: 'sparse', cpu: { postTaskNs } };
  const lat = (taskNs: number): number => barrierLatency({ ...base, hca: { taskNs, ctxMissNs: HCA_DEFAULTS.ctxMissNs } });
  const task = postTaskNs === CPU_DEFAULTS.postTaskNs ? HCA_DEFAULTS.taskNs : bisect(lat, SEED_AFTER_US, 1, 1000).x;
  const cfg = { ...base, hca: { taskNs: task, ctxMissNs: HCA_DEFAULTS.ctxMissNs } };
  const raw = barrierLatency(cfg);
  const hostNs = CPU_DEFAULTS.enterNs + barrierTasks(FIT_PROCS) * postTaskNs + CPU_DEFAULTS.pollNs;
  const m1 = availabilityTestLoop(cfg, raw);
  const m2 = availabilityWorkLoop(cfg, raw);
  return { post_task_ns: postTaskNs, task_ns: task, raw_us: raw, host_us: hostNs / 1000, host_share: hostNs / 1000 / raw, test_loop_availability: m1.availability, work_loop_availability: m2.availability };
}
