/**
 * Fault scenarios (seed 000 section III-E): two jobs share the default 128-host fabric. Job 1 (the
 * even hosts, on every leaf) runs on tree 0, rooted at spine 0. The other job, job 2, is placed
 * either on another spine (`other-spine`: the odd hosts of every leaf, tree 1, rooted at spine 1)
 * or on the same spine (`same-spine`: the odd hosts of the first half of the leaves, on a tree
 * rooted at spine 0 too). A fault that hits job 1 is injected at a random time while both run
 * pipelined allreduces. Then:
 * - every member of job 1 must complete every outstanding call (with success or an error) within
 *   a bounded time after the fault is detected;
 * - no AN holds a context or quota of either job after recovery, and the AM holds no grant of a
 *   revoked job;
 * - job 2 keeps producing correct results when the failed part is not in its sub-tree; when it is
 *   (the same spine, or a link or AN it uses), job 2 is revoked too and none of its calls hangs;
 * - a new job started afterwards on job 1's hosts, asking for job 1's tree, either completes with
 *   golden results (the AM put it on a healthy tree) or is refused with an error naming the failed
 *   part; it never hangs.
 * No timeouts exist anywhere in the model: detection is by the events of the seed.
 */
import { Rng, SimulationLimitError } from '../../rtl/kernel/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { GroupError, type GroupPlan } from '../../rtl/sharp/trees.ts';
import { Workload } from './workload.ts';
import { runUntilReporting } from '../run-reporting.ts';

export const FAULT_SCENARIOS = ['link-down', 'an-failure', 'host-failure', 'corrupt-packet'] as const;
export type FaultScenario = (typeof FAULT_SCENARIOS)[number];
export const OTHER_JOB_PLACEMENTS = ['other-spine', 'same-spine'] as const;
export type OtherJobPlacement = (typeof OTHER_JOB_PLACEMENTS)[number];

export interface FaultReport {
  scenario: FaultScenario;
  seed: number;
  other_job_placement: OtherJobPlacement;
  /** the failed part is in job 2's sub-tree (so job 2 must be revoked too, not keep running) */
  other_job_shares_fault: boolean;
  /** calls made by both jobs */
  operations: number;
  completed_ok: number;
  completed_error: number;
  /** calls that never completed */
  hung: number;
  /** AN contexts still held, plus quota still charged, after recovery */
  leaked_contexts: number;
  /** job 2 completed every call, each equal to the golden model (or, when it shares the failed part: was revoked, nothing hung, every result it did get is golden) */
  other_jobs_ok: boolean;
  /** operation contexts the AM still grants to revoked jobs after recovery */
  leaked_grants: number;
  /** the job started after recovery: completed (golden results), refused (with new_job_detail), hung or wrong */
  new_job: 'completed' | 'refused' | 'hung' | 'wrong';
  new_job_detail: string;
  /** cycle the fault was injected and when the AM learned of it */
  fault_cycle: number;
  detected_cycle: number;
  /** longest time from detection to an affected member's completion, and the bound checked */
  max_completion_after_detection_cycles: number;
  bound_cycles: number;
  /** results of job 1 that did complete successfully all equal the golden model */
  affected_results_ok: boolean;
  /** SHA-256 of the results every member of a group of jobs 1 and 2 agreed on (see Workload.result_sha256) */
  result_sha256: string;
}

/** Simulated time (ns; cycles at the default 1 GHz clock) the scenario's jobs get before a job that has not finished counts as hung. */
export function faultRunLimitNs(iterations: number): number {
  return 2_000_000 + iterations * 100_000;
}

