/**
 * The ATC's tag/data array: `sets` x `ways` entries, structure of typed arrays. An entry holds the
 * full virtual page number (the tag plus the set index, kept whole so the refresh engine compares
 * page ranges directly), the address-space id (the owning virtual port, 16 bits: the same page of
 * two VPs is two different translations), the physical frame number and a valid bit. Entry (set, way) lives at
 * index set * ways + way. In buffer mode the same arrays are one flat table indexed by
 * page - bufferBasePage.
 *
 * Match word: the lookup port compares (valid, asid, page) of all ways of a set at once. Those three
 * fields are also kept packed in one 64-bit word per entry, `match` (two 32-bit halves: the low 32
 * bits of the page, then valid << 24 | page bits 39..32 << 16 | asid), the ways of a set adjacent:
 * a probe of one set reads one 64-byte line instead of one line in each of three arrays (with a
 * 1M-entry array every probe of a random set misses the processor's caches, so this is most of a
 * lookup's time; `npm run bench atc`). Every write goes through set() / invalidate() / reset(),
 * which keep the match word equal to the fields (page < 2^40: vaBits <= 52).
 *
 * Memory: 27 bytes per entry (8 page + 2 asid + 8 frame + 1 valid + 8 match word): 27 MiB for
 * 1,048,576 entries. This is a storage model used by the Atc component; it has no timing of its own
 * (the Atc decides in which cycle each read and write happens; see atc.ts).
 */
export class TagArray {
  readonly entries: number;
  readonly page: Float64Array;
  readonly asid: Uint16Array;
  readonly pfn: Float64Array;
  readonly valid: Uint8Array;
  /** match words: match[2i] = page bits 31..0, match[2i + 1] = valid << 24 | page bits 39..32 << 16 | asid */
  readonly match: Int32Array;

  constructor(
    readonly sets: number,
    readonly ways: number,
  ) {
    this.entries = sets * ways;
    this.page = new Float64Array(this.entries);
    this.asid = new Uint16Array(this.entries);
    this.pfn = new Float64Array(this.entries);
    this.valid = new Uint8Array(this.entries);
    this.match = new Int32Array(2 * this.entries);
  }

  get bytes(): number {
    return this.page.byteLength + this.asid.byteLength + this.pfn.byteLength + this.valid.byteLength + this.match.byteLength;
  }

  /** Way of `set` holding `page` of address space `asid`, or -1 (all ways compared in parallel in hardware). */
  find(set: number, page: number, asid: number): number {
    const w = this.ways;
    const m = this.match;
    const lo = page | 0;
    const hi = 0x1000000 | (((page - (page >>> 0)) / 4294967296) << 16) | asid;
    let k = 2 * set * w;
    for (let i = 0; i < w; i++, k += 2) if (m[k + 1] === hi && m[k] === lo) return i;
    return -1;
  }

  /** Lowest-numbered invalid way of `set`, or -1 when the set is full. */
  firstInvalid(set: number): number {
    const w = this.ways;
    const m = this.match;
    let k = 2 * set * w + 1;
    for (let i = 0; i < w; i++, k += 2) if ((m[k]! & 0x1000000) === 0) return i;
    return -1;
  }

  /** Write entry i (the fill / preload write port). */
  set(i: number, page: number, asid: number, pfn: number, valid: boolean): void {
    this.page[i] = page;
    this.asid[i] = asid;
    this.pfn[i] = pfn;
    this.valid[i] = valid ? 1 : 0;
    this.match[2 * i] = page | 0;
    this.match[2 * i + 1] = valid ? 0x1000000 | (((page - (page >>> 0)) / 4294967296) << 16) | asid : 0;
  }

  /** Clear entry i's valid bit (the refresh port). */
  invalidate(i: number): void {
    this.valid[i] = 0;
    this.match[2 * i + 1] = 0;
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
    this.match.fill(0);
  }
}
