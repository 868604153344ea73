/**
 * Soak entries for the SHArP fabric (the paper's 128-host fabric, rtl/sharp/):
 * - sharp-allreduce-{rc,ud,rc+ud}: 128 hosts in an endless 8-byte allreduce loop with 500 ns of
 *   host skew, every result checked against the golden tree fold (experiments/sharp/scenario.ts);
 * - sharp-jobs: the default `sharp jobs` layout (3 jobs, 6 groups on 6 trees, mixed sizes and
 *   distributions) with endless loops (experiments/sharp/jobs.ts, workload.ts);
 * - sharp-faults: a job on the even hosts is hit by a corrupted packet (the one fault that leaves
 *   the hardware intact, so it can repeat), must fail on every member within the bound, leaves no
 *   quota at any aggregation node, is ended, and new work (the next job) starts on the same hosts;
 *   meanwhile a job on the odd hosts runs without a break and must stay correct.
 */
import { Rng } from '../../../rtl/kernel/index.ts';
import { Fabric } from '../../../rtl/sharp/fabric.ts';
import type { DistMode } from '../../../rtl/sharp/packet/index.ts';
import { faultBound } from '../../../experiments/sharp/faults.ts';
import { jobSpecs } from '../../../experiments/sharp/jobs.ts';
import { AllreduceLoop } from '../../../experiments/sharp/scenario.ts';
import { type GroupOutcome, Workload } from '../../../experiments/sharp/workload.ts';
import { type SoakBlock, type SoakRun, steppedRun } from '../block.ts';

function allreduce(dist: DistMode): SoakBlock {
  return {
    name: `sharp-allreduce-${dist}`,
    what: `128-host 8 B f32 allreduce loop, ${dist} distribution, 500 ns host skew, golden-checked`,
    start(seed) {
      const fabric = new Fabric({ hosts: 128 });
      const loop = new AllreduceLoop(fabric, { fabric, hosts: 128, bytes: 8, dist, iterations: Infinity, skewSeed: seed, skewMaxNs: 500, dataSeed: seed + 6 });
      let last = 0;
      return steppedRun(fabric.sim, {
        check() {
          const out = loop.mismatches.map((m) => `golden model: ${m}`);
          if (loop.iterationsDone <= last) out.push(`no allreduce completed since the last sample (${loop.iterationsDone} in all)`);
          if (loop.held > 4) out.push(`the driver holds ${loop.held} iterations (expected at most 4 in flight)`);
          last = loop.iterationsDone;
          return out;
        },
        summary() {
          return `${loop.iterationsDone.toLocaleString('en-US')} allreduces completed on every host, ${loop.mismatchCount} mismatches`;
        },
      });
    },
  };
}

/** Problems of one workload group so far: wrong results, failed calls. */
function groupProblems(o: GroupOutcome, failuresExpected: boolean): string[] {
  const out = o.mismatches.map((m) => `golden model: ${m}`);
  if (!failuresExpected) {
    const failed = o.ranks.filter((t) => t.errors > 0).length;
    if (failed > 0) out.push(`job ${o.spec.job} group ${o.spec.group}: ${failed} members had failed calls`);
  }
  return out;
}

const jobs: SoakBlock = {
  name: 'sharp-jobs',
  what: 'sharp jobs layout (3 jobs, 6 overlapping groups, 8 B..2 KiB, rc/ud/rc+ud), endless loops with 20 us compute between calls',
  start(seed) {
    const fabric = new Fabric({ hosts: 128 });
    const w = new Workload(fabric, jobSpecs(fabric, 3, seed, Infinity), { dataSeed: seed, skewSeed: seed + 1, skewMaxNs: 400, computeNs: 20_000, dataStreams: 'forked' });
    let last: number[] = w.outcomes.map(() => 0);
    return steppedRun(fabric.sim, {
      check() {
        const out = w.outcomes.flatMap((o) => groupProblems(o, false));
        w.outcomes.forEach((o, i) => {
          if (o.correct <= last[i]!) out.push(`job ${o.spec.job} group ${o.spec.group}: no iteration completed since the last sample`);
        });
        if (w.held > 4 * w.outcomes.length) out.push(`the driver holds ${w.held} iterations for ${w.outcomes.length} groups`);
        last = w.outcomes.map((o) => o.correct);
        return out;
      },
      summary() {
        return `${w.outcomes.reduce((a, o) => a + o.correct, 0).toLocaleString('en-US')} group allreduces correct on every member, ${w.outcomes.reduce((a, o) => a + o.mismatchCount, 0)} mismatches`;
      },
    });
  },
};

/**
 * Phases of one fault epoch, as one explicit state machine:
 * RUNNING (job A and job B loop) -> at the fault time: corrupt job A's next request -> RECOVERING
 * (until every member of A has stopped at an error) -> DRAINING (in-flight packets and revocations
 * settle) -> end job A, check no AN holds quota for it, start the next job on A's hosts -> RUNNING.
 */