/** `report` is called between chunks of simulated cycles of the main run with the calls completed and the calls in all (progress of a CLI). */
export function runFaultScenario(scenario: FaultScenario, seed: number, placement: OtherJobPlacement = 'other-spine', iterations = 12, report?: (calls: number, total: number) => void): FaultReport {
  if (!Number.isInteger(iterations) || iterations < 1) throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  const fabric = new Fabric({ hosts: 128 });
  const topo = fabric.topo;
  const rng = new Rng(seed);
  const job1 = topo.hosts.filter((h) => h % 2 === 0);
  const firstHalf = new Set(topo.leaves.slice(0, topo.leaves.length / 2));
  const job2 = topo.hosts.filter((h) => h % 2 === 1 && (placement === 'other-spine' || firstHalf.has(topo.leafOf[h]!)));
  // tree t is rooted at spine t mod spines: tree `spines` shares spine 0 with job 1's tree 0
  const tree2 = placement === 'other-spine' ? 1 : topo.spines.length;
  const w = new Workload(
    fabric,
    [
      { job: 1, group: 1, tree: 0, members: job1, op: 'sum', type: 'f32', bytes: 1024, iterations, dist: 'rc', maxOps: 4 },
      { job: 2, group: 1, tree: tree2, members: job2, op: 'sum', type: 'f32', bytes: 1024, iterations, dist: 'rc', maxOps: 4 },
    ],
    { dataSeed: seed, skewSeed: seed ^ 0x5eed, skewMaxNs: 300 },
  );
  const sim = fabric.sim;
  const start = sim.cycle;
  // the fault lands somewhere in the first half of the run
  const faultAt = start + rng.range(fabric.cycles(500), fabric.cycles(25_000));
  sim.step(faultAt - sim.cycle);
  const root1 = w.outcomes[0]!.plan.root;
  const plan2 = w.outcomes[1]!.plan;
  let shares = false;
  switch (scenario) {
    case 'link-down': {
      // a link of job 1's tree: a leaf switch to tree 0's root spine
      const leaves = [...w.outcomes[0]!.plan.ans.keys()].filter((a) => a !== root1);
      const leaf = leaves[rng.int(leaves.length)]!;
      fabric.linkDown(leaf, root1);
      shares = usesLink(plan2, leaf, root1);
      break;
    }
    case 'an-failure':
      fabric.anFailure(root1);
      shares = plan2.ans.has(root1);
      break;
    case 'host-failure':
      fabric.hosts[job1[rng.int(job1.length)]!]!.kill(sim.cycle);
      break;
    case 'corrupt-packet': {
      const victim = fabric.hosts[job1[rng.int(job1.length)]!]!;
      const byte = rng.int(36);
      const bit = rng.int(8);
      victim.corruptNext((b) => {
        b[byte % b.length]! ^= 1 << bit;
      });
      break;
    }
  }
  // run until job 2 is done and job 1 has finished or stopped everywhere (a hang shows as the limit),
  // then long enough for in-flight packets and revocations to drain
  try {
    runUntilReporting(sim, () => w.finished(), fabric.cycles(faultRunLimitNs(iterations)), report && (() => report(w.callsCompleted(), w.callsTotal())));
    report?.(w.callsCompleted(), w.callsTotal());
  } catch {
    // a hang: counted below
  }
  sim.step(fabric.cycles(20_000));
  w.verify();
  const am = fabric.am;
  const rec = am.jobs.get(1)!;
  const detected = rec.revokedAt;
  let maxAfter = 0;
  for (const t of w.outcomes[0]!.ranks) if (t.lastErrorDone >= 0 && detected >= 0) maxAfter = Math.max(maxAfter, t.lastErrorDone - detected);
  const newJob = startNewJob(fabric, job1, w.outcomes[0]!.spec.tree, seed);
  let leaked = 0;
  for (const an of fabric.ans.values()) {
    leaked += an.contextsInUse;
    for (const job of [1, 2]) {
      const u = an.quotaUse(job);
      leaked += u.ops;
    }
  }
  const o1 = w.outcomes[0]!;
  const o2 = w.outcomes[1]!;
  const operations = w.outcomes.reduce((a, o) => a + o.ranks.reduce((b, t) => b + t.completed, 0) + o.hung, 0);
  const errors = o1.errors + o2.errors;
  const ok = w.outcomes.reduce((a, o) => a + o.ranks.reduce((b, t) => b + t.ok, 0), 0);
  const revoked2 = (am.jobs.get(2)?.revoked ?? 0) !== 0;
  const leakedGrants = [1, 2].reduce((a, j) => a + ((am.jobs.get(j)?.revoked ?? 0) !== 0 ? am.grantedTo(j) : 0), 0);
  return {
    scenario,
    seed,
    other_job_placement: placement,
    other_job_shares_fault: shares,
    operations,
    completed_ok: ok,
    completed_error: errors,
    hung: o1.hung + o2.hung,
    leaked_contexts: leaked,
    other_jobs_ok: shares ? revoked2 && o2.hung === 0 && o2.mismatches.length === 0 : !revoked2 && o2.errors === 0 && o2.hung === 0 && o2.correct === iterations && o2.mismatches.length === 0,
    leaked_grants: leakedGrants,
    new_job: newJob.outcome,
    new_job_detail: newJob.detail,
    fault_cycle: faultAt,
    detected_cycle: detected,
    max_completion_after_detection_cycles: maxAfter,
    bound_cycles: faultBound(fabric),
    affected_results_ok: o1.mismatches.length === 0,
    result_sha256: w.result_sha256,
  };
}

