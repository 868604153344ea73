/**
 * Floating-point comparator: IEEE 754-2019 minimum / maximum and the ordered compare used by
 * minloc / maxloc. Pure combinational logic on encoded words: NaN detectors, a daz stage (a
 * subnormal becomes a zero of its sign under ftz), and a sign-magnitude comparator in which
 * -0 < +0. Results are operands passed through unchanged (after daz), or the canonical NaN.
 */
import * as T from '../types.ts';
import type { FpFormat } from './format.ts';
import * as R from './round.ts';
import * as S from './special.ts';

// Imported bindings are copied into module constants once: some TypeScript loaders (tsx) turn
// every use of an imported name into a getter call, which would dominate the hot path.
const FLAG_INVALID = T.FLAG_INVALID;
const packNaN = R.packNaN;
const expField = S.expField;
const isNaNBits = S.isNaNBits;
const isSignalingBits = S.isSignalingBits;

/**
 * Ordered comparison of two non-NaN encoded values: -1 if a < b, 0 if the encodings are equal,
 * 1 if a > b; -0 < +0. Callers apply daz (dazBits) first when ftz is on.
 */
export function fpCompare(fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number): number {
  let sA: number, sB: number, mAh: number, mAl: number, mBh: number, mBl: number;
  if (fmt.F >= 32) {
    sA = aHi >>> 31;
    sB = bHi >>> 31;
    mAh = aHi & 0x7fffffff;
    mBh = bHi & 0x7fffffff;
    mAl = aLo >>> 0;
    mBl = bLo >>> 0;
  } else {
    const sb = fmt.W - 1;
    sA = (aLo >>> sb) & 1;
    sB = (bLo >>> sb) & 1;
    mAh = mBh = 0;
    const m = sb === 31 ? 0x7fffffff : (1 << sb) - 1;
    mAl = aLo & m;
    mBl = bLo & m;
  }
  if (sA !== sB) return sA !== 0 ? -1 : 1;
  // same sign: magnitudes compare, reversed for negatives
  if (mAh === mBh && mAl === mBl) return 0;
  const aBigger = mAh > mBh || (mAh === mBh && mAl > mBl);
  return aBigger === (sA === 0) ? 1 : -1;
}

// daz output wires
let dazHi = 0;
let dazLo = 0;

/** ftz/daz read stage: a subnormal becomes a zero of the same sign. Result in (dazHi, dazLo). */
function daz(fmt: FpFormat, hi: number, lo: number, ftz: boolean): void {
  if (ftz && expField(fmt, hi, lo) === 0) {
    if (fmt.F >= 32) {
      dazHi = hi & 0x80000000;
      dazLo = 0;
    } else {
      dazHi = 0;
      dazLo = lo & (1 << (fmt.W - 1));
    }
  } else {
    dazHi = hi;
    dazLo = lo;
  }
}

/**
 * Writes into out[0..1] the value of (hi, lo) as read under ftz (subnormal -> signed zero);
 * an identity when ftz is false.
 */
export function dazBits(fmt: FpFormat, hi: number, lo: number, ftz: boolean, out: Uint32Array): void {
  daz(fmt, hi, lo, ftz);
  out[0] = dazHi;
  out[1] = dazLo;
}

/**
 * IEEE 754-2019 minimum (isMax false) or maximum (isMax true): a NaN operand gives the canonical
 * NaN, invalid when an operand is signalling; -0 < +0; otherwise the smaller/larger operand.
 * Writes out[0] = hi, out[1] = lo, out[2] = flags; returns flags.
 */
export function fpMinMax(fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number, ftz: boolean, isMax: boolean, out: Uint32Array): number {
  const nanA = isNaNBits(fmt, aHi, aLo);
  const nanB = isNaNBits(fmt, bHi, bLo);
  if (nanA || nanB) return packNaN(fmt, isSignalingBits(fmt, aHi, aLo) || isSignalingBits(fmt, bHi, bLo) ? FLAG_INVALID : 0, out);
  daz(fmt, aHi, aLo, ftz);
  const xh = dazHi;
  const xl = dazLo;
  daz(fmt, bHi, bLo, ftz);
  const c = fpCompare(fmt, xh, xl, dazHi, dazLo);
  const takeA = isMax ? c >= 0 : c <= 0;
  out[0] = takeA ? xh : dazHi;
  out[1] = takeA ? xl : dazLo;
  out[2] = 0;
  return 0;
}
