/**
 * Multi-job, multi-group workloads on a SHArP fabric: every member of every group runs a tight
 * loop of collectives (each call as soon as the previous completes, plus a seeded skew), with
 * several operations in flight when messages are fragmented. Every delivered result is checked
 * against the golden model and across members. Used by the jobs, quota and fault scenarios.
 */
import { goldenTreeReduce } from '../../models/sharp/golden.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { seedIdOf } from '../../rtl/sharp/an.ts';
import { type DataType, elementBytes, type Op } from '../../rtl/sharp/alu/types.ts';
import type { Fabric } from '../../rtl/sharp/fabric.ts';
import type { Completion } from '../../rtl/sharp/host.ts';
import type { DistMode } from '../../rtl/sharp/packet/index.ts';
import type { GroupPlan } from '../../rtl/sharp/trees.ts';
import { bytesEqual, randomPayload } from './scenario.ts';

export interface GroupSpec {
  job: number;
  group: number;
  tree: number;
  members: number[];
  op: Op;
  type: DataType;
  bytes: number;
  iterations: number;
  dist: DistMode;
  maxOps?: number;
}

export interface GroupOutcome {
  spec: GroupSpec;
  plan: GroupPlan;
  /** per member (rank order): completions in call order */
  done: Completion[][];
  /** iterations whose results every member got, equal to the golden model */
  correct: number;
  /** completions with an error status */
  errors: number;
  /** calls that never completed */
  hung: number;
  mismatches: string[];
  latency_us: number;
}

export interface WorkloadOptions {
  dataSeed?: number;
  skewSeed?: number;
  skewMaxNs?: number;
}

export class Workload {
  readonly outcomes: GroupOutcome[] = [];
  private readonly operands: Map<number, Uint8Array>[][] = [];
  private readonly fabric: Fabric;

  constructor(fabric: Fabric, readonly groups: GroupSpec[], opts: WorkloadOptions = {}) {
    this.fabric = fabric;
    const dataRng = new Rng(opts.dataSeed ?? 11);
    const skewRng = new Rng(opts.skewSeed ?? 1);
    const skewMax = fabric.cycles(opts.skewMaxNs ?? 0);
    for (const g of groups) {
      const plan = fabric.am.createGroup(g.job, g.group, g.tree, g.members, { maxOps: g.maxOps ?? 8 });
      const elem = elementBytes(g.type, g.op, 'i32');
      if (g.bytes % elem !== 0) throw new RangeError(`group ${g.job}/${g.group}: ${g.bytes} bytes is not a multiple of the element size ${elem}`);
      const count = g.bytes / elem;
      const ops: Map<number, Uint8Array>[] = [];
      for (let i = 0; i < g.iterations; i++) {
        const m = new Map<number, Uint8Array>();
        for (const h of plan.members) m.set(h, randomPayload(dataRng, g.type, g.op, count));
        ops.push(m);
      }
      this.operands.push(ops);
      this.outcomes.push({ spec: g, plan, done: plan.members.map(() => []), correct: 0, errors: 0, hung: 0, mismatches: [], latency_us: 0 });
    }
    fabric.settle();
    const sim = fabric.sim;
    this.outcomes.forEach((o, gi) => {
      const g = o.spec;
      const count = g.bytes / elementBytes(g.type, g.op, 'i32');
      o.plan.members.forEach((h, rank) => {
        const host = fabric.hosts[h]!;
        const call = (i: number, at: number): void => {
          const skew = skewMax > 0 ? skewRng.int(skewMax + 1) : 0;
          host.call(at + skew, { job: g.job, group: g.group, op: g.op, type: g.type, count, data: this.operands[gi]![i]!.get(h)!, dist: g.dist, targetKind: 'all' }, (c) => {
            o.done[rank]!.push(c);
            if (i + 1 < g.iterations && c.status === 0) call(i + 1, c.done);
          });
        };
        call(0, sim.cycle);
      });
    });
  }

  /** Every live member of the given jobs (default all) finished its calls, or stopped at an error. */
  finished(jobs?: readonly number[]): boolean {
    return this.outcomes.every(
      (o) =>
        (jobs !== undefined && !jobs.includes(o.spec.job)) ||
        o.done.every((d, rank) => d.length === o.spec.iterations || (d.length > 0 && d[d.length - 1]!.status !== 0) || !this.fabric.hosts[o.plan.members[rank]!]!.alive),
    );
  }

  /** Check every completed iteration against the golden model; count errors and hung calls. */
  verify(): void {
    const order = this.fabric.ans.values().next().value!.alu.params.order;
    this.outcomes.forEach((o, gi) => {
      const g = o.spec;
      const elem = elementBytes(g.type, g.op, 'i32');
      const count = g.bytes / elem;
      const perFrag = Math.max(1, Math.floor(256 / elem));
      const frags = count === 0 ? 1 : Math.ceil(count / perFrag);
      const shape = { root: o.plan.root, children: new Map([...o.plan.ans].map(([k, v]) => [k, v.children])) };
      o.correct = 0;
      o.errors = 0;
      o.hung = 0;
      o.mismatches = [];
      let latSum = 0;
      let latN = 0;
      for (const [rank, d] of o.done.entries()) {
        if (!this.fabric.hosts[o.plan.members[rank]!]!.alive) continue; // a dead process's calls died with it
        for (const c of d) {
          if (c.status !== 0) o.errors++;
          else {
            latSum += c.done - c.called;
            latN++;
          }
        }
        const stopped = d.length > 0 && d[d.length - 1]!.status !== 0;
        if (!stopped) o.hung += g.iterations - d.length;
      }
      o.latency_us = latN ? this.fabric.sim.cyclesToUs(latSum / latN) : 0;
      for (let i = 0; i < g.iterations; i++) {
        const got = o.done.map((d) => d[i]);
        if (got.some((c) => !c || c.status !== 0)) continue;
        const expected = new Uint8Array(count * elem);
        let seq = 1 + i * frags;
        for (let f = 0; f < frags; f++, seq++) {
          const first = f * perFrag;
          const n = count === 0 ? 0 : Math.min(perFrag, count - first);
          const ops = new Map<number, Uint8Array>();
          for (const h of o.plan.members) ops.set(h, this.operands[gi]![i]!.get(h)!.subarray(first * elem, (first + n) * elem));
          const r = goldenTreeReduce(shape, { type: g.type, op: g.op, count: n, order, operationId: seedIdOf(g.job, o.plan.tree, g.group, seq) }, ops);
          expected.set(r.data, first * elem);
        }
        if (got.every((c) => bytesEqual(c!.data, expected))) o.correct++;
        else o.mismatches.push(`job ${g.job} group ${g.group} iteration ${i}: a member's result differs from the golden model`);
      }
    });
  }
}
