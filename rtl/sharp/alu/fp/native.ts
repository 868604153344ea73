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
 * overflow of a product or of a narrow result): a comparison turned into a number (`+(x !== 0)`)
 * compiles to a flag-setting instruction, not a jump. A branch on whether a random sum is exact
 * mispredicts about half the time (64 against 44 M op/s for f64 additions of operands within 7
 * binades, scratch measurement); so does a branch on a random binary64 product's class (half of
 * all products of random encodings over- or underflow).
 *
 * One function per format and operation, each taking the encoded words as arguments (binary64:
 * hi and lo; narrower formats: the lo word only). They are small enough for the JavaScript
 * engine to inline into the per-format entry points of add.ts and mul.ts (fpAddF64 and so on) and
 * those into the caller's loop: that keeps every call site monomorphic (one format's type
 * feedback each) and the 32-bit words unboxed. Each writes out[0] = hi, out[1] = lo,
 * out[2] = flags and returns the flags, or returns -1 without writing anything when the operation
 * must take the bit-level datapath.
 */

// Flag bits (../types.ts FLAG_INEXACT 1, FLAG_UNDERFLOW 2, FLAG_OVERFLOW 4) as literals: module
// constants read by a function compiled on its own cost a context load and a hole check each.
/** overflow | inexact */
const OX = 5;

// Value registers: binary64 D[0..3], their 32-bit halves W[2k] (low) and W[2k + 1] (high) on a
// little-endian host, binary32 S[k] sharing W[k]'s bytes. Views of an explicit ArrayBuffer: the
// engine keeps their storage outside its heap and folds the address into the code (a small typed
// array of its own, `new Int32Array(4)`, lives on the heap and is reloaded at every access).
const REGS = new ArrayBuffer(32);
const D = new Float64Array(REGS);
const W = new Int32Array(REGS);
const S = new Float32Array(REGS);
D[0] = 1;
if (W[1] !== 0x3ff00000) throw new Error('rtl/sharp/alu/fp/native.ts: the binary64 fast path needs a little-endian host');

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
/** a binary64 product below this magnitude (and not zero) takes the datapath: subnormal rounding and tininess */
const F64_TINY = 2 ** -1021;
/** an f32 product below this magnitude is tiny after rounding (2^-126 minus half an f32 ulp of 2^-127's binade) */
const F32_TINY = 2 ** -126 - 2 ** -151;
// binary16 / bfloat16: the tininess bound 2^emin minus half an ulp of the binade below it (a value
// at or above the bound rounds up to 2^emin at full precision)
const F16_TINY = 2 ** -14 - 2 ** -26;
const BF16_TINY = 2 ** -126 - 2 ** -135;

/**
 * The binary64 value of the encoding (hi, lo) with the exponent field e (hi >>> 20 with the sign:
 * the table gives the signed weight, a branch on the sign mispredicts half the time): the integer
 * significand (implicit bit set when the exponent field is not 0) times POW2[e].
 */
const value64 = (hi: number, lo: number, e: number): number => {
  return significand64(hi, lo) * POW2[e]!;
};

/** The integer significand of a binary64 encoding (hi, lo): fraction plus the implicit bit 2^52 unless the exponent field is 0. */
const significand64 = (hi: number, lo: number): number => {
  return ((hi & 0xfffff) | ((((hi >>> 20) & 0x7ff) + 0x7ff) & 0x800) << 9) * 4294967296 + (lo >>> 0);
};

/** The binary64 x into out with `flags`; returns the flags. */
const put64 = (x: number, flags: number, out: Uint32Array): number => {
  D[0] = x;
  out[0] = W[1]!;
  out[1] = W[0]!;
  out[2] = flags;
  return flags;
};

/** binary64 a + b. */
export function addF64(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const a = value64(aHi, aLo, aHi >>> 20);
  const b = value64(bHi, bLo, bHi >>> 20);
  const s = a + b;
  if (s - s !== 0) return s !== s ? -1 : put64(s, OX, out); // NaN; or finite operands whose sum overflowed
  const bb = s - a;
  return put64(s, +(a - (s - bb) + (b - bb) !== 0), out); // TwoSum: the exact error of s
}

/** binary64 a * b. */
export function mulF64(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const ia = significand64(aHi, aLo);
  const ib = significand64(bHi, bLo);
  const a = ia * POW2[aHi >>> 20]!;
  const b = ib * POW2[bHi >>> 20]!;
  const p = a * b;
  const m = Math.abs(p);
  // NaN, or tiny and not zero (subnormal rounding and tininess): the datapath
  if ((+(m < F64_TINY) & +(m !== 0)) + +(m !== m) !== 0) return -1;
  // Dekker's TwoProduct of the integer significands: exact error of their rounded product
  let c = SPLIT * ia;
  const ah = c - (c - ia);
  const al = ia - ah;
  c = SPLIT * ib;
  const bh = c - (c - ib);
  const bl = ib - bh;
  const ix = +(ah * bh - ia * ib + ah * bl + al * bh + al * bl !== 0);
  // flags without a branch on the class of p: infinite (finite operands): overflow | inexact;
  // zero with two nonzero operands: underflow | inexact; otherwise inexact from the error
  const inf = +(m === Infinity);
  const zero = +(m === 0);
  return put64(p, inf * OX + ((zero & +(a !== 0) & +(b !== 0)) * 3) + ((inf | zero) ^ 1) * ix, out);
}

