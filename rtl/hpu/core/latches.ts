/**
 * The HPU core's pipeline latches as one two-phase register bank: `q` (the flip-flop outputs,
 * read during a cycle) and `d` (the inputs, written during a cycle), both Int32Arrays indexed by
 * latch number. `clock()` is the clock edge: called by the owner at the start of each cycle it is
 * evaluated in, it copies d into q; a latch nobody wrote keeps its value (d still equals q). The
 * same contract as the kernel's `Reg` (a write in cycle t is seen from t + 1), for a set of
 * latches that one component owns and evaluates every cycle: one copy per cycle instead of a
 * cycle-stamp check on every access. Each latch is a traced signal (its q).
 */
import type { Component, Resettable } from '../../kernel/index.ts';

export class LatchBank implements Resettable {
  readonly q: Int32Array;
  readonly d: Int32Array;
  private readonly init: Int32Array;

  constructor(owner: Component, names: readonly string[], widths: readonly number[], init: ArrayLike<number>) {
    this.q = new Int32Array(names.length);
    this.d = new Int32Array(names.length);
    this.init = Int32Array.from(init);
    this.q.set(this.init);
    this.d.set(this.init);
    names.forEach((n, i) => owner.signal(n, widths[i]!, () => (widths[i] === 32 ? this.q[i]! >>> 0 : this.q[i]!)));
    owner.sim._registerState(this);
  }

  /** The clock edge: next state becomes current state. */
  clock(): void {
    this.q.set(this.d);
  }

  reset(): void {
    this.q.set(this.init);
    this.d.set(this.init);
  }
}
