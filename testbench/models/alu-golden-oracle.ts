/**
 * Test-side oracles for the golden ALU model, written a different way from the model:
 *   - bit patterns <-> JS numbers through DataView (f32, f64) and the textbook formula (f16, bf16);
 *   - rounding of an exactly known value (a JS number) to f16/bf16 by binary search in the
 *     ascending table of all non-negative finite values (bit patterns 0..maxFinite are ascending,
 *     and the pattern after maxFinite, infinity, stands for 2^(emax+1)); the direction, the sr
 *     decision q + u >= 2^8 and the flags are taken from the definitions in docs/alu.md.
 * The model rounds with BigInt integer shifts; this oracle never does.
 */
import type { Rounding } from '../../rtl/sharp/alu/types.ts';

export type Fmt = 'f16' | 'bf16' | 'f32' | 'f64';

const SPEC: Record<Fmt, { exp: number; frac: number; width: number }> = {
  f16: { exp: 5, frac: 10, width: 16 },
  bf16: { exp: 8, frac: 7, width: 16 },
  f32: { exp: 8, frac: 23, width: 32 },
  f64: { exp: 11, frac: 52, width: 64 },
};

const dv = new DataView(new ArrayBuffer(8));

export function toNumber(fmt: Fmt, bits: bigint): number {
  if (fmt === 'f64') {
    dv.setBigUint64(0, bits);
    return dv.getFloat64(0);
  }
  if (fmt === 'f32' || fmt === 'bf16') {
    dv.setUint32(0, Number(fmt === 'bf16' ? bits << 16n : bits));
    return dv.getFloat32(0);
  }
  const b = Number(bits);
  const sign = b & 0x8000 ? -1 : 1;
  const e = (b >> 10) & 0x1f;
  const f = b & 0x3ff;
  if (e === 31) return f ? NaN : sign * Infinity;
  if (e === 0) return sign * f * 2 ** -24;
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** JS number -> bit pattern for f32 (must be exactly representable) and f64. */
export function fromNumber(fmt: 'f32' | 'f64', x: number): bigint {
  if (fmt === 'f64') {
    dv.setFloat64(0, x);
    return dv.getBigUint64(0);
  }
  dv.setFloat32(0, x);
  return BigInt(dv.getUint32(0));
}

export function isNaNPattern(fmt: Fmt, bits: bigint): boolean {
  return Number.isNaN(toNumber(fmt, bits));
}

/** A NaN whose quiet bit (top fraction bit) is clear. */
export function isSNaNPattern(fmt: Fmt, bits: bigint): boolean {
  const s = SPEC[fmt];
  return isNaNPattern(fmt, bits) && ((bits >> BigInt(s.frac - 1)) & 1n) === 0n;
}

export function isSubnormalPattern(fmt: Fmt, bits: bigint): boolean {
  const s = SPEC[fmt];
  const expField = (bits >> BigInt(s.frac)) & ((1n << BigInt(s.exp)) - 1n);
  const frac = bits & ((1n << BigInt(s.frac)) - 1n);
  return expField === 0n && frac !== 0n;
}

export function signBit(fmt: Fmt): bigint {
  return 1n << BigInt(SPEC[fmt].width - 1);
}

export function canonicalNaN(fmt: Fmt): bigint {
  const s = SPEC[fmt];
  return (((1n << BigInt(s.exp)) - 1n) << BigInt(s.frac)) | (1n << BigInt(s.frac - 1));
}

/** Value read under denormals-are-zero (ftz): subnormals become zeros of their sign. */
export function dazNumber(fmt: Fmt, bits: bigint, ftz: boolean): number {
  const x = toNumber(fmt, bits);
  if (ftz && isSubnormalPattern(fmt, bits)) return bits & signBit(fmt) ? -0 : 0;
  return x;
}

const tables = new Map<Fmt, Float64Array>();

/** table[i] = value of bit pattern i for i = 0..maxFinite, table[maxFinite+1] = 2^(emax+1). */
function tableOf(fmt: 'f16' | 'bf16'): Float64Array {
  let t = tables.get(fmt);
  if (!t) {
    const s = SPEC[fmt];
    const infPattern = ((1 << s.exp) - 1) << s.frac;
    t = new Float64Array(infPattern + 1);
    for (let i = 0; i < infPattern; i++) t[i] = toNumber(fmt, BigInt(i));
    t[infPattern] = 2 ** (1 << (s.exp - 1));
    tables.set(fmt, t);
  }
  return t;
}

/** Largest i with table[i] <= v (v >= 0, v < table[last]). */
function floorIndex(t: Float64Array, v: number): number {
  let lo = 0;
  let hi = t.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((t[mid] as number) <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** Picks lo (false) or hi (true) for |x| strictly between table[lo] and table[lo+1]. */
function roundsUp(t: Float64Array, lo: number, mag: number, negative: boolean, mode: Rounding, u: number): boolean {
  const vlo = t[lo] as number;
  const vhi = t[lo + 1] as number;
  switch (mode) {
    case 'rne': {
      const dl = mag - vlo;
      const dh = vhi - mag;
      return dh < dl || (dh === dl && lo % 2 === 1);
    }
    case 'rtz':
      return false;
    case 'rdn':
      return negative;
    case 'rup':
      return !negative;
    case 'sr': {
      const q = Math.floor(((mag - vlo) / (vhi - vlo)) * 256);
      return q + u >= 256;
    }
  }
}

/**
 * Rounds the exact nonzero finite value x (a JS number holding it exactly) to f16/bf16.
 * Overflow: |x| >= 2^(emax+1), or rounding up to it. Tininess after rounding: |x| rounded to
 * p bits with an unbounded exponent (done by scaling by 2^20 into the normal range) < 2^emin.
 */
export function oracleRound(fmt: 'f16' | 'bf16', x: number, mode: Rounding, u: number, ftz: boolean): { bits: bigint; flags: number } {
  const t = tableOf(fmt);
  const s = SPEC[fmt];
  const negative = x < 0;
  const mag = Math.abs(x);
  const sign = negative ? signBit(fmt) : 0n;
  const infIdx = t.length - 1;
  const emin = 2 - (1 << (s.exp - 1));
  const minNormal = 2 ** emin;
  let tiny = false;
  if (mag < minNormal / 2) tiny = true;
  else if (mag < minNormal) {
    const scaled = mag * 2 ** 20;
    const i = floorIndex(t, scaled);
    const up = (t[i] as number) !== scaled && roundsUp(t, i, scaled, negative, mode, u);
    tiny = (t[up ? i + 1 : i] as number) < minNormal * 2 ** 20;
  }
  if (tiny && ftz) return { bits: sign, flags: 0x03 };
  let idx: number;
  let inexact: boolean;
  if (mag >= (t[infIdx] as number)) {
    idx = mode === 'rtz' || (mode === 'rdn' && !negative) || (mode === 'rup' && negative) ? infIdx - 1 : infIdx;
    return { bits: sign | BigInt(idx), flags: 0x05 };
  }
  const i = floorIndex(t, mag);
  if ((t[i] as number) === mag) {
    idx = i;
    inexact = false;
  } else {
    idx = roundsUp(t, i, mag, negative, mode, u) ? i + 1 : i;
    inexact = true;
  }
  if (idx === infIdx) return { bits: sign | BigInt(idx), flags: 0x05 };
  return { bits: sign | BigInt(idx), flags: (inexact ? 0x01 : 0) | (inexact && tiny ? 0x02 : 0) };
}

/** Knuth's TwoSum: true when a + b is exact in binary64. */
export function sumIsExact(a: number, b: number): boolean {
  const s = a + b;
  if (!Number.isFinite(s)) return false;
  const bb = s - a;
  const err = a - (s - bb) + (b - bb);
  return err === 0;
}

/**
 * add/mul of two f16/bf16 patterns through JS binary64 arithmetic (exact for every f16 sum and
 * product and every bf16 product; a bf16 sum that binary64 cannot hold exactly gives null).
 */
export function oracleBinary(fmt: 'f16' | 'bf16', op: 'add' | 'mul', a: bigint, b: bigint, mode: Rounding, u: number, ftz: boolean): { bits: bigint; flags: number } | null {
  const sb = signBit(fmt);
  const infPattern = BigInt(tableOf(fmt).length - 1);
  if (isNaNPattern(fmt, a) || isNaNPattern(fmt, b)) {
    return { bits: canonicalNaN(fmt), flags: isSNaNPattern(fmt, a) || isSNaNPattern(fmt, b) ? 0x10 : 0 };
  }
  const x = dazNumber(fmt, a, ftz);
  const y = dazNumber(fmt, b, ftz);
  const r = op === 'add' ? x + y : x * y;
  if (Number.isNaN(r)) return { bits: canonicalNaN(fmt), flags: 0x10 };
  if (!Number.isFinite(r)) return { bits: (r < 0 ? sb : 0n) | infPattern, flags: 0 };
  if (r === 0) {
    if (op === 'mul') return { bits: Object.is(r, -0) ? sb : 0n, flags: 0 };
    if (x === 0 && y === 0 && Object.is(x, y)) return { bits: Object.is(x, -0) ? sb : 0n, flags: 0 };
    return { bits: mode === 'rdn' ? sb : 0n, flags: 0 };
  }
  if (op === 'add' && !sumIsExact(x, y)) return null;
  return oracleRound(fmt, r, mode, u, ftz);
}
