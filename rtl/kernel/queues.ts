import { childPath, type ChannelLinks, type Component, type Scope, type Signal } from './component.ts';
import type { Simulator, TraceUnit } from './simulator.ts';

/**
 * Registered queues: the channels between components and the FIFOs inside them. They share one
 * mechanism, so they live in one module with the slab they index (slab.ts explains why the slab is
 * a constant of this module).
 *
 * Every queue is a ring of slots (it starts with a few and grows up to `capacity` as its occupancy
 * requires, see growRing, so a deep queue that is kept moving costs little memory and cache). A
 * slot holds one cycle stamp and, for numeric queues, the payload. The stamp of a held slot is R,
 * the cycle from which its entry can be popped (push cycle + latency); that of a free slot is
 * FREE - F, where F is the cycle from which the producer may fill it again (pop cycle + 1, the
 * registered credit) and FREE = 2^52 is far above any cycle. So with the simulator's clock entries
 * SLAB[ck] = now and SLAB[ck + 1] = FREE - now:
 * - canPop() is "stamp of the head slot <= now" (true for a held slot with R <= now; a free slot's
 *   stamp is above any cycle);
 * - canPush() is "stamp of the tail slot >= FREE - now" (true for a free slot with F <= now; a held
 *   slot's stamp is below),
 * one comparison each; nothing is committed at the clock edge and no result depends on evaluation
 * order. (canPush is exact: slots are freed in ring order, so the tail slot, the oldest free one,
 * was freed before cycle t exactly when occupancy + pops in t < capacity.) The hot methods are
 * small, keep errors and wake-ups in separate functions, and index the module constant SLAB
 * directly, so V8 inlines them into the caller's tick() as a handful of loads and stores.
 */

/**
 * Entries in the slot slab: 512 MiB of address space, of which the operating system commits only
 * the pages in use (a 1,000-stage ring with 16-entry FIFOs uses about 430 KB). It holds the queues
 * of all live simulators, e.g. a ring of a million such stages.
 */
export const SLAB_SIZE = 1 << 26;
/**
 * The slot slab (see slab.ts). It must stay a constant of this module that is not exported: V8
 * folds such a constant into the compiled code (a fixed address), not an exported or imported one.
 */
const SLAB = new Float64Array(SLAB_SIZE);

/** @internal for slab.ts: zero entries [p, p + n) */
export function slabZero(p: number, n: number): void {
  SLAB.fill(0, p, p + n);
}

/** Stamp of a slot free since cycle 0; a free slot's stamp is FREE - (cycle from which it may be filled). */
const FREE = 2 ** 52;
/** stamps below HELD are those of held slots (R, a cycle), those above of free ones */
const HELD = 2 ** 51;

/** @internal for slab.ts: a simulator's clock entries (at p and p + 1) move to cycle c */
export function slabClock(p: number, c: number): void {
  SLAB[p] = c;
  SLAB[p + 1] = FREE - c;
}

/** the cycle from which the free slot at p may be filled */
function freedAt(p: number): number {
  return FREE - SLAB[p]!;
}

export interface ChannelOptions {
  /** Entries the channel holds, in flight plus waiting (default 2: full throughput with the one-cycle credit return). */
  capacity?: number;
  /** Cycles from a push until the consumer can pop it (>= 1, default 1). */
  latency?: number;
}

/** Options of an object channel or FIFO: what its traced `head` signal shows of the head entry. */
export interface TraceHeadOptions<T> {
  /**
   * The number the VCD's `head` signal (64 bits) shows for the entry at the head (0 while empty);
   * without it an object queue shows `head_seq` instead: the 0-based number, in push order since
   * reset, of the entry at the head (the next to arrive while empty).
   */
  traceHead?: (entry: T) => number | bigint;
}

/** Options of a FIFO. */
export interface FifoOptions<T = number> extends TraceHeadOptions<T> {
  /** Its name in traces, under its owner's path (default `fifo0`, `fifo1`, ... in construction order per owner). */
  name?: string;
}

/**
 * A queue's traceHead, held as a method so that the queue's type stays covariant in its entry type
 * (a Channel<Sub> may still be passed where a Channel<Base> is expected).
 */
interface HeadOf<T> {
  head(entry: T): number | bigint;
}

/** A head value as a 64-bit VCD vector. */
function head64(v: number | bigint): bigint {
  return typeof v === 'bigint' ? BigInt.asUintN(64, v) : BigInt.asUintN(64, BigInt(Math.trunc(Number.isFinite(v) ? v : 0)));
}

/**
 * The fields of a ring, shared by channels and FIFOs: slot i is at first + i * stride (its stamp,
 * then the payload of a numeric queue); `hd` is the position of the head slot, `tl` that of the tail
 * slot (the next to fill), both wrapping at `end`. `ck` is the position of the simulator's clock
 * entries (now, FREE - now).
 */
