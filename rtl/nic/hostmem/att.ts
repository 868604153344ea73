/**
 * The address translation tables (ATT) in host memory: one table per virtual port (VP, the ATC's
 * address-space id, 0..65535), one entry per virtual page, each a physical frame number and a
 * valid bit. Pages that software never wrote hold the default mapping
 * frame = (page + 2^18 + vp * 2^24) mod 2^(paBits - 12), valid (so traces over any page range
 * translate without setting anything up; VP 0 keeps the single-table mapping of earlier versions).
 * Software writes (`write`) take effect at once: a host-memory read that samples the table
 * afterwards sees the new entry.
 *
 * Storage is sparse (a Map of written pages per VP), since the virtual page space has 2^36 pages.
 */
export const ATT_DEFAULT_OFFSET = 2 ** 18;
/** default-mapping distance between the tables of consecutive VPs (frames) */
export const ATT_VP_STRIDE = 2 ** 24;
export const ATT_MAX_VP = 0xffff;

export class AttTable {
  private readonly written = new Map<number, Map<number, number>>();
  readonly pageLimit: number;
  readonly frameLimit: number;

  constructor(
    readonly vaBits = 48,
    readonly paBits = 48,
  ) {
    if (!Number.isInteger(vaBits) || vaBits < 13 || vaBits > 52) throw new RangeError(`ATT: vaBits must be an integer in [13, 52], got ${vaBits}`);
    if (!Number.isInteger(paBits) || paBits < 13 || paBits > 52) throw new RangeError(`ATT: paBits must be an integer in [13, 52], got ${paBits}`);
    this.pageLimit = 2 ** (vaBits - 12);
    this.frameLimit = 2 ** (paBits - 12);
  }

  /** The default frame of `page` in the table of `vp` (never written by software). */
  defaultFrame(page: number, vp = 0): number {
    return (page + ATT_DEFAULT_OFFSET + vp * ATT_VP_STRIDE) % this.frameLimit; // < 2^53: exact
  }

  /** The entry of `page` in the table of `vp`, encoded as frame * 2 + valid. */
  read(page: number, vp = 0): number {
    const e = this.written.get(vp)?.get(page);
    if (e !== undefined) return e;
    return this.defaultFrame(page, vp) * 2 + 1;
  }

  frame(page: number, vp = 0): number {
    return Math.floor(this.read(page, vp) / 2);
  }

  isValid(page: number, vp = 0): boolean {
    return this.read(page, vp) % 2 === 1;
  }

  /** Software update of one entry; throws RangeError naming the bad field (nothing is written then). */
  write(page: number, frame: number, valid: boolean, vp = 0): void {
    if (!Number.isInteger(page) || page < 0 || page >= this.pageLimit) throw new RangeError(`ATT write: page ${page} is not an integer in [0, 2^${this.vaBits - 12})`);
    if (!Number.isInteger(frame) || frame < 0 || frame >= this.frameLimit) throw new RangeError(`ATT write: frame ${frame} is not an integer in [0, 2^${this.paBits - 12})`);
    if (!Number.isInteger(vp) || vp < 0 || vp > ATT_MAX_VP) throw new RangeError(`ATT write: virtual port ${vp} is not an integer in [0, ${ATT_MAX_VP}]`);
    let t = this.written.get(vp);
    if (!t) {
      t = new Map();
      this.written.set(vp, t);
    }
    t.set(page, frame * 2 + (valid ? 1 : 0));
  }

  /** Number of entries written by software (all VPs). */
  get writtenEntries(): number {
    let n = 0;
    for (const t of this.written.values()) n += t.size;
    return n;
  }

  clear(): void {
    this.written.clear();
  }
}
