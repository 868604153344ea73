/**
 * Multi-job, multi-group workloads on a SHArP fabric: every member of every group runs a tight
 * loop of collectives (each call as soon as the previous completes, plus a seeded skew), with
 * several operations in flight when messages are fragmented. Every delivered result is checked
 * against the golden model and across members as it arrives. Used by the jobs, quota and fault
 * scenarios and the soak benchmark.
 *
 * Memory does not grow with the number of iterations: an iteration's operands are drawn when its
 * first call is made and dropped, with its golden result, once every member has reported it; what
 * is kept per member is a handful of counters. Whoever wants each completion takes it from the
 * opt-in `onCompletion` callback.
 */
import { createHash, type Hash } from 'node:crypto';
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
  /** calls per member (Infinity: until the simulation stops; needs `dataStreams: 'forked'` with several groups) */
  iterations: number;
  dist: DistMode;
  maxOps?: number;
}

/** What a workload keeps about one member: counters, never the completions themselves. */
export interface RankTally {
  completed: number;
  ok: number;
  errors: number;
  /** sum of call-to-completion cycles of the successful calls */
  latencySum: number;
  /** status of the last completion (0 before the first) */
  lastStatus: number;
  /** latest completion cycle of a call that failed (-1: none) */
  lastErrorDone: number;
}

export interface GroupOutcome {
  spec: GroupSpec;
  plan: GroupPlan;
  /** per member (rank order) */
  ranks: RankTally[];
  /** iterations whose results every member got, equal to the golden model */
  correct: number;
  /** completions with an error status (members alive at `verify`) */
  errors: number;
  /** calls that never completed (members alive at `verify`) */
  hung: number;
  /** the first ten mismatches (of `mismatchCount`) */
  mismatches: string[];
  mismatchCount: number;
  latency_us: number;
}

export interface WorkloadOptions {
  dataSeed?: number;
  skewSeed?: number;
  skewMaxNs?: number;
  /** application compute time between a completion and the member's next call (default 0: a tight loop) */
  computeNs?: number;
  /**
   * 'sequential' (default): one operand stream, all of group 0's iterations, then group 1's...
   * (what the fixed-length scenarios always drew; groups after the first start from a bookmark,
   * found by drawing the earlier groups' operands once and dropping them). 'forked': each group
   * its own fork of the data seed, for unbounded loops.
   */
  dataStreams?: 'sequential' | 'forked';
  /** opt-in: every completion, as it happens (group index, member rank, iteration) */
  onCompletion?: (group: number, rank: number, iteration: number, c: Completion) => void;
}

/** one iteration of one group in flight */
interface Pending {
  operands: Uint8Array[]; // by rank
  expected: Uint8Array | null;
  reported: number;
  allOk: boolean;
  differs: boolean;
  first: Uint8Array | null; // rank 0's result
}

interface GroupState {
  outcome: GroupOutcome;
  rng: Rng;
  drawn: number;
  pending: Map<number, Pending>;
  hash: Hash;
  count: number;
  elem: number;
}

export class Workload {
  readonly outcomes: GroupOutcome[] = [];
  private readonly states: GroupState[] = [];
  private readonly fabric: Fabric;

