/**
 * The AMO unit's atomic cache (seed 004: "hardware atomics are cached on the Gemini NIC,
 * non-coherent with the system bus"): `lines` 64-bit words in `lines / ways` sets of `ways` ways,
 * with a replacement policy (true LRU by age counters, or FIFO by insertion order). Arrays only;
 * the AMO unit (unit.ts) reads and writes them in its cycle, in program order. Not coherent with
 * the host: a host store to a cached word is not seen here, and a dirty word reaches host memory
 * only when it is written back (eviction, write-through, or `writeBackAll`).
 */
export type AmoReplacement = 'lru' | 'fifo';

export class AtomicCache {
  readonly sets: number;
  readonly tag: Float64Array;
  readonly valid: Uint8Array;
  readonly dirty: Uint8Array;
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  /** LRU: cycle-independent use stamp; FIFO: insertion stamp */
  private readonly stamp: Float64Array;
  private clock = 0;

  constructor(
    readonly lines: number,
    readonly ways: number,
    readonly replacement: AmoReplacement,
  ) {
    this.sets = lines / ways;
    this.tag = new Float64Array(lines);
    this.valid = new Uint8Array(lines);
    this.dirty = new Uint8Array(lines);
    this.hi = new Uint32Array(lines);
    this.lo = new Uint32Array(lines);
    this.stamp = new Float64Array(lines);
  }

  setOf(word: number): number {
    return word % this.sets;
  }

  /** Line index holding `word` (a word address, byte address / 8), or -1. */
  find(word: number): number {
    const base = this.setOf(word) * this.ways;
    for (let w = 0; w < this.ways; w++) {
      const i = base + w;
      if (this.valid[i] !== 0 && this.tag[i] === word) return i;
    }
    return -1;
  }

  /** The line a fill of `word` goes to: the first invalid way, else the policy's victim. */
  victim(word: number): number {
    const base = this.setOf(word) * this.ways;
    let best = base;
    for (let w = 0; w < this.ways; w++) {
      const i = base + w;
      if (this.valid[i] === 0) return i;
      if (this.stamp[i]! < this.stamp[best]!) best = i;
    }
    return best;
  }

  /** A hit: LRU refreshes the line's stamp, FIFO leaves it. */
  touch(i: number): void {
    if (this.replacement === 'lru') this.stamp[i] = ++this.clock;
  }

  install(i: number, word: number, hi: number, lo: number): void {
    this.tag[i] = word;
    this.valid[i] = 1;
    this.dirty[i] = 0;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.stamp[i] = ++this.clock;
  }

  reset(): void {
    this.valid.fill(0);
    this.dirty.fill(0);
    this.stamp.fill(0);
    this.clock = 0;
  }

  get bytes(): number {
    return this.lines * (8 + 1 + 8 + 8); // data, valid/dirty, tag, stamp
  }
}
