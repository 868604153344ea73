/**
 * SHArP scenarios: drivers that set up jobs and groups through the Aggregation Manager, make the
 * hosts call collectives, and check every delivered result against the golden model (the nested
 * fixed-order fold along the group's actual tree). Used by the tests, the CLI and the benchmarks.
 */
import { createHash } from 'node:crypto';
import { goldenTreeReduce } from '../../models/sharp/golden.ts';
import { fileSink, Rng, vcdWithSaveFile, WaveDromTracer } from '../../rtl/kernel/index.ts';
import { seedIdOf } from '../../rtl/sharp/an.ts';
import { type DataType, elementBytes, type IndexType, isFloat, type Op, type Rounding, TYPE_BYTES } from '../../rtl/sharp/alu/types.ts';
import { Fabric, type FabricConfig } from '../../rtl/sharp/fabric.ts';
import { runUntilReporting } from '../run-reporting.ts';
import type { Completion } from '../../rtl/sharp/host.ts';
import type { DistMode } from '../../rtl/sharp/packet/index.ts';
import type { GroupPlan } from '../../rtl/sharp/trees.ts';

/** `n` members spread evenly over the leaf switches (the paper: "equally distributed across eight leaf switches"). */
export function spreadMembers(fabric: Fabric, n: number): number[] {
  const byLeaf = new Map<number, number[]>();
  for (const h of fabric.topo.hosts) {
    const l = fabric.topo.leafOf[h]!;
    if (!byLeaf.has(l)) byLeaf.set(l, []);
    byLeaf.get(l)!.push(h);
  }
  const leaves = [...byLeaf.keys()].sort((a, b) => a - b);
  const out: number[] = [];
  for (let round = 0; out.length < n; round++) {
    let added = false;
    for (const l of leaves) {
      const hs = byLeaf.get(l)!;
      if (round < hs.length && out.length < n) {
        out.push(hs[round]!);
        added = true;
      }
    }
    if (!added) throw new RangeError(`the fabric has only ${fabric.topo.hosts.length} hosts, asked for ${n}`);
  }
  return out.sort((a, b) => a - b);
}

/** Random operand payload for `count` elements of `type` (finite, moderately sized floats). */
export function randomPayload(rng: Rng, type: DataType, op: Op, count: number, indexType: IndexType = 'i32'): Uint8Array {
  const elem = elementBytes(type, op, indexType);
  const vb = TYPE_BYTES[type];
  const out = new Uint8Array(count * elem);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < count; i++) {
    const o = i * elem;
    if (isFloat(type)) {
      // sign, exponent near 1.0 (so sums stay finite), random fraction
      if (type === 'f64') {
        dv.setUint32(o + 4, ((rng.u32() & 0x800fffff) | (((1023 - 8 + rng.int(16)) & 0x7ff) << 20)) >>> 0, true);
        dv.setUint32(o, rng.u32(), true);
      } else if (type === 'f32') dv.setUint32(o, ((rng.u32() & 0x807fffff) | ((127 - 8 + rng.int(16)) << 23)) >>> 0, true);
      else if (type === 'f16') dv.setUint16(o, (rng.u32() & 0x83ff) | ((15 - 4 + rng.int(8)) << 10), true);
      else dv.setUint16(o, (rng.u32() & 0x807f) | ((127 - 8 + rng.int(16)) << 7), true);
    } else for (let b = 0; b < vb; b++) out[o + b] = rng.u32() & 0xff;
    if (elem > vb) for (let b = vb; b < elem; b++) out[o + b] = rng.u32() & 0xff;
  }
  return out;
}

export interface AllreduceOptions {
  fabric?: Fabric;
  fabricConfig?: FabricConfig;
  /** group size (members spread evenly over the leaves) */
  hosts: number;
  bytes: number;
  op?: Op;
  type?: DataType;
  rounding?: Rounding;
  dist?: DistMode;
  /** measured iterations (default 10; Infinity for a loop that runs until stopped) and warm-up iterations (default 2) */
  iterations?: number;
  warmup?: number;
  /** host skew: every call is delayed by a random 0..skewMaxNs from this seed (default seed 1, 0 ns) */
  skewSeed?: number;
  skewMaxNs?: number;
  dataSeed?: number;
  job?: number;
  group?: number;
  tree?: number;
  maxOps?: number;
  /** a VCD of the group's aggregation nodes, and its GTKWave save file next to it (rtl/kernel/gtkw.ts) */
  vcd?: string;
  /**
   * WaveDrom JSON of the group's aggregation nodes over cycles from .. to-1 counted from the start
   * of the loop (the fabric has settled by then; the diagram's tick labels are absolute cycles, as in the VCD)
   */
  wavedrom?: { path: string; from: number; to: number };
  /** simulated-cycle cap of the whole loop (default `allreduceDefaultCap`): SimulationLimitError when reached */
  maxCycles?: number;
  /** progress: called as calls complete and between chunks of simulated cycles with (calls completed, calls in the run) */
  onProgress?: (done: number, total: number) => void;
  /** every measured call's latency in cycles (called to done), as it completes: the samples `latency_us` averages */
  onCallLatency?: (cycles: number) => void;
}

