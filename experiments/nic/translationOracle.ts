/**
 * Freshness oracle for the ATC's safety properties. It records every software update of the ATT
 * (each (VP, page)'s versions: version 0 is the default mapping, version k the k-th write) and
 * every refresh (the update sequence number when software asked for it, the VP it names or -1 for
 * all, when it started in the ATC and when its done register became visible). It then judges:
 *
 * - a response to a lookup accepted in cycle a: for every refresh covering the page whose done
 *   register was visible at or before a, the translation returned must be at least as new as the
 *   page's version when that refresh was requested;
 * - a fill installed in cycle f: the same, for every refresh covering the page that had started
 *   by cycle f (a fill whose read may predate the update must not be installed once the refresh
 *   has begun).
 *
 * A translation is identified by its frame (tests write unique frames) or, for a fault, by the
 * entry being invalid; it is as new as the newest version of the page with that content.
 *
 * Cost: O(log n) per judgement and O(k log n) per refresh request (k = pages software has written
 * inside the refresh's range), so a run of n operations is O(n log n). A returned version `have`
 * is stale exactly when some refresh requested after version have + 1 was written, and started
 * (install) or done (response) by the judged cycle, covers the page. Refreshes are serialised, so
 * their request order, start order and done order agree: the candidates are one contiguous run of
 * refresh numbers [L, R), found by binary search, and each written page keeps the sorted list of
 * refreshes that cover it, so the question is one more binary search.
 */
export interface RefreshRecord {
  base: number;
  top: number;
  /** VP whose translations the refresh removes, -1: every VP */
  vp: number;
  /** update sequence number when software asked for the refresh (updates with a smaller number precede it) */
  seq: number;
  startCycle: number;
  /** first cycle in which software can see the done register */
  doneCycle: number;
}

interface PageHistory {
  /** sequence number of each version (index 0: the default mapping, seq 0) */
  seqs: number[];
  /** newest version index holding each valid frame */
  byFrame: Map<number, number>;
  /** newest version index that is invalid, -1 if none */
  lastInvalid: number;
  /** refreshes (indices into `refreshes`) covering this page requested after it was first written, ascending */
  covers: number[];
}

/** first index in [0, n) whose value is > x (ascending arrays) */
function upperBound(a: ArrayLike<number>, n: number, x: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class TranslationOracle {
  /** per VP: page -> history of written pages */
  private readonly pages = new Map<number, Map<number, PageHistory>>();
  /** per VP: written pages, ascending */
  private readonly sorted = new Map<number, number[]>();
  private seq = 0;
  readonly refreshes: RefreshRecord[] = [];
  /** refresh request sequence numbers, ascending (parallel to `refreshes`) */
  private readonly refreshSeqs: number[] = [];

  /** `defaultFrame(page, vp)`: the frame of a page software never wrote. */
  constructor(private readonly defaultFrame: (page: number, vp: number) => number) {}

  private history(page: number, vp: number): PageHistory | undefined {
    return this.pages.get(vp)?.get(page);
  }

  write(page: number, frame: number, valid: boolean, vp = 0): void {
    this.seq++;
    let byVp = this.pages.get(vp);
    if (!byVp) {
      byVp = new Map();
      this.pages.set(vp, byVp);
      this.sorted.set(vp, []);
    }
    let h = byVp.get(page);
    if (!h) {
      h = { seqs: [0], byFrame: new Map([[this.defaultFrame(page, vp), 0]]), lastInvalid: -1, covers: [] };
      byVp.set(page, h);
      const s = this.sorted.get(vp)!;
      s.splice(upperBound(s, s.length, page), 0, page);
    }
    const k = h.seqs.length;
    h.seqs.push(this.seq);
    if (valid) h.byFrame.set(frame, k);
    else h.lastInvalid = k;
  }

  /** Software asks for a refresh of [base, top] of `vp` (-1: all VPs); returns its record (fill in start/done as they happen). */
  requestRefresh(base: number, top: number, vp = -1): RefreshRecord {
    const r: RefreshRecord = { base, top, vp, seq: this.seq + 1, startCycle: Infinity, doneCycle: Infinity };
    const idx = this.refreshes.length;
    this.refreshes.push(r);
    this.refreshSeqs.push(r.seq);
    for (const [v, s] of this.sorted) {
      if (vp >= 0 && v !== vp) continue;
      const byVp = this.pages.get(v)!;
      for (let i = upperBound(s, s.length, base - 1); i < s.length && s[i]! <= top; i++) byVp.get(s[i]!)!.covers.push(idx);
    }
    return r;
  }

  /** Newest version index with this content, -1 if the page never had it. */
  private versionOf(h: PageHistory | undefined, page: number, vp: number, frame: number | null): number {
    if (!h) return frame !== null && frame === this.defaultFrame(page, vp) ? 0 : -1;
    if (frame === null) return h.lastInvalid;
    return h.byFrame.get(frame) ?? -1;
  }

  /**
   * Version `have` of the page is stale when a covering refresh requested after version have + 1
   * was written satisfies `reached` (refreshes that reached it form a prefix: count `reachedCount`).
   */
  private stale(h: PageHistory | undefined, have: number, reachedCount: number): boolean {
    if (!h || have + 1 >= h.seqs.length) return false;
    const L = upperBound(this.refreshSeqs, this.refreshSeqs.length, h.seqs[have + 1]!);
    if (L >= reachedCount) return false;
    const c = h.covers;
    const j = upperBound(c, c.length, L - 1);
    return j < c.length && c[j]! < reachedCount;
  }

  /** Refreshes whose `field` cycle is <= cycle (a prefix, since refreshes are serialised). */
  private reached(field: 'startCycle' | 'doneCycle', cycle: number): number {
    const rs = this.refreshes;
    let lo = 0;
    let hi = rs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (rs[mid]![field] <= cycle) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** null when fine, else what is wrong. `frame` null means the response was a fault. */
  judgeResponse(page: number, frame: number | null, acceptCycle: number, vp = 0): string | null {
    const h = this.history(page, vp);
    const have = this.versionOf(h, page, vp, frame);
    if (have < 0) return `VP ${vp} page ${page}: translation ${frame === null ? 'fault' : `frame ${frame}`} was never in the ATT`;
    return this.stale(h, have, this.reached('doneCycle', acceptCycle)) ? `VP ${vp} page ${page}: lookup accepted in cycle ${acceptCycle} returned version ${have}, but a completed refresh requires a newer one` : null;
  }

  judgeInstall(page: number, frame: number, cycle: number, vp = 0): string | null {
    const h = this.history(page, vp);
    const have = this.versionOf(h, page, vp, frame);
    if (have < 0) return `VP ${vp} page ${page}: installed frame ${frame} was never in the ATT`;
    return this.stale(h, have, this.reached('startCycle', cycle)) ? `VP ${vp} page ${page}: fill installed in cycle ${cycle} version ${have}, but a started refresh requires a newer one` : null;
  }

  /** The newest version's content of a page: frame, or null when it is invalid. */
  current(page: number, vp = 0): number | null {
    const h = this.history(page, vp);
    if (!h) return this.defaultFrame(page, vp);
    const k = h.seqs.length - 1;
    if (h.lastInvalid === k) return null;
    for (const [f, i] of h.byFrame) if (i === k) return f;
    return null;
  }
}
