/**
 * Round-robin arbiter over many requesters of which few have work: requesters with posted,
 * unexecuted entries are marked in a bit vector (set when their count goes 0 -> 1, cleared at
 * 1 -> 0), and a grant looks only at marked ones, from the registered priority pointer onwards,
 * asking the caller whether each is ready this cycle. Same fairness as the kernel's
 * RoundRobinArbiter (a requester that stays ready is granted within n grants) at a cost that grows
 * with the marked requesters, not all of them.
 */
import type { Component } from '../kernel/index.ts';
import { Reg } from '../kernel/index.ts';

export class PendingArbiter {
  private readonly bits: Uint32Array;
  private readonly ptr: Reg;

  constructor(owner: Component, name: string, readonly n: number) {
    this.bits = new Uint32Array(Math.ceil(n / 32) + 1);
    this.ptr = new Reg(owner, name, Math.max(1, Math.ceil(Math.log2(n + 1))), 0);
  }

  mark(i: number, pending: boolean): void {
    if (pending) this.bits[i >>> 5]! |= 1 << (i & 31);
    else this.bits[i >>> 5]! &= ~(1 << (i & 31));
  }

  /** First marked requester at or after the pointer (wrapping) for which ready(i) holds; -1 if none. */
  grant(ready: (i: number) => boolean): number {
    const n = this.n;
    const start = this.ptr.q;
    const words = this.bits.length;
    // two passes: [start, n) then [0, start)
    for (let pass = 0; pass < 2; pass++) {
      const lo = pass === 0 ? start : 0;
      const hi = pass === 0 ? n : start;
      let w = lo >>> 5;
      let word = this.bits[w]! & (~0 << (lo & 31));
      for (;;) {
        while (word !== 0) {
          const b = 31 - Math.clz32(word & -word);
          const i = (w << 5) + b;
          if (i >= hi) break;
          if (ready(i)) {
            this.ptr.d = i + 1 === n ? 0 : i + 1;
            return i;
          }
          word &= word - 1;
        }
        w++;
        if (w >= words || w << 5 >= hi) break;
        word = this.bits[w]!;
      }
    }
    return -1;
  }
}
