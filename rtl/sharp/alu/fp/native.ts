/**
 * Round-to-nearest-even fast path of the adder and multiplier (no ftz): the host's IEEE 754
 * binary64 unit computes the rounded value, and an exact error term gives the flags.
 *
 * Why this is bit-exact (every case is also replayed against Berkeley TestFloat by
 * testbench/sharp/alu/testfloat.test.ts, and against the bit-level datapath on random operands by
 * testbench/sharp/alu/fp-native.test.ts):
 *   - binary64 add / multiply: JavaScript's + and * are IEEE 754 binary64 operations rounded to
 *     nearest even, the same rounding the bit-level datapath implements. Inexact comes from the
 *     exact error of the operation: Knuth's TwoSum for a sum (exact for every finite sum, subnormals
 *     included), Dekker's TwoProduct on the significands scaled to [1, 2) for a product. A sum is
 *     never tiny and inexact at once (a sum below 2^emin is exact), so it never underflows; a
 *     product whose magnitude is below 2^-1021 (tininess and subnormal rounding) and operands that
 *     are subnormal leave through the bit-level datapath.
 *   - binary32: an f32 product is exact in binary64 (48 significant bits); an f32 sum rounded to
 *     binary64 and then to binary32 (Math.fround) is the correctly rounded f32 sum (53 >= 2 x 24 + 2:
 *     double rounding is innocuous for + and x); TwoSum's error term keeps the inexact flag exact.
 *   - binary16 and bfloat16: operands widen exactly to binary64; an f16 sum (41 bits at most) and
 *     every f16 / bf16 product are exact in binary64; a bf16 sum is rounded twice (53 >= 2 x 8 + 2)
 *     with TwoSum's error term as extra sticky bit. The one rounding to the narrow format is done
 *     here on the binary64 encoding (roundNarrow).
 * A NaN result (NaN operand, inf - inf, 0 x inf) takes the bit-level datapath, which builds the
 * canonical NaN and the invalid flag.
 *
 * Each function reads its operands from the operand registers IW (the caller wrote them), writes out[0] = hi, out[1] = lo, out[2] = flags and returns the flags, or
 * returns -1 without writing anything when the operation must take the bit-level datapath.
 */
import * as T from '../types.ts';
import type { FpFormat } from './format.ts';

const FLAG_INEXACT = T.FLAG_INEXACT;
const FLAG_UNDERFLOW = T.FLAG_UNDERFLOW;
const FLAG_OVERFLOW = T.FLAG_OVERFLOW;

// Value registers: D[0] = a, D[1] = b, D[2] = result (binary32 operands in S[0], S[1], result S[4]).
const REGS = new ArrayBuffer(24);
const D = new Float64Array(REGS);
const W = new Int32Array(REGS);
// binary32 view of the same registers (S[0] = a, S[1] = b share D[0]'s bytes)
const S = new Float32Array(REGS);
/** index of the high word of D[0] inside W (0 on a big-endian host, 1 on a little-endian one) */
const HI = ((): number => {
  D[0] = 1;
  return W[1] === 0x3ff00000 ? 1 : 0;
})();
const LO = 1 - HI;
/**
 * POW2[s << 11 | e] = the signed weight of a binary64 significand's last bit for sign s and
 * exponent field e: (-1)^s x 2^(max(e, 1) - 1075)
 */
const POW2 = ((): Float64Array => {
  const t = new Float64Array(4096);
  for (let i = 0; i < 4096; i++) t[i] = (i >= 2048 ? -1 : 1) * 2 ** (Math.max(i & 0x7ff, 1) - 1075);
  return t;
})();

