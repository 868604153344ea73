/**
 * Freshness oracle for the ATC's safety properties. It records every software update of the ATT
 * (each page's versions: version 0 is the default mapping, version k the k-th write) and every
 * refresh (the update sequence number when software asked for it, when it started in the ATC and
 * when its done register became visible). It then judges:
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
 */
export interface RefreshRecord {
  base: number;
  top: number;
  /** update sequence number when software asked for the refresh (updates with a smaller number precede it) */
  seq: number;
  startCycle: number;
  /** first cycle in which software can see the done register */
  doneCycle: number;
}

interface Version {
  seq: number;
  frame: number;
  valid: boolean;
}

export class TranslationOracle {
  private readonly versions = new Map<number, Version[]>();
  private seq = 0;
  readonly refreshes: RefreshRecord[] = [];

  constructor(private readonly defaultFrame: (page: number) => number) {}

  write(page: number, frame: number, valid: boolean): void {
    this.seq++;
    let v = this.versions.get(page);
    if (!v) {
      v = [{ seq: 0, frame: this.defaultFrame(page), valid: true }];
      this.versions.set(page, v);
    }
    v.push({ seq: this.seq, frame, valid });
  }

  /** Software asks for a refresh of [base, top]; returns its record (fill in start/done as they happen). */
  requestRefresh(base: number, top: number): RefreshRecord {
    const r: RefreshRecord = { base, top, seq: this.seq + 1, startCycle: Infinity, doneCycle: Infinity };
    this.refreshes.push(r);
    return r;
  }

  private history(page: number): Version[] {
    return this.versions.get(page) ?? [{ seq: 0, frame: this.defaultFrame(page), valid: true }];
  }

  /** Index of the newest version the refresh requires (versions written before it was requested). */
  private required(page: number, when: (r: RefreshRecord) => boolean): number {
    const h = this.history(page);
    let need = 0;
    for (const r of this.refreshes) {
      if (page < r.base || page > r.top || !when(r)) continue;
      let k = 0;
      for (let i = 0; i < h.length; i++) if (h[i]!.seq < r.seq) k = i;
      if (k > need) need = k;
    }
    return need;
  }

  /** Newest version index with this content, or -1 if the page never had it. */
  private versionOf(page: number, frame: number | null): number {
    const h = this.history(page);
    for (let i = h.length - 1; i >= 0; i--) {
      const v = h[i]!;
      if (frame === null ? !v.valid : v.valid && v.frame === frame) return i;
    }
    return -1;
  }

  /** null when fine, else what is wrong. `frame` null means the response was a fault. */
  judgeResponse(page: number, frame: number | null, acceptCycle: number): string | null {
    const have = this.versionOf(page, frame);
    if (have < 0) return `page ${page}: translation ${frame === null ? 'fault' : `frame ${frame}`} was never in the ATT`;
    const need = this.required(page, (r) => r.doneCycle <= acceptCycle);
    return have >= need ? null : `page ${page}: lookup accepted in cycle ${acceptCycle} returned version ${have}, but a completed refresh requires version >= ${need}`;
  }

  judgeInstall(page: number, frame: number, cycle: number): string | null {
    const have = this.versionOf(page, frame);
    if (have < 0) return `page ${page}: installed frame ${frame} was never in the ATT`;
    const need = this.required(page, (r) => r.startCycle <= cycle);
    return have >= need ? null : `page ${page}: fill installed in cycle ${cycle} version ${have}, but a started refresh requires version >= ${need}`;
  }
}
