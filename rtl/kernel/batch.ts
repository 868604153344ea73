import { childPath, Component, NEVER, type Scope, type Signal } from './component.ts';
import type { Simulator, TraceUnit } from './simulator.ts';

/**
 * Batched components: many instances of one block whose state is laid out by field in typed
 * arrays (structure of arrays, sized at build time) and evaluated by one loop compiled for the
 * block's class, with latency-1 channels between them held in typed arrays as well. This is the
 * kernel's data-oriented execution model (what Verilator does by generating C++ for a built design):
 * a ring of a million stages is a few typed arrays, not millions of objects, and a cycle of the
 * batch is one monomorphic loop the JIT compiles once.
 *
 * Register-transfer style, as for components: `evalOne(i, t)` is instance i's clock cycle. It first
 * reads current state (its own fields, `inp.canPop(k, t)`, `out.canPush(k, t)`, `peek`) and decides,
 * then writes next state (`push`, `pop`, its own fields), and returns the next cycle it must run as
 * `Component.tick` does (t + 1, a later cycle, or NEVER to wait for input). An instance's own
 * fields are its registers: only it reads and writes them, and it reads what it needs before its
 * writes (a `FifoArray` push in cycle t is seen by `count` at once; read `count` first, as an RTL
 * FIFO's occupancy is read at the clock edge). Instances talk only through `ChannelArray` channels,
 * whose decisions never see what other instances did in the same cycle (below), so the order in
 * which instances (and the other components) are evaluated never changes a result: the simulator's
 * `shuffleSeed` shuffles the instances of a batch too.
 *
 * Channel timing (`ChannelArray`, the same as a `NumChannel` with latency 1): a push in cycle t is
 * poppable from t + 1; a pop in t frees its slot for the producer from t + 1. At most one push and
 * one pop per channel per cycle (a hardware port; a second one throws). Each channel keeps its
 * count and the cycles of its last push and last pop, so `canPop` is "held minus pushed this cycle
 * > 0" and `canPush` "held plus popped this cycle < capacity": two loads and a compare each.
 *
 * Activity skipping: the batch is one component for the scheduler. In a cycle it runs, every
 * instance is evaluated (an idle instance changes nothing, per the contract); it asks to run again
 * at the earliest cycle its instances asked for, or at t + 1 after any transfer on its channels.
 * It sleeps (and the clock can jump) when every instance waits for input and nothing moved.
 * Channels whose other end is a plain component (`ChannelArray.port(k)`) wake that component when
 * the batch pushes to or pops from them, and the component's pushes and pops wake the batch, so
 * mixed designs keep the kernel's wake-up rules.
 *
 * Tracing: every channel of a `ChannelArray` and every FIFO of a `FifoArray` is a trace unit with the
 * path given by its naming function and the same signals as a `NumChannel` (count, push, pop, head)
 * and a `NumFifo` (count, head), made when a tracer asks for them (`Simulator.traceUnits`), so a
 * batched design can dump the same VCD as the same design built from components.
 */

/** Payload width of a channel or FIFO array: 32 stores signed 32-bit integers (`v | 0`), 64 any number. */
export type BatchWidth = 32 | 64;

export interface ChannelArrayOptions {
  /** entries per channel (default 2: one transfer per cycle) */
  capacity?: number;
  /** payload: 32 (an Int32Array) or 64 (a Float64Array, default) */
  width?: BatchWidth;
}

/** The path of element k of an array (a channel or a FIFO), for errors and traces. */
export type PathOf = (k: number) => string;

function payload(width: BatchWidth | undefined, n: number): Int32Array | Float64Array {
  if (width === undefined || width === 64) return new Float64Array(n);
  if (width === 32) return new Int32Array(n);
  throw new RangeError(`width must be 32 or 64, got ${String(width)}`);
}

function checkCount(what: string, n: number, min: number): void {
  if (!Number.isInteger(n) || n < min) throw new RangeError(`${what} must be an integer >= ${min}, got ${n}`);
}

function head64(v: number): bigint {
  return BigInt.asUintN(64, BigInt(Math.trunc(Number.isFinite(v) ? v : 0)));
}

/**
 * `size` latency-1 channels of one capacity, in typed arrays. Bound to one producing and one
 * consuming batch (`bindProducer` / `bindConsumer`, possibly the same batch); channel k's end can
 * instead be a plain component through `port(k)`.
 */