/** binary16 encoding -> its value (every one of the 65,536 encodings; NaNs stay NaN). */
const F16_VALUE = ((): Float64Array => {
  const t = new Float64Array(65536);
  for (let x = 0; x < 65536; x++) {
    const s = x >>> 15 === 0 ? 1 : -1;
    const e = (x >>> 10) & 0x1f;
    const f = x & 0x3ff;
    if (e === 0x1f) t[x] = f === 0 ? s * Infinity : NaN;
    else if (e === 0) t[x] = s * f * 2 ** -24;
    else t[x] = s * (1024 + f) * 2 ** (e - 25);
  }
  return t;
})();

const TWO52 = 2 ** 52;
const F64_PRODUCT_SAFE = 2 ** -1021;
/** an f32 product below this magnitude is tiny after rounding (2^-126 minus half an f32 ulp of 2^-127's binade) */
const F32_TINY = 2 ** -126 - 2 ** -151;
// binary16 / bfloat16: one over the subnormal quantum, and the tininess bound 2^emin minus half an
// ulp of the binade below it (a value at or above the bound rounds up to 2^emin at full precision)
const F16_Q = 2 ** 24;
const F16_TINY = 2 ** -14 - 2 ** -26;
const BF16_Q = 2 ** 133;
const BF16_TINY = 2 ** -126 - 2 ** -135;

/**
 * Operand registers: the encoded words aHi, aLo, bHi, bLo as fpAdd / fpMul take them (narrow
 * formats in the lo words). The caller writes them; every function below reads them and takes no
 * numeric argument: a 32-bit word >= 2^30 passed to a function the engine does not inline is boxed
 * as a heap number (one allocation per word).
 */
export const IW = new Int32Array(4);

/**
 * binary64 operands from IW into D[0], D[1]. The value is built arithmetically (significand times a
 * signed power of two from POW2) rather than by writing the words and reading a Float64Array: a
 * 64-bit load of two just-written 32-bit halves stalls the processor's store forwarding. An all-ones
 * exponent (infinity or NaN) becomes NaN, which sends the operation to the bit-level datapath.
 */
function loadF64(): void {
  let hi = IW[0]!;
  let se = hi >>> 20; // sign and exponent field (the sign from the table: a branch on it mispredicts half the time)
  let e = se & 0x7ff;
  D[0] = e === 0x7ff ? NaN : (((hi & 0xfffff) + (e !== 0 ? 0x100000 : 0)) * 4294967296 + (IW[1]! >>> 0)) * POW2[se]!;
  hi = IW[2]!;
  se = hi >>> 20;
  e = se & 0x7ff;
  D[1] = e === 0x7ff ? NaN : (((hi & 0xfffff) + (e !== 0 ? 0x100000 : 0)) * 4294967296 + (IW[3]! >>> 0)) * POW2[se]!;
}

/** bfloat16 operands from IW into S[0], S[1] (a bfloat16 is the top half of a binary32). */
function loadBf16(): void {
  W[0] = IW[1]! << 16;
  W[1] = IW[3]! << 16;
}

/** binary64 a + b. */
export function addF64(out: Uint32Array): number {
  loadF64();
  const a = D[0]!;
  const b = D[1]!;
  const s = a + b;
  let flags: number;
  if (s - s !== 0) {
    if (s !== s) return -1;
    flags = a - a === 0 && b - b === 0 ? FLAG_OVERFLOW | FLAG_INEXACT : 0;
  } else {
    const bb = s - a;
    flags = a - (s - bb) + (b - bb) !== 0 ? FLAG_INEXACT : 0;
  }
  D[2] = s;
  out[0] = W[4 + HI]!;
  out[1] = W[4 + LO]!;
  out[2] = flags;
  return flags;
}

