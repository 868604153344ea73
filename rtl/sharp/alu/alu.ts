/**
 * The SHArP aggregation-node ALU at cycle level (seed 000 section III-F; docs/alu.md "Cycle
 * behaviour", which is normative for everything below).
 *
 * Structure:
 * - input channel `in`: operands (and aborts) from the TCA; one is taken per cycle at most, and
 *   only when the operand-buffer write port is free. The write port stores `writeBytesPerCycle`
 *   bytes per cycle, so an operand of `bytes` payload bytes occupies it for
 *   w = max(1, ceil(bytes / writeBytesPerCycle)) cycles; an operand with an invalid header, and
 *   an abort, occupy it for one cycle;
 * - operation table of `contexts` entries: allocated by the first operand of an operation id,
 *   freed when its result leaves the combine stage, on an abort, or, for an operation that
 *   failed, once every child slot has been seen (a failed operation keeps its context as a
 *   "drain" entry that swallows its remaining operands, so it reports exactly one error and no
 *   later operand of it can open a new context);
 * - operand buffer: per context, one slot of up to 512 bytes per child (the payload, or binary32
 *   accumulators in wide mode); an operand accepted at cycle A is present from A + w;
 * - one pipelined combine unit: a pass combines two items of one operation over
 *   B = ceil(bytes / widthBytes) beats issued on consecutive cycles (bytes = count x 4 in wide
 *   mode); a beat takes D cycles (D by class: integer/bitwise/compare, float add, float multiply),
 *   so a pass issued at s occupies the issue slot for s .. s + B - 1 and its result is usable
 *   from s + B + D - 1: each dependent pass adds P = B + D - 1 cycles;
 * - reduction order fixed by slot numbers (order.ts): `linear` starts when every operand of the
 *   operation is present (as the paper describes SwitchIB-2) and then chains the K - 1 passes;
 *   `tree` issues a node as soon as both of its inputs are usable (eager partial reduction);
 * - issue priority: among ready passes, the oldest operation (allocation order) first, then the
 *   lowest node number;
 * - output channel `out`: one result per operation (status, data, flags), read out of the
 *   operand buffer over B_out = max(1, ceil(result bytes / widthBytes)) cycles of the output
 *   port; finished operations wait for the port in completion order.
 *
 * Timing without contention: `linear` result at A_last + w + (K - 1) P; `tree` with isolated
 * arrivals at A_last + w + depth(last slot) P; throughput one operation per
 * max(K w, (K - 1) B, B_out) cycles. The arithmetic is done by lanes.ts when a pass issues; the
 * cycle at which the result is usable is what the pipeline depth decides.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { combine, narrow, opSeed as makeOpSeed, widen } from './lanes.ts';
import { schedule, type Schedule } from './order.ts';
import { AluError, type AluErrorCode, type DataType, elementBytes, type IndexType, isFloat, MAX_CHILDREN, type Op, type ReductionOrder, type Rounding, validateHeader } from './types.ts';

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
  /** cycle the result left the ALU (was pushed to `out`; the consumer can pop it one cycle later) */
  cycle: number;
  /** cycle the last operand of the operation was accepted from `in` (for an error: the cycle the failing operand was accepted) */
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

/** Operand-buffer bytes per child slot: 64 binary32 accumulators of a 128-element wide operation. */
const SLOT_BYTES = 512;
const MAX_ITEMS = 2 * MAX_CHILDREN - 1;

interface Ctx {
  used: boolean;
  /** failed: swallows the remaining operands of the operation, reports nothing more */
  draining: boolean;
  opId: number;
  hdr: AluHeader;
  sched: Schedule;
  /** operands stored */
  present: number;
  /** slots seen (stored, or rejected with the slot's own contribution), for draining */
  seen: Uint8Array;
  nSeen: number;
  /** per item: cycle from which usable (Infinity = not yet) */
  avail: Float64Array;
  /** per node: issued */
  issued: Uint8Array;
  /** linear: next node to issue (0-based); tree: lowest node not yet issued */
  nextNode: number;
  /** cycle from which every operand is present (Infinity until the last is accepted) */
  allAt: number;
  /** earliest cycle at which an unissued node could issue (NEVER: none can yet); cached, see refresh() */
  nodeWake: number;
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
  private writeFreeAt = 0;
  private issueFreeAt = 0;
  private outFreeAt = 0;
  private readonly done: AluResult[] = []; // finished, waiting for the output port, in order
  private readonly isLinear: boolean;
  private readonly cOps;
  private readonly cErrors;
  private readonly cPasses;
  private readonly cBeats;
  private readonly cWriteCycles;
  private readonly hLatency;
  /**
   * Testbench probe (not hardware): called with every input the ALU takes from `in` and the cycle
   * it was taken, so a testbench can check accept cycles. Null by default.
   */
  onAccept: ((m: AluInput, t: number) => void) | null = null;

