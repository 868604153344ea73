/**
 * Floating-point multiplier (IEEE 754 multiplication).
 *
 * Datapath:
 *   1. unpack; ftz/daz reads a subnormal as zero; NaN / infinity / zero take the special path;
 *   2. subnormal significands are normalized by a leading-zero count (exponent 1 - shift);
 *   3. a 64 x 64 -> 128-bit integer multiplier (16 Math.imul 16 x 16 partial products for the
 *      full width; narrower formats use fewer since their upper words are zero) multiplies
 *      A's significand (pre-shifted by the 10 guard bits) by B's;
 *   4. the product, whose leading bit is at 2F + 10 or 2F + 11, is shifted right by F or F + 1
 *      with every shifted-out bit jammed into bit 0, giving the normalized working significand
 *      (exact bits down to bit 1, sticky at bit 0);
 *   5. round and pack (round.ts) with exponent eA + eB - bias (+1 when the product carried).
 */
import * as T from '../types.ts';
import type { FpBinary, FpBinaryRegs } from './add.ts';
import * as M from './format.ts';
import type { FpFormat } from './format.ts';
import * as R from './round.ts';
import * as S from './special.ts';
import * as N from './native.ts';

// Imported bindings are copied into module constants once: some TypeScript loaders (tsx) turn
// every use of an imported name into a getter call, which would dominate the hot path.
const FLAG_INVALID = T.FLAG_INVALID;
const packInf = R.packInf;
const packNaN = R.packNaN;
const packZero = R.packZero;
const roundPack = R.roundPack;
const nanOperandFlags = S.nanOperandFlags;
const F16 = M.F16;
const BF16 = M.BF16;
const F32 = M.F32;
const F64 = M.F64;
const mulF64 = N.mulF64;
const mulF32 = N.mulF32;
const mulF16 = N.mulF16;
const mulBf16 = N.mulBf16;

// 32 x 32 -> 64 multiplier output (module-level wires; the multiplier is combinational).
let mHi = 0;
let mLo = 0;

/** Unsigned 32 x 32 -> 64-bit product of x and y into (mHi, mLo) from four 16 x 16 products. */
function mul32(x: number, y: number): void {
  const xl = x & 0xffff;
  const xh = x >>> 16;
  const yl = y & 0xffff;
  const yh = y >>> 16;
  const ll = Math.imul(xl, yl) >>> 0;
  const lh = Math.imul(xl, yh) >>> 0;
  const hl = Math.imul(xh, yl) >>> 0;
  const hh = Math.imul(xh, yh) >>> 0;
  // middle column: three values below 2^17 + 2^16, no overflow
  const t = (ll >>> 16) + (lh & 0xffff) + (hl & 0xffff);
  mLo = (t << 16) | (ll & 0xffff);
  mHi = (hh + (lh >>> 16) + (hl >>> 16) + (t >>> 16)) | 0;
}

/**
 * The multiplier's 32 x 32 -> 64 core, shared with the integer lanes (64-bit wrapping product):
 * full product of unsigned 32-bit x and y, out[0] = high word, out[1] = low word.
 */
export function mulWide32(x: number, y: number, out: Int32Array | Uint32Array): void {
  mul32(x, y);
  out[0] = mHi;
  out[1] = mLo;
}

/**
 * a * b in format `fmt`; same operand, mode and result conventions as fpAdd (fp/add.ts).
 * Writes out[0] = hi, out[1] = lo, out[2] = flags; returns the flags. A caller multiplying many
 * values of one format binds that format's entry point once (`fpMulOf(fmt)`, or fpMulF64 and so
 * on; see fpAdd).
 */
export function fpMul(fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return fpMulOf(fmt)(aHi, aLo, bHi, bLo, mode, u, out);
}

