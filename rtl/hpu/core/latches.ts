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
  /** d copied into q, one statement per latch */
  private readonly copy: (q: Int32Array, d: Int32Array) => void;

  constructor(owner: Component, names: readonly string[], widths: readonly number[], init: ArrayLike<number>) {
    this.q = new Int32Array(names.length);
    this.d = new Int32Array(names.length);
    this.init = Int32Array.from(init);
    this.q.set(this.init);
    this.d.set(this.init);
    this.copy = unrolledCopy(names.length);
    names.forEach((n, i) => owner.signal(n, widths[i]!, () => (widths[i] === 32 ? this.q[i]! >>> 0 : this.q[i]!)));
    owner.sim._registerState(this);
  }

  /** The clock edge: next state becomes current state. */
  clock(): void {
    this.copy(this.q, this.d);
  }

  reset(): void {
    this.q.set(this.init);
    this.d.set(this.init);
  }
}

/**
 * A function copying elements 0..n-1 of d into q, one statement each (built once per bank size;
 * the code holds only numbers). For a bank of about 30 latches it takes half the time of
 * `q.set(d)` (a builtin call that checks types and overlap every time) or a loop.
 */
function unrolledCopy(n: number): (q: Int32Array, d: Int32Array) => void {
  let body = '';
  for (let i = 0; i < n; i++) body += `q[${i}] = d[${i}];\n`;
  return new Function('q', 'd', body) as (q: Int32Array, d: Int32Array) => void;
}
