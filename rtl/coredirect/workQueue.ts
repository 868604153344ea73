/**
 * One work queue of the HCA (a QP's send or receive queue, or a management queue): a ring of
 * posted entries with three registered pointers, all absolute indices:
 *
 * - `pi` (producer index): entries [ci, pi) are posted and not yet consumed; advanced by doorbells;
 * - `ci` (consumer index): advanced when the head is executed (or, in a receive queue, consumed by
 *   an arriving send);
 * - `en` (enable index): an enable task for index k sets en = max(en, k + 1), i.e. it enables every
 *   posted entry up to index k; enabling again is a no-op.
 *
 * An entry is eligible when it was posted without the disabled flag, or its index is below `en`.
 * Only the head is ever eligible (queues run in order). Storage grows in powers of two up to
 * `length` entries as occupancy requires; it never holds more than `length` (a post that would
 * overflow is refused as a whole by the HCA).
 */
import type { Component } from '../kernel/index.ts';
import { Reg } from '../kernel/index.ts';
import { F_DISABLED, type PostedEntry } from './tasks.ts';

export class WorkQueue {
  readonly pi: Reg;
  readonly en: Reg;
  readonly ci: Reg;
  private kind: Uint8Array;
  private flags: Uint8Array;
  private qp: Int32Array;
  private cq: Int32Array;
  private count: Int32Array;
  private target: Float64Array;
  private mask: number;
  /** largest occupancy seen (for the no-overflow property) */
  maxOccupancy = 0;

  constructor(owner: Component, name: string, readonly length: number) {
    this.pi = new Reg(owner, `${name}_pi`, 32);
    this.en = new Reg(owner, `${name}_en`, 32);
    this.ci = new Reg(owner, `${name}_ci`, 32);
    const n = 4;
    this.mask = n - 1;
    this.kind = new Uint8Array(n);
    this.flags = new Uint8Array(n);
    this.qp = new Int32Array(n);
    this.cq = new Int32Array(n);
    this.count = new Int32Array(n);
    this.target = new Float64Array(n);
  }

  /** posted entries not yet consumed (current state) */
  occupancy(): number {
    return this.pi.q - this.ci.q;
  }
  /** room for `n` more entries */
  fits(n: number): boolean {
    return this.pi.q - this.ci.q + n <= this.length;
  }
  /** the head exists and is enabled */
  headEnabled(): boolean {
    const ci = this.ci.q;
    return ci < this.pi.q && (ci < this.en.q || (this.flags[ci & this.mask]! & F_DISABLED) === 0);
  }
  /** the head exists but was posted disabled and no enable covers it yet */
  headDisabled(): boolean {
    const ci = this.ci.q;
    return ci < this.pi.q && ci >= this.en.q && (this.flags[ci & this.mask]! & F_DISABLED) !== 0;
  }
  headKind(): number {
    return this.kind[this.ci.q & this.mask]!;
  }
  headFlags(): number {
    return this.flags[this.ci.q & this.mask]!;
  }
  headQp(): number {
    return this.qp[this.ci.q & this.mask]!;
  }
  headCq(): number {
    return this.cq[this.ci.q & this.mask]!;
  }
  headCount(): number {
    return this.count[this.ci.q & this.mask]!;
  }
  headTarget(): number {
    return this.target[this.ci.q & this.mask]!;
  }

  /**
   * Append entries (a doorbell). `pi` of the caller's batch must equal each entry's index (the
   * driver is the only producer); the caller checked fits(). Next-state writes only.
   */
  append(entries: readonly PostedEntry[], from: number, to: number): void {
    let pi = this.pi.next;
    const need = pi + (to - from) - this.ci.q;
    if (need > this.mask + 1) this.grow(need);
    for (let i = from; i < to; i++) {
      const e = entries[i]!;
      if (e.index !== pi) throw new Error(`work queue: entry index ${e.index} posted at producer index ${pi} (driver and HCA out of step)`);
      const s = pi & this.mask;
      this.kind[s] = e.kind;
      this.flags[s] = e.flags;
      this.qp[s] = e.qp;
      this.cq[s] = e.cq;
      this.count[s] = e.count;
      this.target[s] = e.target;
      pi++;
    }
    this.pi.d = pi;
    const occ = pi - this.ci.q;
    if (occ > this.maxOccupancy) this.maxOccupancy = occ;
  }

  /** enable every posted entry up to index k (next state); false if entry k was never posted */
  enableUpTo(k: number): boolean {
    if (k >= this.pi.q) return false;
    if (k + 1 > this.en.next) this.en.d = k + 1;
    return true;
  }

  consumeHead(): void {
    this.ci.d = this.ci.q + 1;
  }

  /** whether entry i (posted, not yet consumed) is eligible as the HCA sees it now (tests, reports) */
  isEnabled(i: number): boolean {
    return i < this.en.q || (this.flags[i & this.mask]! & F_DISABLED) === 0;
  }

  private grow(need: number): void {
    let n = this.mask + 1;
    while (n < need) n *= 2;
    const lo = this.ci.q;
    const hi = this.pi.next;
    const move = <A extends Uint8Array | Int32Array | Float64Array>(a: A, make: (n: number) => A): A => {
      const b = make(n);
      for (let i = lo; i < hi; i++) b[i & (n - 1)] = a[i & this.mask]!;
      return b;
    };
    this.kind = move(this.kind, (k) => new Uint8Array(k));
    this.flags = move(this.flags, (k) => new Uint8Array(k));
    this.qp = move(this.qp, (k) => new Int32Array(k));
    this.cq = move(this.cq, (k) => new Int32Array(k));
    this.count = move(this.count, (k) => new Int32Array(k));
    this.target = move(this.target, (k) => new Float64Array(k));
    this.mask = n - 1;
  }
}
