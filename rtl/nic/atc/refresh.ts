import { MSHR_PENDING, type MshrFile } from './mshr.ts';
import type { TagArray } from './tagArray.ts';
import type { AtcConfig, RefreshRequest } from './types.ts';

export const REFRESH_PROBE = 1;
export const REFRESH_SWEEP = 2;
export const REFRESH_BUFFER = 3;
/** a malformed request (base > top, not integers): nothing is removed, it completes in one cycle */
export const REFRESH_BAD = 4;
export const REFRESH_MODE_NAMES = ['', 'probe', 'sweep', 'buffer', 'bad'] as const;

/** Observer of tag removals (the Atc's verification monitor). */
export interface InvalidateSink {
  invalidate?(t: number, page: number, way: number, asid: number): void;
}

/**
 * The ATC's refresh engine (seed step 2 and 3: find every tag between the base and top page sent by
 * the memory checker and remove it; with a VP, only that VP's tags). It owns the tag array's refresh port: one read-modify-write
 * per cycle, independent of the lookup port.
 *
 * - start (the cycle the request is popped): every PENDING MSHR whose read is already in flight
 *   and whose page is in the range (and whose asid is the refresh's VP, unless it names none) is
 *   marked stale, in that one cycle (a CAM compare); its data
 *   will be dropped and the read sent again. The mode is chosen:
 *   - probe (range of n <= refreshProbeMax pages): one page per cycle, its set is read and every
 *     way holding that page of the VP (of any VP when none is named) is cleared: n cycles;
 *   - sweep (larger range): one set per cycle, every way whose page is in the range is cleared:
 *     `sets` cycles;
 *   - buffer mode: one buffer entry per cycle over the part of the range inside the buffer
 *     (at least one cycle).
 * - step: one unit per cycle, the first in the start cycle. The Atc writes the refresh-done
 *   register in the cycle of the last step, so it is visible `cycles` cycles after the start.
 */
export class RefreshEngine {
  active = false;
  mode = 0;
  base = 0;
  top = 0;
  /** VP whose tags are removed, -1: all */
  vp = -1;
  id = 0;
  startCycle = -1;
  /** cycles this refresh takes (steps) */
  total = 0;
  private pos = 0;
  private left = 0;
  private readonly sets: number;

  constructor(
    private readonly tags: TagArray,
    private readonly mshr: MshrFile,
    private readonly cfg: AtcConfig,
  ) {
    this.sets = cfg.entries / cfg.ways;
  }

  /** Cycles a refresh of [base, top] takes in this configuration (the documented cost). */
  static cost(cfg: AtcConfig, base: number, top: number): { mode: number; cycles: number } {
    if (!Number.isInteger(base) || !Number.isInteger(top) || base < 0 || top < base) return { mode: REFRESH_BAD, cycles: 1 };
    if (cfg.mode === 'buffer') {
      const lo = Math.max(base, cfg.bufferBasePage);
      const hi = Math.min(top, cfg.bufferBasePage + cfg.entries - 1);
      return { mode: REFRESH_BUFFER, cycles: Math.max(1, hi - lo + 1) };
    }
    const pages = top - base + 1;
    if (pages <= cfg.refreshProbeMax) return { mode: REFRESH_PROBE, cycles: pages };
    return { mode: REFRESH_SWEEP, cycles: cfg.entries / cfg.ways };
  }

  start(t: number, rq: RefreshRequest): void {
    const base = rq.basePage;
    const top = rq.topPage;
    const c = RefreshEngine.cost(this.cfg, base, top);
    this.mode = c.mode;
    this.total = c.cycles;
    this.left = c.cycles;
    this.base = base;
    this.top = top;
    const vp = rq.vp ?? -1;
    this.vp = Number.isInteger(vp) && vp >= 0 && vp <= 0xffff ? vp : -1;
    this.id = rq.refreshId;
    this.startCycle = t;
    this.active = true;
    if (c.mode === REFRESH_BAD) return;
    const m = this.mshr;
    for (let i = 0; i < m.count; i++) {
      if (m.state[i] === MSHR_PENDING && m.needIssue[i] === 0 && m.page[i]! >= base && m.page[i]! <= top && (this.vp < 0 || m.asid[i] === this.vp)) m.stale[i] = 1;
    }
    if (c.mode === REFRESH_PROBE) this.pos = base;
    else if (c.mode === REFRESH_SWEEP) this.pos = 0;
    else this.pos = Math.max(base, this.cfg.bufferBasePage);
  }

  /** One refresh step; true when this was the last one. */
  step(t: number, mon: InvalidateSink | null): boolean {
    const tags = this.tags;
    const ways = tags.ways;
    const vp = this.vp;
    if (this.mode === REFRESH_PROBE || this.mode === REFRESH_SWEEP) {
      // probe: the set of one page, that page only; sweep: one set, every page in the range
      const probe = this.mode === REFRESH_PROBE;
      const set = probe ? this.pos % this.sets : this.pos;
      const lo = probe ? this.pos : this.base;
      const hi = probe ? this.pos : this.top;
      const base = set * ways;
      for (let w = 0; w < ways; w++) {
        const i = base + w;
        const p = tags.page[i]!;
        if (tags.valid[i] !== 0 && p >= lo && p <= hi && (vp < 0 || tags.asid[i] === vp)) {
          tags.invalidate(i);
          if (mon !== null && mon.invalidate) mon.invalidate(t, p, w, tags.asid[i]!);
        }
      }
    } else if (this.mode === REFRESH_BUFFER) {
      const idx = this.pos - this.cfg.bufferBasePage;
      if (idx >= 0 && idx < tags.entries && this.pos <= this.top && tags.valid[idx] !== 0 && tags.page[idx] === this.pos && (vp < 0 || tags.asid[idx] === vp)) {
        tags.invalidate(idx);
        if (mon !== null && mon.invalidate) mon.invalidate(t, this.pos, idx, tags.asid[idx]!);
      }
    }
    this.pos++;
    this.left--;
    if (this.left > 0) return false;
    this.active = false;
    return true;
  }

  reset(): void {
    this.active = false;
    this.mode = 0;
    this.left = 0;
    this.pos = 0;
    this.vp = -1;
    this.startCycle = -1;
  }
}