export class ChannelArray {
  declare readonly size: number;
  declare readonly capacity: number;
  /** entry j of channel k at k * capacity + j */
  declare readonly data: Int32Array | Float64Array;
  /** slot of the head entry */
  declare readonly hd: Int32Array;
  /** entries held (pushed, not popped) */
  declare readonly n: Int32Array;
  /** cycle of the last push / pop (-1: none) */
  declare readonly pushT: Float64Array;
  declare readonly popT: Float64Array;
  /** the last cycle with a push or pop on any channel */
  declare moved: number;
  declare readonly sim: Simulator;
  declare readonly pathOf: PathOf;
  declare producer: Batch | null;
  declare consumer: Batch | null;
  /** channels whose producer / consumer is a plain component (through a port) */
  declare readonly extProducers: Map<number, Component>;
  declare readonly extConsumers: Map<number, Component>;

  constructor(scope: Scope, size: number, pathOf: PathOf, opts: ChannelArrayOptions = {}) {
    checkCount('channel array size', size, 1);
    const cap = opts.capacity ?? 2;
    checkCount('channel capacity', cap, 1);
    this.size = size;
    this.capacity = cap;
    this.data = payload(opts.width, size * cap);
    this.hd = new Int32Array(size);
    this.n = new Int32Array(size);
    this.pushT = new Float64Array(size).fill(-1);
    this.popT = new Float64Array(size).fill(-1);
    this.moved = -1;
    this.sim = scope.sim;
    this.pathOf = pathOf;
    this.producer = null;
    this.consumer = null;
    this.extProducers = new Map();
    this.extConsumers = new Map();
    this.sim._registerState(this);
  }

  /** Instances of batch b push to these channels (except those with a port producer). */
  bindProducer(b: Batch): this {
    if (this.producer !== null && this.producer !== b) throw new Error(`${this.pathOf(0)}: channel array already has producer ${this.producer.path}`);
    this.producer = b;
    b._attach(this);
    return this;
  }

  /** Instances of batch b pop from these channels (except those with a port consumer). */
  bindConsumer(b: Batch): this {
    if (this.consumer !== null && this.consumer !== b) throw new Error(`${this.pathOf(0)}: channel array already has consumer ${this.consumer.path}`);
    this.consumer = b;
    b._attach(this);
    return this;
  }

  /** Channel k as a NumChannel-like object for a plain component at one of its ends. */
  port(k: number): ChannelPort {
    if (!Number.isInteger(k) || k < 0 || k >= this.size) throw new RangeError(`channel ${k} of ${this.size}: no such channel`);
    return new ChannelPort(this, k);
  }

  reset(): void {
    this.hd.fill(0);
    this.n.fill(0);
    this.pushT.fill(-1);
    this.popT.fill(-1);
    this.moved = -1;
  }

  /** Consumer view in cycle t: an entry pushed before t is held. */
  canPop(k: number, t: number): boolean {
    return this.n[k]! - (this.pushT[k] === t ? 1 : 0) > 0;
  }

  /** Producer view in cycle t: held entries plus one popped in t (its slot is free from t + 1) leave room. */
  canPush(k: number, t: number): boolean {
    return this.n[k]! + (this.popT[k] === t ? 1 : 0) < this.capacity;
  }

  /** The head entry (check canPop first). */
  peek(k: number): number {
    return this.data[k * this.capacity + this.hd[k]!]!;
  }

  push(k: number, v: number, t: number): void {
    const n = this.n[k]!;
    const cap = this.capacity;
    if (n + (this.popT[k] === t ? 1 : 0) >= cap || this.pushT[k] === t) this._pushError(k, t);
    let s = this.hd[k]! + n;
    if (s >= cap) s -= cap;
    this.data[k * cap + s] = v;
    this.n[k] = n + 1;
    this.pushT[k] = t;
    this.moved = t;
  }

  pop(k: number, t: number): number {
    const n = this.n[k]!;
    if (n - (this.pushT[k] === t ? 1 : 0) <= 0 || this.popT[k] === t) this._popError(k, t);
    const cap = this.capacity;
    const h = this.hd[k]!;
    const v = this.data[k * cap + h]!;
    this.hd[k] = h + 1 === cap ? 0 : h + 1;
    this.n[k] = n - 1;
    this.popT[k] = t;
    this.moved = t;
    return v;
  }

