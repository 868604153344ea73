/**
 * Golden vectors for the SHArP ALU (docs/alu.md "Vectors"). Cycle-exact.
 *
 * One record = one operation, replayed on an ALU fresh from reset configured by header.config:
 * - in: the operation header (type, op, index_type, count, children, rounding, ftz, wide), op_id,
 *   seed_id (optional: the stochastic-rounding operation id, default op_id) and `operands` in the
 *   order the testbench offers them: {slot, data (hex bytes), at, hdr?}. Operand j is offered on
 *   `in` from cycle `at` (non-decreasing) and pushed as soon as the channel has space, in list
 *   order; `hdr` (all header fields) is present only where that operand's header differs from
 *   the record's (HEADER_MISMATCH records).
 * - out: status (AluError name), result (hex bytes; "0x" for a barrier or an error), flags (hex).
 * - cycles: accept[j] = the cycle the ALU takes operand j from `in`; result = the cycle the result
 *   is pushed on `out` (the testbench can pop it one cycle later).
 *
 * Expected values: data and flags from the golden model (models/alu/golden.ts); the status from
 * the error rules of docs/alu.md, applied here to the operand list; the cycles from a timing model
 * written here from the documented timing (channel credit, write port, combine-unit list
 * scheduling, output port), independent of the RTL's code.
 */