interface Ring {
  hd: number;
  tl: number;
  first: number;
  end: number;
  ck: number;
  /** fewer slots than capacity (the ring may still grow) */
  small: boolean;
  readonly stride: number;
  readonly capacity: number;
}

function slotPos(r: Ring, i: number): number {
  return r.first + i * r.stride;
}

/** slots in the ring now (it grows up to `capacity`, see growRing) */
function slots(r: Ring): number {
  return (r.end - r.first) / r.stride;
}

function headIndex(r: Ring): number {
  return (r.hd - r.first) / r.stride;
}

function tailIndex(r: Ring): number {
  return (r.tl - r.first) / r.stride;
}

/** Slots a ring starts with: all of them up to this capacity; deeper queues grow when they fill. */
const FIRST_SLOTS = 4;

/** Allocate the ring's first slots and set its geometry and positions. */
function placeRing(r: Ring, sim: Simulator): void {
  const space = sim._slab();
  const n = Math.min(r.capacity, FIRST_SLOTS);
  r.first = space.alloc(r.stride * n);
  r.end = r.first + r.stride * n;
  r.ck = space.clock;
  r.small = n < r.capacity;
  clearRing(r);
}

/** Every slot empty and free since cycle 0; head and tail at slot 0. */
function clearRing(r: Ring): void {
  for (let p = r.first; p < r.end; p += r.stride) {
    SLAB[p] = FREE;
    for (let k = 1; k < r.stride; k++) SLAB[p + k] = 0;
  }
  r.hd = r.first;
  r.tl = r.first;
}

/**
 * After a push, the tail slot cannot be filled in this cycle (it is held, or was freed in this cycle)
 * while the ring has fewer slots than `capacity`: the ring doubles (up to capacity). The entries
 * move, in order, to the start of a new range; then come the new slots, free since cycle 0, and
 * then the old free slots in the order they were freed.
 *
 * Why canPush() stays exact: a ring with fewer slots than its capacity always has a tail slot that
 * can be filled now (this function restores that after every push, and pops and new cycles keep
 * it), and indeed occupancy + pops in this cycle <= slots < capacity. A ring at full capacity keeps
 * its free slots in the order they were freed, tail first, as the canPush rule requires.
 */
function growRing(r: Ring, sim: Simulator, held: number): void {
  const n = slots(r);
  if (n >= r.capacity) return;
  const m = Math.min(2 * n, r.capacity);
  const w = r.stride;
  const space = sim._slab();
  const first = space.alloc(w * m);
  const hi = headIndex(r);
  const move = (from: number, to: number): void => {
    const src = slotPos(r, (hi + from) % n);
    SLAB.copyWithin(first + to * w, src, src + w);
  };
  for (let k = 0; k < held; k++) move(k, k);
  for (let k = held; k < held + m - n; k++) {
    const p = first + k * w;
    SLAB[p] = FREE;
    for (let j = 1; j < w; j++) SLAB[p + j] = 0;
  }
  for (let k = held; k < n; k++) move(k, k + m - n);
  space.free(r.first, w * n);
  r.first = first;
  r.end = first + w * m;
  r.small = m < r.capacity;
  r.hd = first;
  r.tl = first + held * w;
}

function checkCapacity(path: string, what: string, cap: number): void {
  if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`${path}: ${what} capacity must be an integer >= 1, got ${cap}`);
}

// ---------------------------------------------------------------------------------------------
// Channels

/** @internal cold per-channel state */
interface ChannelInfo {
  readonly sim: Simulator;
  /** the scope it was built in and its name there (its path is built on demand: a large design keeps no path string per channel) */
  readonly scope: Scope;
  readonly name: string;
  producer: Component | null;
  consumer: Component | null;
  /** the next input channel of its consumer, the next output channel of its producer (see ComponentInfo) */
  nextIn: ChannelCore | null;
  nextOut: ChannelCore | null;
  traced: boolean;
  sigs: Signal[] | null;
}

/**
 * Registered, bounded FIFO channel: the only way components talk.
 *
 * Timing (t is the current cycle):
 * - push(v) in cycle t makes v poppable from cycle t + latency.
 * - canPush() in cycle t is true when (pushes up to and including t) - (pops up to t - 1) < capacity:
 *   the producer sees the consumer's pops one cycle late (a registered credit), and its own pushes at once.
 * - canPop() in cycle t is true when the head entry was pushed at or before t - latency
 *   and has not been popped; it never depends on anything pushed or popped by others in cycle t.
 * So no result depends on the order in which producer and consumer are evaluated, and there is no
 * combinational path through a channel. With latency 1, capacity 2 sustains one transfer per cycle.
 *
 * With activity skipping, a sleeping consumer runs in the cycle a pushed entry becomes poppable, and a
 * pop from a full channel wakes the producer at t + 1.
 */
