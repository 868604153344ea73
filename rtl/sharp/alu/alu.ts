/**
 * The SHArP aggregation-node ALU at cycle level (seed 000 section III-F; docs/alu.md).
 *
 * Structure:
 * - input channel `in`: operands (and aborts) from the TCA; one operand at a time is written into
 *   the operand buffer through a write port of `writeBytesPerCycle` bytes per cycle;
 * - operation table of `contexts` entries: allocated by the first operand of an operation id,
 *   freed when its result leaves (or on an error/abort);
 * - operand buffer: per context, one slot of up to 512 bytes per child (payload, or binary32
 *   accumulators in wide mode);
 * - one pipelined combine unit: a pass combines two items of one operation over
 *   B = ceil(bytes / widthBytes) beats issued on consecutive cycles; a beat takes D cycles
 *   (D by operation class: integer/bitwise/compare, float add, float multiply);
 * - reduction order fixed by slot numbers (order.ts): `linear` waits until every operand is
 *   present (as the paper describes SwitchIB-2) and then chains K-1 passes; `tree` combines a
 *   pair as soon as both of its inputs are present;
 * - output channel `out`: one result per operation (or an error status), read out over
 *   B_out = ceil(result bytes / widthBytes) cycles of the output port.
 *
 * Timing (no contention; docs/alu.md "Cycle behaviour"): an operand accepted at cycle A is present
 * at A + w with w = max(1, ceil(bytes / writeBytesPerCycle)); a pass issued at s makes its result
 * usable from s + B + D - 1, so each dependent pass adds P = B + D - 1 cycles; the result leaves
 * when the root item is usable and the output port is free.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { combine, narrow, opSeed as makeOpSeed, widen } from './lanes.ts';
import { schedule, type Schedule } from './order.ts';
import { AluError, type AluErrorCode, type DataType, elementBytes, type IndexType, isFloat, type Op, type ReductionOrder, type Rounding, validateHeader } from './types.ts';

export interface AluParams {
  /** datapath bytes per beat (default 32) */
  widthBytes: number;
  /** operand-buffer write bandwidth in bytes per cycle (default 32) */
  writeBytesPerCycle: number;
  /** pipeline depth of integer, bitwise, logical and compare (min/max/loc) operations (default 1) */
  depthInt: number;
  /** pipeline depth of float addition (default 4) */
  depthFadd: number;
  /** pipeline depth of float multiplication (default 5) */
  depthFmul: number;
  /** operation contexts (default 256) */
  contexts: number;
  /** reduction order (default linear, as SwitchIB-2) */
  order: ReductionOrder;
  /** seed of the stochastic-rounding LFSR streams (default 1) */
  seed: number;
  /** input/output channel capacities (default 4) */
  channelCapacity: number;
}

export const DEFAULT_ALU_PARAMS: Readonly<AluParams> = {
  widthBytes: 32,
  writeBytesPerCycle: 32,
  depthInt: 1,
  depthFadd: 4,
  depthFmul: 5,
  contexts: 256,
  order: 'linear',
  seed: 1,
  channelCapacity: 4,
};

/** Operation header carried by every operand of an operation. */
export interface AluHeader {
  type: DataType;
  op: Op;
  indexType: IndexType;
  count: number;
  children: number;
  rounding: Rounding;
  ftz: boolean;
  wide: boolean;
}

export interface AluOperand {
  kind: 'operand';
  /** identifies the operation among those in flight (the context key) */
  opId: number;
  /**
   * operation identity for stochastic rounding (docs/alu.md operationId); defaults to opId. The
   * aggregation node derives it from (job, tree, group, seq), so the random streams never depend
   * on the order in which contexts were allocated.
   */
  seedId?: number;
  slot: number;
  hdr: AluHeader;
  data: Uint8Array;
}

export interface AluAbort {
  kind: 'abort';
  opId: number;
}

export type AluInput = AluOperand | AluAbort;

export interface AluResult {
  opId: number;
  status: AluErrorCode;
  /** result payload (empty for a barrier or an error) */
  data: Uint8Array;
  flags: number;
  /** cycle the result left the ALU (was pushed to `out`) */
  cycle: number;
  /** cycle the last operand of the operation was accepted from `in` (-1 for an error before any) */
  lastAccept: number;
}

export class AluConfigError extends Error {}

