/**
 * The HPU core's pipeline latches as one register bank, indexed by latch number, in one of two
 * update schemes (both give every latch the semantics of a flip-flop: a value written in cycle t
 * is seen from t + 1):
 *
 * - two-phase (the RI5CY organisation): `q` (the flip-flop outputs, read during a cycle) and `d`
 *   (the inputs, written during a cycle) are separate Int32Arrays; `clock()`, called by the owner
 *   at the start of each cycle it is evaluated in, is the clock edge: it copies d into q, so a
 *   latch nobody wrote keeps its value (d still equals q).
 * - in place (the five-stage organisation): `q` and `d` are the same array. This is exact when
 *   the owner evaluates its stages from the last back to the first, so every stage reads its input
 *   latches before the stage that writes them has run, and takes any latch it reads after that
 *   stage (forwarding from later stages) from values captured before the write. It saves the copy
 *   of every latch every cycle. A latch nobody writes keeps its value by itself. The signals show
 *   the values held during a cycle: when the owner is traced it calls `snapshot(t)` at the start of
 *   each cycle it evaluates, and in that cycle the signals read the snapshot (the array already
 *   holds the next cycle's values by the end of the cycle).
 *
 * Each latch is a traced signal.
 */
import type { Component, Resettable } from '../../kernel/index.ts';

export class LatchBank implements Resettable {
  readonly q: Int32Array;
  readonly d: Int32Array;
  private readonly init: Int32Array;
  /** d copied into q, one statement per latch (two-phase scheme) */
  private readonly copy: (q: Int32Array, d: Int32Array) => void;
  /** in-place scheme: the values held during cycle snapAt (-1: none) */
  private readonly snap: Int32Array;
  private snapAt = -1;
  /** the signals show the snapshot whatever the cycle (frozen by `stopAfter`) */
  private frozen = false;

  constructor(owner: Component, names: readonly string[], widths: readonly number[], init: ArrayLike<number>, inPlace = false) {
    this.q = new Int32Array(names.length);
    this.d = inPlace ? this.q : new Int32Array(names.length);
    this.snap = new Int32Array(inPlace ? names.length : 0);
    this.init = Int32Array.from(init);
    this.q.set(this.init);
    this.d.set(this.init);
    this.copy = unrolledCopy(names.length);
    const sim = owner.sim;
    names.forEach((n, i) =>
      owner.signal(n, widths[i]!, () => {
        const v = this.snapAt === sim.cycle || this.frozen ? this.snap[i]! : this.q[i]!;
        return widths[i] === 32 ? v >>> 0 : v;
      }),
    );
    sim._registerState(this);
  }

  /** The clock edge (two-phase scheme): next state becomes current state. */
  clock(): void {
    this.copy(this.q, this.d);
  }

  /** In-place scheme, traced owner: the values held during cycle t (called before anything is written in t). */
  snapshot(t: number): void {
    this.snap.set(this.q);
    this.snapAt = t;
  }

  /**
   * In-place scheme: the owner stops at the start of cycle t without evaluating it (an abort), after
   * evaluating t - 1: the latches keep showing the values of t - 1, as in the two-phase scheme, where
   * the clock edge into t (the copy) never happens. (Without a snapshot of t - 1 the owner was not
   * traced then, and the array is all there is.)
   */
  stopAt(t: number): void {
    if (this.snapAt === t - 1) this.frozen = true;
  }

  /** Every latch 0 except latch 0 = `latch0` (a restart); the signals show these values from now on. */
  clear(latch0: number): void {
    this.q.fill(0);
    this.d.fill(0);
    this.q[0] = latch0;
    this.d[0] = latch0;
    this.snapAt = -1;
    this.frozen = false;
  }

  reset(): void {
    this.q.set(this.init);
    this.d.set(this.init);
    this.snapAt = -1;
    this.frozen = false;
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
