import { type Component, Reg, RoundRobinArbiter } from '../../kernel/index.ts';

/** How the SDQ's VP scheduler picks among the DMA VPs that have descriptors to fetch. */
export const SCHED_POLICIES = ['round-robin', 'fixed-priority', 'oldest-first'] as const;
export type SchedPolicy = (typeof SCHED_POLICIES)[number];

const P_RR = 0;
const P_FIXED = 1;
const P_OLDEST = 2;

/**
 * The VP scheduler of the SDQ (docs/nic-frontend.md, "SDQ"): picks one of n candidate DMA VPs
 * (candidates are given per cycle by the owner) for the next descriptor read.
 *
 * - round-robin (default): the kernel's registered-pointer arbiter; a persistent candidate is
 *   picked within n picks.
 * - fixed-priority: the lowest-numbered candidate; no fairness bound (a low VP kept busy starves
 *   the others; the policy exists to show that).
 * - oldest-first: the candidate with the earliest stamp (ties: lowest number). A VP is stamped
 *   with the cycle it became a candidate (`arm`) and re-stamped with the pick's cycle when it
 *   stays a candidate after being picked (`served`; stamped t + 1/2, behind every VP that became a
 *   candidate up to that cycle), so a persistent candidate is picked within n picks, as with
 *   round-robin, but in order of waiting time.
 * State: the arbiter's pointer (a register) and one stamp per VP (written by the owner's tick in
 * program order after the pick of the cycle, so a pick sees the stamps as at the start of the
 * cycle).
 */
export class VpScheduler {
  private readonly rr: RoundRobinArbiter;
  private readonly stamp: Float64Array;
  private readonly code: number;
  /** the last pick (VP index), for tracing */
  readonly last: Reg;

  constructor(
    owner: Component,
    name: string,
    readonly n: number,
    readonly policy: SchedPolicy,
  ) {
    const code = SCHED_POLICIES.indexOf(policy);
    if (code < 0) throw new RangeError(`VP scheduler: policy must be one of ${SCHED_POLICIES.join(', ')}, got ${String(policy)}`);
    this.code = code;
    this.rr = new RoundRobinArbiter(owner, `${name}_rr`, n);
    this.stamp = new Float64Array(n);
    this.last = new Reg(owner, `${name}_last`, 9, 0);
  }

  reset(): void {
    this.stamp.fill(0);
  }

  /** VP i became a candidate in cycle t. */
  arm(i: number, t: number): void {
    this.stamp[i] = t;
  }

  /** VP i was picked in cycle t and is still a candidate: it queues behind every VP armed up to cycle t. */
  served(i: number, t: number): void {
    this.stamp[i] = t + 0.5;
  }

  /** Pick one VP for which cand(i) is true, or -1. At most once per cycle. */
  pick(cand: (i: number) => boolean): number {
    let g = -1;
    if (this.code === P_RR) g = this.rr.grant(cand);
    else if (this.code === P_FIXED) {
      for (let i = 0; i < this.n; i++)
        if (cand(i)) {
          g = i;
          break;
        }
    } else if (this.code === P_OLDEST) {
      for (let i = 0; i < this.n; i++) if (cand(i) && (g < 0 || this.stamp[i]! < this.stamp[g]!)) g = i;
    }
    if (g >= 0) this.last.d = g;
    return g;
  }
}
