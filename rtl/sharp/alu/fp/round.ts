/**
 * Round-and-pack stage of the floating-point datapath, shared by add, multiply and convert.
 *
 * Input: sign, biased exponent `e` (any integer: <= 0 means the value is below the normal range,
 * >= eAll means it overflows) and a normalized working significand (hi, lo) whose leading bit is at
 * bit F + 10 and whose ulp is at bit 10. Bits 9..2 below the ulp are exact; bits 1..0 are sticky
 * (the OR of everything further down). The value is sig * 2^(e - bias - F - 10).
 *
 * Hardware: a rounding incrementer on the 64-bit significand, a denormalizing right shifter in
 * front of it (for tiny results), and the overflow / underflow / inexact flag logic. Tininess is
 * detected after rounding (as TestFloat's -tininessafter): the value rounded to F+1 significant
 * bits with an unbounded exponent is below 2^emin. Underflow = tiny AND inexact; with ftz a tiny
 * result is replaced by a zero of the same sign and raises underflow and inexact.
 *
 * Stochastic rounding: q = bits 9..2 of the significand at the rounding position (the first
 * SR_BITS = 8 bits of the discarded fraction, exact by the guard-bit discipline above); the
 * magnitude rounds up when q + u >= 256, u being the 8-bit LFSR draw passed in by the caller.
 * For the tininess test of a stochastic rounding the same draw u is applied at full precision.
 */
import * as T from '../types.ts';
import * as M from './format.ts';
import type { FpFormat } from './format.ts';

// Imported bindings are copied into module constants once: some TypeScript loaders (tsx) turn
// every use of an imported name into a getter call, which would dominate the hot path.
const FLAG_INEXACT = T.FLAG_INEXACT;
const FLAG_OVERFLOW = T.FLAG_OVERFLOW;
const FLAG_UNDERFLOW = T.FLAG_UNDERFLOW;
const MODE_FTZ = M.MODE_FTZ;
const RM_RNE = M.RM_RNE;
const RM_RTZ = M.RM_RTZ;
const RM_RDN = M.RM_RDN;
const RM_RUP = M.RM_RUP;

/**
 * Whether a magnitude with nonzero round bits `rb` (10 bits: bits 9..2 exact, 1..0 sticky)
 * rounds up, for rounding mode `rm`, sign `s` and ulp bit `lsb`.
 */
export function roundsUp(rm: number, s: number, lsb: number, rb: number, u: number): boolean {
  switch (rm) {
    case RM_RNE:
      return rb > 0x200 || (rb === 0x200 && lsb !== 0);
    case RM_RTZ:
      return false;
    case RM_RDN:
      return s !== 0;
    case RM_RUP:
      return s === 0;
    default:
      return (rb >>> 2) + u >= 256;
  }
}

/** Writes an encoded value from its fields (exponent field `e`, fraction bits in (fh, fl)). */
export function packFields(fmt: FpFormat, s: number, e: number, fh: number, fl: number, out: Uint32Array): void {
  const F = fmt.F;
  if (F >= 32) {
    out[0] = (s << 31) | (e << (F - 32)) | (fh & fmt.fHiMask);
    out[1] = fl;
  } else {
    out[0] = 0;
    out[1] = (s << (F + fmt.E)) | (e << F) | (fl & fmt.fLoMask);
  }
}

/** Zero of sign s; writes out[0..2], returns flags (0). */
export function packZero(fmt: FpFormat, s: number, out: Uint32Array): number {
  packFields(fmt, s, 0, 0, 0, out);
  out[2] = 0;
  return 0;
}

/** Canonical quiet NaN with the given flags. */
export function packNaN(fmt: FpFormat, flags: number, out: Uint32Array): number {
  out[0] = fmt.nanHi;
  out[1] = fmt.nanLo;
  out[2] = flags;
  return flags;
}

/** Infinity of sign s. */
export function packInf(fmt: FpFormat, s: number, out: Uint32Array): number {
  packFields(fmt, s, fmt.eAll, 0, 0, out);
  out[2] = 0;
  return 0;
}