export abstract class ChannelCore implements TraceUnit, ChannelLinks {
  // Fields are `declare`d and created by the constructor in this order, hot state first: a field
  // declared the plain way would first be defined as undefined, and V8 would then treat it as a
  // tagged value of any type (Smi checks, map checks, write barriers on every access).
  /** @internal position of the head slot */
  declare hd: number;
  /** @internal position of the tail slot (the next to fill) */
  declare tl: number;
  /** @internal ring bounds and the simulator's clock entries (see Ring) */
  declare first: number;
  declare end: number;
  declare ck: number;
  /** @internal the ring may still grow (see growRing) */
  declare small: boolean;
  /** @internal small, or a consumer is subscribed: a push must call _after */
  declare slow: boolean;
  declare readonly latency: number;
  /** @internal the consumer to wake on a push: set while it sleeps (see Simulator._drop), null while it is busy, unbound or with skipping off */
  declare _wc: Component | null;
  /** total pushes since reset */
  declare pushes: number;
  /** total pops since reset */
  declare pops: number;
  /** @internal the producer to wake on a pop: set while it sleeps on this full channel (see Simulator._drop) */
  declare _wp: Component | null;
  /** @internal entries per slot: the stamp, then the payload for NumChannel */
  declare readonly stride: number;
  declare readonly capacity: number;
  /** @internal state the hot methods never touch (kept out of the object so its hot fields share fewer cache lines) */
  declare readonly _info: ChannelInfo;
  /** @internal bound with `everyPush` (and skipping on): every push wakes the consumer, which stays subscribed */
  declare _eager: boolean;
  /** @internal bound with `arrivals`: every push notes `_key` there */
  declare _arr: Arrivals | null;
  declare _key: number;

  constructor(parent: Scope, name: string, opts: ChannelOptions, stride: number) {
    const path = childPath(parent, name);
    const cap = opts.capacity ?? 2;
    const lat = opts.latency ?? 1;
    checkCapacity(path, 'channel', cap);
    if (!Number.isInteger(lat) || lat < 1) throw new RangeError(`${path}: channel latency must be an integer >= 1, got ${lat}`);
    this.hd = 0;
    this.tl = 0;
    this.first = 0;
    this.end = 0;
    this.ck = 0;
    this.small = false;
    this.slow = false;
    this.latency = lat;
    this._wc = null;
    this.pushes = 0;
    this.pops = 0;
    this._wp = null;
    this.stride = stride;
    this.capacity = cap;
    this._info = { sim: parent.sim, scope: parent, name, producer: null, consumer: null, nextIn: null, nextOut: null, traced: false, sigs: null };
    this._eager = false;
    this._arr = null;
    this._key = 0;
    this.sim._registerUnit(this, parent, name);
    placeRing(this, this.sim);
    this.slow = this.small;
    this.sim._registerState(this);
  }

  protected get sim(): Simulator {
    return this._info.sim;
  }
  get path(): string {
    const i = this._info;
    return childPath(i.scope, i.name);
  }
  get producer(): Component | null {
    return this._info.producer;
  }
  /** @internal the next input channel of this channel's consumer, and the next output channel of its producer (see ComponentInfo) */
  get _nextIn(): ChannelCore | null {
    return this._info.nextIn;
  }
  get _nextOut(): ChannelCore | null {
    return this._info.nextOut;
  }
  set producer(c: Component | null) {
    this._info.producer = c;
  }
  get consumer(): Component | null {
    return this._info.consumer;
  }
  set consumer(c: Component | null) {
    this._info.consumer = c;
  }
  get _traced(): boolean {
    return this._info.traced;
  }
  set _traced(v: boolean) {
    this._info.traced = v;
  }

  /** Traceable signals (built on first use, so untraced channels carry no closures). */
  get _signals(): Signal[] {
    return (this._info.sigs ??= this.makeSignals());
  }

  protected makeSignals(): Signal[] {
    return [
      { name: 'count', width: 32, get: () => this.occupancy() },
      { name: 'push', width: 1, get: () => (this.pushedNow() ? 1 : 0) },
      { name: 'pop', width: 1, get: () => (this.poppedNow() ? 1 : 0) },
    ];
  }

  /**
   * Bind the component that pushes (one producer per channel). Returns this for chaining.
   * `polls`: the producer never sleeps while it waits for space in this channel (its tick returns
   * t + 1 while it holds something it could not push), so a pop never needs to wake it and its
   * sleep does not look at this channel (see Simulator drop: a component with many outputs, such as
   * a switch, then pays nothing per output when it goes to sleep).
   */
  bindProducer(c: Component, opts: { polls?: boolean } = {}): this {
    if (this.producer !== null && this.producer !== c) throw new Error(`${this.path}: already has producer ${this.producer.path}`);
    if (this.producer === c) return this;
    this.producer = c;
    if (this.sim.skipping && opts.polls !== true) c._info.firstOut = linked(c._info.firstOut as ChannelCore | null, this, 'nextOut');
    return this;
  }