/** The scenario's verdict: the reasons it failed (empty when recovery was correct). */
export function faultReportProblems(r: FaultReport): string[] {
  const out: string[] = [];
  if (r.hung > 0) out.push(`${r.hung} calls hung`);
  if (r.leaked_contexts > 0) out.push(`${r.leaked_contexts} AN contexts/quota leaked`);
  if (r.leaked_grants > 0) out.push(`the AM still grants ${r.leaked_grants} contexts to revoked jobs`);
  if (!r.other_jobs_ok) out.push(r.other_job_shares_fault ? 'the other job shares the failed part but was not cleanly revoked' : 'the other job did not complete correctly');
  if (!r.affected_results_ok) out.push('a result of the affected job differs from the golden model');
  if (r.max_completion_after_detection_cycles > r.bound_cycles) out.push(`an error completion took ${r.max_completion_after_detection_cycles} cycles after detection (bound ${r.bound_cycles})`);
  if (r.new_job === 'hung' || r.new_job === 'wrong') out.push(`the job started after recovery: ${r.new_job}: ${r.new_job_detail}`);
  return out;
}

/** Does the group's sub-tree use the link between nodes a and b (an AN and one of its children)? */
function usesLink(plan: GroupPlan, a: number, b: number): boolean {
  for (const [an, role] of plan.ans) if ((an === a && role.children.includes(b)) || (an === b && role.children.includes(a))) return true;
  return false;
}

/**
 * After recovery: a new job (job 3) on the given hosts asks for the given tree and runs two
 * allreduces. It must complete with golden results or be refused with a GroupError; a hang (no
 * completion within 2 ms of simulated time) or a wrong result is a failure.
 */
function startNewJob(fabric: Fabric, members: number[], tree: number, seed: number): { outcome: FaultReport['new_job']; detail: string } {
  let w: Workload;
  try {
    w = new Workload(fabric, [{ job: 3, group: 1, tree, members, op: 'sum', type: 'f32', bytes: 512, iterations: 2, dist: 'rc+ud', maxOps: 4 }], { dataSeed: seed + 3 });
  } catch (e) {
    if (e instanceof GroupError) return { outcome: 'refused', detail: e.message };
    throw e;
  }
  try {
    fabric.sim.runUntil(() => w.finished(), fabric.cycles(2_000_000));
  } catch (e) {
    if (!(e instanceof SimulationLimitError)) throw e;
    w.verify();
    return { outcome: 'hung', detail: `job 3 on tree ${w.outcomes[0]!.plan.tree}: ${w.outcomes[0]!.hung} calls never completed` };
  }
  w.verify();
  const o = w.outcomes[0]!;
  const detail = `job 3 on tree ${o.plan.tree} (root ${fabric.topo.nodes[o.plan.root]!.name})`;
  return o.correct === 2 && o.errors === 0 ? { outcome: 'completed', detail } : { outcome: 'wrong', detail: `${detail}: ${o.correct}/2 golden, ${o.errors} errors` };
}

/** Detection to completion: one management latency to the hosts plus the library's poll, with slack. */
export function faultBound(fabric: Fabric): number {
  return fabric.cycles(fabric.timing.mgmtNs + fabric.timing.hostSwNs + 1000);
}
