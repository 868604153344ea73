import type { Component } from './component.ts';
import type { Simulator } from './simulator.ts';

/**
 * A clocked register of any value (a number, a bigint, an immutable struct).
 *
 * `r.q` is the current output (the flip-flop Q): the value committed at the last clock edge.
 * `r.d = v` sets the next value (the flip-flop D; PyMTL's `<<=`): visible through `q` from the next cycle.
 * Several writes in one cycle: the last one wins. Commit is lazy (by cycle stamp), so the
 * simulator has no commit loop. A write made between steps counts as made in cycle `sim.cycle`.
 */
export class RegOf<T> {
  private v0: T;
  private v1: T;
  private wc = -1;
  private readonly sim: Simulator;

  constructor(owner: Component, name: string, readonly init: T, trace?: { width: number; get: (v: T) => number | bigint }) {
    this.sim = owner.sim;
    this.v0 = init;
    this.v1 = init;
    if (trace) owner.signal(name, trace.width, () => trace.get(this.q));
    owner.sim._registerState(this);
  }

  /** Current value (read). */
  get q(): T {
    return this.wc < this.sim.cycle ? this.v1 : this.v0;
  }

  /** Next value (write); visible from the next cycle. */
  set d(v: T) {
    const t = this.sim.cycle;
    if (this.wc !== t) {
      if (this.wc < t) this.v0 = this.v1;
      this.wc = t;
    }
    this.v1 = v;
  }

  /** The value visible next cycle: the last write of this cycle, or q if there was none. */
  get next(): T {
    return this.wc === this.sim.cycle ? this.v1 : this.q;
  }

  reset(): void {
    this.v0 = this.init;
    this.v1 = this.init;
    this.wc = -1;
  }
}

/** A clocked register of a number with a bit width (traced as a `width`-bit vector). */
export class Reg extends RegOf<number> {
  constructor(owner: Component, name: string, readonly width: number, init = 0) {
    super(owner, name, init, { width, get: (v) => (Number.isInteger(v) ? BigInt.asUintN(width, BigInt(v)) : 0n) });
  }
}