type FaultPhase = 'RUNNING' | 'RECOVERING' | 'DRAINING';

const faults: SoakBlock = {
  name: 'sharp-faults',
  what: 'corrupted-packet faults on one job, recovery, cleanup and a new job, over and over, while another job runs on (256 B, 5 us compute between calls)',
  start(seed) {
    const fabric = new Fabric({ hosts: 128 });
    const sim = fabric.sim;
    const rng = new Rng(seed);
    const even = fabric.topo.hosts.filter((h) => h % 2 === 0);
    const odd = fabric.topo.hosts.filter((h) => h % 2 === 1);
    const spec = { group: 1, op: 'sum', type: 'f32', bytes: 256, iterations: Infinity, dist: 'rc', maxOps: 4 } as const;
    const pace = { skewMaxNs: 300, computeNs: 5_000 };
    const steady = new Workload(fabric, [{ ...spec, job: 1, tree: 1, members: odd }], { dataSeed: seed, skewSeed: seed + 1, ...pace });
    const bound = faultBound(fabric);
    const problems: string[] = [];
    let epochs = 0;
    let faulted: Workload | null = null;
    let job = 0;
    let phase: FaultPhase = 'RUNNING';
    let faultAt = 0;
    let drainUntil = 0;
    let errorsSeen = 0;
    const startJob = (): void => {
      job = 2 + (epochs % 8); // job ids are reused, as a resource manager does
      faulted = new Workload(fabric, [{ ...spec, job, tree: 0, members: even }], { dataSeed: seed + epochs, skewSeed: seed ^ epochs, ...pace });
      faultAt = sim.cycle + rng.range(fabric.cycles(2_000), fabric.cycles(30_000));
      phase = 'RUNNING';
    };
    startJob();
    const advance = (to: number): void => {
      switch (phase) {
        case 'RUNNING': {
          if (sim.cycle < faultAt) return sim.step(Math.min(to, faultAt) - sim.cycle);
          const victim = fabric.hosts[even[rng.int(even.length)]!]!;
          const byte = rng.int(36);
          const bit = rng.int(8);
          victim.corruptNext((b) => {
            b[byte % b.length]! ^= 1 << bit;
          });
          phase = 'RECOVERING';
          return;
        }
        case 'RECOVERING': {
          if (!faulted!.finished([job])) return sim.step(Math.min(to - sim.cycle, 500));
          const o = faulted!.outcomes[0]!;
          const detected = fabric.am.jobs.get(job)!.revokedAt;
          const lastError = Math.max(...o.ranks.map((t) => t.lastErrorDone));
          if (detected < 0) problems.push(`epoch ${epochs}: job ${job} stopped but the AM never revoked it`);
          else if (lastError - detected > bound) problems.push(`epoch ${epochs}: a member of job ${job} completed ${lastError - detected} cycles after detection (bound ${bound})`);
          problems.push(...groupProblems(o, true).map((p) => `epoch ${epochs}: ${p}`));
          errorsSeen += o.ranks.reduce((a, t) => a + t.errors, 0);
          drainUntil = sim.cycle + fabric.cycles(20_000);
          phase = 'DRAINING';
          return;
        }
        case 'DRAINING': {
          if (sim.cycle < drainUntil) return sim.step(Math.min(to, drainUntil) - sim.cycle);
          for (const an of fabric.ans.values()) {
            const u = an.quotaUse(job);
            if (u.ops !== 0 || u.bytes !== 0) problems.push(`epoch ${epochs}: AN ${an.path} still charges job ${job} ${u.ops} operations, ${u.bytes} bytes`);
          }
          fabric.am.endJob(job);
          epochs++;
          startJob();
          return;
        }
      }
    };
    let lastEpochs = 0;
    let lastEpochCycle = 0;
    let lastSteady = 0;
    const run: SoakRun = {
      get cycle() {
        return sim.cycle;
      },
      runTo(to) {
        while (sim.cycle < to) advance(to);
      },
      check() {
        const out = problems.splice(0, problems.length);
        out.push(...groupProblems(steady.outcomes[0]!, false));
        const s = steady.outcomes[0]!.correct;
        if (s <= lastSteady) out.push('the steady job completed nothing since the last sample');
        if (epochs > lastEpochs) lastEpochCycle = sim.cycle;
        else if (sim.cycle - lastEpochCycle > fabric.cycles(1_000_000)) out.push(`no fault epoch finished in the last ${sim.cycle - lastEpochCycle} cycles (phase ${phase})`);
        lastSteady = s;
        lastEpochs = epochs;
        return out;
      },
      summary() {
        return `${epochs} fault epochs (${errorsSeen.toLocaleString('en-US')} failed calls, all within the bound); steady job ${steady.outcomes[0]!.correct.toLocaleString('en-US')} allreduces correct`;
      },
    };
    return run;
  },
};

export const blocks: SoakBlock[] = [allreduce('rc'), allreduce('ud'), allreduce('rc+ud'), jobs, faults];
