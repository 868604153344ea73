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
 *     included); for a product, Dekker's TwoProduct (Veltkamp splitting) on the two integer
 *     significands (below 2^53, so nothing over- or underflows), whose product is exact exactly
 *     when the scaled product is, as long as that product is not tiny. A sum is never tiny and
 *     inexact at once (a sum below 2^emin is exact), so it never underflows; a product whose
 *     magnitude is below 2^-1021 (tininess and subnormal rounding) leaves through the bit-level
 *     datapath.
 *   - binary32: an f32 product is exact in binary64 (48 significant bits); an f32 sum rounded to
 *     binary64 and then to binary32 (Math.fround) is the correctly rounded f32 sum (53 >= 2 x 24 + 2:
 *     double rounding is innocuous for + and x); inexact when (s - r) + err is not zero, where s is
 *     the binary64 sum, r the binary32 result (s - r is exact by Sterbenz's lemma) and err TwoSum's
 *     error.
 *   - binary16 and bfloat16: operands widen exactly to binary64; an f16 sum (41 bits at most) and
 *     every f16 / bf16 product are exact in binary64. The binary64 value is rounded to binary32 with
 *     Math.fround and the binary32 encoding to the 16-bit format with an integer round-to-nearest-even
 *     on its bits; both double roundings are innocuous (53 >= 2 x 24 + 2, and 24 >= 2 x 11 + 2 for
 *     f16, 24 >= 2 x 8 + 2 for bf16, for sums and products of two operands of that precision).
 *     A result in the f16 subnormal range is rounded once, from the exact binary64 value, to a
 *     multiple of 2^-24 (adding and subtracting 2^52). Inexact when the exact value minus the
 *     result (plus TwoSum's error for a bf16 sum) is not zero.
 * A NaN result (NaN operand, inf - inf, 0 x inf) takes the bit-level datapath, which builds the
 * canonical NaN and the invalid flag; so do a binary64 operation with an infinite operand and the
 * rare edge cases named in each function.
 *
 * Flags are formed without data-dependent branches where the data decides (inexact, underflow,
 * overflow of a narrow result): the error term is written to a binary64 register and its bits are
 * tested with integer operations, (x | -x) >>> 31 being 1 exactly when x is not 0. A branch on
 * whether a random sum is exact mispredicts about half the time (64 against 44 M op/s for f64
 * additions of operands within 7 binades, scratch measurement).
 *
 * Each function reads its operands from the operand registers IW (the caller wrote them), writes
 * out[0] = hi, out[1] = lo, out[2] = flags and returns the flags, or returns -1 without writing
 * anything when the operation must take the bit-level datapath.
 */
import type { FpFormat } from './format.ts';

// Flag bits (../types.ts FLAG_INEXACT 1, FLAG_UNDERFLOW 2, FLAG_OVERFLOW 4) as literals: module
// constants read by a function compiled on its own cost a context load and a hole check each.
/** overflow | inexact */
const OX = 5;
/** underflow | inexact */
const UX = 3;

// Value registers: binary64 D[0..3], their 32-bit halves W[2k] (low) and W[2k + 1] (high) on a
// little-endian host, binary32 S[k] sharing W[k]'s bytes.
const REGS = new ArrayBuffer(32);
const D = new Float64Array(REGS);
const W = new Int32Array(REGS);
const S = new Float32Array(REGS);
D[0] = 1;
if (W[1] !== 0x3ff00000) throw new Error('rtl/sharp/alu/fp/native.ts: the binary64 fast path needs a little-endian host');

/**
 * Operand registers: the encoded words aHi, aLo, bHi, bLo as fpAdd / fpMul take them (narrow
 * formats in the lo words). The caller writes them; every function below reads them and takes no
 * numeric argument: a 32-bit word >= 2^30 passed to a function the engine does not inline is boxed
 * as a heap number (one allocation per word). Read here through the module-private binding R: an
 * exported binding is read through its module cell (two more loads and a hole check per use).
 */
const R = new Int32Array(4);
export const IW = R;

/**
 * POW2[s << 11 | e] = the signed weight of a binary64 significand's last bit for sign s and
 * exponent field e: (-1)^s x 2^(max(e, 1) - 1075); NaN for the all-ones exponent, so that an
 * infinite or NaN operand widens to NaN, which sends the operation to the bit-level datapath.
 */
const POW2 = ((): Float64Array => {
  const t = new Float64Array(4096);
  for (let i = 0; i < 4096; i++) t[i] = (i & 0x7ff) === 0x7ff ? NaN : (i >= 2048 ? -1 : 1) * 2 ** (Math.max(i & 0x7ff, 1) - 1075);
  return t;
})();
/**
 * binary16: H16[s << 5 | e] = the signed weight of the last fraction bit, (-1)^s x 2^(max(e, 1) - 25),
 * and IMPL16[s << 5 | e] the implicit bit (1024 for a normal exponent, 0 for a subnormal); for
 * e = 31 H16 holds the signed infinity.
 */
const H16 = new Float64Array(64);
const IMPL16 = new Int32Array(64);
for (let i = 0; i < 64; i++) {
  const e = i & 31;
  H16[i] = (i >= 32 ? -1 : 1) * (e === 31 ? Infinity : 2 ** (Math.max(e, 1) - 25));
  IMPL16[i] = e === 0 || e === 31 ? 0 : 1024;
}

const TWO52 = 2 ** 52;
/** 2^27 + 1: Veltkamp's splitting constant for binary64 (two halves of 26 bits) */
const SPLIT = 134217729;
/** an f32 product below this magnitude is tiny after rounding (2^-126 minus half an f32 ulp of 2^-127's binade) */
const F32_TINY = 2 ** -126 - 2 ** -151;
// binary16 / bfloat16: the tininess bound 2^emin minus half an ulp of the binade below it (a value
// at or above the bound rounds up to 2^emin at full precision)
const F16_TINY = 2 ** -14 - 2 ** -26;
const BF16_TINY = 2 ** -126 - 2 ** -135;

/** 1 when the binary64 in D[k] is neither +0 nor -0 (its bits without the sign are not all zero). */
function nonzero(k: number): number {
  const x = (W[2 * k + 1]! & 0x7fffffff) | W[2 * k]!;
  return (x | -x) >>> 31;
}

/** 1 when the binary64 in D[k] is negative (sign bit set; never a NaN here). */
function negative(k: number): number {
  return W[2 * k + 1]! >>> 31;
}

/** The binary64 result in D[0] and `flags` into out; returns the flags. */
function put64(flags: number, out: Uint32Array): number {
  out[0] = W[1]!;
  out[1] = W[0]!;
  out[2] = flags;
  return flags;
}

/** binary64 a + b. */
export function addF64(out: Uint32Array): number {
  let hi = R[0]!;
  let se = hi >>> 20; // sign and exponent field (the sign from the table: a branch on it mispredicts half the time)
  const a = (((hi & 0xfffff) + ((se & 0x7ff) !== 0 ? 0x100000 : 0)) * 4294967296 + (R[1]! >>> 0)) * POW2[se]!;
  hi = R[2]!;
  se = hi >>> 20;
  const b = (((hi & 0xfffff) + ((se & 0x7ff) !== 0 ? 0x100000 : 0)) * 4294967296 + (R[3]! >>> 0)) * POW2[se]!;
  const s = a + b;
  D[0] = s;
  let flags: number;
  if (s - s !== 0) {
    if (s !== s) return -1;
    flags = OX; // finite operands: the sum overflowed
  } else {
    const bb = s - a;
    D[1] = a - (s - bb) + (b - bb); // TwoSum: the exact error of s
    flags = nonzero(1);
  }
  return put64(flags, out);
}

/** binary64 a * b. */
export function mulF64(out: Uint32Array): number {
  let hi = R[0]!;
  let se = hi >>> 20;
  const ia = ((hi & 0xfffff) + ((se & 0x7ff) !== 0 ? 0x100000 : 0)) * 4294967296 + (R[1]! >>> 0); // integer significand
  const a = ia * POW2[se]!;
  hi = R[2]!;
  se = hi >>> 20;
  const ib = ((hi & 0xfffff) + ((se & 0x7ff) !== 0 ? 0x100000 : 0)) * 4294967296 + (R[3]! >>> 0);
  const b = ib * POW2[se]!;
  const p = a * b;
  D[0] = p;
  const hp = W[1]! & 0x7fffffff;
  const ep = hp >>> 20;
  let x = (hp & 0xfffff) | W[0]!; // p's fraction bits
  // NaN, or tiny and not zero (below 2^-1021: subnormal rounding and tininess): the datapath
  if (((ep === 0x7ff ? x : 0) | (ep < 2 ? hp | W[0]! : 0)) !== 0) return -1;
  // Dekker's TwoProduct of the integer significands: exact error of their rounded product
  let c = SPLIT * ia;
  const ah = c - (c - ia);
  const al = ia - ah;
  c = SPLIT * ib;
  const bh = c - (c - ib);
  const bl = ib - bh;
  D[1] = ah * bh - ia * ib + ah * bl + al * bh + al * bl;
  // flags without a branch on the class of p (random operands overflow or underflow half the time):
  // infinite (finite operands): overflow; zero with two nonzero operands: underflow; else the error
  const inf = (ep + 1) >>> 11; // 1 when ep = 0x7ff
  const zero = ((ep + 0x7ff) >>> 11) ^ 1; // 1 when ep = 0
  x = (R[0]! & 0x7fffffff) | R[1]!;
  let y = (R[2]! & 0x7fffffff) | R[3]!;
  y = ((x | -x) & (y | -y)) >>> 31; // both operands nonzero
  return put64(inf * OX + zero * y * UX + (1 - inf - zero) * nonzero(1), out);
}

/** binary32 result D[0] (finite), out of range (infinite) results are the caller's. */
function packF32(flags: number, out: Uint32Array): number {
  S[0] = D[0]!;
  out[0] = 0;
  out[1] = W[0]!;
  out[2] = flags;
  return flags;
}

/** binary32 a + b. */
export function addF32(out: Uint32Array): number {
  W[0] = R[1]!;
  W[1] = R[3]!;
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  const r = Math.fround(s);
  D[0] = r;
  if (r - r !== 0) {
    if (r !== r) return -1;
    return packF32(a - a === 0 && b - b === 0 ? OX : 0, out); // overflow, or an infinite operand
  }
  const bb = s - a;
  D[1] = s - r + (a - (s - bb) + (b - bb));
  return packF32(nonzero(1), out);
}

/** binary32 a * b. */
export function mulF32(out: Uint32Array): number {
  W[0] = R[1]!;
  W[1] = R[3]!;
  const a = S[0]!;
  const b = S[1]!;
  const p = a * b; // exact
  const r = Math.fround(p);
  D[0] = r;
  if (r - r !== 0) {
    if (r !== r) return -1;
    return packF32(a - a === 0 && b - b === 0 ? OX : 0, out);
  }
  D[1] = p - r;
  const ix = nonzero(1);
  D[2] = Math.abs(p) - F32_TINY;
  return packF32(ix | ((ix & negative(2)) << 1), out);
}

/** binary16 operand in the low 16 bits of x, widened to binary64 (exact; infinity, NaN preserved). */
function widenF16(x: number): number {
  const se = (x >>> 10) & 63;
  if ((se & 31) === 31) return (x & 0x3ff) !== 0 ? NaN : H16[se]!;
  return ((x & 0x3ff) + IMPL16[se]!) * H16[se]!;
}

/** binary16 a + b (the sum is exact in binary64). */
export function addF16(out: Uint32Array): number {
  return narrowF16(widenF16(R[1]!) + widenF16(R[3]!), out);
}
/** binary16 a * b (exact in binary64). */
export function mulF16(out: Uint32Array): number {
  return narrowF16(widenF16(R[1]!) * widenF16(R[3]!), out);
}

/** x infinite (an infinite operand: no flags) or NaN (-1) in a 16-bit format whose +infinity is `inf`. */
function infinite16(x: number, inf: number, out: Uint32Array): number {
  if (x !== x) return -1;
  out[0] = 0;
  out[1] = x < 0 ? inf | 0x8000 : inf;
  out[2] = 0;
  return 0;
}

/**
 * Rounds the exact value x (an f16 sum or product) to binary16, round to nearest even; -1 for a
 * NaN. An infinite x comes from an infinite operand (finite f16 operands never overflow binary64).
 */
function narrowF16(x: number, out: Uint32Array): number {
  if (x - x !== 0) return infinite16(x, 0x7c00, out);
  const r32 = Math.fround(x);
  S[0] = r32;
  const u = W[0]!;
  const sign = (u >>> 16) & 0x8000;
  const m = u & 0x7fffffff;
  let bits: number;
  let flags: number;
  if (m < 113 << 23) {
    // below 2^-14: a multiple of 2^-24, rounded once from x (exact: x * 2^24 < 2^10)
    const q = Math.abs(x) * 16777216;
    const n = q + TWO52 - TWO52;
    bits = sign | n;
    D[1] = q - n;
    const ix = nonzero(1);
    D[2] = Math.abs(x) - F16_TINY;
    flags = ix | ((ix & negative(2)) << 1);
  } else {
    // the binary32 encoding rounded to 10 fraction bits (ties to even) and rebiased; a carry out
    // of the fraction steps the exponent, and an exponent of 31 or more is an overflow
    const v = m < 143 << 23 ? (m + (((15 - 127) << 23) + 0xfff) + ((m >>> 13) & 1)) >>> 13 : 0x7c00;
    const o = (0x7bff - v) >>> 31; // 1 when v >= 0x7c00
    bits = sign | (o !== 0 ? 0x7c00 : v);
    D[1] = x - r32;
    const t = (m & 0x1fff) | ((W[3]! & 0x7fffffff) | W[2]!);
    flags = ((t | -t) >>> 31) | (o * OX);
  }
  out[0] = 0;
  out[1] = bits;
  out[2] = flags;
  return flags;
}

/** bfloat16 a + b: binary64 sum, TwoSum's error in D[3]. */
export function addBf16(out: Uint32Array): number {
  W[0] = R[1]! << 16; // a bfloat16 is the top half of a binary32
  W[1] = R[3]! << 16;
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  const bb = s - a;
  return narrowBf16(s, a - (s - bb) + (b - bb), out);
}
/** bfloat16 a * b (exact in binary64). */
export function mulBf16(out: Uint32Array): number {
  W[0] = R[1]! << 16;
  W[1] = R[3]! << 16;
  return narrowBf16(S[0]! * S[1]!, 0, out);
}

/**
 * Rounds x + err (x the binary64 sum or product, err the exact rest: TwoSum's error, or 0) to
 * bfloat16, round to nearest even; -1 for a NaN. An infinite x comes from an infinite operand.
 */
function narrowBf16(x: number, err: number, out: Uint32Array): number {
  if (x - x !== 0) return infinite16(x, 0x7f80, out);
  S[0] = Math.fround(x);
  const u = W[0]! >>> 0;
  // ties to even on bit 16 of the binary32 encoding (no carry past bit 31: x is finite)
  const bits = (u + 0x7fff + ((u >>> 16) & 1)) >>> 16;
  const o = (0x7f7f - (bits & 0x7fff)) >>> 31; // 1 when the result is infinite: overflow
  W[1] = bits << 16;
  D[1] = x - S[1]! + err;
  const ix = nonzero(1);
  D[2] = Math.abs(x) - BF16_TINY;
  const flags = ix | ((ix & negative(2)) << 1) | (o * OX);
  out[0] = 0;
  out[1] = bits;
  out[2] = flags;
  return flags;
}

/** Copies an operand register block [aHi, aLo, bHi, bLo] into IW. */
export function latch(ops: Int32Array): void {
  R[0] = ops[0]!;
  R[1] = ops[1]!;
  R[2] = ops[2]!;
  R[3] = ops[3]!;
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