export interface AllreduceReport {
  hosts: number;
  bytes: number;
  /** average per-iteration latency over members and measured iterations, microseconds */
  latency_us: number;
  /** simulated cycles of the measured iterations */
  cycles: number;
  ok: boolean;
  /** SHA-256 of the result bytes every host received (all iterations, in order) */
  result_sha256: string;
  /** the first ten mismatches (of `mismatch_count`) */
  mismatches: string[];
  mismatch_count: number;
  plan: GroupPlan;
}

/** one iteration in flight: its operands (drawn when its first call is made), golden result once known, members heard from */
interface IterationInFlight {
  operands: Map<number, Uint8Array>;
  expected: Uint8Array | null;
  reported: number;
}

/**
 * An MPI_Allreduce-style tight loop: every member calls, waits for completion, calls again. The
 * loop keeps only the iterations in flight: operands are drawn when an iteration's first call is
 * made (in iteration order from one seeded stream, so they never depend on the skew), each result
 * is checked against the golden model and across members as it arrives, hashed, and dropped; an
 * iteration is forgotten once every member has its result. Memory does not grow with the number
 * of iterations. The caller steps the fabric's simulator; `finished` says when every call is done.
 */
export class AllreduceLoop {
  readonly plan: GroupPlan;
  readonly members: number[];
  /** member-calls completed, and iterations every member has completed */
  calls = 0;
  iterationsDone = 0;
  mismatchCount = 0;
  readonly mismatches: string[] = [];
  private readonly total: number;
  private readonly warmup: number;
  private readonly inFlight = new Map<number, IterationInFlight>();
  private drawn = 0;
  private latencySum = 0;
  private measuredStart = -1;
  private measuredEnd = -1;
  private readonly hash = createHash('sha256');
  private readonly golden: (i: number) => { data: Uint8Array; problems: string[] };

  constructor(
    readonly fabric: Fabric,
    readonly o: AllreduceOptions,
  ) {
    const sim = fabric.sim;
    const type = o.type ?? 'f32';
    const op = o.op ?? 'sum';
    const elem = elementBytes(type, op, 'i32');
    if (o.bytes % elem !== 0) throw new RangeError(`--bytes ${o.bytes} is not a multiple of the ${type} ${op} element size (${elem})`);
    const count = o.bytes / elem;
    this.warmup = o.warmup ?? 2;
    this.total = (o.iterations ?? 10) + this.warmup;
    const job = o.job ?? 1;
    const group = o.group ?? 1;
    this.members = spreadMembers(fabric, o.hosts);
    const plan = fabric.am.createGroup(job, group, o.tree ?? 0, this.members, { maxOps: o.maxOps ?? 8 });
    this.plan = plan;
    fabric.settle();
    const include = [...plan.ans.keys()].map((id) => fabric.topo.nodes[id]!.name);
    if (o.vcd) vcdWithSaveFile(sim, o.vcd, { include });
    if (o.wavedrom) new WaveDromTracer(sim, fileSink(o.wavedrom.path), { from: sim.cycle + o.wavedrom.from, to: sim.cycle + o.wavedrom.to, include, title: `sharp allreduce: ${o.hosts} hosts, ${o.bytes} B` });
    const dataRng = new Rng(o.dataSeed ?? 7);
    const skewRng = new Rng(o.skewSeed ?? 1);
    const skewMax = fabric.cycles(o.skewMaxNs ?? 0);
    const members = this.members;
    // golden fold per fragment along the group's actual tree
    const shape = { root: plan.root, children: new Map([...plan.ans].map(([k, v]) => [k, v.children])) };
    const perFrag = Math.max(1, Math.floor(256 / elem));
    const frags = count === 0 ? 1 : Math.ceil(count / perFrag);
    const order = fabric.ans.values().next().value!.alu.params.order;
    this.golden = (i) => {
      const it = this.inFlight.get(i)!;
      const problems: string[] = [];
      const expected = new Uint8Array(count * elem);
      for (let f = 0; f < frags; f++) {
        const first = f * perFrag;
        const n = count === 0 ? 0 : Math.min(perFrag, count - first);
        const ops = new Map<number, Uint8Array>();
        for (const h of members) ops.set(h, it.operands.get(h)!.subarray(first * elem, (first + n) * elem));
        const g = goldenTreeReduce(shape, { type, op, rounding: o.rounding, count: n, order, operationId: seedIdOf(job, plan.tree, group, 1 + i * frags + f) }, ops);
        if (g.status !== 0) problems.push(`iteration ${i} fragment ${f}: golden status ${g.status}`);
        expected.set(g.data, first * elem);
      }
      return { data: expected, problems };
    };
    const operandsOf = (i: number): IterationInFlight => {
      while (this.drawn <= i) {
        const m = new Map<number, Uint8Array>();
        for (const h of members) m.set(h, randomPayload(dataRng, type, op, count));
        this.inFlight.set(this.drawn++, { operands: m, expected: null, reported: 0 });
      }
      return this.inFlight.get(i)!;
    };
    const dist = o.dist ?? 'rc';
    members.forEach((h, rank) => {
      const host = fabric.hosts[h]!;
      const callIter = (i: number, at: number): void => {
        const data = operandsOf(i).operands.get(h)!;
        host.call(at + (skewMax > 0 ? skewRng.int(skewMax + 1) : 0), { job, group, op, type, rounding: o.rounding, count, data, dist, targetKind: 'all' }, (c) => {
          this.completed(i, rank, h, c);
          if (i + 1 < this.total) callIter(i + 1, c.done);
        });
      };
      callIter(0, sim.cycle);
    });
  }

