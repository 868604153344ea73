/**
 * The ATC's tag/data array: `sets` x `ways` entries, structure of typed arrays. An entry holds the
 * full virtual page number (the tag plus the set index, kept whole so the refresh engine compares
 * page ranges directly), the address-space id (the owning virtual port, 16 bits: the same page of
 * two VPs is two different translations), the physical frame number and a valid bit. Entry (set, way) lives at
 * index set * ways + way. In buffer mode the same arrays are one flat table indexed by
 * page - bufferBasePage.
 *
 * Memory: 19 bytes per entry (8 page + 2 asid + 8 frame + 1 valid): 19 MiB for 1,048,576 entries.
 * This is a storage model used by the Atc component; it has no timing of its own (the Atc decides
 * in which cycle each read and write happens; see atc.ts).
 */
export class TagArray {
  readonly entries: number;
  readonly page: Float64Array;
  readonly asid: Uint16Array;
  readonly pfn: Float64Array;
  readonly valid: Uint8Array;

  constructor(
    readonly sets: number,
    readonly ways: number,
  ) {
    this.entries = sets * ways;
    this.page = new Float64Array(this.entries);
    this.asid = new Uint16Array(this.entries);
    this.pfn = new Float64Array(this.entries);
    this.valid = new Uint8Array(this.entries);
  }

  get bytes(): number {
    return this.page.byteLength + this.asid.byteLength + this.pfn.byteLength + this.valid.byteLength;
  }

  /** Way of `set` holding `page` of address space `asid`, or -1 (all ways compared in parallel in hardware). */
  find(set: number, page: number, asid: number): number {
    const w = this.ways;
    const base = set * w;
    const pg = this.page;
    const as = this.asid;
    const v = this.valid;
    for (let i = 0; i < w; i++) if (v[base + i] !== 0 && pg[base + i] === page && as[base + i] === asid) return i;
    return -1;
  }

  /** Lowest-numbered invalid way of `set`, or -1 when the set is full. */
  firstInvalid(set: number): number {
    const w = this.ways;
    const base = set * w;
    for (let i = 0; i < w; i++) if (this.valid[base + i] === 0) return i;
    return -1;
  }

  /** Number of valid entries (diagnostics; O(entries)). */
  occupancy(): number {
    let n = 0;
    for (let i = 0; i < this.entries; i++) n += this.valid[i]!;
    return n;
  }

  reset(): void {
    this.page.fill(0);
    this.asid.fill(0);
    this.pfn.fill(0);
    this.valid.fill(0);
  }
}