  /**
   * Bind the component that pops (one consumer per channel).
   * `everyPush`: every push wakes the consumer in the cycle its entry becomes poppable, whether the
   * consumer is busy or asleep, and the consumer's sleep does not look at this channel. The default
   * (a push wakes the consumer only while it sleeps, and each sleep subscribes it to every input)
   * suits components with few, busy inputs; `everyPush` suits one with many inputs that are each
   * rarely used (a switch's ports): one wake-up per push instead of a scan of all inputs per sleep.
   * The cycles in which the consumer sees each entry are the same either way.
   * `arrivals`, `key`: every push also notes `key` in `arrivals` (see Arrivals), with or without
   * activity skipping.
   */
  bindConsumer(c: Component, opts: { everyPush?: boolean; arrivals?: Arrivals; key?: number } = {}): this {
    if (this.consumer !== null && this.consumer !== c) throw new Error(`${this.path}: already has consumer ${this.consumer.path}`);
    if (this.consumer === c) return this;
    this.consumer = c;
    this._wc = this.sim.skipping ? c : null;
    this._eager = this.sim.skipping && opts.everyPush === true;
    if (opts.arrivals !== undefined) {
      const key = opts.key ?? 0;
      if (!Number.isInteger(key) || key < 0) throw new RangeError(`${this.path}: arrivals key must be a non-negative integer, got ${key}`);
      this._arr = opts.arrivals;
      this._key = key;
    }
    this.slow = this.small || this._wc !== null || this._arr !== null;
    if (!this._eager) c._info.firstIn = linked(c._info.firstIn as ChannelCore | null, this, 'nextIn');
    return this;
  }

  /**
   * @internal a tracer selected this channel. Its signals change only when its producer or
   * consumer runs, so tracing those two (the simulator then visits the cycle after each of
   * their evaluations) keeps the trace exact with activity skipping.
   */
  _markTraced(): void {
    this._traced = true;
    if (this.producer) this.producer._traced = true;
    if (this.consumer) this.consumer._traced = true;
  }

  reset(): void {
    this.pushes = 0;
    this.pops = 0;
    this._wc = this._eager ? this.consumer : null; // every component runs at cycle 0 and subscribes again when it sleeps (an everyPush consumer stays subscribed)
    this._wp = null;
    clearRing(this);
    this.slow = this.small || this._eager || this._arr !== null;
    this.clearData();
  }

  protected abstract clearData(): void;

  /** A push happened in this cycle (an entry pushed in cycle t cannot be popped before t + 1). */
  private pushedNow(): boolean {
    if (this.held() === 0) return false;
    const n = slots(this);
    const last = slotPos(this, (tailIndex(this) + n - 1) % n);
    return SLAB[last] === this.sim.cycle + this.latency;
  }

  /** A pop happened in this cycle (the slot before the head was freed in this cycle). */
  private poppedNow(): boolean {
    const n = slots(this);
    if (this.held() === n) return false;
    const prev = slotPos(this, (headIndex(this) + n - 1) % n);
    return freedAt(prev) === this.sim.cycle + 1;
  }

  /** Producer view: entries held (pushed, not yet seen popped). */
  occupancy(): number {
    // free slots from the tail on, in the order they were freed: count those usable now
    const t = this.sim.cycle;
    const ti = tailIndex(this);
    const n = slots(this);
    const freeSlots = n - this.held();
    let usable = 0;
    while (usable < freeSlots && freedAt(slotPos(this, (ti + usable) % n)) <= t) usable++;
    return n - usable;
  }

  canPush(): boolean {
    const S = SLAB;
    const f = this.tl;
    return S[f]! >= S[this.ck + 1]!;
  }

  /** Free space as the producer sees it. */
  space(): number {
    return this.capacity - this.occupancy();
  }

  canPop(): boolean {
    const S = SLAB;
    const s = this.hd;
    return S[s]! <= S[this.ck]!;
  }

  /** Entries held, whether visible yet or not (the consumer may use it to know more is coming). */
  held(): number {
    return this.pushes - this.pops;
  }

  /** Consumer view: entries poppable now. */
  visible(): number {
    const t = this.sim.cycle;
    const hi = headIndex(this);
    const n = this.held();
    let v = 0;
    const m = slots(this);
    while (v < n && SLAB[slotPos(this, (hi + v) % m)]! <= t) v++;
    return v;
  }