/** The binary32 r (finite) into out with `flags`; returns the flags. */
const put32 = (r: number, flags: number, out: Uint32Array): number => {
  S[2] = r;
  out[0] = 0;
  out[1] = W[2]!;
  out[2] = flags;
  return flags;
};

/** binary32 r infinite (overflow of finite a and b, or an infinite operand: no flags) or NaN (-1). */
const infinite32 = (r: number, a: number, b: number, out: Uint32Array): number => {
  if (r !== r) return -1;
  return put32(r, a - a === 0 && b - b === 0 ? OX : 0, out);
};

/** binary32 a + b. */
export function addF32(aLo: number, bLo: number, out: Uint32Array): number {
  W[0] = aLo;
  W[1] = bLo;
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  const r = Math.fround(s);
  if (r - r !== 0) return infinite32(r, a, b, out);
  const bb = s - a;
  // s - r is exact (Sterbenz); TwoSum's error is the rest of the exact sum
  return put32(r, +(s - r + (a - (s - bb) + (b - bb)) !== 0), out);
}

/** binary32 a * b (the binary64 product is exact). */
export function mulF32(aLo: number, bLo: number, out: Uint32Array): number {
  W[0] = aLo;
  W[1] = bLo;
  const a = S[0]!;
  const b = S[1]!;
  const p = a * b;
  const r = Math.fround(p);
  if (r - r !== 0) return infinite32(r, a, b, out);
  const ix = +(p !== r);
  return put32(r, ix | ((ix & +(Math.abs(p) < F32_TINY)) << 1), out);
}

/** binary16 operand in the low 16 bits of x, widened to binary64 (exact; infinity, NaN preserved). */
const widenF16 = (x: number): number => {
  const se = (x >>> 10) & 63;
  if ((se & 31) === 31) return (x & 0x3ff) !== 0 ? NaN : H16[se]!;
  return ((x & 0x3ff) + IMPL16[se]!) * H16[se]!;
};

/** binary16 a + b (the sum is exact in binary64). */
export function addF16(aLo: number, bLo: number, out: Uint32Array): number {
  return narrowF16(widenF16(aLo) + widenF16(bLo), out);
}
/** binary16 a * b (exact in binary64). */
export function mulF16(aLo: number, bLo: number, out: Uint32Array): number {
  return narrowF16(widenF16(aLo) * widenF16(bLo), out);
}

/** x infinite (an infinite operand: no flags) or NaN (-1) in a 16-bit format whose +infinity is `inf`. */
const infinite16 = (x: number, inf: number, out: Uint32Array): number => {
  if (x !== x) return -1;
  out[0] = 0;
  out[1] = x < 0 ? inf | 0x8000 : inf;
  out[2] = 0;
  return 0;
};

/**
 * Rounds the exact value x (an f16 sum or product) to binary16, round to nearest even; -1 for a
 * NaN. An infinite x comes from an infinite operand (finite f16 operands never overflow binary64).
 */
const narrowF16 = (x: number, out: Uint32Array): number => {
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
    const ix = +(q !== n);
    flags = ix | ((ix & +(Math.abs(x) < F16_TINY)) << 1);
  } else {
    // the binary32 encoding rounded to 10 fraction bits (ties to even) and rebiased; a carry out
    // of the fraction steps the exponent, and an exponent of 31 or more is an overflow
    const v = m < 143 << 23 ? (m + (((15 - 127) << 23) + 0xfff) + ((m >>> 13) & 1)) >>> 13 : 0x7c00;
    const o = (0x7bff - v) >>> 31; // 1 when v >= 0x7c00
    bits = sign | (o !== 0 ? 0x7c00 : v);
    flags = +((m & 0x1fff) !== 0) | +(x !== r32) | (o * OX);
  }
  out[0] = 0;
  out[1] = bits;
  out[2] = flags;
  return flags;
};

/** bfloat16 a + b: binary64 sum, TwoSum's error. */
export function addBf16(aLo: number, bLo: number, out: Uint32Array): number {
  W[0] = aLo << 16; // a bfloat16 is the top half of a binary32
  W[1] = bLo << 16;
  const a = S[0]!;
  const b = S[1]!;
  const s = a + b;
  const bb = s - a;
  return narrowBf16(s, a - (s - bb) + (b - bb), out);
}
/** bfloat16 a * b (exact in binary64). */
export function mulBf16(aLo: number, bLo: number, out: Uint32Array): number {
  W[0] = aLo << 16;
  W[1] = bLo << 16;
  return narrowBf16(S[0]! * S[1]!, 0, out);
}

/**
 * Rounds x + err (x the binary64 sum or product, err the exact rest: TwoSum's error, or 0) to
 * bfloat16, round to nearest even; -1 for a NaN. An infinite x comes from an infinite operand.
 */
const narrowBf16 = (x: number, err: number, out: Uint32Array): number => {
  if (x - x !== 0) return infinite16(x, 0x7f80, out);
  S[0] = Math.fround(x);
  const u = W[0]! >>> 0;
  // ties to even on bit 16 of the binary32 encoding (no carry past bit 31: x is finite)
  const bits = (u + 0x7fff + ((u >>> 16) & 1)) >>> 16;
  const o = (0x7f7f - (bits & 0x7fff)) >>> 31; // 1 when the result is infinite: overflow
  W[1] = bits << 16;
  const ix = +(x - S[1]! + err !== 0);
  const flags = ix | ((ix & +(Math.abs(x) < BF16_TINY)) << 1) | (o * OX);
  out[0] = 0;
  out[1] = bits;
  out[2] = flags;
  return flags;
};
