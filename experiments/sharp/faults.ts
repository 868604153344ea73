/**
 * Fault scenarios (seed 000 section III-E): two jobs share the default 128-host fabric (their
 * hosts interleaved on every leaf switch, so they share every leaf AN); job 1 runs on tree 0
 * (rooted at spine 0), job 2 on tree 1 (spine 1). A fault that hits job 1 is injected at a random
 * time while both run pipelined allreduces. Then:
 * - every member of job 1 must complete every outstanding call (with success or an error) within
 *   a bounded time after the fault is detected;
 * - no AN holds a context or quota of either job after recovery;
 * - job 2 keeps producing correct results.
 * No timeouts exist anywhere in the model: detection is by the events of the seed.
 */
import { Rng } from '../../rtl/kernel/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { Workload } from './workload.ts';

export const FAULT_SCENARIOS = ['link-down', 'an-failure', 'host-failure', 'corrupt-packet'] as const;
export type FaultScenario = (typeof FAULT_SCENARIOS)[number];

export interface FaultReport {
  scenario: FaultScenario;
  seed: number;
  /** calls made by both jobs */
  operations: number;
  completed_ok: number;
  completed_error: number;
  /** calls that never completed */
  hung: number;
  /** AN contexts still held, plus quota still charged, after recovery */
  leaked_contexts: number;
  /** job 2 completed every call, each equal to the golden model */
  other_jobs_ok: boolean;
  /** cycle the fault was injected and when the AM learned of it */
  fault_cycle: number;
  detected_cycle: number;
  /** longest time from detection to an affected member's completion, and the bound checked */
  max_completion_after_detection_cycles: number;
  bound_cycles: number;
  /** results of job 1 that did complete successfully all equal the golden model */
  affected_results_ok: boolean;
}

export function runFaultScenario(scenario: FaultScenario, seed: number): FaultReport {
  const fabric = new Fabric({ hosts: 128 });
  const topo = fabric.topo;
  const rng = new Rng(seed);
  const job1 = topo.hosts.filter((h) => h % 2 === 0);
  const job2 = topo.hosts.filter((h) => h % 2 === 1);
  const iterations = 12;
  const w = new Workload(
    fabric,
    [
      { job: 1, group: 1, tree: 0, members: job1, op: 'sum', type: 'f32', bytes: 1024, iterations, dist: 'rc', maxOps: 4 },
      { job: 2, group: 1, tree: 1, members: job2, op: 'sum', type: 'f32', bytes: 1024, iterations, dist: 'rc', maxOps: 4 },
    ],
    { dataSeed: seed, skewSeed: seed ^ 0x5eed, skewMaxNs: 300 },
  );
  const sim = fabric.sim;
  const start = sim.cycle;
  // the fault lands somewhere in the first half of the run
  const faultAt = start + rng.range(fabric.cycles(500), fabric.cycles(25_000));
  sim.step(faultAt - sim.cycle);
  const root1 = w.outcomes[0]!.plan.root;
  switch (scenario) {
    case 'link-down': {
      // a link of job 1's tree: a leaf switch to tree 0's root spine
      const leaves = [...w.outcomes[0]!.plan.ans.keys()].filter((a) => a !== root1);
      const leaf = leaves[rng.int(leaves.length)]!;
      fabric.linkDown(leaf, root1);
      break;
    }
    case 'an-failure':
      fabric.anFailure(root1);
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
    sim.runUntil(() => w.finished(), fabric.cycles(2_000_000));
  } catch {
    // a hang: counted below
  }
  sim.step(fabric.cycles(20_000));
  w.verify();
  const am = fabric.am;
  const rec = am.jobs.get(1)!;
  const detected = rec.revokedAt;
  let maxAfter = 0;
  for (const d of w.outcomes[0]!.done) for (const c of d) if (c.status !== 0 && detected >= 0) maxAfter = Math.max(maxAfter, c.done - detected);
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
  const operations = w.outcomes.reduce((a, o) => a + o.done.reduce((b, d) => b + d.length, 0) + o.hung, 0);
  const errors = o1.errors + o2.errors;
  const ok = w.outcomes.reduce((a, o) => a + o.done.reduce((b, d) => b + d.filter((c) => c.status === 0).length, 0), 0);
  return {
    scenario,
    seed,
    operations,
    completed_ok: ok,
    completed_error: errors,
    hung: o1.hung + o2.hung,
    leaked_contexts: leaked,
    other_jobs_ok: o2.errors === 0 && o2.hung === 0 && o2.correct === iterations && o2.mismatches.length === 0,
    fault_cycle: faultAt,
    detected_cycle: detected,
    max_completion_after_detection_cycles: maxAfter,
    bound_cycles: faultBound(fabric),
    affected_results_ok: o1.mismatches.length === 0,
  };
}

/** Detection to completion: one management latency to the hosts plus the library's poll, with slack. */
export function faultBound(fabric: Fabric): number {
  return fabric.cycles(fabric.timing.mgmtNs + fabric.timing.hostSwNs + 1000);
}