  constructor(parent: Scope, name: string, params: Partial<AluParams> = {}) {
    super(parent, name);
    const p: AluParams = { ...DEFAULT_ALU_PARAMS, ...params };
    checkAluParams(p);
    this.params = p;
    this.isLinear = p.order === 'linear';
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

  /** Operations currently holding a context (including failed ones still draining operands). */
  get activeOperations(): number {
    return this.active.length;
  }

  override reset(): void {
    for (const c of this.ctxs) c.used = false;
    this.byOp.clear();
    this.active = [];
    this.writeFreeAt = this.issueFreeAt = this.outFreeAt = 0;
    this.done.length = 0;
  }

  tick(t: number): number {
    // 1. operand-buffer write port: take one input when the port is free
    if (t >= this.writeFreeAt && this.in.canPop()) this.accept(this.in.pop(), t);
    // 2. combine unit: issue one ready pass when the issue slot is free
    if (t >= this.issueFreeAt) this.issue(t);
    // 3. operations whose root item is usable go to the output queue, in completion order
    this.collect(t);
    // 4. output port
    if (this.done.length > 0 && t >= this.outFreeAt && this.out.canPush()) {
      const r = this.done.shift()!;
      r.cycle = t;
      this.out.push(r);
      this.outFreeAt = t + Math.max(1, Math.ceil(r.data.length / this.params.widthBytes));
    }
    return this.nextWake(t);
  }

  /** Cycles the write port needs for an operand with a valid header. */
  private writeCycles(h: AluHeader): number {
    return Math.max(1, Math.ceil((h.count * elementBytes(h.type, h.op, h.indexType)) / this.params.writeBytesPerCycle));
  }

  private report(opId: number, status: AluErrorCode, t: number): void {
    this.cErrors.inc();
    this.done.push({ opId, status, data: new Uint8Array(0), flags: 0, cycle: -1, lastAccept: t });
  }

  private free(ci: number): void {
    const c = this.ctxs[ci]!;
    c.used = false;
    c.draining = false;
    this.byOp.delete(c.opId);
    const k = this.active.indexOf(ci);
    if (k >= 0) this.active.splice(k, 1);
  }

  /** Count slot s of a context as seen (when in range and new); a draining context is freed when all are. */
  private see(ci: number, slot: number): void {
    const c = this.ctxs[ci]!;
    if (Number.isInteger(slot) && slot >= 0 && slot < c.hdr.children && !c.seen[slot]) {
      c.seen[slot] = 1;
      c.nSeen++;
    }
    if (c.draining && c.nSeen >= c.hdr.children) this.free(ci);
  }

  /** The operation fails: one error result; its context (if any) drains the remaining operands. */
  private failCtx(ci: number, status: AluErrorCode, slot: number, countSlot: boolean, t: number): void {
    this.report(this.ctxs[ci]!.opId, status, t);
    this.ctxs[ci]!.draining = true;
    if (countSlot) this.see(ci, slot);
    else this.see(ci, -1);
  }

  private accept(m: AluInput, t: number): void {
    if (this.onAccept !== null) this.onAccept(m, t);
    if (m.kind === 'abort') {
      const ci = this.byOp.get(m.opId);
      if (ci !== undefined) this.free(ci);
      this.writeFreeAt = t + 1;
      return;
    }
    const h = m.hdr;
    const bad = validateHeader(h.type, h.op, h.count, h.children, h.indexType);
    const w = bad === AluError.OK ? this.writeCycles(h) : 1;
    this.writeFreeAt = t + w;
    this.cWriteCycles.inc(w);
    let ci = this.byOp.get(m.opId);
    if (ci !== undefined && this.ctxs[ci]!.draining) return this.see(ci, m.slot);
    if (ci === undefined) {
      if (bad !== AluError.OK) {
        // the operation's header is invalid: drain its other operands if the children count allows
        const nci = Number.isInteger(h.children) && h.children >= 1 && h.children <= MAX_CHILDREN ? this.allocate(m, t) : -1;
        if (nci < 0) return this.report(m.opId, bad, t);
        return this.failCtx(nci, bad, m.slot, true, t);
      }
      ci = this.allocate(m, t);
      if (ci < 0) return this.report(m.opId, AluError.NO_CONTEXT, t);
    }
    const c = this.ctxs[ci]!;
    const e = c.hdr;
    if (e.type !== h.type || e.op !== h.op || e.indexType !== h.indexType || e.count !== h.count || e.children !== h.children || e.rounding !== h.rounding || e.ftz !== h.ftz || e.wide !== h.wide) {
      return this.failCtx(ci, AluError.HEADER_MISMATCH, m.slot, true, t);
    }
    if (!Number.isInteger(m.slot) || m.slot < 0 || m.slot >= h.children) return this.failCtx(ci, AluError.SLOT_RANGE, m.slot, false, t);
    if (c.seen[m.slot]) return this.failCtx(ci, AluError.DUPLICATE_OPERAND, m.slot, false, t);
    if (!(m.data instanceof Uint8Array) || m.data.length !== h.count * elementBytes(h.type, h.op, h.indexType)) return this.failCtx(ci, AluError.BAD_LENGTH, m.slot, true, t);
    c.seen[m.slot] = 1;
    c.nSeen++;
    c.present++;
    c.lastAccept = t;
    // the write path stores the operand (widened to binary32 accumulators in wide mode)
    const dst = c.views[m.slot]!;
    if (c.wideMode) c.flags |= widen(c.hdr, m.data, dst, 0, h.count);
    else dst.set(m.data);
    c.avail[m.slot] = t + w;
    // the write port is serial, so the last operand accepted is the last one present
    if (c.present === h.children) c.allAt = t + w;
    this.refresh(c);
  }

  /** Recompute c.nodeWake; readiness changes only when an item's avail does (accept, issue). */
  private refresh(c: Ctx): void {
    let w = NEVER;
    if (c.hdr.count > 0) {
      const nodes = c.sched.nodes;
      const last = this.isLinear ? Math.min(c.nextNode + 1, nodes.length) : nodes.length;
      for (let j = c.nextNode; j < last; j++) {
        if (c.issued[j]) continue;
        const r = this.nodeReady(c, j);
        if (r < w) w = r;
      }
    }
    c.nodeWake = w;
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
        draining: false,
        opId: 0,
        hdr: m.hdr,
        sched: schedule(this.params.order, 1),
        present: 0,
        seen: new Uint8Array(MAX_CHILDREN),
        nSeen: 0,
        avail: new Float64Array(MAX_ITEMS),
        issued: new Uint8Array(MAX_CHILDREN),
        nextNode: 0,
        allAt: NEVER,
        nodeWake: NEVER,
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
    c.draining = false;
    c.opId = m.opId;
    c.hdr = { ...h }; // the ALU's own copy: a sender reusing its header object cannot change it
    c.present = 0;
    c.seen.fill(0);
    c.nSeen = 0;
    c.lastAccept = t;
    this.byOp.set(m.opId, ci);
    this.active.push(ci);
    if (validateHeader(h.type, h.op, h.count, h.children, h.indexType) !== AluError.OK) return ci; // a drain entry: no datapath state
    c.sched = schedule(this.params.order, h.children);
    c.avail.fill(NEVER);
    c.issued.fill(0);
    c.nextNode = 0;
    c.allAt = NEVER;
    c.nodeWake = NEVER;
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
    return ci;
  }

  /** Cycle from which node j of context c could issue (ignoring the issue slot), or NEVER. */
  private nodeReady(c: Ctx, j: number): number {
    const n = c.sched.nodes[j]!;
    const l = c.avail[n.left]!;
    const r = c.avail[n.right]!;
    const ready = l > r ? l : r;
    return this.isLinear && c.allAt > ready ? c.allAt : ready;
  }

  /** Issue the highest-priority ready pass: oldest operation first, then lowest node number. */
  private issue(t: number): void {
    const act = this.active;
    for (let k = 0; k < act.length; k++) {
      const c = this.ctxs[act[k]!]!;
      if (c.draining || c.nodeWake > t) continue; // (a barrier never has a node to issue)
      const nodes = c.sched.nodes;
      for (let j = c.nextNode; j < nodes.length; j++) {
        if (c.issued[j] || this.nodeReady(c, j) > t) continue;
        const n = nodes[j]!;
        c.issued[j] = 1;
        while (c.nextNode < nodes.length && c.issued[c.nextNode]) c.nextNode++;
        const out = c.views[n.slot]!;
        c.flags |= combine(c.hdr, out, c.views[this.slotOfItem(c, n.right)]!, out, 0, c.hdr.count, n.id, c.opSeed);
        c.avail[n.out] = t + c.beats + c.depth - 1;
        this.issueFreeAt = t + c.beats;
        this.refresh(c);
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

  /** Cycle from which the operation's result is usable, or NEVER. */
  private readyAt(c: Ctx): number {
    if (c.draining || c.present < c.hdr.children) return NEVER;
    if (c.hdr.count === 0) return c.allAt;
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
        if (c.wideMode) c.flags |= narrow(c.hdr, src, data, 0, h.count, c.opSeed);
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
    const t1 = t + 1;
    let w = NEVER;
    if (this.in.held() > 0) w = Math.max(t1, this.writeFreeAt);
    // a full `out` wakes us when the consumer pops; otherwise retry when the port is free
    if (this.done.length > 0 && this.out.held() < this.out.capacity) w = Math.min(w, Math.max(t1, this.outFreeAt));
    const act = this.active;
    for (let k = 0; k < act.length; k++) {
      const c = this.ctxs[act[k]!]!;
      if (c.draining) continue;
      const r = this.readyAt(c);
      if (r < w) w = Math.max(t1, r);
      if (c.nodeWake < w) w = Math.min(w, Math.max(t1, c.nodeWake, this.issueFreeAt));
    }
    return w;
  }
}