  /** Entries held, visible or not. */
  held(k: number): number {
    return this.n[k]!;
  }

  /** Producer view at the end of cycle t: held entries plus one popped in t. */
  occupancy(k: number, t: number): number {
    return this.n[k]! + (this.popT[k] === t ? 1 : 0);
  }

  /** @internal */
  _pushError(k: number, t: number): never {
    if (this.pushT[k] === t) throw new Error(`${this.pathOf(k)}: second push in cycle ${t} (one per cycle)`);
    throw new Error(`${this.pathOf(k)}: push while full (check canPush first)`);
  }

  /** @internal */
  _popError(k: number, t: number): never {
    if (this.popT[k] === t) throw new Error(`${this.pathOf(k)}: second pop in cycle ${t} (one per cycle)`);
    throw new Error(`${this.pathOf(k)}: pop while empty (check canPop first)`);
  }

  /** @internal after batch b ran in cycle t: wake the other ends of the channels that moved */
  _afterRun(b: Batch, t: number): void {
    const sim = this.sim;
    const other = b === this.producer ? this.consumer : this.producer;
    if (other !== null && other !== b) sim.wakeAt(other, t + 1);
    for (const [k, c] of this.extConsumers) if (this.pushT[k] === t) sim.wakeAt(c, t + 1);
    for (const [k, c] of this.extProducers) if (this.popT[k] === t) sim.wakeAt(c, t + 1);
  }

  /** @internal trace units, one per channel with a NumChannel's signals (made on demand) */
  _units(): TraceUnit[] {
    const out: TraceUnit[] = [];
    const sim = this.sim;
    for (let k = 0; k < this.size; k++) {
      const sigs: Signal[] = [
        { name: 'count', width: 32, get: () => this.occupancy(k, sim.cycle) },
        { name: 'push', width: 1, get: () => (this.pushT[k] === sim.cycle ? 1 : 0) },
        { name: 'pop', width: 1, get: () => (this.popT[k] === sim.cycle ? 1 : 0) },
        { name: 'head', width: 64, get: () => (this.n[k]! > 0 ? head64(this.peek(k)) : 0n) },
      ];
      out.push(new ElementUnit(this.pathOf(k), sigs, [this.extProducers.get(k) ?? this.producer, this.extConsumers.get(k) ?? this.consumer]));
    }
    return out;
  }
}

/**
 * One element of an array (a channel or a FIFO) as a trace unit: its path, its signals, and the
 * components to trace with it (its signals change only when they run; tracing them makes the
 * simulator visit the cycle after each of their evaluations, so traces stay exact under skipping).
 */
class ElementUnit implements TraceUnit {
  _traced = false;
  constructor(
    readonly path: string,
    readonly _signals: Signal[],
    private readonly ends: readonly (Component | null | undefined)[],
  ) {}
  _markTraced(): void {
    this._traced = true;
    for (const c of this.ends) if (c) c._traced = true;
  }
}

/**
 * Channel k of a ChannelArray for a plain component: the NumChannel methods (latency 1) reading the
 * simulator's clock, and the wake-ups of the batch at the other end.
 */
export class ChannelPort {
  constructor(
    readonly array: ChannelArray,
    readonly k: number,
  ) {}

  get path(): string {
    return this.array.pathOf(this.k);
  }

  /** Component c pushes to this channel (instead of the array's producer batch). */
  bindProducer(c: Component): this {
    const a = this.array;
    const was = a.extProducers.get(this.k);
    if (was !== undefined && was !== c) throw new Error(`${this.path}: already has producer ${was.path}`);
    a.extProducers.set(this.k, c);
    return this;
  }

  /** Component c pops from this channel (instead of the array's consumer batch). */
  bindConsumer(c: Component): this {
    const a = this.array;
    const was = a.extConsumers.get(this.k);
    if (was !== undefined && was !== c) throw new Error(`${this.path}: already has consumer ${was.path}`);
    a.extConsumers.set(this.k, c);
    return this;
  }