export function checkAluParams(p: AluParams): void {
  const posInt = (k: keyof AluParams, max = 1 << 20): void => {
    const v = p[k] as number;
    if (!Number.isInteger(v) || v < 1 || v > max) throw new AluConfigError(`ALU parameter ${k} must be an integer in 1..${max}, got ${v}`);
  };
  posInt('widthBytes', 4096);
  posInt('writeBytesPerCycle', 4096);
  posInt('depthInt', 64);
  posInt('depthFadd', 64);
  posInt('depthFmul', 64);
  posInt('contexts', 65536);
  posInt('channelCapacity', 1024);
  if (p.order !== 'linear' && p.order !== 'tree') throw new AluConfigError(`ALU order must be linear or tree, got ${String(p.order)}`);
  if (!Number.isInteger(p.seed) || p.seed < 0 || p.seed > 0xffffffff) throw new AluConfigError(`ALU seed must be a 32-bit unsigned integer, got ${p.seed}`);
}

/** Bytes per element as held in the operand buffer (binary32 accumulators in wide mode). */
export function accumulatorBytes(h: AluHeader): number {
  return h.wide && (h.type === 'f16' || h.type === 'bf16') && (h.op === 'sum' || h.op === 'prod') ? 4 : elementBytes(h.type, h.op, h.indexType);
}

/** Pipeline depth of the operation's class. */
export function passDepth(p: AluParams, h: AluHeader): number {
  if (!isFloat(h.type)) return p.depthInt;
  if (h.op === 'sum') return p.depthFadd;
  if (h.op === 'prod') return p.depthFmul;
  return p.depthInt;
}

const SLOT_BYTES = 512;

interface Ctx {
  used: boolean;
  opId: number;
  seq: number;
  hdr: AluHeader;
  sched: Schedule;
  present: number;
  arrived: Uint8Array; // per slot
  avail: Float64Array; // per item: cycle from which usable (Infinity = not yet)
  issued: Uint8Array; // per node
  flags: number;
  lastAccept: number;
  opSeed: number;
  beats: number;
  depth: number;
  buf: Uint8Array;
  views: Uint8Array[]; // per slot
  wideMode: boolean;
}

export class Alu extends Component {
  readonly in: Channel<AluInput>;
  readonly out: Channel<AluResult>;
  readonly params: Readonly<AluParams>;
  private readonly ctxs: Ctx[] = [];
  private readonly byOp = new Map<number, number>();
  private active: number[] = []; // context indices in allocation order
  private seq = 0;
  private writeFreeAt = 0;
  private issueFreeAt = 0;
  private outFreeAt = 0;
  private readonly done: AluResult[] = []; // finished, waiting for the output port, in order
  private readonly cOps;
  private readonly cErrors;
  private readonly cPasses;
  private readonly cBeats;
  private readonly cWriteCycles;
  private readonly hLatency;

  constructor(parent: Scope, name: string, params: Partial<AluParams> = {}) {
    super(parent, name);
    const p: AluParams = { ...DEFAULT_ALU_PARAMS, ...params };
    checkAluParams(p);
    this.params = p;
    this.in = new Channel<AluInput>(this, 'in', { capacity: p.channelCapacity, latency: 1 }).bindConsumer(this);
    this.out = new Channel<AluResult>(this, 'out', { capacity: p.channelCapacity, latency: 1 }).bindProducer(this);
    this.cOps = this.counter('operations');
    this.cErrors = this.counter('errors');
    this.cPasses = this.counter('passes');
    this.cBeats = this.counter('beats');
    this.cWriteCycles = this.counter('write_cycles');
    this.hLatency = this.histogram('latency_after_last_operand', { bucketWidth: 1, buckets: 512 });
    this.signal('active_ops', 16, () => this.active.length);
  }

  /** Operations currently holding a context. */
  get activeOperations(): number {
    return this.active.length;
  }

  override reset(): void {
    for (const c of this.ctxs) c.used = false;
    this.byOp.clear();
    this.active = [];
    this.seq = 0;
    this.writeFreeAt = this.issueFreeAt = this.outFreeAt = 0;
    this.done.length = 0;
  }

  tick(t: number): number {
    // 1. operand buffer write port: accept one operand when the port is free
    if (t >= this.writeFreeAt && this.in.canPop()) this.accept(this.in.pop(), t);
    // 2. combine unit: issue one ready pass when the issue slot is free
    if (t >= this.issueFreeAt) this.issue(t);
    // 3. finished operations move to the output queue in completion order
    this.collect(t);
    // 4. output port
    if (this.done.length > 0 && t >= this.outFreeAt && this.out.canPush()) {
      const r = this.done.shift()!;
      r.cycle = t;
      this.out.push(r);
      const bytes = r.data.length;
      this.outFreeAt = t + Math.max(1, Math.ceil(bytes / this.params.widthBytes));
    }
    return this.nextWake(t);
  }