  /** Cycle at which the head entry becomes poppable (Infinity if empty). */
  headReadyCycle(): number {
    const r = SLAB[this.hd]!;
    return r < HELD ? r : Infinity;
  }

  /** @internal the first cycle after t at which a held entry becomes poppable (Infinity if none) */
  _nextReady(t: number): number {
    const hi = headIndex(this);
    const n = this.held();
    const m = slots(this);
    for (let k = 0; k < n; k++) {
      const r = SLAB[slotPos(this, (hi + k) % m)]!;
      if (r > t) return r;
    }
    return Infinity;
  }

  /** @returns the position of the slot to fill; the caller stores the payload. */
  protected claim(): number {
    const S = SLAB;
    const f = this.tl;
    const ck = this.ck;
    if (!(S[f]! >= S[ck + 1]!)) fullError(this);
    const t = S[ck]!;
    const due = t + this.latency;
    S[f] = due;
    const n = f + this.stride;
    this.pushes++;
    this.tl = n === this.end ? this.first : n;
    if (this.slow) this._after(t, due);
    return f;
  }

  /** @returns the position of the slot to empty; the caller reads the payload. */
  protected release(): number {
    const S = SLAB;
    const s = this.hd;
    const ck = this.ck;
    const t = S[ck]!;
    if (!(S[s]! <= t)) emptyError(this);
    S[s] = S[ck + 1]! - 1; // free from t + 1
    const n = s + this.stride;
    this.hd = n === this.end ? this.first : n;
    this.pops++;
    if (this._wp !== null) this._freed(t);
    return s;
  }

  /**
   * @internal the rare work after a push in cycle t (entry poppable from `due`): grow the ring if
   * no slot can be filled in this cycle (see growRing), wake a subscribed consumer.
   */
  _after(t: number, due: number): void {
    if (this.small && !(freedAt(this.tl) <= t)) growRing(this, this.sim, this.held());
    const c = this._wc;
    if (c !== null) {
      if (!this._eager) this._wc = null;
      wake(c, due);
    }
    if (this._arr !== null) this._arr._note(this._key, due);
    this.slow = this.small || this._eager || this._arr !== null;
  }

  /** @internal the consumer went to sleep (Simulator._drop): the next push wakes it */
  _subscribe(c: Component): void {
    this._wc = c;
    this.slow = true;
  }

  /** @internal a pop from a full channel in cycle t: the producer may be waiting for space */
  _freed(t: number): void {
    const p = this._wp!;
    this._wp = null;
    wake(p, t + 1);
  }

  /**
   * @internal the producer went to sleep in cycle t: if this channel is full from its point of
   * view, wake it when a slot becomes usable (already freed in t: t + 1; else at the next pop).
   */
  _subscribeProducer(c: Component, t: number): void {
    if (SLAB[this.tl]! < HELD) this._wp = c;
    else {
      const f = freedAt(this.tl);
      if (f > t) c.sim.wakeAt(c, f);
    }
  }
}

/**
 * Which inputs of one consumer have entries arriving, as hardware keeps a "frame available" flag per
 * port: a consumer with many input channels that are each rarely used (a switch's ports) binds them
 * with `bindConsumer(c, { arrivals, key })` and asks `take(t)` which of them hold an entry that is
 * poppable at t, instead of testing every input every cycle. Each push notes (its channel's key, the
 * cycle its entry becomes poppable); take(t) returns the keys of the notes due by t, ascending and
 * each once, and forgets those notes. So the consumer must pop every poppable entry of each key it
 * is given in that cycle (a key is not given again for entries already noted). The returned array
 * is reused by the next take. Cleared by the simulator's reset, with the channels.
 */
export class Arrivals {
  private readonly due: number[] = [];
  private readonly keys: number[] = [];
  private readonly out: number[] = [];

  constructor(sim: Simulator) {
    sim._registerState(this);
  }

  /** @internal a push to the channel bound with `key`, poppable from cycle `due` */
  _note(key: number, due: number): void {
    this.due.push(due);
    this.keys.push(key);
  }

  /** Notes not yet taken (entries pushed and not yet given out by take). */
  get pending(): number {
    return this.due.length;
  }

  /** The keys with entries poppable at t noted since the last take, ascending, each once. */
  take(t: number): readonly number[] {
    const due = this.due;
    const keys = this.keys;
    const out = this.out;
    out.length = 0;
    let k = 0;
    for (let i = 0; i < due.length; i++) {
      if (due[i]! <= t) out.push(keys[i]!);
      else {
        due[k] = due[i]!;
        keys[k] = keys[i]!;
        k++;
      }
    }
    due.length = k;
    keys.length = k;
    if (out.length > 1) {
      out.sort((a, b) => a - b);
      let n = 1;
      for (let i = 1; i < out.length; i++) if (out[i] !== out[n - 1]) out[n++] = out[i]!;
      out.length = n;
    }
    return out;
  }

