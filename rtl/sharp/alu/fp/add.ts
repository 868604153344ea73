/**
 * Floating-point adder (IEEE 754 addition; subtraction is addition of a negated operand).
 *
 * Datapath, in hardware order:
 *   1. unpack: sign, exponent field, fraction; ftz/daz reads a subnormal as a zero of its sign;
 *      NaN / infinity / zero operands leave through the special-case path;
 *   2. the implicit bit is set (a subnormal gets exponent 1 and no implicit bit) and both
 *      significands are shifted left by the 10 guard bits;
 *   3. swap so that A has the larger magnitude, align B right by the exponent difference with
 *      the shifted-out bits jammed into bit 0;
 *   4. add (same signs) or subtract (different signs) in 64 bits; a carry out shifts right by
 *      one (jammed), a cancellation normalizes left by a leading-zero count;
 *   5. round and pack (round.ts).
 * With 10 guard bits the result of step 4 has bits >= 2 below the ulp exact and bits 1..0 sticky:
 * an aligned operand loses bits only when the exponent difference is >= 2, in which case a
 * subtraction cancels at most one leading bit. That keeps the 8 stochastic-rounding bits exact.
 *
 * Everything is 32-bit integer arithmetic on (hi, lo) words; nothing is allocated.
 */
import * as T from '../types.ts';
import * as M from './format.ts';
import type { FpFormat } from './format.ts';
import * as R from './round.ts';
import * as S from './special.ts';
import * as N from './native.ts';

// Imported bindings are copied into module constants once: some TypeScript loaders (tsx) turn
// every use of an imported name into a getter call, which would dominate the hot path.
const FLAG_INVALID = T.FLAG_INVALID;
const RM_RDN = M.RM_RDN;
const packFields = R.packFields;
const packInf = R.packInf;
const packNaN = R.packNaN;
const packZero = R.packZero;
const roundPack = R.roundPack;
const nanOperandFlags = S.nanOperandFlags;
const F16 = M.F16;
const BF16 = M.BF16;
const F32 = M.F32;
const F64 = M.F64;
const addF64 = N.addF64;
const addF32 = N.addF32;
const addF16 = N.addF16;
const addBf16 = N.addBf16;

/**
 * a + b in format `fmt`. Encoded operands (binary64: hi and lo words; narrower formats: lo only,
 * hi = 0). `mode` = rounding code | MODE_FTZ, `u` = stochastic draw 0..255 (used in sr mode only).
 * Writes out[0] = result hi, out[1] = result lo, out[2] = flags; returns the flags.
 *
 * A caller that adds many values of one format binds that format's entry point once
 * (`fpAddOf(fmt)`, or fpAddF64 / fpAddF32 / fpAddF16 / fpAddBf16 directly): each is a small
 * function of its own, so the engine inlines it into the caller's loop with the feedback of that
 * one format. This generic entry dispatches on the format at every call.
 */
export function fpAdd(fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return fpAddOf(fmt)(aHi, aLo, bHi, bLo, mode, u, out);
}

/** An adder entry point of one format: fpAdd's arguments without the format. */
export type FpBinary = (aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array) => number;
/** The same with the operands in a register block [aHi, aLo, bHi, bLo] (see fpAddRegs). */
export type FpBinaryRegs = (ops: Int32Array, mode: number, u: number, out: Uint32Array) => number;