import fc from 'fast-check';
import { InputError } from '../../rtl/kernel/errors.ts';
import { aluLaneTable } from '../readmemh-alu-lanes.ts';
import { goldenReduce } from '../../models/alu/golden.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { type AluHeader, type AluParams, checkAluParams, DEFAULT_ALU_PARAMS } from '../../rtl/sharp/alu/alu.ts';
import { ALU_ERROR_NAMES, AluError, type AluErrorCode, DATA_TYPES, type DataType, INDEX_TYPES, type IndexType, OPS, ORDERS, ROUNDINGS, TYPE_BYTES } from '../../rtl/sharp/alu/types.ts';
import { randomPayload, runAlu, type Scheduled } from '../../experiments/sharp/alu-harness.ts';
import { hexBits, hexBytes, type Json, parseHexBytes, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export interface AluVecConfig {
  order: 'linear' | 'tree';
  widthBytes: number;
  writeBytesPerCycle: number;
  depthInt: number;
  depthFadd: number;
  depthFmul: number;
  aluSeed: number;
  channelCapacity: number;
  /** share of records with bad input (0..1) */
  errors: number;
}

const DEFAULTS: AluVecConfig = {
  order: DEFAULT_ALU_PARAMS.order,
  widthBytes: DEFAULT_ALU_PARAMS.widthBytes,
  writeBytesPerCycle: DEFAULT_ALU_PARAMS.writeBytesPerCycle,
  depthInt: DEFAULT_ALU_PARAMS.depthInt,
  depthFadd: DEFAULT_ALU_PARAMS.depthFadd,
  depthFmul: DEFAULT_ALU_PARAMS.depthFmul,
  aluSeed: DEFAULT_ALU_PARAMS.seed,
  channelCapacity: DEFAULT_ALU_PARAMS.channelCapacity,
  errors: 0.1,
};

function aluParams(c: AluVecConfig): AluParams {
  return { ...DEFAULT_ALU_PARAMS, order: c.order, widthBytes: c.widthBytes, writeBytesPerCycle: c.writeBytesPerCycle, depthInt: c.depthInt, depthFadd: c.depthFadd, depthFmul: c.depthFmul, seed: c.aluSeed, channelCapacity: c.channelCapacity };
}

/** One operand as the testbench offers it. */
interface Entry {
  slot: number;
  data: Uint8Array;
  at: number;
  hdr: AluHeader;
}

interface Op1 {
  hdr: AluHeader;
  opId: number;
  seedId?: number;
  entries: Entry[];
}

const ERROR_KINDS = ['TYPE_OP', 'PAYLOAD_TOO_LARGE', 'BAD_INDEX_TYPE', 'BAD_CHILDREN', 'SLOT_RANGE', 'DUPLICATE_OPERAND', 'HEADER_MISMATCH', 'BAD_LENGTH'] as const;
type ErrorKind = (typeof ERROR_KINDS)[number];

// ------------------------------------------------------------------ the documented rules

const isLoc = (op: string): boolean => op === 'minloc' || op === 'maxloc';
const FLOATS: readonly string[] = ['f16', 'bf16', 'f32', 'f64'];
const BITWISE: readonly string[] = ['band', 'bor', 'bxor', 'land', 'lor', 'lxor'];

function elemBytes(h: AluHeader): number {
  return TYPE_BYTES[h.type] + (isLoc(h.op) ? (TYPE_BYTES[h.indexType as DataType] ?? 0) : 0);
}

/** docs/alu.md "Error codes": header checks in their documented order. */
function headerError(h: AluHeader): AluErrorCode {
  if (!(DATA_TYPES as readonly string[]).includes(h.type) || !(OPS as readonly string[]).includes(h.op)) return AluError.TYPE_OP;
  if (FLOATS.includes(h.type) && BITWISE.includes(h.op)) return AluError.TYPE_OP;
  if (isLoc(h.op) && !(INDEX_TYPES as readonly string[]).includes(h.indexType)) return AluError.BAD_INDEX_TYPE;
  if (!Number.isInteger(h.children) || h.children < 1 || h.children > 64) return AluError.BAD_CHILDREN;
  if (h.count * elemBytes(h) > 256) return AluError.PAYLOAD_TOO_LARGE;
  return AluError.OK;
}

const sameHeader = (a: AluHeader, b: AluHeader): boolean =>
  a.type === b.type && a.op === b.op && a.indexType === b.indexType && a.count === b.count && a.children === b.children && a.rounding === b.rounding && a.ftz === b.ftz && a.wide === b.wide;

/** The status of a one-operation record and the operand that decides it (-1 when OK). */
function statusOf(op: Op1): { status: AluErrorCode; at: number } {
  let ctx: AluHeader | null = null;
  const seen = new Set<number>();
  for (let j = 0; j < op.entries.length; j++) {
    const e = op.entries[j]!;
    const bad = headerError(e.hdr);
    if (ctx === null) {
      if (bad !== AluError.OK) return { status: bad, at: j };
      ctx = e.hdr;
    } else if (!sameHeader(ctx, e.hdr)) return { status: AluError.HEADER_MISMATCH, at: j };
    if (!Number.isInteger(e.slot) || e.slot < 0 || e.slot >= ctx.children) return { status: AluError.SLOT_RANGE, at: j };
    if (seen.has(e.slot)) return { status: AluError.DUPLICATE_OPERAND, at: j };
    if (e.data.length !== ctx.count * elemBytes(ctx)) return { status: AluError.BAD_LENGTH, at: j };
    seen.add(e.slot);
  }
  return { status: AluError.OK, at: -1 };
}

/**
 * docs/alu.md "Cycle behaviour" for one operation from reset: the channel (capacity C, latency 1,
 * credit seen one cycle after a pop), the write port (one operand per w cycles), the combine unit
 * (lowest ready node first; a pass of B beats issued at s is usable from s + B + D - 1; linear
 * waits for every operand), the output port (free: one result).
 */
function timingOf(p: AluParams, op: Op1, st: { status: AluErrorCode; at: number }): { accept: number[]; result: number } {
  const n = op.entries.length;
  const push: number[] = [];
  const accept: number[] = [];
  for (let j = 0; j < n; j++) {
    const e = op.entries[j]!;
    let pj = Math.max(e.at, j > 0 ? push[j - 1]! : 0);
    if (j >= p.channelCapacity) pj = Math.max(pj, accept[j - p.channelCapacity]! + 1);
    push.push(pj);
    const prev = op.entries[j - 1];
    const wPrev = prev === undefined ? 0 : headerError(prev.hdr) === AluError.OK ? Math.max(1, Math.ceil((prev.hdr.count * elemBytes(prev.hdr)) / p.writeBytesPerCycle)) : 1;
    accept.push(Math.max(pj + 1, j > 0 ? accept[j - 1]! + wPrev : 0));
  }
  if (st.status !== AluError.OK) return { accept, result: accept[st.at]! };
  const h = op.hdr;
  const k = h.children;
  const w = Math.max(1, Math.ceil((h.count * elemBytes(h)) / p.writeBytesPerCycle));
  const avail: number[] = new Array<number>(k).fill(Infinity);
  op.entries.forEach((e, j) => (avail[e.slot] = accept[j]! + w));
  const allAt = accept[n - 1]! + w;
  if (h.count === 0 || k === 1) return { accept, result: allAt };
  const wide = h.wide && (h.type === 'f16' || h.type === 'bf16') && (h.op === 'sum' || h.op === 'prod');
  const B = Math.ceil((h.count * (wide ? 4 : elemBytes(h))) / p.widthBytes);
  const fl = FLOATS.includes(h.type);
  const D = fl && h.op === 'sum' ? p.depthFadd : fl && h.op === 'prod' ? p.depthFmul : p.depthInt;
  // nodes as [left item, right item], items numbered k, k + 1, ... in creation order
  const nodes: [number, number][] = [];
  if (p.order === 'linear') for (let s = 1; s < k; s++) nodes.push([s === 1 ? 0 : k + s - 2, s]);
  else {
    let level = Array.from({ length: k }, (_, i) => i);
    while (level.length > 1) {
      const next: number[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) {
        nodes.push([level[i]!, level[i + 1]!]);
        next.push(k + nodes.length - 1);
      }
      if (level.length % 2 === 1) next.push(level[level.length - 1]!);
      level = next;
    }
  }
  const gate = p.order === 'linear' ? allAt : 0;
  const done = new Array<boolean>(nodes.length).fill(false);
  let unitFree = 0;
  for (let left = nodes.length; left > 0; left--) {
    const ready = (i: number): number => Math.max(avail[nodes[i]![0]] ?? Infinity, avail[nodes[i]![1]] ?? Infinity, gate);
    let t = Infinity;
    for (let i = 0; i < nodes.length; i++) if (!done[i]) t = Math.min(t, Math.max(unitFree, ready(i)));
    const i = nodes.findIndex((_, x) => !done[x] && ready(x) <= t);
    done[i] = true;
    avail[k + i] = t + B + D - 1;
    unitFree = t + B;
  }
  return { accept, result: avail[k + nodes.length - 1]! };
}

// ------------------------------------------------------------------ stimulus

interface Plan {
  hdr: AluHeader;
  opId: number;
  seedId: number | null;
  dataSeed: number;
  special: number;
  order: number[];
  gaps: number[];
  error: ErrorKind | null;
}

function withCount(h: Omit<AluHeader, 'count'>, frac: number, maxTotal: number): AluHeader {
  const eb = TYPE_BYTES[h.type] + (isLoc(h.op) ? TYPE_BYTES[h.indexType] : 0);
  const max = Math.floor(Math.min(256, Math.max(eb, maxTotal / h.children)) / eb);
  return { ...h, count: Math.min(max, Math.floor(frac * (max + 1))) };
}

function planArb(errors: number): fc.Arbitrary<Plan> {
  const hdr = fc
    .record({
      // floats and sum/prod (where rounding happens) weighted up
      type: fc.oneof(fc.constantFrom(...DATA_TYPES), fc.constantFrom('f16', 'bf16', 'f32', 'f64') as fc.Arbitrary<DataType>),
      op: fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...OPS) }, { weight: 1, arbitrary: fc.constantFrom('sum', 'prod') as fc.Arbitrary<AluHeader['op']> }),
      indexType: fc.oneof({ weight: 3, arbitrary: fc.constant<IndexType>('i32') }, { weight: 1, arbitrary: fc.constantFrom(...INDEX_TYPES) }),
      rounding: fc.constantFrom(...ROUNDINGS),
      ftz: fc.boolean(),
      wide: fc.boolean(),
      children: fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 8 }) }, { weight: 2, arbitrary: fc.integer({ min: 9, max: 64 }) }, { weight: 1, arbitrary: fc.constantFrom(16, 32, 63, 64) }),
      frac: fc.noBias(fc.integer({ min: 0, max: 0xffff })).map((x) => x / 0x10000),
    })
    .filter((h) => !(FLOATS.includes(h.type) && BITWISE.includes(h.op)))
    .map(({ frac, ...h }) => withCount(h, frac, 1024));
  return fc
    .record({
      hdr,
      opId: fc.integer({ min: 0, max: 0xffffffff }),
      seedId: fc.option(fc.integer({ min: 0, max: 0xffffffff }), { freq: 3 }),
      dataSeed: fc.integer({ min: 0, max: 0xffffffff }),
      special: fc.constantFrom(0, 0.05, 0.2, 0.5),
      perm: fc.array(fc.nat(), { minLength: 64, maxLength: 64 }),
      gaps: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 40 })), { minLength: 64, maxLength: 64 }),
      err: fc.noBias(fc.integer({ min: 0, max: 0xffff })).map((x) => x / 0x10000),
      kind: fc.constantFrom(...ERROR_KINDS),
    })
    .map(({ hdr: h, perm, err, kind, ...r }) => {
      // a permutation of the slots from the random keys (stable: ties keep slot order)
      const order = Array.from({ length: h.children }, (_, i) => i).sort((a, b) => perm[a]! - perm[b]! || a - b);
      return { ...r, hdr: h, order, error: err < errors ? kind : null };
    });
}