  reset(): void {
    this.due.length = 0;
    this.keys.length = 0;
    this.out.length = 0;
  }
}

/** The list of a component's input or output channels from `first` on, with `ch` appended last; returns its first channel. */
function linked(first: ChannelCore | null, ch: ChannelCore, link: 'nextIn' | 'nextOut'): ChannelCore {
  if (first === null) return ch;
  let c = first;
  for (let n = c._info[link]; n !== null; n = n._info[link]) c = n;
  c._info[link] = ch;
  return first;
}

// Cold paths stay out of the hot methods so those remain small enough to inline.
function fullError(ch: ChannelCore): never {
  throw new Error(`${ch.path}: push while full (check canPush first)`);
}

function emptyError(ch: ChannelCore): never {
  throw new Error(`${ch.path}: pop while empty (check canPop first)`);
}

function wake(c: Component, when: number): void {
  if (c._stamp !== when) c.sim.wakeAt(c, when);
}

/** Channel of numbers, stored in the slot beside its stamps: no allocation per transfer. */
export class NumChannel extends ChannelCore {
  constructor(parent: Scope, name: string, opts: ChannelOptions = {}) {
    super(parent, name, opts, 2);
  }

  protected override makeSignals(): Signal[] {
    const s = super.makeSignals();
    s.push({ name: 'head', width: 64, get: () => (this.held() > 0 ? head64(SLAB[this.hd + 1]!) : 0n) });
    return s;
  }

  protected clearData(): void {}

  // push and pop repeat claim/release flat: this is the hottest code in the simulator, and V8's
  // inlining budget is per compiled function, so every bytecode saved here counts.
  push(v: number): void {
    const S = SLAB;
    const f = this.tl;
    const ck = this.ck;
    if (!(S[f]! >= S[ck + 1]!)) fullError(this);
    const t = S[ck]!;
    const due = t + this.latency;
    S[f] = due;
    S[f + 1] = v;
    const n = f + 2;
    this.pushes++;
    this.tl = n === this.end ? this.first : n;
    if (this.slow) this._after(t, due);
  }

  /** Head value; only meaningful when canPop(). */
  peek(): number {
    return SLAB[this.hd + 1]!;
  }

  pop(): number {
    const S = SLAB;
    const s = this.hd;
    const ck = this.ck;
    const t = S[ck]!;
    if (!(S[s]! <= t)) emptyError(this);
    S[s] = S[ck + 1]! - 1; // free from t + 1
    const n = s + 2;
    this.hd = n === this.end ? this.first : n;
    this.pops++;
    if (this._wp !== null) this._freed(t);
    return S[s + 1]!;
  }
}

/**
 * Payload references of a queue of objects, kept by slot index beside the ring of stamps (entries
 * leave in the order they came, so two indices suffice). Shared by Channel<T> and Fifo<T>.
 */
/** Slots a payload ring starts with; it doubles on demand up to its queue's capacity. */
const PAYLOAD_SLOTS_FIRST = 4;

class Payloads<T> {
  /** the slot ring: starts small and doubles (up to the queue's capacity) when a put finds it full */
  private data: (T | undefined)[];
  private hi = 0;
  private ti = 0;
  /** entries held */
  private n = 0;
  /** entries taken since the last clear: the number of the entry at the head */
  taken = 0;
  constructor(private readonly capacity: number) {
    this.data = new Array<T | undefined>(Math.min(capacity, PAYLOAD_SLOTS_FIRST)).fill(undefined);
  }
  put(v: T): void {
    let d = this.data;
    if (this.n === d.length) d = this.grow();
    const i = this.ti;
    d[i] = v;
    this.ti = i + 1 === d.length ? 0 : i + 1;
    this.n++;
  }
  /** Doubles the ring (never beyond the capacity), its entries in order from slot 0. */
  private grow(): (T | undefined)[] {
    const old = this.data;
    const len = old.length;
    if (len >= this.capacity) throw new Error(`payload ring full at its capacity ${this.capacity}`);
    const d = new Array<T | undefined>(Math.min(this.capacity, 2 * len)).fill(undefined);
    for (let k = 0, i = this.hi; k < len; k++) {
      d[k] = old[i];
      i = i + 1 === len ? 0 : i + 1;
    }
    this.data = d;
    this.hi = 0;
    this.ti = len;
    return d;
  }
  head(): T {
    return this.data[this.hi] as T;
  }
  take(): T {
    const d = this.data;
    const i = this.hi;
    const v = d[i] as T;
    d[i] = undefined; // the queue holds no reference to what it delivered
    this.hi = i + 1 === d.length ? 0 : i + 1;
    this.n--;
    this.taken++;
    return v;
  }
  clear(): void {
    this.data.fill(undefined);
    this.hi = 0;
    this.ti = 0;
    this.n = 0;
    this.taken = 0;
  }
  /** The traced head signal of an object queue holding `held` entries (see TraceHeadOptions). */
  headSignal(held: () => number, trace: HeadOf<T> | undefined): Signal {
    if (trace) return { name: 'head', width: 64, get: () => (held() > 0 ? head64(trace.head(this.data[this.hi] as T)) : 0n) };
    return { name: 'head_seq', width: 32, get: () => this.taken };
  }
}