  private fail(opId: number, status: AluErrorCode, t: number): void {
    this.cErrors.inc();
    const ci = this.byOp.get(opId);
    if (ci !== undefined) this.free(ci);
    this.done.push({ opId, status, data: new Uint8Array(0), flags: 0, cycle: -1, lastAccept: t });
  }

  private free(ci: number): void {
    const c = this.ctxs[ci]!;
    c.used = false;
    this.byOp.delete(c.opId);
    const k = this.active.indexOf(ci);
    if (k >= 0) this.active.splice(k, 1);
  }

  private accept(m: AluInput, t: number): void {
    if (m.kind === 'abort') {
      const ci = this.byOp.get(m.opId);
      if (ci !== undefined) this.free(ci);
      this.writeFreeAt = t + 1;
      return;
    }
    const h = m.hdr;
    const bad = validateHeader(h.type, h.op, h.count, h.children, h.indexType);
    if (bad !== AluError.OK) {
      this.writeFreeAt = t + 1; // a rejected header occupies the write port for one cycle only
      return this.fail(m.opId, bad, t);
    }
    const inBytes = h.count * elementBytes(h.type, h.op, h.indexType);
    const w = Math.max(1, Math.ceil(inBytes / this.params.writeBytesPerCycle));
    this.writeFreeAt = t + w;
    this.cWriteCycles.inc(w);
    if (m.data.length !== inBytes) return this.fail(m.opId, AluError.BAD_LENGTH, t);
    let ci = this.byOp.get(m.opId);
    if (ci === undefined) {
      ci = this.allocate(m, t);
      if (ci < 0) return this.fail(m.opId, AluError.NO_CONTEXT, t);
    }
    const c = this.ctxs[ci]!;
    const e = c.hdr;
    if (e.type !== h.type || e.op !== h.op || e.indexType !== h.indexType || e.count !== h.count || e.children !== h.children || e.rounding !== h.rounding || e.ftz !== h.ftz || e.wide !== h.wide) {
      return this.fail(m.opId, AluError.HEADER_MISMATCH, t);
    }
    if (!Number.isInteger(m.slot) || m.slot < 0 || m.slot >= h.children) return this.fail(m.opId, AluError.SLOT_RANGE, t);
    if (c.arrived[m.slot]) return this.fail(m.opId, AluError.DUPLICATE_OPERAND, t);
    c.arrived[m.slot] = 1;
    c.present++;
    c.lastAccept = t;
    // the write path stores the operand (widened to binary32 accumulators in wide mode)
    const dst = c.views[m.slot]!;
    if (c.wideMode) c.flags |= widen(this.laneCfg(c), m.data, dst, 0, h.count);
    else dst.set(m.data);
    c.avail[m.slot] = t + w;
  }

  private laneCfg(c: Ctx): { type: DataType; op: Op; indexType: IndexType; rounding: Rounding; ftz: boolean; wide: boolean } {
    return c.hdr;
  }

  private allocate(m: AluOperand, t: number): number {
    let ci = -1;
    for (let i = 0; i < this.ctxs.length; i++) {
      if (!this.ctxs[i]!.used) {
        ci = i;
        break;
      }
    }
    if (ci < 0) {
      if (this.ctxs.length >= this.params.contexts) return -1;
      ci = this.ctxs.length;
      this.ctxs.push({
        used: false,
        opId: 0,
        seq: 0,
        hdr: m.hdr,
        sched: schedule(this.params.order, 1),
        present: 0,
        arrived: new Uint8Array(64),
        avail: new Float64Array(128),
        issued: new Uint8Array(64),
        flags: 0,
        lastAccept: t,
        opSeed: 0,
        beats: 1,
        depth: 1,
        buf: new Uint8Array(0),
        views: [],
        wideMode: false,
      });
    }
    const c = this.ctxs[ci]!;
    const h = m.hdr;
    c.used = true;
    c.opId = m.opId;
    c.seq = this.seq++;
    c.hdr = h;
    c.sched = schedule(this.params.order, h.children);
    c.present = 0;
    c.arrived.fill(0);
    c.avail.fill(Number.POSITIVE_INFINITY);
    c.issued.fill(0);
    c.flags = 0;
    c.opSeed = makeOpSeed(this.params.seed, (m.seedId ?? m.opId) >>> 0);
    c.wideMode = accumulatorBytes(h) !== elementBytes(h.type, h.op, h.indexType);
    c.beats = Math.max(1, Math.ceil((h.count * accumulatorBytes(h)) / this.params.widthBytes));
    c.depth = passDepth(this.params, h);
    const need = h.children * SLOT_BYTES;
    if (c.buf.length < need) {
      c.buf = new Uint8Array(need);
      c.views = [];
      for (let s = 0; s < h.children; s++) c.views.push(c.buf.subarray(s * SLOT_BYTES, (s + 1) * SLOT_BYTES));
    }
    this.byOp.set(m.opId, ci);
    this.active.push(ci);
    return ci;
  }