  canPop(): boolean {
    return this.array.canPop(this.k, this.array.sim.cycle);
  }
  canPush(): boolean {
    return this.array.canPush(this.k, this.array.sim.cycle);
  }
  peek(): number {
    return this.array.peek(this.k);
  }
  held(): number {
    return this.array.held(this.k);
  }
  occupancy(): number {
    return this.array.occupancy(this.k, this.array.sim.cycle);
  }
  /** push in the current cycle; wakes the consumer (a component or the consumer batch) for the next */
  push(v: number): void {
    const a = this.array;
    const t = a.sim.cycle;
    a.push(this.k, v, t);
    const c = a.extConsumers.get(this.k) ?? a.consumer;
    if (c) a.sim.wakeAt(c, t + 1);
  }
  /** pop in the current cycle; wakes the producer (a component or the producer batch) for the next */
  pop(): number {
    const a = this.array;
    const t = a.sim.cycle;
    const v = a.pop(this.k, t);
    const c = a.extProducers.get(this.k) ?? a.producer;
    if (c) a.sim.wakeAt(c, t + 1);
    return v;
  }
}

export interface FifoArrayOptions {
  /** payload: 32 (an Int32Array) or 64 (a Float64Array, default) */
  width?: BatchWidth;
}

/**
 * `size` FIFOs of one depth, one per instance of a batch: the instance's own state (like a
 * NumFifo inside a component), updated in program order. Read `count` (and `head`) before pushing
 * or popping in a cycle, as hardware reads a FIFO's occupancy at the clock edge: then a push in t is
 * poppable from t + 1 and a pop frees its slot from t + 1, as with NumFifo.
 */
export class FifoArray {
  declare readonly size: number;
  declare readonly depth: number;
  declare readonly data: Int32Array | Float64Array;
  declare readonly hd: Int32Array;
  declare readonly n: Int32Array;
  declare readonly pathOf: PathOf;
  declare readonly owner: Batch;

  constructor(owner: Batch, depth: number, pathOf: PathOf, opts: FifoArrayOptions = {}) {
    checkCount('FIFO depth', depth, 1);
    this.size = owner.size;
    this.depth = depth;
    this.data = payload(opts.width, owner.size * depth);
    this.hd = new Int32Array(owner.size);
    this.n = new Int32Array(owner.size);
    this.pathOf = pathOf;
    this.owner = owner;
    owner.sim._registerState(this);
    owner._fifos.push(this);
  }

  reset(): void {
    this.hd.fill(0);
    this.n.fill(0);
  }

  count(i: number): number {
    return this.n[i]!;
  }
  head(i: number): number {
    return this.data[i * this.depth + this.hd[i]!]!;
  }
  push(i: number, v: number): void {
    const n = this.n[i]!;
    const d = this.depth;
    if (n >= d) this._fullError(i);
    let s = this.hd[i]! + n;
    if (s >= d) s -= d;
    this.data[i * d + s] = v;
    this.n[i] = n + 1;
  }
  pop(i: number): number {
    const n = this.n[i]!;
    if (n <= 0) this._emptyError(i);
    const d = this.depth;
    const h = this.hd[i]!;
    const v = this.data[i * d + h]!;
    this.hd[i] = h + 1 === d ? 0 : h + 1;
    this.n[i] = n - 1;
    return v;
  }
  /** @internal */
  _fullError(i: number): never {
    throw new Error(`${this.pathOf(i)}: push while full (check count first)`);
  }
  /** @internal */
  _emptyError(i: number): never {
    throw new Error(`${this.pathOf(i)}: pop while empty (check count first)`);
  }

  /** @internal trace units, one per FIFO with a NumFifo's signals (made on demand) */
  _units(): TraceUnit[] {
    const out: TraceUnit[] = [];
    for (let i = 0; i < this.size; i++) {
      const sigs: Signal[] = [
        { name: 'count', width: 32, get: () => this.count(i) },
        { name: 'head', width: 64, get: () => (this.count(i) > 0 ? head64(this.head(i)) : 0n) },
      ];
      out.push(new ElementUnit(this.pathOf(i), sigs, [this.owner]));
    }
    return out;
  }
}

type BatchLoop = (b: Batch, n: number, t: number) => number;
type ShuffledLoop = (b: Batch, order: Int32Array, t: number) => number;
interface Loops {
  readonly run: BatchLoop;
  readonly shuffled: ShuffledLoop;
}

