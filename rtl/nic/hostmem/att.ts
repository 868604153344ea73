/**
 * The address translation table (ATT) in host memory: one entry per virtual page, each a physical
 * frame number and a valid bit. Pages that software never wrote hold the default mapping
 * frame = (page + 2^18) mod 2^(paBits - 12), valid (so traces over any page range translate
 * without setting anything up). Software writes (`write`) take effect at once: a host-memory read
 * that samples the table afterwards sees the new entry.
 *
 * Storage is sparse (a Map of written pages), since the virtual page space has 2^36 pages.
 */
export const ATT_DEFAULT_OFFSET = 2 ** 18;

export class AttTable {
  private readonly written = new Map<number, number>();
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

  /** The entry of `page` encoded as frame * 2 + valid. */
  read(page: number): number {
    const e = this.written.get(page);
    if (e !== undefined) return e;
    return ((page + ATT_DEFAULT_OFFSET) % this.frameLimit) * 2 + 1;
  }

  frame(page: number): number {
    return Math.floor(this.read(page) / 2);
  }

  isValid(page: number): boolean {
    return this.read(page) % 2 === 1;
  }

  /** Software update of one entry; throws RangeError naming the bad field (nothing is written then). */
  write(page: number, frame: number, valid: boolean): void {
    if (!Number.isInteger(page) || page < 0 || page >= this.pageLimit) throw new RangeError(`ATT write: page ${page} is not an integer in [0, 2^${this.vaBits - 12})`);
    if (!Number.isInteger(frame) || frame < 0 || frame >= this.frameLimit) throw new RangeError(`ATT write: frame ${frame} is not an integer in [0, 2^${this.paBits - 12})`);
    this.written.set(page, frame * 2 + (valid ? 1 : 0));
  }

  /** Number of entries written by software. */
  get writtenEntries(): number {
    return this.written.size;
  }

  clear(): void {
    this.written.clear();
  }
}
