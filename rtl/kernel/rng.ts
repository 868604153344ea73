/**
 * Seeded pseudo-random generator for models and stimulus: xoshiro128** with
 * splitmix32 seeding. 32-bit state words, integer arithmetic only, so a seed
 * gives the same stream on every machine. Never use Math.random or Date in a
 * model; take an Rng (or fork one) instead.
 */

function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** FNV-1a over a string, used to turn fork labels into seed material. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  /** @param seed any integer (taken modulo 2^32) or a bigint (both 32-bit halves are mixed in). */
  constructor(seed: number | bigint = 1) {
    this.reseed(seed);
  }

  reseed(seed: number | bigint): void {
    let lo: number;
    let hi: number;
    if (typeof seed === 'bigint') {
      lo = Number(BigInt.asUintN(32, seed));
      hi = Number(BigInt.asUintN(32, seed >> 32n));
    } else {
      if (!Number.isFinite(seed)) throw new RangeError(`Rng seed must be a finite number, got ${seed}`);
      const s = Math.trunc(seed);
      lo = s >>> 0;
      hi = Math.floor(s / 4294967296) >>> 0;
    }
    const st = { s: (lo ^ Math.imul(hi, 0x27d4eb2d)) | 0 };
    this.a = splitmix32(st);
    this.b = splitmix32(st);
    this.c = splitmix32(st);
    this.d = splitmix32(st) | 1; // never the all-zero state
  }

  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** Uniform float in [0, 1) with 32 random bits. */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Uniform integer in [0, n) without modulo bias; n in [1, 2^32]. */
  int(n: number): number {
    if (!(n >= 1 && n <= 4294967296) || !Number.isInteger(n)) throw new RangeError(`Rng.int: bound must be an integer in [1, 2^32], got ${n}`);
    if (n === 1) return 0;
    const limit = 4294967296 - (4294967296 % n);
    for (;;) {
      const x = this.u32();
      if (x < limit) return x % n;
    }
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  range(lo: number, hi: number): number {
    if (hi < lo) throw new RangeError(`Rng.range: empty range [${lo}, ${hi}]`);
    return lo + this.int(hi - lo + 1);
  }

  bool(pTrue = 0.5): boolean {
    return this.float() < pTrue;
  }

  /** Uniform unsigned 64-bit bigint. */
  u64(): bigint {
    const hi = BigInt(this.u32());
    return (hi << 32n) | BigInt(this.u32());
  }

  /** Uniform bigint with the given bit width. */
  bits(width: number): bigint {
    let v = 0n;
    let got = 0;
    while (got < width) {
      v = (v << 32n) | BigInt(this.u32());
      got += 32;
    }
    return BigInt.asUintN(width, v);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('Rng.pick: empty list');
    return items[this.int(items.length)] as T;
  }

  /** Fisher-Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /**
   * An independent stream derived from this generator's current state and a
   * label. Forking does not advance this generator, so adding a fork never
   * changes the numbers an existing consumer draws.
   */
  fork(label: string | number): Rng {
    const tag = typeof label === 'number' ? label >>> 0 : hashString(label);
    const child = new Rng(0);
    const st = { s: (this.a ^ rotl(this.b, 5) ^ rotl(this.c, 13) ^ rotl(this.d, 21) ^ tag) | 0 };
    splitmix32(st);
    child.a = splitmix32(st) ^ tag;
    child.b = splitmix32(st);
    child.c = splitmix32(st);
    child.d = splitmix32(st) | 1;
    return child;
  }

  /** Snapshot of the state (for replay). */
  state(): [number, number, number, number] {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  /** An exact copy: draws the same numbers as this generator from here on (a bookmark in the stream). */
  clone(): Rng {
    const c = new Rng(0);
    c.a = this.a;
    c.b = this.b;
    c.c = this.c;
    c.d = this.d;
    return c;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
