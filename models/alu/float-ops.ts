/**
 * Golden model of the SHArP ALU: the element operations on floats (docs/alu.md, "Floats").
 *
 * add/mul compute the exact sum or product of the decoded operands with BigInt significands and
 * round once (round.ts). minimum/maximum and the minloc/maxloc combine compare exact values.
 * NaN handling: every NaN result is the canonical quiet NaN; invalid for a signalling NaN operand,
 * inf - inf and 0 x inf. In ftz mode subnormal operands are read as zeros of their sign.
 */
import { FLAG_INVALID, type Rounding } from '../../rtl/sharp/alu/types.ts';
import { checkBits, decodeFloat, type FloatFormatName, type FloatValue, formatOf, infBits, zeroBits, type FloatFormat } from './formats.ts';
import { checkRounding, roundExact, type RoundOptions, type RoundResult } from './round.ts';

export type FloatOptions = RoundOptions;

function nanResult(fmt: FloatFormat, x: FloatValue, y: FloatValue): RoundResult {
  const signalling = (x.kind === 'nan' && x.signalling) || (y.kind === 'nan' && y.signalling);
  return { bits: fmt.canonicalNaN, flags: signalling ? FLAG_INVALID : 0 };
}

/** A decoded non-NaN value back to its bit pattern (finite values come straight from a pattern, so this is exact). */
function encodeRead(fmt: FloatFormat, v: FloatValue): bigint {
  switch (v.kind) {
    case 'zero':
      return zeroBits(fmt, v.sign);
    case 'inf':
      return infBits(fmt, v.sign);
    case 'nan':
      return fmt.canonicalNaN;
    case 'finite': {
      const r = roundExact(fmt, v.sign, v.m, v.e, 'rne');
      if (r.flags !== 0) throw new Error(`internal: re-encoding a ${fmt.name} value was inexact`);
      return r.bits;
    }
  }
}

/** IEEE addition of two bit patterns, correctly rounded once. */
function add(fmt: FloatFormat, a: bigint, b: bigint, mode: Rounding, opts: FloatOptions): RoundResult {
  const x = decodeFloat(fmt, a, opts.ftz === true);
  const y = decodeFloat(fmt, b, opts.ftz === true);
  if (x.kind === 'nan' || y.kind === 'nan') return nanResult(fmt, x, y);
  if (x.kind === 'inf' && y.kind === 'inf') {
    return x.sign === y.sign ? { bits: infBits(fmt, x.sign), flags: 0 } : { bits: fmt.canonicalNaN, flags: FLAG_INVALID };
  }
  if (x.kind === 'inf' || y.kind === 'inf') return { bits: infBits(fmt, x.kind === 'inf' ? x.sign : y.sign), flags: 0 };
  // exact zero sum: (+0)+(+0)=+0, (-0)+(-0)=-0, otherwise +0 except -0 when rounding toward -inf
  const zeroSign = (sx: 0 | 1, sy: 0 | 1): 0 | 1 => (sx === sy ? sx : mode === 'rdn' ? 1 : 0);
  if (x.kind === 'zero') {
    if (y.kind === 'zero') return { bits: zeroBits(fmt, zeroSign(x.sign, y.sign)), flags: 0 };
    return roundExact(fmt, y.sign, y.m, y.e, mode, opts); // 0 + y = y (representable: no flags)
  }
  if (y.kind === 'zero') return roundExact(fmt, x.sign, x.m, x.e, mode, opts);
  const e = Math.min(x.e, y.e);
  const sx = (x.sign ? -x.m : x.m) << BigInt(x.e - e);
  const sy = (y.sign ? -y.m : y.m) << BigInt(y.e - e);
  const sum = sx + sy;
  if (sum === 0n) return { bits: zeroBits(fmt, zeroSign(x.sign, y.sign)), flags: 0 };
  return sum < 0n ? roundExact(fmt, 1, -sum, e, mode, opts) : roundExact(fmt, 0, sum, e, mode, opts);
}

/** IEEE multiplication of two bit patterns, correctly rounded once. */
function mul(fmt: FloatFormat, a: bigint, b: bigint, mode: Rounding, opts: FloatOptions): RoundResult {
  const x = decodeFloat(fmt, a, opts.ftz === true);
  const y = decodeFloat(fmt, b, opts.ftz === true);
  if (x.kind === 'nan' || y.kind === 'nan') return nanResult(fmt, x, y);
  const sign: 0 | 1 = x.sign === y.sign ? 0 : 1;
  if ((x.kind === 'inf' && y.kind === 'zero') || (x.kind === 'zero' && y.kind === 'inf')) return { bits: fmt.canonicalNaN, flags: FLAG_INVALID };
  if (x.kind === 'inf' || y.kind === 'inf') return { bits: infBits(fmt, sign), flags: 0 };
  if (x.kind === 'zero' || y.kind === 'zero') return { bits: zeroBits(fmt, sign), flags: 0 };
  return roundExact(fmt, sign, x.m * y.m, x.e + y.e, mode, opts);
}

/**
 * Scalar IEEE add or multiply of two `format` bit patterns in `rounding` (the TestFloat entry
 * point). `opts.ftz` selects flush-to-zero/denormals-are-zero; `opts.u` is the 8-bit draw for `sr`.
 */