  private completed(i: number, rank: number, h: number, c: Completion): void {
    this.calls++;
    this.o.onProgress?.(this.calls, this.members.length * this.total);
    if (rank === 0) this.hash.update(c.data);
    if (i >= this.warmup) {
      this.latencySum += c.done - c.called;
      this.o.onCallLatency?.(c.done - c.called);
      if (i === this.warmup) this.measuredStart = this.measuredStart < 0 ? c.called : Math.min(this.measuredStart, c.called);
      if (i === this.total - 1) this.measuredEnd = Math.max(this.measuredEnd, c.done);
    }
    const it = this.inFlight.get(i)!;
    if (it.expected === null) {
      const g = this.golden(i);
      it.expected = g.data;
      for (const p of g.problems) this.mismatch(p);
    }
    if (c.status !== 0) this.mismatch(`host ${h} iteration ${i}: status ${c.status}`);
    else if (!bytesEqual(c.data, it.expected)) this.mismatch(`host ${h} iteration ${i}: result differs from the golden model`);
    if (++it.reported === this.members.length) {
      this.inFlight.delete(i);
      this.iterationsDone++;
    }
  }

  private mismatch(text: string): void {
    this.mismatchCount++;
    if (this.mismatches.length < 10) this.mismatches.push(text);
  }

  /** Every member completed every iteration. */
  get finished(): boolean {
    return this.calls === this.members.length * this.total;
  }

  /** Iterations whose operands are held (in flight on some member): bounded by the loop's pipelining, not its length. */
  get held(): number {
    return this.inFlight.size;
  }

  report(): AllreduceReport {
    const measured = this.total - this.warmup;
    return {
      hosts: this.members.length,
      bytes: this.o.bytes,
      latency_us: this.fabric.sim.cyclesToUs(this.latencySum / (this.members.length * measured)),
      cycles: this.measuredEnd - this.measuredStart,
      ok: this.mismatchCount === 0,
      result_sha256: this.hash.copy().digest('hex'),
      mismatches: [...this.mismatches],
      mismatch_count: this.mismatchCount,
      plan: this.plan,
    };
  }
}

/** Run an allreduce loop to completion (see `AllreduceLoop`). */
export function runAllreduce(o: AllreduceOptions): AllreduceReport {
  const fabric = o.fabric ?? new Fabric(o.fabricConfig);
  const loop = new AllreduceLoop(fabric, o);
  const report = o.onProgress ? () => o.onProgress!(loop.calls, loop.members.length * ((o.iterations ?? 10) + (o.warmup ?? 2))) : undefined;
  runUntilReporting(fabric.sim, () => loop.finished, o.maxCycles ?? allreduceDefaultCap(o.iterations ?? 10, o.bytes), report);
  fabric.sim.closeTraces();
  return loop.report();
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Default cycle cap of an allreduce loop: 50,000,000 cycles plus, per iteration, 20,000 cycles and
 * 64 per byte (an 8-byte allreduce on 128 hosts takes about 3,300 cycles per iteration, so the cap
 * only stops a run that has stopped making progress, and it grows with the run it guards).
 */
export function allreduceDefaultCap(iterations: number, bytes: number): number {
  return 50_000_000 + iterations * (20_000 + 64 * bytes);
}

