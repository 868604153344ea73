/**
 * Golden model of the SHArP ALU: the four floating-point formats and the exact reading of a
 * bit pattern (docs/alu.md, "Floats").
 *
 * A finite nonzero value is held exactly as sign x M x 2^E with a BigInt significand M > 0 and an
 * integer exponent E; nothing is ever rounded here. Independent of the RTL datapath: only names
 * and constants come from rtl/sharp/alu/types.ts.
 */

export type FloatFormatName = 'f16' | 'bf16' | 'f32' | 'f64';

export interface FloatFormat {
  readonly name: FloatFormatName;
  /** total width in bits */
  readonly width: number;
  /** exponent field width */
  readonly expBits: number;
  /** stored fraction bits (precision p = fracBits + 1) */
  readonly fracBits: number;
  readonly bias: number;
  /** exponent of the smallest normal, 1 - bias */
  readonly emin: number;
  /** exponent of the largest finite binade, = bias */
  readonly emax: number;
  /** all-ones exponent field */
  readonly expMask: bigint;
  readonly fracMask: bigint;
  /** 2^fracBits: the hidden bit */
  readonly hidden: bigint;
  /** the canonical quiet NaN: sign 0, exponent all ones, top fraction bit only */
  readonly canonicalNaN: bigint;
  readonly maxFinite: bigint;
  readonly posInf: bigint;
  readonly signBit: bigint;
}

function makeFormat(name: FloatFormatName, expBits: number, fracBits: number): FloatFormat {
  const width = 1 + expBits + fracBits;
  const bias = (1 << (expBits - 1)) - 1;
  const expMask = (1n << BigInt(expBits)) - 1n;
  const fracMask = (1n << BigInt(fracBits)) - 1n;
  const f = BigInt(fracBits);
  return {
    name,
    width,
    expBits,
    fracBits,
    bias,
    emin: 1 - bias,
    emax: bias,
    expMask,
    fracMask,
    hidden: 1n << f,
    canonicalNaN: (expMask << f) | (1n << (f - 1n)),
    maxFinite: ((expMask - 1n) << f) | fracMask,
    posInf: expMask << f,
    signBit: 1n << BigInt(width - 1),
  };
}

export const FORMATS: Readonly<Record<FloatFormatName, FloatFormat>> = {
  f16: makeFormat('f16', 5, 10),
  bf16: makeFormat('bf16', 8, 7),
  f32: makeFormat('f32', 8, 23),
  f64: makeFormat('f64', 11, 52),
};

export function isFloatFormatName(s: unknown): s is FloatFormatName {
  return s === 'f16' || s === 'bf16' || s === 'f32' || s === 'f64';
}

export function formatOf(name: FloatFormatName): FloatFormat {
  const fmt = isFloatFormatName(name) ? FORMATS[name] : undefined;
  if (!fmt) throw new RangeError(`unknown float format '${String(name)}' (one of f16 bf16 f32 f64)`);
  return fmt;
}

/** The exact meaning of one bit pattern. */
export type FloatValue =
  | { kind: 'nan'; sign: 0 | 1; signalling: boolean }
  | { kind: 'inf'; sign: 0 | 1 }
  | { kind: 'zero'; sign: 0 | 1 }
  /** value = (-1)^sign x m x 2^e, m > 0 */
  | { kind: 'finite'; sign: 0 | 1; m: bigint; e: number };

/** Throws unless `bits` is a bit pattern of the format's width. */
export function checkBits(fmt: FloatFormat, bits: bigint, what: string): void {
  if (typeof bits !== 'bigint' || bits < 0n || bits >> BigInt(fmt.width) !== 0n) {
    throw new RangeError(`${what}: ${String(bits)} is not a ${fmt.width}-bit ${fmt.name} bit pattern`);
  }
}

/**
 * Reads a bit pattern. With `daz` (the ALU's ftz mode) a subnormal is read as a zero of the same
 * sign; no flag is raised by that.
 */
export function decodeFloat(fmt: FloatFormat, bits: bigint, daz = false): FloatValue {
  const f = BigInt(fmt.fracBits);
  const sign: 0 | 1 = bits & fmt.signBit ? 1 : 0;
  const expField = (bits >> f) & fmt.expMask;
  const frac = bits & fmt.fracMask;
  if (expField === fmt.expMask) {
    if (frac === 0n) return { kind: 'inf', sign };
    return { kind: 'nan', sign, signalling: ((frac >> (f - 1n)) & 1n) === 0n };
  }
  if (expField === 0n) {
    if (frac === 0n || daz) return { kind: 'zero', sign };
    return { kind: 'finite', sign, m: frac, e: fmt.emin - fmt.fracBits };
  }
  return { kind: 'finite', sign, m: frac | fmt.hidden, e: Number(expField) - fmt.bias - fmt.fracBits };
}

export function isNaNBits(fmt: FloatFormat, bits: bigint): boolean {
  const f = BigInt(fmt.fracBits);
  return ((bits >> f) & fmt.expMask) === fmt.expMask && (bits & fmt.fracMask) !== 0n;
}

export function isSignallingNaNBits(fmt: FloatFormat, bits: bigint): boolean {
  return isNaNBits(fmt, bits) && ((bits >> BigInt(fmt.fracBits - 1)) & 1n) === 0n;
}

export function zeroBits(fmt: FloatFormat, sign: 0 | 1): bigint {
  return sign ? fmt.signBit : 0n;
}

export function infBits(fmt: FloatFormat, sign: 0 | 1): bigint {
  return sign ? fmt.signBit | fmt.posInf : fmt.posInf;
}

/** Number of significant bits of m > 0. */
export function bitLength(m: bigint): number {
  const hex = m.toString(16);
  const top = parseInt(hex[0] as string, 16);
  return (hex.length - 1) * 4 + (top >= 8 ? 4 : top >= 4 ? 3 : top >= 2 ? 2 : 1);
}