// Per format three functions, inlined into the caller's loop: the entry point chooses by mode,
// the fast path (mode 0) and the bit-level datapath are separate functions (see fp/add.ts).
/** binary64 a * b (fpMul with fmt = F64). */
export function fpMulF64(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? mulRneF64(aHi, aLo, bHi, bLo, out) : mulBitsF64(aHi, aLo, bHi, bLo, mode, u, out);
}
function mulRneF64(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = mulF64(aHi, aLo, bHi, bLo, out);
  return f >= 0 ? f : mulBitsF64(aHi, aLo, bHi, bLo, 0, 0, out);
}
function mulBitsF64(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = aHi;
  OPS[1] = aLo;
  OPS[2] = bHi;
  OPS[3] = bLo;
  return mulBits(F64, OPS, mode, u, out) | 0;
}
/** binary32 a * b (fpMul with fmt = F32; the hi words are ignored). */
export function fpMulF32(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? mulRneF32(aHi, aLo, bHi, bLo, out) : mulBitsF32(aHi, aLo, bHi, bLo, mode, u, out);
}
function mulRneF32(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = mulF32(aLo, bLo, out);
  return f >= 0 ? f : mulBitsF32(aHi, aLo, bHi, bLo, 0, 0, out);
}
function mulBitsF32(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return mulBits(F32, OPS, mode, u, out) | 0;
}
/** binary16 a * b (fpMul with fmt = F16; the hi words are ignored). */
export function fpMulF16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? mulRneF16(aHi, aLo, bHi, bLo, out) : mulBitsF16(aHi, aLo, bHi, bLo, mode, u, out);
}
function mulRneF16(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = mulF16(aLo, bLo, out);
  return f >= 0 ? f : mulBitsF16(aHi, aLo, bHi, bLo, 0, 0, out);
}
function mulBitsF16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return mulBits(F16, OPS, mode, u, out) | 0;
}
/** bfloat16 a * b (fpMul with fmt = BF16; the hi words are ignored). */
export function fpMulBf16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  return mode === 0 ? mulRneBf16(aHi, aLo, bHi, bLo, out) : mulBitsBf16(aHi, aLo, bHi, bLo, mode, u, out);
}
function mulRneBf16(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): number {
  const f = mulBf16(aLo, bLo, out);
  return f >= 0 ? f : mulBitsBf16(aHi, aLo, bHi, bLo, 0, 0, out);
}
function mulBitsBf16(aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = 0;
  OPS[1] = aLo;
  OPS[2] = 0;
  OPS[3] = bLo;
  return mulBits(BF16, OPS, mode, u, out) | 0;
}

/** Operand registers of the datapath when called with words (see OPS in add.ts). */
const OPS = new Int32Array(4);

/** fpMul with the operands in a register block [aHi, aLo, bHi, bLo]. Result as fpMul. */
export function fpMulRegs(fmt: FpFormat, ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpMulRegsOf(fmt)(ops, mode, u, out);
}

// One register-block entry per format, each inlining its format's word entry.
function mulRegsF64(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpMulF64(ops[0]!, ops[1]!, ops[2]!, ops[3]!, mode, u, out);
}
function mulRegsF32(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpMulF32(0, ops[1]!, 0, ops[3]!, mode, u, out);
}
function mulRegsF16(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpMulF16(0, ops[1]!, 0, ops[3]!, mode, u, out);
}
function mulRegsBf16(ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  return fpMulBf16(0, ops[1]!, 0, ops[3]!, mode, u, out);
}

/** The multiplier entry point of `fmt` (fpMulF64, fpMulF32, fpMulF16 or fpMulBf16). */
export function fpMulOf(fmt: FpFormat): FpBinary {
  return fmt.W === 64 ? fpMulF64 : fmt.W === 32 ? fpMulF32 : fmt.E === 5 ? fpMulF16 : fpMulBf16;
}
/** The register-block multiplier entry point of `fmt` (fpMulRegs for that format). */
export function fpMulRegsOf(fmt: FpFormat): FpBinaryRegs {
  return fmt.W === 64 ? mulRegsF64 : fmt.W === 32 ? mulRegsF32 : fmt.E === 5 ? mulRegsF16 : mulRegsBf16;
}