/** binary64 a * b. */
export function mulF64(out: Uint32Array): number {
  loadF64();
  const a = D[0]!;
  const b = D[1]!;
  const p = a * b;
  let flags = 0;
  if (p - p !== 0) {
    if (p !== p) return -1;
    flags = a - a === 0 && b - b === 0 ? FLAG_OVERFLOW | FLAG_INEXACT : 0;
  } else if (a !== 0 && b !== 0) {
    if ((p < 0 ? -p : p) < F64_PRODUCT_SAFE) {
      if (p !== 0) return -1;
      flags = FLAG_UNDERFLOW | FLAG_INEXACT;
    } else {
      // exact iff the 53-bit significands' product (105 bits, or 106 with a carry) ends in at
      // least 52 (53) zero bits; a subnormal operand takes the bit-level path
      const ha = IW[0]!;
      const hb = IW[2]!;
      const ea = (ha >>> 20) & 0x7ff;
      const eb = (hb >>> 20) & 0x7ff;
      if (ea === 0 || eb === 0) return -1;
      // at least 52 zeros between them: one of the two ends in 26 zeros (the common case, both
      // low words with a one in their 26 lowest bits, is inexact without counting)
      const la = IW[1]!;
      const lb = IW[3]!;
      if ((la & 0x3ffffff) !== 0 && (lb & 0x3ffffff) !== 0) flags = FLAG_INEXACT;
      else {
        D[2] = p;
        const carry = ((W[4 + HI]! >>> 20) & 0x7ff) - (ea + eb - 1023);
        if (trailingZeros(ha, la) + trailingZeros(hb, lb) < 52 + carry) flags = FLAG_INEXACT;
      }
    }
  }
  D[2] = p;
  out[0] = W[4 + HI]!;
  out[1] = W[4 + LO]!;
  out[2] = flags;
  return flags;
}

/** Trailing zero bits of the 53-bit significand of a normal binary64 (high word hi, low word lo). */
function trailingZeros(hi: number, lo: number): number {
  if (lo !== 0) return 31 - Math.clz32(lo & ((0 - lo) | 0));
  const h = (hi & 0xfffff) | 0x100000;
  return 63 - Math.clz32(h & ((0 - h) | 0));
}

/** binary32 result r (finite or infinite) into out with the given flags. */
function packF32(r: number, flags: number, out: Uint32Array): number {
  S[4] = r;
  out[0] = 0;
  out[1] = W[4]!;
  out[2] = flags;
  return flags;
}

/** binary32 a + b. */
export function addF32(out: Uint32Array): number {
  W[0] = IW[1]!;
  W[1] = IW[3]!;
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  if (s - s !== 0) return s !== s ? -1 : packF32(s, 0, out); // an infinite operand
  const r = Math.fround(s);
  const bb = s - a;
  let flags = r !== s || a - (s - bb) + (b - bb) !== 0 ? FLAG_INEXACT : 0;
  if (r - r !== 0) flags = FLAG_OVERFLOW | FLAG_INEXACT;
  return packF32(r, flags, out);
}

/** binary32 a * b. */
export function mulF32(out: Uint32Array): number {
  W[0] = IW[1]!;
  W[1] = IW[3]!;
  const p = S[0]! * S[1]!; // exact
  if (p - p !== 0) return p !== p ? -1 : packF32(p, 0, out);
  const r = Math.fround(p);
  let flags = 0;
  if (r !== p) {
    flags = FLAG_INEXACT;
    if (r - r !== 0) flags = FLAG_OVERFLOW | FLAG_INEXACT;
    else if ((p < 0 ? -p : p) < F32_TINY) flags = FLAG_UNDERFLOW | FLAG_INEXACT;
  }
  return packF32(r, flags, out);
}

