/**
 * Golden model of a set-associative translation cache (docs/nic-memory.md, "ATC"), written from
 * the specification and sharing no code with rtl/nic/atc:
 *
 * - a translation is identified by (asid, page): the same page of two address spaces (virtual
 *   ports) is two entries; page p of any asid lives in set p mod sets;
 * - a fill uses the lowest-numbered empty way, otherwise the policy's victim; a fill of a page that
 *   is already present updates it in place; hits and fills make the way most recently used;
 * - invalidation empties a way and leaves the replacement state alone;
 * - LRU: an explicit recency list per set (most recent first), victim = last;
 * - tree PLRU: a binary tree over the way range [0, ways); each inner node covering [lo, hi) has a
 *   pointer 'left' or 'right' (initially left) naming the half to evict from; touching way w turns
 *   every node on w's path to point at the half not containing w.
 *
 * Sets are created lazily, so a model of a 1M-entry cache costs only what is touched.
 */
export type PolicyName = 'lru' | 'plru';

interface Slot {
  page: number;
  asid: number;
  pfn: number;
}

interface SetState {
  slots: (Slot | null)[];
  /** LRU: way numbers, most recently used first */
  recency: number[];
  /** PLRU: node key "lo:hi" -> which half to evict from */
  pointer: Map<string, 'left' | 'right'>;
}

export interface FillOutcome {
  way: number;
  /** page evicted, or null when the way was empty (or the page was already present) */
  evicted: number | null;
  /** asid of the evicted page, null when none */
  evictedAsid: number | null;
}

export class SetAssocCacheModel {
  readonly sets: number;
  private readonly state = new Map<number, SetState>();

  constructor(
    readonly entries: number,
    readonly ways: number,
    readonly policy: PolicyName,
  ) {
    if (!(entries > 0 && ways > 0 && entries % ways === 0)) throw new Error(`cache model: ways ${ways} must divide entries ${entries}`);
    if (policy === 'plru' && !isPowerOfTwo(ways)) throw new Error(`cache model: PLRU needs power-of-two ways, got ${ways}`);
    this.sets = entries / ways;
  }

  setOf(page: number): number {
    return page % this.sets;
  }

  private get(set: number): SetState {
    let s = this.state.get(set);
    if (!s) {
      s = { slots: new Array<Slot | null>(this.ways).fill(null), recency: [...Array(this.ways).keys()], pointer: new Map() };
      this.state.set(set, s);
    }
    return s;
  }

  private wayOf(s: SetState, page: number, asid: number): number {
    return s.slots.findIndex((x) => x !== null && x.page === page && x.asid === asid);
  }

  /** A lookup: hit (and touch) or miss (no change). */
  lookup(page: number, asid = 0): { hit: boolean; way: number; pfn: number | null } {
    const s = this.get(this.setOf(page));
    const w = this.wayOf(s, page, asid);
    if (w < 0) return { hit: false, way: -1, pfn: null };
    this.touch(s, w);
    return { hit: true, way: w, pfn: s.slots[w]!.pfn };
  }

  /** Read without touching. */
  peek(page: number, asid = 0): { way: number; pfn: number } | null {
    const s = this.state.get(this.setOf(page));
    if (!s) return null;
    const w = this.wayOf(s, page, asid);
    return w < 0 ? null : { way: w, pfn: s.slots[w]!.pfn };
  }

  /** The way the next fill of `set` would use, and the page it would evict (no change). */
  nextVictim(set: number): FillOutcome {
    const s = this.get(set);
    const empty = s.slots.findIndex((x) => x === null);
    if (empty >= 0) return { way: empty, evicted: null, evictedAsid: null };
    const w = this.policyVictim(s);
    return { way: w, evicted: s.slots[w]!.page, evictedAsid: s.slots[w]!.asid };
  }

  fill(page: number, pfn: number, asid = 0): FillOutcome {
    const s = this.get(this.setOf(page));
    const present = this.wayOf(s, page, asid);
    if (present >= 0) {
      s.slots[present] = { page, asid, pfn };
      this.touch(s, present);
      return { way: present, evicted: null, evictedAsid: null };
    }
    const out = this.nextVictim(this.setOf(page));
    s.slots[out.way] = { page, asid, pfn };
    this.touch(s, out.way);
    return out;
  }

  /** Remove a page; returns the way it was in or -1. */
  invalidate(page: number, asid = 0): number {
    const s = this.state.get(this.setOf(page));
    if (!s) return -1;
    const w = this.wayOf(s, page, asid);
    if (w >= 0) s.slots[w] = null;
    return w;
  }

  /** Remove every page in [base, top] of `asid` (-1: of every asid); returns the pages removed. */
  invalidateRange(base: number, top: number, asid = -1): number[] {
    const out: number[] = [];
    for (const s of this.state.values()) {
      for (let w = 0; w < s.slots.length; w++) {
        const x = s.slots[w];
        if (x && x.page >= base && x.page <= top && (asid < 0 || x.asid === asid)) {
          out.push(x.page);
          s.slots[w] = null;
        }
      }
    }
    return out.sort((a, b) => a - b);
  }

  /** Contents of one set: per way the page, asid and frame, or null. */
  contents(set: number): ({ page: number; asid: number; pfn: number } | null)[] {
    const s = this.state.get(set);
    if (!s) return new Array(this.ways).fill(null);
    return s.slots.map((x) => (x ? { ...x } : null));
  }

  /** Sets that were ever touched. */
  touchedSets(): number[] {
    return [...this.state.keys()].sort((a, b) => a - b);
  }

  /** All resident pages. */
  pages(): number[] {
    const out: number[] = [];
    for (const s of this.state.values()) for (const x of s.slots) if (x) out.push(x.page);
    return out.sort((a, b) => a - b);
  }

  /** All resident translations. */
  resident(): { page: number; asid: number; pfn: number }[] {
    const out: { page: number; asid: number; pfn: number }[] = [];
    for (const s of this.state.values()) for (const x of s.slots) if (x) out.push({ ...x });
    return out;
  }

  private touch(s: SetState, way: number): void {
    if (this.policy === 'lru') {
      s.recency = [way, ...s.recency.filter((w) => w !== way)];
      return;
    }
    let lo = 0;
    let hi = this.ways;
    while (hi - lo > 1) {
      const mid = (lo + hi) / 2;
      s.pointer.set(`${lo}:${hi}`, way < mid ? 'right' : 'left');
      if (way < mid) hi = mid;
      else lo = mid;
    }
  }

  private policyVictim(s: SetState): number {
    if (this.policy === 'lru') return s.recency[s.recency.length - 1]!;
    let lo = 0;
    let hi = this.ways;
    while (hi - lo > 1) {
      const mid = (lo + hi) / 2;
      if ((s.pointer.get(`${lo}:${hi}`) ?? 'left') === 'left') hi = mid;
      else lo = mid;
    }
    return lo;
  }
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && x % 2 === 0) x /= 2;
  return x === 1;
}
