import type { Component } from './component.ts';
import { Reg } from './reg.ts';

/**
 * Round-robin arbiter over n requesters with a registered priority pointer.
 *
 * In a cycle, grant() picks the first requester at or after the pointer (wrapping) and sets the
 * pointer's next value to the one after the grantee. Fairness bound: a requester that keeps
 * requesting is granted within n grants (at most n - 1 other grants happen first), because after
 * every grant the pointer moves past the grantee and each other requester can be passed at most
 * once before the pointer reaches it. testbench/kernel/arbiter.test.ts checks this bound.
 */
export class RoundRobinArbiter {
  private readonly ptr: Reg;
  private grantCycle = -1;

  constructor(private readonly owner: Component, name: string, readonly n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`${owner.path}.${name}: arbiter needs n >= 1 requesters, got ${n}`);
    this.ptr = new Reg(owner, name, Math.max(1, Math.ceil(Math.log2(n + 1))), 0);
    owner.sim._registerState(this);
  }

  /** Current priority pointer (the requester with highest priority this cycle). */
  get pointer(): number {
    return this.ptr.q;
  }

  /**
   * Grant one of the requesters for which req(i) is true; returns its index or -1.
   * Call at most once per cycle. Pass a function created once (a bound method), not a new closure per cycle.
   */
  grant(req: (i: number) => boolean): number {
    const t = this.owner.sim.cycle;
    if (this.grantCycle === t) throw new Error(`${this.owner.path}: arbiter granted twice in cycle ${t}`);
    const start = this.ptr.q;
    const n = this.n;
    for (let k = 0; k < n; k++) {
      let i = start + k;
      if (i >= n) i -= n;
      if (req(i)) {
        this.grantCycle = t;
        this.ptr.d = i + 1 === n ? 0 : i + 1;
        return i;
      }
    }
    return -1;
  }

  reset(): void {
    this.grantCycle = -1;
  }
}
