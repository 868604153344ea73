import { childPath, type Component, type Scope, type Signal } from './component.ts';
import type { Simulator, TraceUnit } from './simulator.ts';

export interface ChannelOptions {
  /** Entries the channel holds, in flight plus waiting (default 2: full throughput with the one-cycle credit return). */
  capacity?: number;
  /** Cycles from a push until the consumer can pop it (>= 1, default 1). */
  latency?: number;
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
 * A push wakes the consumer at t + latency; a pop from a full channel wakes the producer at t + 1.
 */
export abstract class ChannelCore implements TraceUnit {
  // hot state first
  protected readonly sim: Simulator;
  protected readonly ready: Float64Array;
  protected head = 0;
  /** entries held right now (including pushes of this cycle, excluding pops of this cycle) */
  protected n = 0;
  protected popCycle = -1;
  protected popsInCycle = 0;
  readonly capacity: number;
  readonly latency: number;
  producer: Component | null = null;
  consumer: Component | null = null;
  /** total pushes since reset */
  pushes = 0;
  _traced = false;
  readonly path: string;
  readonly _signals: Signal[] = [];

  constructor(parent: Scope, name: string, opts: ChannelOptions = {}) {
    this.sim = parent.sim;
    this.path = childPath(parent, name);
    const cap = opts.capacity ?? 2;
    const lat = opts.latency ?? 1;
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`${this.path}: channel capacity must be an integer >= 1, got ${cap}`);
    if (!Number.isInteger(lat) || lat < 1) throw new RangeError(`${this.path}: channel latency must be an integer >= 1, got ${lat}`);
    this.capacity = cap;
    this.latency = lat;
    this.ready = new Float64Array(cap);
    this.sim._registerUnit(this);
    this.sim._registerState(this);
    this._signals.push(
      { name: 'count', width: 32, get: () => this.occupancy() },
      { name: 'push', width: 1, get: () => (this.pushedNow() ? 1 : 0) },
      { name: 'pop', width: 1, get: () => (this.popCycle === this.sim.cycle ? 1 : 0) },
    );
  }

  /** Bind the component that pushes (one producer per channel). Returns this for chaining. */
  bindProducer(c: Component): this {
    if (this.producer !== null && this.producer !== c) throw new Error(`${this.path}: already has producer ${this.producer.path}`);
    this.producer = c;
    return this;
  }

  /** Bind the component that pops (one consumer per channel). */
  bindConsumer(c: Component): this {
    if (this.consumer !== null && this.consumer !== c) throw new Error(`${this.path}: already has consumer ${this.consumer.path}`);
    this.consumer = c;
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
    this.head = 0;
    this.n = 0;
    this.pushes = 0;
    this.popCycle = -1;
    this.popsInCycle = 0;
    this.clearData();
  }

  protected abstract clearData(): void;

  /** total pops since reset */
  get pops(): number {
    return this.pushes - this.n;
  }

  /** A push happened in this cycle (an entry pushed in cycle t cannot be popped before t + 1). */
  private pushedNow(): boolean {
    if (this.n === 0) return false;
    let last = this.head + this.n - 1;
    if (last >= this.capacity) last -= this.capacity;
    return this.ready[last] === this.sim.cycle + this.latency;
  }

  /** Producer view: entries held (pushed, not yet seen popped). */
  occupancy(): number {
    return this.n + (this.popCycle === this.sim.cycle ? this.popsInCycle : 0);
  }

  canPush(): boolean {
    return this.n + (this.popCycle === this.sim.cycle ? this.popsInCycle : 0) < this.capacity;
  }

  /** Free space as the producer sees it. */
  space(): number {
    return this.capacity - this.occupancy();
  }

  canPop(): boolean {
    return this.n > 0 && this.ready[this.head]! <= this.sim.cycle;
  }

  /** Entries held, whether visible yet or not (the consumer may use it to know more is coming). */
  held(): number {
    return this.n;
  }

  /** Consumer view: entries poppable now. */
  visible(): number {
    const t = this.sim.cycle;
    let k = 0;
    let i = this.head;
    while (k < this.n && this.ready[i]! <= t) {
      k++;
      i = i + 1 === this.capacity ? 0 : i + 1;
    }
    return k;
  }

  /** Cycle at which the head entry becomes poppable (Infinity if empty). */
  headReadyCycle(): number {
    return this.n > 0 ? this.ready[this.head]! : Number.POSITIVE_INFINITY;
  }