  constructor(fabric: Fabric, readonly groups: GroupSpec[], private readonly opts: WorkloadOptions = {}) {
    this.fabric = fabric;
    const dataRng = new Rng(opts.dataSeed ?? 11);
    const forked = opts.dataStreams === 'forked';
    const skewRng = new Rng(opts.skewSeed ?? 1);
    const skewMax = fabric.cycles(opts.skewMaxNs ?? 0);
    const compute = fabric.cycles(opts.computeNs ?? 0);
    groups.forEach((g, gi) => {
      const plan = fabric.am.createGroup(g.job, g.group, g.tree, g.members, { maxOps: g.maxOps ?? 8 });
      const elem = elementBytes(g.type, g.op, 'i32');
      if (g.bytes % elem !== 0) throw new RangeError(`group ${g.job}/${g.group}: ${g.bytes} bytes is not a multiple of the element size ${elem}`);
      if (!(g.iterations >= 1) || (!Number.isInteger(g.iterations) && g.iterations !== Infinity)) throw new RangeError(`group ${g.job}/${g.group}: iterations must be a positive integer or Infinity, got ${g.iterations}`);
      const count = g.bytes / elem;
      let rng: Rng;
      if (forked) rng = dataRng.fork(gi);
      else {
        if (g.iterations === Infinity && gi < groups.length - 1) throw new RangeError(`group ${g.job}/${g.group}: unbounded iterations with a group after it need dataStreams 'forked'`);
        rng = dataRng.clone();
        // move the shared stream past this group's operands (drawn and dropped: nothing is kept)
        if (gi < groups.length - 1) for (let i = 0; i < g.iterations; i++) for (let r = 0; r < plan.members.length; r++) randomPayload(dataRng, g.type, g.op, count);
      }
      const outcome: GroupOutcome = {
        spec: g, plan, ranks: plan.members.map(() => ({ completed: 0, ok: 0, errors: 0, latencySum: 0, lastStatus: 0, lastErrorDone: -1 })),
        correct: 0, errors: 0, hung: 0, mismatches: [], mismatchCount: 0, latency_us: 0,
      };
      this.outcomes.push(outcome);
      this.states.push({ outcome, rng, drawn: 0, pending: new Map(), hash: createHash('sha256'), count, elem });
    });
    fabric.settle();
    const sim = fabric.sim;
    this.states.forEach((s, gi) => {
      const g = s.outcome.spec;
      s.outcome.plan.members.forEach((h, rank) => {
        const host = fabric.hosts[h]!;
        const call = (i: number, at: number): void => {
          const skew = skewMax > 0 ? skewRng.int(skewMax + 1) : 0;
          host.call(at + skew, { job: g.job, group: g.group, op: g.op, type: g.type, count: s.count, data: this.pendingOf(s, i).operands[rank]!, dist: g.dist, targetKind: 'all' }, (c) => {
            this.completed(gi, s, rank, i, c);
            if (i + 1 < g.iterations && c.status === 0) call(i + 1, c.done + compute);
          });
        };
        call(0, sim.cycle);
      });
    });
  }

  /** Iteration i of a group: its operands are drawn (in iteration order) when it is first called. */
  private pendingOf(s: GroupState, i: number): Pending {
    const n = s.outcome.plan.members.length;
    while (s.drawn <= i) {
      const operands: Uint8Array[] = [];
      for (let r = 0; r < n; r++) operands.push(randomPayload(s.rng, s.outcome.spec.type, s.outcome.spec.op, s.count));
      s.pending.set(s.drawn++, { operands, expected: null, reported: 0, allOk: true, differs: false, first: null });
    }
    return s.pending.get(i)!;
  }

  private completed(gi: number, s: GroupState, rank: number, i: number, c: Completion): void {
    const o = s.outcome;
    const t = o.ranks[rank]!;
    t.completed++;
    t.lastStatus = c.status;
    if (c.status !== 0) {
      t.errors++;
      t.lastErrorDone = Math.max(t.lastErrorDone, c.done);
    } else {
      t.ok++;
      t.latencySum += c.done - c.called;
    }
    this.opts.onCompletion?.(gi, rank, i, c);
    const p = s.pending.get(i)!;
    if (rank === 0) p.first = c.data;
    if (c.status !== 0) p.allOk = false;
    else if (p.allOk) {
      p.expected ??= this.golden(s, i, p);
      if (!bytesEqual(c.data, p.expected)) p.differs = true;
    }
    if (++p.reported < o.plan.members.length) return;
    // every member has this iteration: judge it, hash it, forget it
    s.pending.delete(i);
    if (!p.allOk) return;
    if (p.differs) {
      o.mismatchCount++;
      if (o.mismatches.length < 10) o.mismatches.push(`job ${o.spec.job} group ${o.spec.group} iteration ${i}: a member's result differs from the golden model`);
    } else o.correct++;
    const idx = new Uint8Array(4);
    new DataView(idx.buffer).setUint32(0, i, true);
    s.hash.update(idx);
    s.hash.update(p.first!);
  }