// Per format three functions, each small enough to be inlined into the caller's loop: the entry
// point chooses by mode; round to nearest even without ftz (mode 0) takes the binary64 fast path
// (fp/native.ts) and its rare refusals (NaN results, and the cases named there) the bit-level
// datapath, as does every other mode. The two paths are separate functions so that a process
// using both modes does not compile the datapath call into the fast path's code as a frequent one
// (binary64 add in rne ran at 34 instead of 57 M op/s in a process also running rtz).
/** binary64 a + b (fpAdd with fmt = F64). */
export function fpAddF64(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? addRneF64(aHi, aLo, bHi, bLo, out) : addBitsF64(aHi, aLo, bHi, bLo, mode, u, out);
}
function addRneF64(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = addF64(aHi, aLo, bHi, bLo, out);
  return f >= 0 ? f : addBitsF64(aHi, aLo, bHi, bLo, 0, 0, out);
}
function addBitsF64(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = aHi;
  OPS[1] = aLo;
  OPS[2] = bHi;
  OPS[3] = bLo;
  return addBits(F64, OPS, mode, u, out) | 0;
}
/** binary32 a + b (fpAdd with fmt = F32; the hi words are ignored). */
export function fpAddF32(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? addRneF32(aHi, aLo, bHi, bLo, out) : addBitsF32(aHi, aLo, bHi, bLo, mode, u, out);
}
function addRneF32(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = addF32(aLo, bLo, out);
  return f >= 0 ? f : addBitsF32(aHi, aLo, bHi, bLo, 0, 0, out);
}
function addBitsF32(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return addBits(F32, OPS, mode, u, out) | 0;
}
/** binary16 a + b (fpAdd with fmt = F16; the hi words are ignored). */
export function fpAddF16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? addRneF16(aHi, aLo, bHi, bLo, out) : addBitsF16(aHi, aLo, bHi, bLo, mode, u, out);
}
function addRneF16(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = addF16(aLo, bLo, out);
  return f >= 0 ? f : addBitsF16(aHi, aLo, bHi, bLo, 0, 0, out);
}
function addBitsF16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return addBits(F16, OPS, mode, u, out) | 0;
}
/** bfloat16 a + b (fpAdd with fmt = BF16; the hi words are ignored). */
export function fpAddBf16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? addRneBf16(aHi, aLo, bHi, bLo, out) : addBitsBf16(aHi, aLo, bHi, bLo, mode, u, out);
}
function addRneBf16(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = addBf16(aLo, bLo, out);
  return f >= 0 ? f : addBitsBf16(aHi, aLo, bHi, bLo, 0, 0, out);
}
function addBitsBf16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return addBits(BF16, OPS, mode, u, out) | 0;
}

/**
 * Operand registers of the datapath when called with words. 32-bit words passed as arguments to
 * a large, non-inlined function would be boxed as heap numbers by the JavaScript engine (one
 * allocation per word >= 2^30): the datapath takes a register block.
 */
const OPS = new Int32Array(4);

/**
 * fpAdd with the operands in an operand register block: ops[0] = aHi, ops[1] = aLo,
 * ops[2] = bHi, ops[3] = bLo (the caller may own the block). Result as fpAdd.
 */
export function fpAddRegs(fmt: FpFormat, ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpAddRegsOf(fmt)(ops, mode, u, out);
}

// One register-block entry per format, each inlining its format's word entry (the words stay unboxed).
function addRegsF64(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpAddF64(ops[0]!, ops[1]!, ops[2]!, ops[3]!, mode, u, out);
}
function addRegsF32(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpAddF32(0, ops[1]!, 0, ops[3]!, mode, u, out);
}
function addRegsF16(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpAddF16(0, ops[1]!, 0, ops[3]!, mode, u, out);
}
function addRegsBf16(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpAddBf16(0, ops[1]!, 0, ops[3]!, mode, u, out);
}

/** The adder entry point of `fmt` (fpAddF64, fpAddF32, fpAddF16 or fpAddBf16). */
export function fpAddOf(fmt: FpFormat): FpBinary {
  return fmt.W === 64 ? fpAddF64 : fmt.W === 32 ? fpAddF32 : fmt.E === 5 ? fpAddF16 : fpAddBf16;
}
/** The register-block adder entry point of `fmt` (fpAddRegs for that format). */
export function fpAddRegsOf(fmt: FpFormat): FpBinaryRegs {
  return fmt.W === 64 ? addRegsF64 : fmt.W === 32 ? addRegsF32 : fmt.E === 5 ? addRegsF16 : addRegsBf16;
}

