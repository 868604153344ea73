import type { Component } from './component.ts';
import type { Simulator } from './simulator.ts';

/**
 * FIFO inside one component (a queue of registers), two-phase like everything else:
 * a push in cycle t is poppable from t + 1, and a pop in cycle t frees its slot from t + 1.
 * So "push while full" depends only on the state at the start of the cycle, and a FIFO of
 * capacity 2 is a skid buffer: it accepts one entry per cycle with a registered ready.
 * NumFifo stores numbers in a Float64Array (no allocation); Fifo<T> stores references.
 */
function fifoError(owner: Component, what: string): never {
  throw new Error(`${owner.path}: FIFO ${what}`);
}

abstract class FifoCore {
  protected head = 0;
  protected n = 0;
  private pushCycle = -1;
  private pushesInCycle = 0;
  private popCycle = -1;
  private popsInCycle = 0;

  private readonly sim: Simulator;

  constructor(protected readonly owner: Component, readonly capacity: number) {
    this.sim = owner.sim;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`${owner.path}: FIFO capacity must be an integer >= 1, got ${capacity}`);
    owner.sim._registerState(this);
  }

  /** Entries that can be popped this cycle. */
  count(): number {
    return this.n - (this.pushCycle === this.sim.cycle ? this.pushesInCycle : 0);
  }
  /** Entries held, including this cycle's pushes (nothing is lost: the owner uses it to stay awake). */
  held(): number {
    return this.n;
  }
  canPop(): boolean {
    return this.n - (this.pushCycle === this.sim.cycle ? this.pushesInCycle : 0) > 0;
  }
  canPush(): boolean {
    return this.n + (this.popCycle === this.sim.cycle ? this.popsInCycle : 0) < this.capacity;
  }

  protected reserve(): number {
    const t = this.sim.cycle;
    const n = this.n;
    if (n + (this.popCycle === t ? this.popsInCycle : 0) >= this.capacity) fifoError(this.owner, 'push while full');
    let slot = this.head + n;
    if (slot >= this.capacity) slot -= this.capacity;
    this.n = n + 1;
    if (this.pushCycle !== t) {
      this.pushCycle = t;
      this.pushesInCycle = 1;
    } else this.pushesInCycle++;
    return slot;
  }

  protected release(): number {
    const t = this.sim.cycle;
    const n = this.n;
    if (n - (this.pushCycle === t ? this.pushesInCycle : 0) <= 0) fifoError(this.owner, 'pop while empty');
    const slot = this.head;
    this.head = slot + 1 === this.capacity ? 0 : slot + 1;
    this.n = n - 1;
    if (this.popCycle !== t) {
      this.popCycle = t;
      this.popsInCycle = 1;
    } else this.popsInCycle++;
    return slot;
  }

  reset(): void {
    this.head = 0;
    this.n = 0;
    this.pushCycle = this.popCycle = -1;
    this.pushesInCycle = this.popsInCycle = 0;
  }
}

export class NumFifo extends FifoCore {
  private readonly data: Float64Array;
  constructor(owner: Component, capacity: number) {
    super(owner, capacity);
    this.data = new Float64Array(capacity);
  }
  push(v: number): void {
    this.data[this.reserve()] = v;
  }
  peek(): number {
    return this.data[this.head]!;
  }
  pop(): number {
    return this.data[this.release()]!;
  }
}

export class Fifo<T> extends FifoCore {
  private readonly data: (T | undefined)[];
  constructor(owner: Component, capacity: number) {
    super(owner, capacity);
    this.data = new Array<T | undefined>(capacity).fill(undefined);
  }
  push(v: T): void {
    this.data[this.reserve()] = v;
  }
  peek(): T {
    if (!this.canPop()) throw new Error(`${this.owner.path}: FIFO peek while empty`);
    return this.data[this.head] as T;
  }
  pop(): T {
    const slot = this.release();
    const v = this.data[slot] as T;
    this.data[slot] = undefined;
    return v;
  }
  override reset(): void {
    super.reset();
    this.data.fill(undefined);
  }
}