  /** @returns the slot to write; the caller stores the payload there. */
  protected reservePush(): number {
    const t = this.sim.cycle;
    const n = this.n;
    const cap = this.capacity;
    if (n + (this.popCycle === t ? this.popsInCycle : 0) >= cap) fullError(this);
    let slot = this.head + n;
    if (slot >= cap) slot -= cap;
    const due = t + this.latency;
    this.ready[slot] = due;
    this.n = n + 1;
    this.pushes++;
    const c = this.consumer;
    if (c !== null && c._stamp !== due) this.sim.wakeAt(c, due);
    return slot;
  }

  /** @returns the slot to read; the caller reads the payload from it first. */
  protected releasePop(): number {
    const t = this.sim.cycle;
    const slot = this.head;
    const n = this.n;
    if (n === 0 || this.ready[slot]! > t) emptyError(this);
    this.head = slot + 1 === this.capacity ? 0 : slot + 1;
    this.n = n - 1;
    if (this.popCycle !== t) {
      this.popCycle = t;
      this.popsInCycle = 1;
    } else this.popsInCycle++;
    if (n >= this.capacity) wakeProducer(this, t);
    return slot;
  }
}

function fullError(ch: ChannelCore): never {
  throw new Error(`${ch.path}: push while full (check canPush first)`);
}

function emptyError(ch: ChannelCore): never {
  throw new Error(`${ch.path}: pop while empty (check canPop first)`);
}

/** A pop from a full channel: the producer may be waiting for space. */
function wakeProducer(ch: ChannelCore, t: number): void {
  const p = ch.producer;
  if (p !== null && p._stamp !== t + 1) p.sim.wakeAt(p, t + 1);
}

/** Channel of numbers, stored in a Float64Array: no allocation per transfer. */
export class NumChannel extends ChannelCore {
  private readonly data: Float64Array;

  constructor(parent: Scope, name: string, opts: ChannelOptions = {}) {
    super(parent, name, opts);
    this.data = new Float64Array(this.capacity);
    this._signals.push({ name: 'head', width: 64, get: () => (this.n > 0 ? BigInt.asUintN(64, BigInt(Math.trunc(this.data[this.head]!))) : 0n) });
  }

  protected clearData(): void {
    this.data.fill(0);
  }

  // push and pop repeat reservePush/releasePop flat: this is the hottest code in the simulator
  // and V8's inlining budget is per compiled tick(), so every bytecode saved here counts.
  push(v: number): void {
    const t = this.sim.cycle;
    const n = this.n;
    const cap = this.capacity;
    if (n + (this.popCycle === t ? this.popsInCycle : 0) >= cap) fullError(this);
    let slot = this.head + n;
    if (slot >= cap) slot -= cap;
    const due = t + this.latency;
    this.ready[slot] = due;
    this.data[slot] = v;
    this.n = n + 1;
    this.pushes++;
    const c = this.consumer;
    if (c !== null && c._stamp !== due) this.sim.wakeAt(c, due);
  }

  /** Head value; only meaningful when canPop(). */
  peek(): number {
    return this.data[this.head]!;
  }

  pop(): number {
    const t = this.sim.cycle;
    const slot = this.head;
    const n = this.n;
    if (n === 0 || this.ready[slot]! > t) emptyError(this);
    const v = this.data[slot]!;
    this.head = slot + 1 === this.capacity ? 0 : slot + 1;
    this.n = n - 1;
    if (this.popCycle !== t) {
      this.popCycle = t;
      this.popsInCycle = 1;
    } else this.popsInCycle++;
    if (n >= this.capacity) wakeProducer(this, t);
    return v;
  }
}

/** Channel of typed payload objects (packets, requests). Slots are preallocated; payload objects are the caller's. */
export class Channel<T> extends ChannelCore {
  private readonly data: (T | undefined)[];

  constructor(parent: Scope, name: string, opts: ChannelOptions = {}) {
    super(parent, name, opts);
    this.data = new Array<T | undefined>(this.capacity).fill(undefined);
  }

  protected clearData(): void {
    this.data.fill(undefined);
  }

  push(v: T): void {
    this.data[this.reservePush()] = v;
  }

  peek(): T {
    if (!this.canPop()) throw new Error(`${this.path}: peek while empty`);
    return this.data[this.head] as T;
  }

  pop(): T {
    const slot = this.head;
    this.releasePop();
    const v = this.data[slot] as T;
    this.data[slot] = undefined;
    return v;
  }
}