const CORNERS: (Omit<Plan, 'order' | 'gaps' | 'opId' | 'seedId' | 'dataSeed'> & { gap?: number })[] = [
  { hdr: { type: 'f32', op: 'sum', indexType: 'i32', count: 64, children: 64, rounding: 'rne', ftz: false, wide: false }, special: 0, error: null },
  { hdr: { type: 'f64', op: 'sum', indexType: 'i32', count: 32, children: 1, rounding: 'rne', ftz: true, wide: false }, special: 0.7, error: null },
  { hdr: { type: 'u8', op: 'bor', indexType: 'i32', count: 0, children: 5, rounding: 'rne', ftz: false, wide: false }, special: 0, error: null },
  { hdr: { type: 'f16', op: 'sum', indexType: 'i32', count: 16, children: 9, rounding: 'sr', ftz: false, wide: true }, special: 0.3, error: null },
  { hdr: { type: 'bf16', op: 'prod', indexType: 'i32', count: 8, children: 7, rounding: 'rup', ftz: true, wide: false }, special: 0.5, error: null },
  { hdr: { type: 'f32', op: 'minloc', indexType: 'u8', count: 12, children: 6, rounding: 'rne', ftz: false, wide: false }, special: 0.5, error: null },
  { hdr: { type: 'f64', op: 'maxloc', indexType: 'i64', count: 4, children: 33, rounding: 'rne', ftz: false, wide: false }, special: 0.3, error: null },
  { hdr: { type: 'i64', op: 'prod', indexType: 'i32', count: 4, children: 16, rounding: 'rne', ftz: false, wide: false }, special: 0, error: null, gap: 0 },
  { hdr: { type: 'f32', op: 'prod', indexType: 'i32', count: 8, children: 8, rounding: 'rdn', ftz: false, wide: false }, special: 0.2, error: null, gap: 200 },
  ...ERROR_KINDS.map((k) => ({ hdr: { type: 'i32', op: 'sum', indexType: 'i32', count: 4, children: 4, rounding: 'rne', ftz: false, wide: false } as AluHeader, special: 0, error: k })),
];