/** binary16 a + b (the sum is exact in binary64). */
export function addF16(out: Uint32Array): number {
  D[2] = F16_VALUE[IW[1]! & 0xffff]! + F16_VALUE[IW[3]! & 0xffff]!;
  return narrow16(0, 5, 10, F16_Q, F16_TINY, out);
}
/** binary16 a * b (exact in binary64). */
export function mulF16(out: Uint32Array): number {
  D[2] = F16_VALUE[IW[1]! & 0xffff]! * F16_VALUE[IW[3]! & 0xffff]!;
  return narrow16(0, 5, 10, F16_Q, F16_TINY, out);
}
/** bfloat16 a + b: binary64 sum, its TwoSum error as sticky. */
export function addBf16(out: Uint32Array): number {
  loadBf16();
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  D[2] = s;
  if (s - s !== 0) return narrow16(0, 8, 7, BF16_Q, BF16_TINY, out);
  const bb = s - a;
  return narrow16(a - (s - bb) + (b - bb) !== 0 ? 1 : 0, 8, 7, BF16_Q, BF16_TINY, out);
}
/** bfloat16 a * b (exact in binary64). */
export function mulBf16(out: Uint32Array): number {
  loadBf16();
  D[2] = S[0]! * S[1]!;
  return narrow16(0, 8, 7, BF16_Q, BF16_TINY, out);
}

/**
 * Rounds binary64 x = D[2] (plus a sticky bit below all of its bits) to nearest even in a 16-bit format
 * with E exponent and F (<= 20) fraction bits; returns -1 for a NaN. qScale = 2^(bias - 1 + F), one
 * over the subnormal quantum; tiny = the magnitude below which a result is tiny after rounding.
 */
function narrow16(sticky: number, E: number, F: number, qScale: number, tiny: number, out: Uint32Array): number {
  const x = D[2]!;
  if (x !== x) return -1;
  const hi = W[4 + HI]!;
  const lo = W[4 + LO]!;
  const sign = (hi >>> 31) << (E + F);
  const eAll = (1 << E) - 1;
  const bias = eAll >>> 1;
  const e = ((hi >>> 20) & 0x7ff) - 1023; // unbiased exponent of x
  let bits: number;
  let flags = 0;
  if (e === 1024) {
    bits = eAll << F; // infinity: an infinite operand
  } else if (e >= 1 - bias) {
    const f = hi & 0xfffff;
    const cut = 20 - F;
    const rest = f & ((1 << cut) - 1);
    const half = 1 << (cut - 1);
    bits = ((e + bias) << F) | (f >>> cut);
    if ((rest | lo | sticky) !== 0) {
      flags = FLAG_INEXACT;
      if (rest > half || (rest === half && ((lo | sticky) !== 0 || (bits & 1) !== 0))) bits++;
    }
    if (e + bias >= eAll || bits >>> F >= eAll) {
      bits = eAll << F;
      flags = FLAG_OVERFLOW | FLAG_INEXACT;
    }
  } else {
    // below the normal range: round to a multiple of the subnormal quantum 2^(1 - bias - F)
    const ax = x < 0 ? -x : x;
    const q = ax * qScale; // exact, below 2^(F + 1)
    bits = q + TWO52 - TWO52;
    if (bits !== q || sticky !== 0) {
      // tiny after rounding unless the value rounds up to 2^emin at full precision
      flags = ax < tiny ? FLAG_INEXACT | FLAG_UNDERFLOW : FLAG_INEXACT;
    }
  }
  out[0] = 0;
  out[1] = sign | bits;
  out[2] = flags;
  return flags;
}

/** Copies an operand register block [aHi, aLo, bHi, bLo] into IW. */
export function latch(ops: Int32Array): void {
  IW[0] = ops[0]!;
  IW[1] = ops[1]!;
  IW[2] = ops[2]!;
  IW[3] = ops[3]!;
}

/** a + b in `fmt` from IW, round to nearest even, no ftz; -1: take the bit-level datapath. */
export function addRne(fmt: FpFormat, out: Uint32Array): number {
  const w = fmt.W;
  return w === 64 ? addF64(out) : w === 32 ? addF32(out) : fmt.E === 5 ? addF16(out) : addBf16(out);
}

/** a * b in `fmt` from IW, round to nearest even, no ftz; -1: take the bit-level datapath. */
export function mulRne(fmt: FpFormat, out: Uint32Array): number {
  const w = fmt.W;
  return w === 64 ? mulF64(out) : w === 32 ? mulF32(out) : fmt.E === 5 ? mulF16(out) : mulBf16(out);
}
