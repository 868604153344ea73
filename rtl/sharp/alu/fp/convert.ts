/**
 * Format converter: the widening (binary16/bfloat16 -> binary32, exact) and narrowing
 * (binary32 -> binary16/bfloat16, rounded) units of wide accumulation, written for any pair of
 * formats.
 *
 * Datapath: unpack the source (ftz/daz reads a source subnormal as zero), normalize a subnormal
 * source significand, rebias the exponent, shift the significand so that its ulp lands at the
 * destination's bit 10 (left shift when widening, right shift with jamming when narrowing), then
 * the shared round-and-pack stage (round.ts) applies the destination's rounding, overflow,
 * underflow and ftz rules. A NaN becomes the destination's canonical NaN (invalid when signalling).
 */
import * as T from '../types.ts';
import type { FpFormat } from './format.ts';
import * as R from './round.ts';

// Imported bindings are copied into module constants once: some TypeScript loaders (tsx) turn
// every use of an imported name into a getter call, which would dominate the hot path.
const FLAG_INVALID = T.FLAG_INVALID;
const packInf = R.packInf;
const packNaN = R.packNaN;
const packZero = R.packZero;
const roundPack = R.roundPack;

/**
 * Converts encoded value (hi, lo) of format `src` to format `dst`. `mode` = rounding code |
 * MODE_FTZ, `u` = stochastic draw. Writes out[0] = hi, out[1] = lo, out[2] = flags; returns flags.
 */
export function fpConvert(src: FpFormat, dst: FpFormat, hi: number, lo: number, mode: number, u: number, out: Uint32Array): number {
  OPS[0] = hi;
  OPS[1] = lo;
  return fpConvertRegs(src, dst, OPS, mode, u, out);
}

/** Operand registers of fpConvert (see fpAdd in add.ts for why operands go through a register block). */
const OPS = new Int32Array(2);

/** fpConvert with the operand in a register block [hi, lo]. Result as fpConvert. */
export function fpConvertRegs(src: FpFormat, dst: FpFormat, ops: Int32Array, mode: number, u: number, out: Uint32Array): number {
  const hi = ops[0]!;
  const lo = ops[1]!;
  const F = src.F;
  let s: number, e: number, h: number, l: number;
  if (F >= 32) {
    s = hi >>> 31;
    e = (hi >>> (F - 32)) & src.eAll;
    h = hi & src.fHiMask;
    l = lo | 0;
  } else {
    s = (lo >>> (F + src.E)) & 1;
    e = (lo >>> F) & src.eAll;
    h = 0;
    l = lo & src.fLoMask;
  }
  if (e === src.eAll) {
    if ((h | l) === 0) return packInf(dst, s, out);
    return packNaN(dst, ((h & src.qHi) | (l & src.qLo)) === 0 ? FLAG_INVALID : 0, out);
  }
  if (e === 0 && (mode & 8) !== 0) h = l = 0;
  if (e === 0 && (h | l) === 0) return packZero(dst, s, out);
  if (e !== 0) {
    h |= src.implHi;
    l |= src.implLo;
  } else {
    const n = F - (h !== 0 ? 63 - Math.clz32(h) : 31 - Math.clz32(l));
    if (n < 32) {
      h = (h << n) | (l >>> (32 - n));
      l = l << n;
    } else {
      h = l << (n - 32);
      l = 0;
    }
    e = 1 - n;
  }
  // ulp to the destination's bit 10: leading bit from F to dst.F + 10
  const k = dst.F + 10 - F;
  if (k > 0) {
    if (k < 32) {
      h = (h << k) | (l >>> (32 - k));
      l = l << k;
    } else {
      h = l << (k - 32);
      l = 0;
    }
  } else if (k < 0) {
    const n = -k;
    if (n < 32) {
      const st = l << (32 - n) !== 0 ? 1 : 0;
      l = (l >>> n) | (h << (32 - n)) | st;
      h = h >>> n;
    } else {
      const m = n - 32;
      const st = l !== 0 || (m !== 0 && h << (32 - m) !== 0) ? 1 : 0;
      l = (h >>> m) | st;
      h = 0;
    }
  }
  return roundPack(dst, s, e - src.bias + dst.bias, h, l, mode, u, out);
}