  /** Issue the highest-priority ready pass: oldest operation first, then lowest node number. */
  private issue(t: number): void {
    for (const ci of this.active) {
      const c = this.ctxs[ci]!;
      if (c.hdr.count === 0) continue; // a barrier has no data to combine
      if (this.params.order === 'linear' && c.present < c.hdr.children) continue;
      const nodes = c.sched.nodes;
      for (let j = 0; j < nodes.length; j++) {
        if (c.issued[j]) continue;
        const n = nodes[j]!;
        if (c.avail[n.left]! > t || c.avail[n.right]! > t) continue;
        c.issued[j] = 1;
        const rightSlot = this.slotOfItem(c, n.right);
        const out = c.views[n.slot]!;
        c.flags |= combine(this.laneCfg(c), out, c.views[rightSlot]!, out, 0, c.hdr.count, n.id, c.opSeed);
        c.avail[n.out] = t + c.beats + c.depth - 1;
        this.issueFreeAt = t + c.beats;
        this.cPasses.inc();
        this.cBeats.inc(c.beats);
        return;
      }
    }
  }

  private slotOfItem(c: Ctx, item: number): number {
    const k = c.hdr.children;
    return item < k ? item : c.sched.nodes[item - k]!.slot;
  }

  /** Cycle from which the operation's result is usable, or Infinity. */
  private readyAt(c: Ctx): number {
    if (c.present < c.hdr.children) return Number.POSITIVE_INFINITY;
    if (c.hdr.count === 0) {
      let m = 0;
      for (let s = 0; s < c.hdr.children; s++) m = Math.max(m, c.avail[s]!);
      return m;
    }
    return c.avail[c.sched.root]!;
  }

  private collect(t: number): void {
    for (let k = 0; k < this.active.length; ) {
      const ci = this.active[k]!;
      const c = this.ctxs[ci]!;
      if (this.readyAt(c) <= t) {
        const h = c.hdr;
        const bytes = h.count * elementBytes(h.type, h.op, h.indexType);
        const data = new Uint8Array(bytes);
        const src = c.views[c.sched.rootSlot]!;
        if (c.wideMode) c.flags |= narrow(this.laneCfg(c), src, data, 0, h.count, c.opSeed);
        else data.set(src.subarray(0, bytes));
        this.done.push({ opId: c.opId, status: AluError.OK, data, flags: c.flags, cycle: -1, lastAccept: c.lastAccept });
        this.cOps.inc();
        this.hLatency.record(t - c.lastAccept);
        c.used = false;
        this.byOp.delete(c.opId);
        this.active.splice(k, 1);
      } else k++;
    }
  }

  private nextWake(t: number): number {
    let w = NEVER;
    if (this.in.held() > 0) w = Math.min(w, Math.max(t + 1, this.writeFreeAt));
    if (this.done.length > 0) w = Math.min(w, Math.max(t + 1, this.outFreeAt));
    for (const ci of this.active) {
      const c = this.ctxs[ci]!;
      const r = this.readyAt(c);
      if (r < NEVER) w = Math.min(w, Math.max(t + 1, r));
      if (c.hdr.count === 0 || (this.params.order === 'linear' && c.present < c.hdr.children)) continue;
      const nodes = c.sched.nodes;
      for (let j = 0; j < nodes.length; j++) {
        if (c.issued[j]) continue;
        const n = nodes[j]!;
        const ready = Math.max(c.avail[n.left]!, c.avail[n.right]!);
        if (ready < NEVER) w = Math.min(w, Math.max(t + 1, ready, this.issueFreeAt));
      }
    }
    return w;
  }
}
