/**
 * Replacement state of the ATC, one record per set, in typed arrays.
 *
 * Both policies see the same two events: touch(set, way) on a hit and on a fill into that way;
 * victim(set) when a fill finds no invalid way (an invalid way, lowest index first, is always used
 * before asking the policy). Invalidation does not change the replacement state.
 */
export interface ReplacementState {
  readonly name: 'lru' | 'plru';
  /** bytes of state */
  readonly bytes: number;
  /** make `way` the most recently used of `set` */
  touch(set: number, way: number): void;
  /** way to evict when every way of `set` is valid */
  victim(set: number): number;
  reset(): void;
}

/**
 * True LRU: an age per entry (0 = most recently used, ways - 1 = least). The ages of a set are
 * always a permutation of 0..ways-1. A touch of a way with age a increments every age below a and
 * sets the way's age to 0; the victim is the way whose age is ways - 1. One byte per entry.
 */
export class TrueLru implements ReplacementState {
  readonly name = 'lru' as const;
  private readonly age: Uint8Array;

  constructor(
    private readonly sets: number,
    private readonly ways: number,
  ) {
    this.age = new Uint8Array(sets * ways);
    this.reset();
  }

  get bytes(): number {
    return this.age.byteLength;
  }

  touch(set: number, way: number): void {
    const w = this.ways;
    const base = set * w;
    const age = this.age;
    const a = age[base + way]!;
    if (a === 0) return;
    for (let i = 0; i < w; i++) {
      const x = age[base + i]!;
      if (x < a) age[base + i] = x + 1;
    }
    age[base + way] = 0;
  }

  victim(set: number): number {
    const w = this.ways;
    const base = set * w;
    const oldest = w - 1;
    for (let i = 0; i < w; i++) if (this.age[base + i] === oldest) return i;
    throw new Error(`ATC LRU: set ${set} has no way of age ${oldest} (corrupt replacement state)`);
  }

  reset(): void {
    const w = this.ways;
    for (let s = 0; s < this.sets; s++) for (let i = 0; i < w; i++) this.age[s * w + i] = i;
  }
}

/**
 * Tree pseudo-LRU for a power-of-two number of ways: ways - 1 bits per set, node n (1-based,
 * heap order: children 2n and 2n + 1) stored in bit n - 1. A node bit of 0 sends the victim search
 * to the left child, 1 to the right. A touch sets every node on the way's path to point away from
 * the way (to the other child). Leaves are nodes ways .. 2 ways - 1 = way + ways.
 */
export class TreePlru implements ReplacementState {
  readonly name = 'plru' as const;
  private readonly bits: Uint32Array;

  constructor(
    sets: number,
    private readonly ways: number,
  ) {
    if ((ways & (ways - 1)) !== 0 || ways < 1 || ways > 32) throw new RangeError(`tree PLRU needs a power-of-two number of ways in [1, 32], got ${ways}`);
    this.bits = new Uint32Array(sets);
  }

  get bytes(): number {
    return this.bits.byteLength;
  }

  touch(set: number, way: number): void {
    let b = this.bits[set]!;
    let n = way + this.ways;
    while (n > 1) {
      const parent = n >>> 1;
      const bit = 1 << (parent - 1);
      // n is the right child (odd) -> point left (0); left child -> point right (1)
      if ((n & 1) === 1) b &= ~bit;
      else b |= bit;
      n = parent;
    }
    this.bits[set] = b >>> 0;
  }

  victim(set: number): number {
    const b = this.bits[set]!;
    let n = 1;
    while (n < this.ways) n = 2 * n + ((b >>> (n - 1)) & 1);
    return n - this.ways;
  }

  reset(): void {
    this.bits.fill(0);
  }
}

export function makeReplacement(policy: 'lru' | 'plru', sets: number, ways: number): ReplacementState {
  return policy === 'lru' ? new TrueLru(sets, ways) : new TreePlru(sets, ways);
}
