/**
 * Operand classification on encoded values: the NaN / signalling-NaN detectors that sit in front
 * of every floating-point unit of the datapath (exponent all-ones comparators and the quiet bit).
 */
import * as T from '../types.ts';
import type { FpFormat } from './format.ts';

const FLAG_INVALID = T.FLAG_INVALID;

/** Exponent field of an encoded value. */
export function expField(fmt: FpFormat, hi: number, lo: number): number {
  return fmt.F >= 32 ? (hi >>> (fmt.F - 32)) & fmt.eAll : (lo >>> fmt.F) & fmt.eAll;
}

/** Sign bit (0/1) of an encoded value. */
export function signBit(fmt: FpFormat, hi: number, lo: number): number {
  return fmt.F >= 32 ? hi >>> 31 : (lo >>> (fmt.W - 1)) & 1;
}

/** Whether the fraction field is nonzero. */
export function fracNonZero(fmt: FpFormat, hi: number, lo: number): boolean {
  return ((hi & fmt.fHiMask) | (lo & fmt.fLoMask)) !== 0;
}

export function isNaNBits(fmt: FpFormat, hi: number, lo: number): boolean {
  return expField(fmt, hi, lo) === fmt.eAll && fracNonZero(fmt, hi, lo);
}

/** A NaN whose quiet bit (top fraction bit) is clear. */
export function isSignalingBits(fmt: FpFormat, hi: number, lo: number): boolean {
  return isNaNBits(fmt, hi, lo) && ((hi & fmt.qHi) | (lo & fmt.qLo)) === 0;
}

/** Subnormal: exponent field 0, fraction nonzero. */
export function isSubnormalBits(fmt: FpFormat, hi: number, lo: number): boolean {
  return expField(fmt, hi, lo) === 0 && fracNonZero(fmt, hi, lo);
}

/**
 * Flags and result for an operation with at least one NaN operand given by fraction fields:
 * invalid when an operand is a signalling NaN. Returns FLAG_INVALID or 0.
 */
export function nanOperandFlags(fmt: FpFormat, eA: number, hA: number, lA: number, eB: number, hB: number, lB: number): number {
  const sigA = eA === fmt.eAll && (hA | lA) !== 0 && ((hA & fmt.qHi) | (lA & fmt.qLo)) === 0;
  const sigB = eB === fmt.eAll && (hB | lB) !== 0 && ((hB & fmt.qHi) | (lB & fmt.qLo)) === 0;
  return sigA || sigB ? FLAG_INVALID : 0;
}
