import type { Component } from './component.ts';
import type { Counter } from './stats.ts';

/**
 * N-stage pipeline with stall and flush, for datapaths inside one component.
 *
 * push(v) in cycle t puts v into stage 1; without stalls it is at the output (stage N) in cycle t + N,
 * where out()/take() see it for exactly that cycle. stall() in cycle s holds every stage at the
 * edge that ends s: everything in flight (and the output) stays where it is one more cycle; no
 * push is allowed in a stalled cycle. flush() in cycle s kills everything that would reach the
 * output after s (the current output is still readable in s); a push after the flush in the same
 * cycle survives. An output that is neither taken nor held by a stall is lost and counted in
 * `dropped`.
 *
 * Time is tracked as "effective cycles" (cycles minus stalled cycles), so a component can sleep
 * while values travel and wake at readyCycle(): no per-cycle work.
 */
export class Pipeline<T> {
  private readonly vals: (T | undefined)[];
  private readonly exits: Float64Array;
  private head = 0;
  private count = 0;
  private stalled = 0; // stalled cycles before lastStall (inclusive of lastStall once it is past)
  private lastStall = -1;
  private pushCycle = -1;
  readonly dropped: Counter;

  constructor(private readonly owner: Component, name: string, readonly stages: number) {
    if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`${owner.path}.${name}: pipeline needs >= 1 stages, got ${stages}`);
    this.vals = new Array<T | undefined>(stages + 1).fill(undefined);
    this.exits = new Float64Array(stages + 1);
    this.dropped = owner.counter(`${name}.dropped`);
    owner.sim._registerState(this);
    owner.signal(`${name}_occupancy`, 16, () => this.occupancy());
  }

  /** Effective time of the current cycle: cycles elapsed minus cycles stalled before it. */
  private eff(): number {
    const t = this.owner.sim.cycle;
    return t - this.stalled - (this.lastStall >= 0 && this.lastStall < t ? 1 : 0);
  }

  private settle(): void {
    // fold a past stall into the total, then drop outputs that were not taken in time
    const t = this.owner.sim.cycle;
    if (this.lastStall >= 0 && this.lastStall < t) {
      this.stalled++;
      this.lastStall = -1;
    }
    const e = t - this.stalled;
    while (this.count > 0 && this.exits[this.head]! < e) {
      this.vals[this.head] = undefined;
      this.head = this.head + 1 === this.vals.length ? 0 : this.head + 1;
      this.count--;
      this.dropped.inc();
    }
  }

  /** Values in flight (including one at the output). */
  occupancy(): number {
    this.settle();
    return this.count;
  }

  isStalled(): boolean {
    return this.lastStall === this.owner.sim.cycle;
  }

  canPush(): boolean {
    const t = this.owner.sim.cycle;
    return this.pushCycle !== t && this.lastStall !== t;
  }

  push(v: T): void {
    const t = this.owner.sim.cycle;
    if (this.lastStall === t) throw new Error(`${this.owner.path}: push into a stalled pipeline in cycle ${t}`);
    if (this.pushCycle === t) throw new Error(`${this.owner.path}: two pushes into a pipeline in cycle ${t}`);
    this.settle();
    if (this.count === this.vals.length) throw new Error(`${this.owner.path}: internal: pipeline overfull`);
    const slot = (this.head + this.count) % this.vals.length;
    this.vals[slot] = v;
    this.exits[slot] = this.eff() + this.stages;
    this.count++;
    this.pushCycle = t;
  }

  /** Hold all stages at the end of this cycle. */
  stall(): void {
    const t = this.owner.sim.cycle;
    if (this.pushCycle === t) throw new Error(`${this.owner.path}: stall after a push in cycle ${t}`);
    this.settle();
    this.lastStall = t;
  }

  /** Kill everything that would reach the output after this cycle. */
  flush(): void {
    this.settle();
    const e = this.eff();
    let keep = 0;
    while (keep < this.count && this.exits[(this.head + keep) % this.vals.length]! <= e) keep++;
    for (let k = keep; k < this.count; k++) this.vals[(this.head + k) % this.vals.length] = undefined;
    this.count = keep;
  }

  /** True when a value is at the output in this cycle. */
  valid(): boolean {
    this.settle();
    return this.count > 0 && this.exits[this.head] === this.eff();
  }

  /** The value at the output (only when valid()). */
  out(): T {
    if (!this.valid()) throw new Error(`${this.owner.path}: pipeline output read while not valid`);
    return this.vals[this.head] as T;
  }

  /** Remove and return the output value (only when valid()). */
  take(): T {
    const v = this.out();
    this.vals[this.head] = undefined;
    this.head = this.head + 1 === this.vals.length ? 0 : this.head + 1;
    this.count--;
    return v;
  }

  /**
   * Cycle at which the oldest value reaches the output if no further stalls happen
   * (Infinity when empty): return it from tick() to sleep until then.
   */
  readyCycle(): number {
    this.settle();
    if (this.count === 0) return Number.POSITIVE_INFINITY;
    const t = this.owner.sim.cycle;
    const wait = this.exits[this.head]! - this.eff();
    return t + (wait > 0 ? wait : 0) + (this.lastStall === t ? 1 : 0);
  }

  reset(): void {
    this.vals.fill(undefined);
    this.head = 0;
    this.count = 0;
    this.stalled = 0;
    this.lastStall = -1;
    this.pushCycle = -1;
  }
}