/** Overflow: infinity or the largest finite value depending on the mode and sign. */
function overflow(fmt: FpFormat, s: number, rm: number, out: Uint32Array): number {
  const flags = FLAG_OVERFLOW | FLAG_INEXACT;
  // rne and sr go to infinity; the directed modes stop at the largest finite value unless they
  // round away from zero for this sign.
  const toInf = rm === RM_RTZ ? false : rm === RM_RDN ? s !== 0 : rm === RM_RUP ? s === 0 : true;
  if (toInf) packFields(fmt, s, fmt.eAll, 0, 0, out);
  else packFields(fmt, s, fmt.eAll - 1, -1, -1, out);
  out[2] = flags;
  return flags;
}

/**
 * Rounds and packs (s, e, hi, lo) as described at the top of this file. `mode` = rounding code |
 * MODE_FTZ; `u` = stochastic draw (0..255, ignored unless the mode is sr). Writes out[0] = hi word,
 * out[1] = lo word, out[2] = flags; returns the flags.
 */
export function roundPack(fmt: FpFormat, s: number, e: number, hi: number, lo: number, mode: number, u: number, out: Uint32Array): number {
  if (e <= 0) return roundPackTiny(fmt, s, e, hi, lo, mode, u, out);
  const rb = lo & 0x3ff;
  let sl = (lo >>> 10) | (hi << 22);
  let sh = hi >>> 10;
  let flags = 0;
  if (rb !== 0) {
    flags = FLAG_INEXACT;
    if (roundsUp(mode & 7, s, sl & 1, rb, u)) {
      sl = (sl + 1) | 0;
      if (sl === 0) sh = (sh + 1) | 0;
      if (((sh & fmt.ovHi) | (sl & fmt.ovLo)) !== 0) {
        // all ones + 1 = 2^(F+1): renormalize to 2^F with the next exponent
        sh = fmt.implHi;
        sl = fmt.implLo;
        e++;
      }
    }
  }
  if (e >= fmt.eAll) return overflow(fmt, s, mode & 7, out);
  packFields(fmt, s, e, sh, sl, out);
  out[2] = flags;
  return flags;
}

/** Results below the normal range before rounding (e <= 0): tininess, ftz, denormalization. */
function roundPackTiny(fmt: FpFormat, s: number, e: number, hi: number, lo: number, mode: number, u: number, out: Uint32Array): number {
  const rm = mode & 7;
  // Tiny after rounding unless e == 0 and rounding at full precision carries up to 2^emin.
  let tiny = true;
  if (e === 0) {
    const rb = lo & 0x3ff;
    if (rb !== 0 && (hi >>> 10) === (fmt.onesHi >>> 0) && ((lo >>> 10) | (hi << 22)) === fmt.onesLo && roundsUp(rm, s, 1, rb, u)) tiny = false;
  }
  if ((mode & MODE_FTZ) !== 0) {
    if (tiny) {
      packFields(fmt, s, 0, 0, 0, out);
      out[2] = FLAG_UNDERFLOW | FLAG_INEXACT;
      return FLAG_UNDERFLOW | FLAG_INEXACT;
    }
    packFields(fmt, s, 1, 0, 0, out);
    out[2] = FLAG_INEXACT;
    return FLAG_INEXACT;
  }
  // Denormalize: shift right by 1 - e with the shifted-out bits jammed into bit 0.
  const n = 1 - e;
  if (n < 32) {
    const st = (lo << (32 - n)) !== 0 ? 1 : 0;
    lo = (lo >>> n) | (hi << (32 - n)) | st;
    hi = hi >>> n;
  } else if (n < 64) {
    const m = n - 32;
    const st = lo !== 0 || (m !== 0 && hi << (32 - m) !== 0) ? 1 : 0;
    lo = (hi >>> m) | st;
    hi = 0;
  } else {
    lo = (hi | lo) !== 0 ? 1 : 0;
    hi = 0;
  }
  const rb = lo & 0x3ff;
  let sl = (lo >>> 10) | (hi << 22);
  let sh = hi >>> 10;
  let flags = 0;
  if (rb !== 0) {
    flags = tiny ? FLAG_INEXACT | FLAG_UNDERFLOW : FLAG_INEXACT;
    if (roundsUp(rm, s, sl & 1, rb, u)) {
      sl = (sl + 1) | 0;
      if (sl === 0) sh = (sh + 1) | 0;
    }
  }
  // A carry into the implicit bit makes the result the smallest normal (exponent field 1).
  const ef = ((sh & fmt.implHi) | (sl & fmt.implLo)) !== 0 ? 1 : 0;
  packFields(fmt, s, ef, sh, sl, out);
  out[2] = flags;
  return flags;
}