export function goldenBinary(format: FloatFormatName, op: 'add' | 'mul', aBits: bigint, bBits: bigint, rounding: Rounding, opts: FloatOptions = {}): RoundResult {
  const fmt = formatOf(format);
  checkBits(fmt, aBits, `goldenBinary ${format} operand a`);
  checkBits(fmt, bBits, `goldenBinary ${format} operand b`);
  checkRounding(rounding, opts.u);
  if (op === 'add') return add(fmt, aBits, bBits, rounding, opts);
  if (op === 'mul') return mul(fmt, aBits, bBits, rounding, opts);
  throw new RangeError(`goldenBinary: unknown operation '${String(op)}' (add or mul)`);
}

/** Exact order of two non-NaN values with -0 < +0: negative, zero or positive. */
export function compareFloat(x: FloatValue, y: FloatValue): number {
  if (x.kind === 'nan' || y.kind === 'nan') throw new Error('internal: compareFloat on a NaN');
  // rank: -inf < negative finite < -0 < +0 < positive finite < +inf
  const rank = (v: FloatValue): number =>
    v.kind === 'inf' ? (v.sign ? 0 : 5) : v.kind === 'zero' ? (v.sign ? 2 : 3) : v.kind === 'finite' ? (v.sign ? 1 : 4) : -1;
  const rx = rank(x);
  const ry = rank(y);
  if (rx !== ry) return rx - ry;
  if (x.kind !== 'finite' || y.kind !== 'finite') return 0;
  const e = Math.min(x.e, y.e);
  const mx = x.m << BigInt(x.e - e);
  const my = y.m << BigInt(y.e - e);
  const mag = mx < my ? -1 : mx > my ? 1 : 0;
  return x.sign ? -mag : mag;
}

/**
 * IEEE 754-2019 minimum/maximum: a NaN operand gives the canonical NaN (invalid when signalling);
 * -0 < +0. Never inexact.
 */
export function goldenMinMax(format: FloatFormatName, op: 'min' | 'max', aBits: bigint, bBits: bigint, opts: { ftz?: boolean } = {}): RoundResult {
  const fmt = formatOf(format);
  checkBits(fmt, aBits, `goldenMinMax ${format} operand a`);
  checkBits(fmt, bBits, `goldenMinMax ${format} operand b`);
  if (op !== 'min' && op !== 'max') throw new RangeError(`goldenMinMax: unknown operation '${String(op)}' (min or max)`);
  const x = decodeFloat(fmt, aBits, opts.ftz === true);
  const y = decodeFloat(fmt, bBits, opts.ftz === true);
  if (x.kind === 'nan' || y.kind === 'nan') return nanResult(fmt, x, y);
  const c = compareFloat(x, y);
  const pickX = op === 'min' ? c <= 0 : c >= 0;
  return { bits: encodeRead(fmt, pickX ? x : y), flags: 0 };
}

export interface LocPair {
  /** value bit pattern */
  value: bigint;
  /** index as a number of its index type (already sign-interpreted) */
  index: bigint;
}

/**
 * The minloc/maxloc combine on floats: a NaN wins over any number, the smaller index among NaNs;
 * -0 < +0; equal values keep the smaller index. A NaN result value is the canonical NaN; invalid
 * when a compared value is a signalling NaN.
 */
export function goldenFloatLoc(format: FloatFormatName, op: 'minloc' | 'maxloc', a: LocPair, b: LocPair, opts: { ftz?: boolean } = {}): LocPair & { flags: number } {
  const fmt = formatOf(format);
  checkBits(fmt, a.value, `goldenFloatLoc ${format} value a`);
  checkBits(fmt, b.value, `goldenFloatLoc ${format} value b`);
  if (op !== 'minloc' && op !== 'maxloc') throw new RangeError(`goldenFloatLoc: unknown operation '${String(op)}' (minloc or maxloc)`);
  const x = decodeFloat(fmt, a.value, opts.ftz === true);
  const y = decodeFloat(fmt, b.value, opts.ftz === true);
  const flags = (x.kind === 'nan' && x.signalling) || (y.kind === 'nan' && y.signalling) ? FLAG_INVALID : 0;
  const smallerIndex = a.index <= b.index ? a.index : b.index;
  if (x.kind === 'nan' && y.kind === 'nan') return { value: fmt.canonicalNaN, index: smallerIndex, flags };
  if (x.kind === 'nan') return { value: fmt.canonicalNaN, index: a.index, flags };
  if (y.kind === 'nan') return { value: fmt.canonicalNaN, index: b.index, flags };
  const c = compareFloat(x, y);
  if (c === 0) return { value: encodeRead(fmt, x), index: smallerIndex, flags };
  const xWins = op === 'minloc' ? c < 0 : c > 0;
  return xWins ? { value: encodeRead(fmt, x), index: a.index, flags } : { value: encodeRead(fmt, y), index: b.index, flags };
}

/**
 * Conversion between float formats, rounded once (widening is exact). NaN -> canonical NaN of the
 * destination (invalid when signalling). Used for wide accumulation: f16/bf16 -> f32 and back.
 */
export function goldenConvert(from: FloatFormatName, to: FloatFormatName, bits: bigint, rounding: Rounding, opts: FloatOptions = {}): RoundResult {
  const src = formatOf(from);
  const dst = formatOf(to);
  checkBits(src, bits, `goldenConvert ${from} operand`);
  checkRounding(rounding, opts.u);
  const x = decodeFloat(src, bits, opts.ftz === true);
  switch (x.kind) {
    case 'nan':
      return { bits: dst.canonicalNaN, flags: x.signalling ? FLAG_INVALID : 0 };
    case 'inf':
      return { bits: infBits(dst, x.sign), flags: 0 };
    case 'zero':
      return { bits: zeroBits(dst, x.sign), flags: 0 };
    case 'finite':
      return roundExact(dst, x.sign, x.m, x.e, rounding, opts);
  }
}