/** Channel of typed payload objects (packets, requests). Slots grow on demand up to the capacity; payload objects are the caller's. */
export class Channel<T> extends ChannelCore {
  private declare readonly data: Payloads<T>;
  private declare readonly traceHead: HeadOf<T> | undefined;

  constructor(parent: Scope, name: string, opts: ChannelOptions & TraceHeadOptions<T> = {}) {
    super(parent, name, opts, 1);
    this.data = new Payloads<T>(this.capacity);
    this.traceHead = opts.traceHead ? { head: opts.traceHead } : undefined;
  }

  protected override makeSignals(): Signal[] {
    const s = super.makeSignals();
    s.push(this.data.headSignal(() => this.held(), this.traceHead));
    return s;
  }

  protected clearData(): void {
    this.data.clear();
  }

  push(v: T): void {
    this.claim();
    this.data.put(v);
  }

  peek(): T {
    if (!this.canPop()) throw new Error(`${this.path}: peek while empty`);
    return this.data.head();
  }

  pop(): T {
    this.release();
    return this.data.take();
  }
}

// ---------------------------------------------------------------------------------------------
// FIFOs

/**
 * FIFO inside one component (a queue of registers), two-phase like everything else:
 * a push in cycle t is poppable from t + 1, and a pop in cycle t frees its slot from t + 1.
 * So "push while full" depends only on the state at the start of the cycle, and a FIFO of
 * capacity 2 is a skid buffer: it accepts one entry per cycle with a registered ready.
 * NumFifo stores numbers in the slot beside its stamps (no allocation); Fifo<T> stores references.
 */
abstract class FifoCore {
  // Fields are `declare`d and created by the constructor in this order, hot state first (see ChannelCore).
  /** @internal see Ring */
  declare hd: number;
  declare tl: number;
  declare first: number;
  declare end: number;
  declare ck: number;
  declare small: boolean;
  /** entries held */
  protected declare n: number;
  declare readonly stride: number;
  declare readonly capacity: number;
  protected declare readonly sim: Simulator;
  /** @internal */
  declare readonly owner: Component;
  /** @internal its name under the owner (a default name is a shared string: see fifoName) */
  declare readonly _name: string;
  /** @internal trace state (cold, made on first use): selected by a tracer, signals built on first use */
  declare _trace: { traced: boolean; sigs: Signal[] | null } | null;

  constructor(owner: Component, capacity: number, stride: number, name: string | undefined) {
    checkCapacity(owner.path, 'FIFO', capacity);
    this.hd = 0;
    this.tl = 0;
    this.first = 0;
    this.end = 0;
    this.ck = 0;
    this.small = false;
    this.n = 0;
    this.stride = stride;
    this.capacity = capacity;
    this.sim = owner.sim;
    this.owner = owner;
    this._name = name ?? fifoName(owner);
    if (name !== undefined) childPath(owner, name); // checks the name
    this._trace = null;
    placeRing(this, this.sim);
    owner.sim._registerState(this);
    owner.sim._registerUnit(this, owner, this._name);
  }

  /** Its trace path: `<owner path>.<name>` (a scope of its own in a VCD, under its owner's). */
  get path(): string {
    return `${this.owner.path}.${this._name}`;
  }
  private traceState(): { traced: boolean; sigs: Signal[] | null } {
    return (this._trace ??= { traced: false, sigs: null });
  }
  get _traced(): boolean {
    return this._trace !== null && this._trace.traced;
  }
  set _traced(v: boolean) {
    if (v || this._trace !== null) this.traceState().traced = v;
  }
  /** Traceable signals: `count` (entries held at the end of the cycle) and the head entry. */
  get _signals(): Signal[] {
    return (this.traceState().sigs ??= [{ name: 'count', width: 32, get: () => this.n }, this.headSignal()]);
  }
  protected abstract headSignal(): Signal;
  /** @internal a tracer selected this FIFO: it changes only when its owner runs, so trace the owner */
  _markTraced(): void {
    this.traceState().traced = true;
    this.owner._traced = true;
  }

  /** @internal after a push in cycle t to a ring below capacity: grow if no slot can be filled in t (see growRing) */
  _grow(t: number): void {
    if (!(freedAt(this.tl) <= t)) growRing(this, this.sim, this.n);
  }