  /** The golden result of iteration i: the nested fixed-order fold along the group's tree, per fragment. */
  private golden(s: GroupState, i: number, p: Pending): Uint8Array {
    const o = s.outcome;
    const g = o.spec;
    const { count, elem } = s;
    const order = this.fabric.ans.values().next().value!.alu.params.order;
    const perFrag = Math.max(1, Math.floor(256 / elem));
    const frags = count === 0 ? 1 : Math.ceil(count / perFrag);
    const shape = { root: o.plan.root, children: new Map([...o.plan.ans].map(([k, v]) => [k, v.children])) };
    const expected = new Uint8Array(count * elem);
    let seq = 1 + i * frags;
    for (let f = 0; f < frags; f++, seq++) {
      const first = f * perFrag;
      const n = count === 0 ? 0 : Math.min(perFrag, count - first);
      const ops = new Map<number, Uint8Array>();
      o.plan.members.forEach((h, rank) => ops.set(h, p.operands[rank]!.subarray(first * elem, (first + n) * elem)));
      const r = goldenTreeReduce(shape, { type: g.type, op: g.op, count: n, order, operationId: seedIdOf(g.job, o.plan.tree, g.group, seq) }, ops);
      expected.set(r.data, first * elem);
    }
    return expected;
  }

  /** Calls completed so far over every member of every group (progress of long runs; not per cycle). */
  callsCompleted(): number {
    let n = 0;
    for (const o of this.outcomes) for (const t of o.ranks) n += t.completed;
    return n;
  }

  /** Calls the workload makes in all (members x iterations over every group; Infinity for an endless group). */
  callsTotal(): number {
    let n = 0;
    for (const o of this.outcomes) n += o.ranks.length * o.spec.iterations;
    return n;
  }

  /** Every live member of the given jobs (default all) finished its calls, or stopped at an error. */
  finished(jobs?: readonly number[]): boolean {
    return this.outcomes.every(
      (o) =>
        (jobs !== undefined && !jobs.includes(o.spec.job)) ||
        o.ranks.every((t, rank) => t.completed === o.spec.iterations || t.lastStatus !== 0 || !this.fabric.hosts[o.plan.members[rank]!]!.alive),
    );
  }

  /** Iterations held in flight (operands drawn, not every member reported) over all groups. */
  get held(): number {
    return this.states.reduce((a, s) => a + s.pending.size, 0);
  }

  /**
   * Sum up: errors, hung calls and latency over the members still alive (a dead process's calls
   * died with it). Results were checked as they arrived; this only counts.
   */
  verify(): void {
    for (const s of this.states) {
      const o = s.outcome;
      o.errors = 0;
      o.hung = 0;
      let latSum = 0;
      let latN = 0;
      o.ranks.forEach((t, rank) => {
        if (!this.fabric.hosts[o.plan.members[rank]!]!.alive) return;
        o.errors += t.errors;
        latSum += t.latencySum;
        latN += t.ok;
        if (t.lastStatus === 0) o.hung += o.spec.iterations - t.completed;
      });
      o.latency_us = latN ? this.fabric.sim.cyclesToUs(latSum / latN) : 0;
    }
  }

  /**
   * SHA-256 over the groups' result hashes, in group order; a group's hash covers (iteration as a
   * 32-bit little-endian number, result) of every iteration every member completed successfully.
   */
  get result_sha256(): string {
    const all = createHash('sha256');
    for (const s of this.states) all.update(s.hash.copy().digest());
    return all.digest('hex');
  }
}
