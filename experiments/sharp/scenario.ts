/**
 * SHArP scenarios: drivers that set up jobs and groups through the Aggregation Manager, make the
 * hosts call collectives, and check every delivered result against the golden model (the nested
 * fixed-order fold along the group's actual tree). Used by the tests, the CLI and the benchmarks.
 */
import { createHash } from 'node:crypto';
import { goldenTreeReduce } from '../../models/sharp/golden.ts';
import { Rng, VcdTracer, fileSink } from '../../rtl/kernel/index.ts';
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
  /** measured iterations (default 10) and warm-up iterations (default 2) */
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
  vcd?: string;
  /** simulated-cycle cap of the whole loop (default 50,000,000): SimulationLimitError when reached */
  maxCycles?: number;
  /** progress: called as calls complete and between chunks of simulated cycles with (calls completed, calls in the run) */
  onProgress?: (done: number, total: number) => void;
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
  mismatches: string[];
  plan: GroupPlan;
}

/**
 * An MPI_Allreduce-style tight loop: every member calls, waits for completion, calls again.
 * Results are checked against the golden model and across members.
 */
export function runAllreduce(o: AllreduceOptions): AllreduceReport {
  const fabric = o.fabric ?? new Fabric(o.fabricConfig);
  const sim = fabric.sim;
  const type = o.type ?? 'f32';
  const op = o.op ?? 'sum';
  const elem = elementBytes(type, op, 'i32');
  if (o.bytes % elem !== 0) throw new RangeError(`--bytes ${o.bytes} is not a multiple of the ${type} ${op} element size (${elem})`);
  const count = o.bytes / elem;
  const iterations = o.iterations ?? 10;
  const warmup = o.warmup ?? 2;
  const total = iterations + warmup;
  const job = o.job ?? 1;
  const group = o.group ?? 1;
  const members = spreadMembers(fabric, o.hosts);
  const plan = fabric.am.createGroup(job, group, o.tree ?? 0, members, { maxOps: o.maxOps ?? 8 });
  fabric.settle();
  const vcdSink = o.vcd ? fileSink(o.vcd) : null;
  if (vcdSink) new VcdTracer(sim, vcdSink, { include: [...plan.ans.keys()].map((id) => fabric.topo.nodes[id]!.name) });
  const dataRng = new Rng(o.dataSeed ?? 7);
  const skewRng = new Rng(o.skewSeed ?? 1);
  const skewMax = fabric.cycles(o.skewMaxNs ?? 0);
  // operands per iteration and member, drawn up front so the skew never changes them
  const operands: Map<number, Uint8Array>[] = [];
  for (let i = 0; i < total; i++) {
    const m = new Map<number, Uint8Array>();
    for (const h of members) m.set(h, randomPayload(dataRng, type, op, count));
    operands.push(m);
  }
  const done: Completion[][] = members.map(() => []);
  let measuredStart = -1;
  let measuredEnd = -1;
  const dist = o.dist ?? 'rc';
  const calls = members.length * total;
  let completed = 0;
  const report = o.onProgress ? () => o.onProgress!(completed, calls) : undefined;
  members.forEach((h, rank) => {
    const host = fabric.hosts[h]!;
    const callIter = (i: number, at: number): void => {
      host.call(at + (skewMax > 0 ? skewRng.int(skewMax + 1) : 0), { job, group, op, type, rounding: o.rounding, count, data: operands[i]!.get(h)!, dist, targetKind: 'all' }, (c) => {
        done[rank]!.push(c);
        completed++;
        report?.();
        if (i + 1 < total) callIter(i + 1, c.done);
      });
    };
    callIter(0, sim.cycle);
  });
  runUntilReporting(sim, () => completed === calls, o.maxCycles ?? 50_000_000, report);
  sim.closeTraces();
  // latency: average over members of the measured iterations' call-to-completion times
  let sum = 0;
  for (const d of done) {
    for (let i = warmup; i < total; i++) sum += d[i]!.done - d[i]!.called;
    measuredStart = measuredStart < 0 ? d[warmup]!.called : Math.min(measuredStart, d[warmup]!.called);
    measuredEnd = Math.max(measuredEnd, d[total - 1]!.done);
  }
  const latencyCycles = sum / (members.length * iterations);
  // correctness: golden fold per fragment, identical on every host
  const mismatches: string[] = [];
  const hash = createHash('sha256');
  const shape = { root: plan.root, children: new Map([...plan.ans].map(([k, v]) => [k, v.children])) };
  const perFrag = Math.max(1, Math.floor(256 / elem));
  const frags = count === 0 ? 1 : Math.ceil(count / perFrag);
  const order = fabric.ans.values().next().value!.alu.params.order;
  let seq = 1;
  for (let i = 0; i < total; i++) {
    const expected = new Uint8Array(count * elem);
    for (let f = 0; f < frags; f++, seq++) {
      const first = f * perFrag;
      const n = count === 0 ? 0 : Math.min(perFrag, count - first);
      const ops = new Map<number, Uint8Array>();
      for (const h of members) ops.set(h, operands[i]!.get(h)!.subarray(first * elem, (first + n) * elem));
      const g = goldenTreeReduce(shape, { type, op, rounding: o.rounding, count: n, order, operationId: seedIdOf(job, plan.tree, group, seq) }, ops);
      if (g.status !== 0) mismatches.push(`iteration ${i} fragment ${f}: golden status ${g.status}`);
      expected.set(g.data, first * elem);
    }
    const first = done[0]![i]!;
    hash.update(first.data);
    members.forEach((h, rank) => {
      const c = done[rank]![i]!;
      if (c.status !== 0) mismatches.push(`host ${h} iteration ${i}: status ${c.status}`);
      else if (!bytesEqual(c.data, expected)) mismatches.push(`host ${h} iteration ${i}: result differs from the golden model`);
    });
  }
  return {
    hosts: members.length,
    bytes: o.bytes,
    latency_us: sim.cyclesToUs(latencyCycles),
    cycles: measuredEnd - measuredStart,
    ok: mismatches.length === 0,
    result_sha256: hash.digest('hex'),
    mismatches: mismatches.slice(0, 10),
    plan,
  };
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