// One pair of loops per batch class (new Function gives each its own feedback, so the evalOne
// call site sees one class and V8 inlines it with the channel methods it calls). No user text.
const loopsByClass = new Map<unknown, Loops>();

function loopsFor(ctor: unknown): Loops {
  let l = loopsByClass.get(ctor);
  if (l === undefined) {
    const cls = typeof ctor === 'function' ? ctor.name : '';
    const name = cls.replace(/[^A-Za-z0-9]/g, '') || 'anonymous';
    const run = new Function(
      `return function batch_${name}(b, n, t) {
        let next = Infinity;
        for (let i = 0; i < n; i++) {
          const w = b.evalOne(i, t);
          if (w < next) next = w;
        }
        return next;
      };`,
    )() as BatchLoop;
    const shuffled = new Function(
      `return function batchShuffled_${name}(b, order, t) {
        let next = Infinity;
        for (let j = 0; j < order.length; j++) {
          const w = b.evalOne(order[j], t);
          if (w < next) next = w;
        }
        return next;
      };`,
    )() as ShuffledLoop;
    l = { run, shuffled };
    loopsByClass.set(ctor, l);
  }
  return l;
}

/**
 * A batch of `size` instances of one block (see the top of this file). Subclasses hold their
 * per-instance state in typed arrays indexed by the instance number and implement `evalOne`.
 */
export abstract class Batch extends Component {
  declare readonly size: number;
  /** @internal channel arrays with an end in this batch */
  declare readonly _arrays: ChannelArray[];
  /** @internal FIFO arrays of this batch */
  declare readonly _fifos: FifoArray[];
  private declare readonly loops: Loops;
  private declare order: Int32Array | null;

  constructor(parent: Scope, name: string, size: number) {
    super(parent, name);
    checkCount(`${childPath(parent, name)}: batch size`, size, 1);
    this.size = size;
    this._arrays = [];
    this._fifos = [];
    this.loops = loopsFor(this.constructor);
    this.order = null;
  }

  /**
   * Every instance's cycle t; returns the earliest cycle any asked for (Infinity for none). By
   * default `evalOne` for i = 0 .. size - 1 in the loop compiled for the class. A subclass may
   * replace it with a loop specialised for its design (as Verilator specialises C++ for a built
   * design) that must do exactly what `evalOne` does for every i in some order, whatever the
   * order of the other components; with `shuffleSeed`, cycles chosen by the seed run `evalOne` in a
   * shuffled order instead, so the equivalence tests of a design (shuffled against not) check the
   * specialised loop against `evalOne`.
   */
  evalAll(t: number): number {
    return this.loops.run(this, this.size, t);
  }

  /** Instance i's cycle t: read current state, then write next state; returns as Component.tick. */
  abstract evalOne(i: number, t: number): number;

  /** @internal a channel array with an end here */
  _attach(a: ChannelArray): void {
    if (!this._arrays.includes(a)) this._arrays.push(a);
  }

  tick(t: number): number {
    const rng = this.sim._shuffleRng();
    let next: number;
    // shuffled order: half of the cycles (by the seed) evalOne in a shuffled order, the others evalAll
    // with the components' order shuffled around it, so that a specialised evalAll is checked too
    if (rng === null || rng.int(2) === 0) next = this.evalAll(t);
    else {
      const order = (this.order ??= Int32Array.from({ length: this.size }, (_, i) => i));
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        const x = order[i]!;
        order[i] = order[j]!;
        order[j] = x;
      }
      next = this.loops.shuffled(this, order, t);
    }
    if (!(next > t)) throw new Error(`${this.path}: an instance's evalOne(i, ${t}) returned ${next}; must be > ${t} or NEVER`);
    const arrays = this._arrays;
    for (let k = 0; k < arrays.length; k++) {
      const a = arrays[k]!;
      if (a.moved === t) {
        next = t + 1;
        a._afterRun(this, t);
      }
    }
    return next === Infinity ? NEVER : next;
  }

  /** @internal the trace units of the batch's channels (those it produces) and FIFOs, in creation order */
  _expandUnits(): TraceUnit[] {
    const out: TraceUnit[] = [];
    for (const a of this._arrays) if (a.producer === this || (a.producer === null && a.consumer === this)) out.push(...a._units());
    for (const f of this._fifos) out.push(...f._units());
    return out;
  }
}