function cornerPlans(seed: number): Plan[] {
  const rng = new Rng(seed ^ 0x5eed);
  return CORNERS.map((c) => ({
    hdr: c.hdr,
    special: c.special,
    error: c.error,
    opId: rng.u32(),
    seedId: null,
    dataSeed: rng.u32(),
    order: rng.shuffle(Array.from({ length: c.hdr.children }, (_, i) => i)),
    gaps: Array.from({ length: 64 }, () => c.gap ?? rng.int(4)),
  }));
}

/** The operand list of a plan, with its error (if any) applied. */
function materialize(p: Plan): Op1 {
  const rng = new Rng(p.dataSeed);
  const h = p.hdr;
  const operands = Array.from({ length: h.children }, () => randomPayload(rng, h, p.special));
  let t = 0;
  const entries: Entry[] = p.order.map((slot, j) => {
    t += p.gaps[j] ?? 0;
    return { slot, data: operands[slot]!, at: t, hdr: h };
  });
  const op: Op1 = { hdr: h, opId: p.opId, seedId: p.seedId ?? undefined, entries };
  const k = h.children;
  const empty = new Uint8Array(0);
  const setAll = (nh: AluHeader): void => {
    op.hdr = nh;
    for (const e of entries) {
      e.hdr = nh;
      e.data = empty;
    }
  };
  switch (p.error) {
    case null:
      break;
    case 'TYPE_OP':
      setAll({ ...h, type: rng.pick(['f16', 'bf16', 'f32', 'f64'] as const), op: rng.pick(['band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const) });
      break;
    case 'PAYLOAD_TOO_LARGE':
      setAll({ ...h, count: Math.floor(256 / elemBytes(h)) + 1 + rng.int(3) });
      break;
    case 'BAD_INDEX_TYPE':
      setAll({ ...h, op: rng.pick(['minloc', 'maxloc'] as const), indexType: rng.pick(['f32', 'f16', 'bf16', 'f64']) as IndexType, count: 1 });
      break;
    case 'BAD_CHILDREN':
      setAll({ ...h, children: rng.pick([0, 65, 100, 255]) });
      entries.length = 1;
      entries[0]!.slot = 0;
      break;
    case 'SLOT_RANGE':
    case 'DUPLICATE_OPERAND': {
      if (p.error === 'DUPLICATE_OPERAND' && k < 2) return materialize({ ...p, error: 'SLOT_RANGE' });
      // an extra operand, offered before the last good one
      const pos = p.error === 'DUPLICATE_OPERAND' ? 1 + rng.int(k - 1) : rng.int(k);
      const slot = p.error === 'SLOT_RANGE' ? k + rng.int(256 - k) : entries[rng.int(pos)]!.slot;
      entries.splice(pos, 0, { slot, data: operands[Math.min(slot, k - 1)]!, at: entries[pos]!.at, hdr: h });
      break;
    }
    case 'HEADER_MISMATCH': {
      if (k < 2) return materialize({ ...p, error: 'BAD_LENGTH' });
      const e = entries[1 + rng.int(k - 1)]!;
      const field = rng.int(6);
      const nh: AluHeader = { ...h };
      if (field === 0) nh.count = h.count > 0 ? h.count - 1 : 1;
      else if (field === 1) nh.rounding = h.rounding === 'rne' ? 'rtz' : 'rne';
      else if (field === 2) nh.ftz = !h.ftz;
      else if (field === 3) nh.wide = !h.wide;
      else if (field === 4) nh.children = k + 1;
      else nh.op = h.op === 'max' ? 'min' : 'max';
      e.hdr = nh;
      e.data = new Uint8Array(Math.min(256, Math.max(0, nh.count * elemBytes(nh))));
      break;
    }
    case 'BAD_LENGTH': {
      const e = entries[rng.int(k)]!;
      const n = h.count * elemBytes(h);
      const len = n === 0 ? 1 + rng.int(4) : n === 256 ? 255 : n + rng.pick([-1, 1, 3]);
      e.data = new Uint8Array(len).map(() => rng.int(256));
      break;
    }
  }
  return op;
}

// ------------------------------------------------------------------ records

const hdrJson = (h: AluHeader): { [k: string]: Json } => ({ type: h.type, op: h.op, index_type: h.indexType, count: h.count, children: h.children, rounding: h.rounding, ftz: h.ftz, wide: h.wide });

function toRecord(cfg: AluVecConfig, id: number, op: Op1): VectorRecord {
  const p = aluParams(cfg);
  const st = statusOf(op);
  const cy = timingOf(p, op, st);
  let result: Uint8Array = new Uint8Array(0);
  let flags = 0;
  if (st.status === AluError.OK) {
    const g = goldenReduce({ type: op.hdr.type, op: op.hdr.op, indexType: op.hdr.indexType, rounding: op.hdr.rounding, ftz: op.hdr.ftz, wide: op.hdr.wide, order: p.order, seed: p.seed }, op.seedId ?? op.opId, op.hdr.count, [...op.entries].sort((a, b) => a.slot - b.slot).map((e) => e.data));
    if (g.status !== AluError.OK) throw new Error(`alu vectors: golden model says ${ALU_ERROR_NAMES[g.status]} for a valid record ${id}`);
    result = g.data;
    flags = g.flags;
  }
  const inp: { [k: string]: Json } = {
    ...hdrJson(op.hdr),
    op_id: op.opId,
    operands: op.entries.map((e) => {
      const o: { [k: string]: Json } = { slot: e.slot, data: hexBytes(e.data), at: e.at };
      if (!sameHeader(e.hdr, op.hdr)) o.hdr = hdrJson(e.hdr);
      return o;
    }),
  };
  if (op.seedId !== undefined) inp.seed_id = op.seedId;
  return { id, in: inp, out: { status: ALU_ERROR_NAMES[st.status]!, result: hexBytes(result), flags: hexBits(flags) }, cycles: { accept: cy.accept, result: cy.result } };
}

function generate(cfg: AluVecConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const plans = cornerPlans(seed).slice(0, count);
  if (count > plans.length) plans.push(...fc.sample(planArb(cfg.errors), { seed, numRuns: count - plans.length }));
  return plans.map((p, id) => {
    const rec = toRecord(cfg, id, materialize(p));
    produced?.(id + 1);
    return rec;
  });
}

// ------------------------------------------------------------------ replay

function readHeader(v: Json | undefined, ctx: string): AluHeader {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InputError(`${ctx} must be an object`);
  const r = new RecordReader({ id: -1, in: v, out: {} }, 'in');
  try {
    return {
      type: r.str('type') as DataType,
      op: r.str('op') as AluHeader['op'],
      indexType: r.str('index_type') as IndexType,
      count: r.int('count', 0, 1 << 16),
      children: r.int('children', 0, 255),
      rounding: r.str('rounding', ROUNDINGS) as AluHeader['rounding'],
      ftz: r.bool('ftz'),
      wide: r.bool('wide'),
    };
  } catch (e) {
    throw new InputError(`${ctx}: ${(e as Error).message.replace(/^record -1: in\./, '')}`);
  }
}

interface Decoded {
  hdr: AluHeader;
  opId: number;
  seedId?: number;
  entries: Entry[];
}

function decode(r: VectorRecord): Decoded {
  const i = new RecordReader(r, 'in');
  const hdr = readHeader(r.in as Json, `record ${r.id}: in`);
  const opId = i.int('op_id', 0, 0xffffffff);
  const seedId = i.has('seed_id') ? i.int('seed_id', 0, 0xffffffff) : undefined;
  let last = 0;
  const entries = i.list('operands').map((raw, j): Entry => {
    const ctx = `record ${r.id}: in.operands[${j}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`${ctx} must be an object`);
    const e = new RecordReader({ id: r.id, in: raw, out: {} }, 'in');
    const at = e.int('at', last);
    last = at;
    return { slot: e.int('slot', 0, 255), data: parseHexBytes(raw.data, 256, `${ctx}.data`), at, hdr: raw.hdr === undefined ? hdr : readHeader(raw.hdr, `${ctx}.hdr`) };
  });
  if (entries.length === 0) throw new InputError(`record ${r.id}: in.operands is empty`);
  return { hdr, opId, seedId, entries };
}

function replay(cfg: AluVecConfig, records: VectorRecord[]): ReplayOutcome[] {
  const params = aluParams(cfg);
  return records.map((r) => {
    const mismatches: string[] = [];
    try {
      const d = decode(r);
      const o = new RecordReader(r, 'out');
      const c = new RecordReader(r, 'cycles');
      const sched: Scheduled[] = d.entries.map((e) => ({ at: e.at, input: { kind: 'operand', opId: d.opId, seedId: d.seedId, slot: e.slot, hdr: e.hdr, data: e.data } }));
      const run = runAlu(params, sched, { expect: 1, maxCycles: 1_000_000 });
      const res = run.results[0]!;
      if (run.results.length !== 1) mismatches.push(`expected one result, got ${run.results.length}`);
      const status = ALU_ERROR_NAMES[res.status] ?? String(res.status);
      if (status !== o.str('status')) mismatches.push(`out.status: expected ${o.str('status')}, got ${status}`);
      if (hexBytes(res.data) !== o.str('result')) mismatches.push(`out.result: expected ${o.str('result')}, got ${hexBytes(res.data)}`);
      if (hexBits(res.flags) !== o.str('flags')) mismatches.push(`out.flags: expected ${o.str('flags')}, got ${hexBits(res.flags)}`);
      const acc = c.list('accept');
      if (acc.length !== d.entries.length || acc.some((x, j) => x !== run.accepted[j])) mismatches.push(`cycles.accept: expected ${JSON.stringify(acc)}, got ${JSON.stringify(run.accepted)}`);
      if (res.cycle !== c.int('result')) mismatches.push(`cycles.result: expected ${c.int('result')}, got ${res.cycle}`);
      if (run.alu.activeOperations !== 0) mismatches.push(`${run.alu.activeOperations} operation context(s) still held after the record`);
    } catch (e) {
      mismatches.push((e as Error).message);
    }
    return { id: r.id, ok: mismatches.length === 0, mismatches };
  });
}

// ------------------------------------------------------------------ $readmemh tables

const code = (list: readonly string[], v: string): bigint => {
  const i = list.indexOf(v);
  return BigInt(i < 0 ? 15 : i);
};

function bytesToBig(b: Uint8Array): bigint {
  let v = 0n;
  for (let i = b.length - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

function headerFields(h: AluHeader): bigint[] {
  return [code(DATA_TYPES, h.type), code(OPS, h.op), code(DATA_TYPES, h.indexType), BigInt(h.count), BigInt(h.children), code(ROUNDINGS, h.rounding), h.ftz ? 1n : 0n, h.wide ? 1n : 0n];
}

/** ALU status codes by code (AluError), for the results table's `status` field. */
const STATUS_CODES: readonly string[] = Array.from({ length: Math.max(...Object.values(AluError)) + 1 }, (_, c) => ALU_ERROR_NAMES[c] ?? `unused_${c}`);

const HEADER_LAYOUT = [
  { name: 'type', width: 4, codes: DATA_TYPES },
  { name: 'op', width: 4, codes: OPS },
  { name: 'index_type', width: 4, codes: DATA_TYPES },
  { name: 'count', width: 16 },
  { name: 'children', width: 8 },
  { name: 'rounding', width: 3, codes: ROUNDINGS },
  { name: 'ftz', width: 1 },
  { name: 'wide', width: 1 },
];

function operandRows(file: VectorFile): bigint[][] {
  const rows: bigint[][] = [];
  for (const r of file.records) {
    const d = decode(r);
    const acc = new RecordReader(r, 'cycles').list('accept');
    d.entries.forEach((e, j) => rows.push([BigInt(r.id), BigInt(j), BigInt(d.opId), BigInt(e.slot), ...headerFields(e.hdr), BigInt(e.data.length), bytesToBig(e.data), BigInt(e.at), BigInt(acc[j] as number)]));
  }
  return rows;
}

function resultRows(file: VectorFile): bigint[][] {
  return file.records.map((r) => {
    const d = decode(r);
    const o = new RecordReader(r, 'out');
    const data = o.bytes('result', 256);
    const status = Object.entries(ALU_ERROR_NAMES).find(([, n]) => n === o.str('status'));
    if (!status) throw new InputError(`record ${r.id}: out.status ${o.str('status')} is not an ALU status`);
    return [BigInt(r.id), BigInt(d.opId), BigInt(d.seedId ?? d.opId), BigInt(d.entries.length), BigInt(status[0]), o.hex('flags', 8), BigInt(data.length), bytesToBig(data), BigInt(new RecordReader(r, 'cycles').int('result', 0))];
  });
}

// ------------------------------------------------------------------ config

function parseConfig(raw: { [k: string]: Json }): AluVecConfig {
  const keys = Object.keys(DEFAULTS) as (keyof AluVecConfig)[];
  for (const k of Object.keys(raw)) if (!keys.includes(k as keyof AluVecConfig)) throw new InputError(`config: unknown field '${k}' (fields: ${keys.join(', ')})`);
  const c: AluVecConfig = { ...DEFAULTS };
  if (raw.order !== undefined) {
    if (typeof raw.order !== 'string' || !(ORDERS as readonly string[]).includes(raw.order)) throw new InputError(`config.order must be one of ${ORDERS.join(', ')}, got ${JSON.stringify(raw.order)}`);
    c.order = raw.order as AluVecConfig['order'];
  }
  for (const k of ['widthBytes', 'writeBytesPerCycle', 'depthInt', 'depthFadd', 'depthFmul', 'aluSeed', 'channelCapacity'] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InputError(`config.${k} must be an integer, got ${JSON.stringify(v)}`);
    c[k] = v;
  }
  if (raw.errors !== undefined) {
    if (typeof raw.errors !== 'number' || !(raw.errors >= 0 && raw.errors <= 1)) throw new InputError(`config.errors must be a number in [0, 1], got ${JSON.stringify(raw.errors)}`);
    c.errors = raw.errors;
  }
  try {
    checkAluParams(aluParams(c));
  } catch (e) {
    throw new InputError(`config: ${(e as Error).message}`);
  }
  return c;
}

export const block: VectorBlock<AluVecConfig> = {
  name: 'alu',
  description: 'SHArP ALU: one reduction per record (header, operands, arrival cycles), results from the golden model, cycle-exact',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig,
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [
    {
      name: 'operands',
      layout: [{ name: 'record', width: 32 }, { name: 'entry', width: 8 }, { name: 'op_id', width: 32 }, { name: 'slot', width: 8 }, ...HEADER_LAYOUT, { name: 'length', width: 16 }, { name: 'data', width: 2048 }, { name: 'at', width: 32 }, { name: 'accept', width: 32 }],
      rows: operandRows,
    },
    {
      name: 'results',
      layout: [
        { name: 'record', width: 32 },
        { name: 'op_id', width: 32 },
        { name: 'seed_id', width: 32 },
        { name: 'operands', width: 8 },
        { name: 'status', width: 8, codes: STATUS_CODES },
        { name: 'flags', width: 8 },
        { name: 'length', width: 16 },
        { name: 'data', width: 2048 },
        { name: 'result_cycle', width: 32 },
      ],
      rows: resultRows,
    },
    aluLaneTable,
  ],
};