/** The bit-level datapath (every mode; the only path for directed, stochastic and ftz rounding). */
export function mulBits(fmt: FpFormat, ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
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
  const s = sA ^ sB;
  if (eA === eAll || eB === eAll) return mulSpecial(fmt, s, eA, hA, lA, eB, hB, lB, mode, out);
  if ((mode & 8) !== 0) {
    if (eA === 0) hA = lA = 0;
    if (eB === 0) hB = lB = 0;
  }
  if ((eA === 0 && (hA | lA) === 0) || (eB === 0 && (hB | lB) === 0)) return packZero(fmt, s, out);
  // implicit bit, or normalize a subnormal so that its leading bit is at bit F
  if (eA !== 0) {
    hA |= fmt.implHi;
    lA |= fmt.implLo;
  } else {
    const n = F - (hA !== 0 ? 63 - Math.clz32(hA) : 31 - Math.clz32(lA));
    if (n < 32) {
      hA = (hA << n) | (n === 0 ? 0 : lA >>> (32 - n));
      lA = lA << n;
    } else {
      hA = lA << (n - 32);
      lA = 0;
    }
    eA = 1 - n;
  }
  if (eB !== 0) {
    hB |= fmt.implHi;
    lB |= fmt.implLo;
  } else {
    const n = F - (hB !== 0 ? 63 - Math.clz32(hB) : 31 - Math.clz32(lB));
    if (n < 32) {
      hB = (hB << n) | (n === 0 ? 0 : lB >>> (32 - n));
      lB = lB << n;
    } else {
      hB = lB << (n - 32);
      lB = 0;
    }
    eB = 1 - n;
  }
  // A's significand gets the 10 guard bits
  hA = (hA << 10) | (lA >>> 22);
  lA = lA << 10;
  // 128-bit product (w3, w2, w1, w0)
  let w0: number, w1: number, w2: number, w3: number;
  mul32(lA, lB);
  w0 = mLo;
  w1 = mHi;
  if (hA === 0 && hB === 0) {
    w2 = 0;
    w3 = 0;
  } else {
    mul32(lA, hB);
    let t = (w1 + mLo) | 0;
    let c = t >>> 0 < w1 >>> 0 ? 1 : 0;
    w2 = mHi;
    mul32(hA, lB);
    w1 = (t + mLo) | 0;
    c += w1 >>> 0 < t >>> 0 ? 1 : 0;
    t = (w2 + mHi) | 0;
    let c2 = t >>> 0 < w2 >>> 0 ? 1 : 0;
    w2 = (t + c) | 0;
    c2 += w2 >>> 0 < t >>> 0 ? 1 : 0;
    mul32(hA, hB);
    t = (w2 + mLo) | 0;
    c2 += t >>> 0 < w2 >>> 0 ? 1 : 0;
    w2 = t;
    w3 = (mHi + c2) | 0;
  }
  // normalize: leading bit at 2F+10 or 2F+11; shift right by F (or F+1), jamming
  let e = eA + eB - fmt.bias;
  const top = 2 * F + 11;
  const tw = top >>> 5;
  const tb = 1 << (top & 31);
  let n = F;
  if (((tw === 3 ? w3 : tw === 2 ? w2 : tw === 1 ? w1 : w0) & tb) !== 0) {
    n = F + 1;
    e++;
  }
  let h: number, l: number;
  if (n < 32) {
    l = (w1 << (32 - n)) | (w0 >>> n) | (w0 << (32 - n) !== 0 ? 1 : 0);
    h = (w2 << (32 - n)) | (w1 >>> n);
  } else {
    const m = n - 32; // 0 < m < 32 for binary64 (m = 20 or 21)
    l = (w2 << (32 - m)) | (w1 >>> m) | ((w1 << (32 - m)) | w0 ? 1 : 0);
    h = (w3 << (32 - m)) | (w2 >>> m);
  }
  return roundPack(fmt, s, e, h, l, mode, u, out);
}

/** At least one operand is infinity or NaN. */
function mulSpecial(fmt: FpFormat, s: number, eA: number, hA: number, lA: number, eB: number, hB: number, lB: number, mode: number, out: Uint32Array): number {
  const eAll = fmt.eAll;
  const nanA = eA === eAll && (hA | lA) !== 0;
  const nanB = eB === eAll && (hB | lB) !== 0;
  if (nanA || nanB) return packNaN(fmt, nanOperandFlags(fmt, eA, hA, lA, eB, hB, lB), out);
  // infinity times zero (a subnormal counts as zero under ftz) is invalid
  const daz = (mode & 8) !== 0;
  const zeroA = eA === 0 && (daz || (hA | lA) === 0);
  const zeroB = eB === 0 && (daz || (hB | lB) === 0);
  if (zeroA || zeroB) return packNaN(fmt, FLAG_INVALID, out);
  return packInf(fmt, s, out);
}
