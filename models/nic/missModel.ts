/**
 * Transaction-level golden model of the ATC's non-blocking miss handling (docs/nic-memory.md,
 * "Pipeline"), written from the specification and sharing no code with rtl/nic/atc. Where the
 * serial model (atcModel.ts) sees one request at a time, this one is driven by the events of a
 * concurrent run, in the order the specification puts them within a cycle (lookup stage, then the
 * fill port, then the drain), and says for every lookup that missed the cache what the hardware
 * must do with it:
 *
 * - `merged` when a miss for the same (asid, page) is outstanding (allocated, its fill not yet
 *   accepted; a fill in the same cycle is accepted after the lookup stage) and holds fewer than
 *   `targets` requests;
 * - `stall` when such a miss holds `targets` requests, or when none is outstanding and all `mshrs`
 *   registers are busy (a register is busy from its allocation until its last waiter has been
 *   answered; one freed in cycle t is usable from t + 1);
 * - `miss` otherwise (a register is allocated).
 *
 * A stale fill (a refresh covered the page while its read was in flight) does not end the miss: the
 * read goes out again and the register stays outstanding. A fill that faults still ends it (its
 * waiters are answered with the fault; a later lookup misses again).
 */

interface Entry {
  key: string;
  /** requests held: the primary miss and merged ones */
  waiters: number;
  /** answered so far */
  answered: number;
  /** the fill was accepted (no more merging) */
  filled: boolean;
}

export class MissModel {
  private readonly outstanding = new Map<string, Entry>();
  /** entries allocated and not yet freed (filled or not) */
  private readonly live = new Set<Entry>();
  /** entries whose last waiter was answered in cycle t, freed from t + 1 */
  private readonly freeing: { entry: Entry; cycle: number }[] = [];
  /** per filled key, the entries draining, oldest first */
  private readonly draining = new Map<string, Entry[]>();

  constructor(
    readonly mshrs: number,
    readonly targets: number,
  ) {}

  private static key(asid: number, page: number): string {
    return `${asid}:${page}`;
  }

  private retire(cycle: number): void {
    for (let i = this.freeing.length - 1; i >= 0; i--) {
      const f = this.freeing[i]!;
      if (f.cycle < cycle) {
        this.live.delete(f.entry);
        this.freeing.splice(i, 1);
      }
    }
  }

  /**
   * The lookup was accepted as `cls` (miss or merged). The caller decides with pendingWaiters (>= 0:
   * merged, or stall at `targets`) and busy (a new miss stalls when it is `mshrs`).
   */
  accept(cycle: number, asid: number, page: number, cls: 'miss' | 'merged'): void {
    this.retire(cycle);
    const k = MissModel.key(asid, page);
    if (cls === 'merged') {
      this.outstanding.get(k)!.waiters++;
      return;
    }
    const e: Entry = { key: k, waiters: 1, answered: 0, filled: false };
    this.outstanding.set(k, e);
    this.live.add(e);
  }

  /** A (non-stale) fill for (asid, page) was accepted in `cycle`: the miss ends, its waiters drain. */
  fill(_cycle: number, asid: number, page: number): boolean {
    const k = MissModel.key(asid, page);
    const e = this.outstanding.get(k);
    if (!e) return false;
    this.outstanding.delete(k);
    e.filled = true;
    let q = this.draining.get(k);
    if (!q) this.draining.set(k, (q = []));
    q.push(e);
    return true;
  }

  /** One waiter of (asid, page) was answered (pushed) in `cycle`; false when none was draining. */
  answer(cycle: number, asid: number, page: number): boolean {
    const k = MissModel.key(asid, page);
    const q = this.draining.get(k);
    const e = q?.[0];
    if (!e) return false;
    e.answered++;
    if (e.answered === e.waiters) {
      q!.shift();
      if (q!.length === 0) this.draining.delete(k);
      this.freeing.push({ entry: e, cycle });
    }
    return true;
  }

  /** Requests held by the outstanding miss of (asid, page), -1 when none is outstanding. */
  pendingWaiters(asid: number, page: number): number {
    return this.outstanding.get(MissModel.key(asid, page))?.waiters ?? -1;
  }

  /** Some filled miss still has a waiter to answer (a response the output port owes). */
  waiterReady(): boolean {
    return this.draining.size > 0;
  }

  /** Registers busy as of the lookup stage of `cycle`. */
  busy(cycle: number): number {
    this.retire(cycle);
    return this.live.size;
  }
}