  /** Entries that can be popped this cycle (held minus this cycle's pushes, which sit at the tail). */
  count(): number {
    const t1 = this.sim.cycle + 1;
    const ti = tailIndex(this);
    const m = slots(this);
    let c = this.n;
    while (c > 0 && SLAB[slotPos(this, (ti + m - 1 - (this.n - c)) % m)] === t1) c--;
    return c;
  }
  /** Entries held, including this cycle's pushes (nothing is lost: the owner uses it to stay awake). */
  held(): number {
    return this.n;
  }
  canPop(): boolean {
    const S = SLAB;
    const s = this.hd;
    return S[s]! <= S[this.ck]!;
  }
  canPush(): boolean {
    const S = SLAB;
    const f = this.tl;
    return S[f]! >= S[this.ck + 1]!;
  }

  /** @returns the position of the slot to fill; the caller stores the value */
  protected claim(): number {
    const S = SLAB;
    const f = this.tl;
    const ck = this.ck;
    if (!(S[f]! >= S[ck + 1]!)) fifoFull(this);
    const t = S[ck]!;
    S[f] = t + 1;
    const n = f + this.stride;
    this.n++;
    this.tl = n === this.end ? this.first : n;
    if (this.small) this._grow(t);
    return f;
  }

  /** @returns the position of the slot to empty; the caller reads the value */
  protected release(): number {
    const S = SLAB;
    const s = this.hd;
    const ck = this.ck;
    if (!(S[s]! <= S[ck]!)) fifoEmpty(this);
    S[s] = S[ck + 1]! - 1; // free from t + 1
    const n = s + this.stride;
    this.hd = n === this.end ? this.first : n;
    this.n--;
    return s;
  }

  reset(): void {
    this.n = 0;
    clearRing(this);
  }
}

/** default FIFO names, made once and shared by every owner (a large design keeps no name string per FIFO) */
const FIFO_NAMES: string[] = [];

/** `fifo<k>`: the owner's k-th FIFO without a name. */
function fifoName(owner: Component): string {
  const k = owner._info.fifos++;
  while (FIFO_NAMES.length <= k) FIFO_NAMES.push(`fifo${FIFO_NAMES.length}`);
  return FIFO_NAMES[k]!;
}

function fifoFull(f: FifoCore): never {
  throw new Error(`${f.owner.path}: FIFO push while full`);
}

function fifoEmpty(f: FifoCore): never {
  throw new Error(`${f.owner.path}: FIFO pop while empty`);
}

export class NumFifo extends FifoCore {
  constructor(owner: Component, capacity: number, opts: { name?: string } = {}) {
    super(owner, capacity, 2, opts.name);
  }
  protected headSignal(): Signal {
    return { name: 'head', width: 64, get: () => (this.n > 0 ? head64(SLAB[this.hd + 1]!) : 0n) };
  }
  // push and pop repeat claim/release flat (see NumChannel)
  push(v: number): void {
    const S = SLAB;
    const f = this.tl;
    const ck = this.ck;
    if (!(S[f]! >= S[ck + 1]!)) fifoFull(this);
    const t = S[ck]!;
    S[f] = t + 1;
    S[f + 1] = v;
    const n = f + 2;
    this.n++;
    this.tl = n === this.end ? this.first : n;
    if (this.small && !(S[this.tl]! >= S[ck + 1]!)) this._grow(t); // the grow test inline: a call per push cost 10 to 20 % of the ring's speed
  }
  peek(): number {
    return SLAB[this.hd + 1]!;
  }
  pop(): number {
    const S = SLAB;
    const s = this.hd;
    const ck = this.ck;
    if (!(S[s]! <= S[ck]!)) fifoEmpty(this);
    S[s] = S[ck + 1]! - 1; // free from t + 1
    const n = s + 2;
    this.hd = n === this.end ? this.first : n;
    this.n--;
    return S[s + 1]!;
  }
}

export class Fifo<T> extends FifoCore {
  private declare readonly data: Payloads<T>;
  private declare readonly traceHead: HeadOf<T> | undefined;
  constructor(owner: Component, capacity: number, opts: FifoOptions<T> = {}) {
    super(owner, capacity, 1, opts.name);
    this.data = new Payloads<T>(capacity);
    this.traceHead = opts.traceHead ? { head: opts.traceHead } : undefined;
  }
  protected headSignal(): Signal {
    return this.data.headSignal(() => this.n, this.traceHead);
  }
  push(v: T): void {
    this.claim();
    this.data.put(v);
  }
  peek(): T {
    if (!this.canPop()) throw new Error(`${this.owner.path}: FIFO peek while empty`);
    return this.data.head();
  }
  pop(): T {
    this.release();
    return this.data.take();
  }
  override reset(): void {
    super.reset();
    this.data.clear();
  }
}