/** The bit-level datapath (every mode; the only path for directed, stochastic and ftz rounding). */
export function addBits(fmt: FpFormat, ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  const aHi = ops[0]!;
  const aLo = ops[1]!;
  const bHi = ops[2]!;
  const bLo = ops[3]!;
  const F = fmt.F;
  const eAll = fmt.eAll;
  // operand unpack, written out in both the adder and the multiplier: as a shared function writing
  // eight fields it cost 15-20 % of their throughput (npm run bench, suite fp)
  let sA: number, eA: number, hA: number, lA: number, sB: number, eB: number, hB: number, lB: number;
  if (F >= 32) {
    const p = F - 32;
    const m = fmt.fHiMask;
    sA = aHi >>> 31;
    eA = (aHi >>> p) & eAll;
    hA = aHi & m;
    lA = aLo | 0;
    sB = bHi >>> 31;
    eB = (bHi >>> p) & eAll;
    hB = bHi & m;
    lB = bLo | 0;
  } else {
    const p = F + fmt.E;
    const m = fmt.fLoMask;
    sA = (aLo >>> p) & 1;
    eA = (aLo >>> F) & eAll;
    hA = 0;
    lA = aLo & m;
    sB = (bLo >>> p) & 1;
    eB = (bLo >>> F) & eAll;
    hB = 0;
    lB = bLo & m;
  }
  if (eA === eAll || eB === eAll) return addSpecial(fmt, sA, eA, hA, lA, sB, eB, hB, lB, out);
  if ((mode & 8) !== 0) {
    // denormals-are-zero
    if (eA === 0) hA = lA = 0;
    if (eB === 0) hB = lB = 0;
  }
  if (eA === 0 && (hA | lA) === 0) {
    if (eB === 0 && (hB | lB) === 0) return packZero(fmt, sA === sB ? sA : (mode & 7) === RM_RDN ? 1 : 0, out);
    packFields(fmt, sB, eB, hB, lB, out);
    out[2] = 0;
    return 0;
  }
  if (eB === 0 && (hB | lB) === 0) {
    packFields(fmt, sA, eA, hA, lA, out);
    out[2] = 0;
    return 0;
  }
  // implicit bit; a subnormal has exponent 1 without it
  if (eA !== 0) {
    hA |= fmt.implHi;
    lA |= fmt.implLo;
  } else eA = 1;
  if (eB !== 0) {
    hB |= fmt.implHi;
    lB |= fmt.implLo;
  } else eB = 1;
  // 10 guard bits
  hA = (hA << 10) | (lA >>> 22);
  lA = lA << 10;
  hB = (hB << 10) | (lB >>> 22);
  lB = lB << 10;
  // A gets the larger magnitude
  if (eA < eB || (eA === eB && (hA < hB || (hA === hB && lA >>> 0 < lB >>> 0)))) {
    let t = sA;
    sA = sB;
    sB = t;
    t = eA;
    eA = eB;
    eB = t;
    t = hA;
    hA = hB;
    hB = t;
    t = lA;
    lA = lB;
    lB = t;
  }
  // align B (shift right, jam)
  const d = eA - eB;
  if (d !== 0) {
    if (d < 32) {
      const st = lB << (32 - d) !== 0 ? 1 : 0;
      lB = (lB >>> d) | (hB << (32 - d)) | st;
      hB = hB >>> d;
    } else if (d < 64) {
      const m = d - 32;
      const st = lB !== 0 || (m !== 0 && hB << (32 - m) !== 0) ? 1 : 0;
      lB = (hB >>> m) | st;
      hB = 0;
    } else {
      lB = 1; // B is nonzero here
      hB = 0;
    }
  }
  let h: number, l: number;
  let e = eA;
  if (sA === sB) {
    l = (lA + lB) | 0;
    h = (hA + hB + (l >>> 0 < lA >>> 0 ? 1 : 0)) | 0;
    if (((h & fmt.carHi) | (l & fmt.carLo)) !== 0) {
      l = (l >>> 1) | (h << 31) | (l & 1);
      h = h >>> 1;
      e++;
    }
  } else {
    l = (lA - lB) | 0;
    h = (hA - hB - (lA >>> 0 < lB >>> 0 ? 1 : 0)) | 0;
    if ((h | l) === 0) return packZero(fmt, (mode & 7) === RM_RDN ? 1 : 0, out);
  }
  if (((h & fmt.topHi) | (l & fmt.topLo)) === 0) {
    // normalize left (cancellation, or subnormal operands)
    const p = h !== 0 ? 63 - Math.clz32(h) : 31 - Math.clz32(l);
    const n = F + 10 - p;
    if (n < 32) {
      h = (h << n) | (l >>> (32 - n));
      l = l << n;
    } else {
      h = l << (n - 32);
      l = 0;
    }
    e -= n;
  }
  return roundPack(fmt, sA, e, h, l, mode, u, out);
}

/** At least one operand has an all-ones exponent (infinity or NaN). */
function addSpecial(fmt: FpFormat, sA: number, eA: number, hA: number, lA: number, sB: number, eB: number, hB: number, lB: number, out: Uint32Array): number {
  const eAll = fmt.eAll;
  const nanA = eA === eAll && (hA | lA) !== 0;
  const nanB = eB === eAll && (hB | lB) !== 0;
  if (nanA || nanB) return packNaN(fmt, nanOperandFlags(fmt, eA, hA, lA, eB, hB, lB), out);
  if (eA === eAll) {
    if (eB === eAll && sA !== sB) return packNaN(fmt, FLAG_INVALID, out);
    return packInf(fmt, sA, out);
  }
  return packInf(fmt, sB, out);
}

/** a - b: addition with B's sign flipped. Same arguments and result as fpAdd. */
export function fpSub(fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  if (fmt.F >= 32) return fpAdd(fmt, aHi, aLo, bHi ^ 0x80000000, bLo, mode, u, out);
  return fpAdd(fmt, aHi, aLo, bHi, bLo ^ (1 << (fmt.W - 1)), mode, u, out);
}
