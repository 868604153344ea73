/**
 * Floating-point format descriptors and datapath mode codes for the SHArP ALU's bit-level
 * IEEE arithmetic (see fp/index.ts for the API and docs/alu.md for the semantics).
 *
 * Hardware view: one datapath serves all four formats; a descriptor is the set of static
 * constants (field widths, masks, bit positions) that would be wired into that datapath for a
 * given format. Values travel as a (hi, lo) pair of 32-bit words:
 *   - encoded values: binary64 uses both words; binary32/binary16/bfloat16 use `lo` only (hi = 0);
 *   - working significands: a 64-bit pair with the unit in the last place (ulp) at bit G = 10, so
 *     a normalized significand has its leading bit at bit F + 10 and bits 9..0 are guard bits
 *     (bits 9..2 are exact, bits 1..0 are sticky; see round.ts).
 */

/** Number of guard bits below the ulp of a working significand. */
export const GUARD_BITS = 10;

/** Rounding mode codes (bits 2..0 of a datapath mode word). */
export const RM_RNE = 0;
export const RM_RTZ = 1;
export const RM_RDN = 2;
export const RM_RUP = 3;
export const RM_SR = 4;
/** Mode bit 3: flush-to-zero and denormals-are-zero. */
export const MODE_FTZ = 8;

export const ROUNDING_CODES: Readonly<Record<'rne' | 'rtz' | 'rdn' | 'rup' | 'sr', number>> = {
  rne: RM_RNE,
  rtz: RM_RTZ,
  rdn: RM_RDN,
  rup: RM_RUP,
  sr: RM_SR,
};

/** A datapath mode word from a rounding name and the ftz switch. */
export function modeWord(rounding: 'rne' | 'rtz' | 'rdn' | 'rup' | 'sr', ftz: boolean): number {
  const rm = ROUNDING_CODES[rounding];
  if (rm === undefined) throw new RangeError(`unknown rounding mode '${String(rounding)}'`);
  return rm | (ftz ? MODE_FTZ : 0);
}

export type FpName = 'f16' | 'bf16' | 'f32' | 'f64';

export interface FpFormat {
  readonly name: FpName;
  /** exponent bits */
  readonly E: number;
  /** fraction bits (without the implicit bit) */
  readonly F: number;
  /** total encoding width in bits */
  readonly W: number;
  /** exponent bias */
  readonly bias: number;
  /** all-ones exponent field (infinity / NaN) */
  readonly eAll: number;
  /** fraction field masks inside the encoded (hi, lo) words */
  readonly fHiMask: number;
  readonly fLoMask: number;
  /** quiet bit (top fraction bit) inside the encoded words */
  readonly qHi: number;
  readonly qLo: number;
  /** implicit bit (bit F) of a significand pair */
  readonly implHi: number;
  readonly implLo: number;
  /** bit F+1 of a significand pair (carry out of a rounded significand) */
  readonly ovHi: number;
  readonly ovLo: number;
  /** bit F+10: leading bit of a normalized working significand */
  readonly topHi: number;
  readonly topLo: number;
  /** bit F+11: carry out of a working-significand addition */
  readonly carHi: number;
  readonly carLo: number;
  /** 2^(F+1) - 1 as a pair: a rounded significand of all ones */
  readonly onesHi: number;
  readonly onesLo: number;
  /** canonical quiet NaN encoding */
  readonly nanHi: number;
  readonly nanLo: number;
  /** bytes of one encoded value */
  readonly bytes: number;
}

function bitHi(p: number): number {
  return p >= 32 ? 1 << (p - 32) : 0;
}
function bitLo(p: number): number {
  return p < 32 ? 1 << p : 0;
}
/** Mask of bits [0, p) of a pair: high word part. */
function maskHi(p: number): number {
  return p > 32 ? (p - 32 >= 32 ? -1 : (1 << (p - 32)) - 1) : 0;
}
function maskLo(p: number): number {
  return p >= 32 ? -1 : (1 << p) - 1;
}

function makeFormat(name: FpName, E: number, F: number): FpFormat {
  const W = 1 + E + F;
  const eAll = (1 << E) - 1;
  // Canonical NaN: sign 0, exponent all ones, quiet bit set, rest 0.
  const nanHi = W > 32 ? (eAll << (F - 32)) | (1 << (F - 33)) : 0;
  const nanLo = W > 32 ? 0 : (eAll << F) | (1 << (F - 1));
  return Object.freeze({
    name,
    E,
    F,
    W,
    bias: (1 << (E - 1)) - 1,
    eAll,
    fHiMask: maskHi(F) | 0,
    fLoMask: maskLo(F) | 0,
    qHi: bitHi(F - 1),
    qLo: bitLo(F - 1),
    implHi: bitHi(F),
    implLo: bitLo(F),
    ovHi: bitHi(F + 1),
    ovLo: bitLo(F + 1),
    topHi: bitHi(F + GUARD_BITS),
    topLo: bitLo(F + GUARD_BITS),
    carHi: bitHi(F + GUARD_BITS + 1),
    carLo: bitLo(F + GUARD_BITS + 1),
    onesHi: maskHi(F + 1) | 0,
    onesLo: maskLo(F + 1) | 0,
    nanHi: nanHi | 0,
    nanLo: nanLo | 0,
    bytes: W / 8,
  });
}

export const F16: FpFormat = makeFormat('f16', 5, 10);
export const BF16: FpFormat = makeFormat('bf16', 8, 7);
export const F32: FpFormat = makeFormat('f32', 8, 23);
export const F64: FpFormat = makeFormat('f64', 11, 52);

export const FORMATS: Readonly<Record<FpName, FpFormat>> = { f16: F16, bf16: BF16, f32: F32, f64: F64 };

export function formatOf(name: string): FpFormat {
  const f = (FORMATS as Record<string, FpFormat | undefined>)[name];
  if (!f) throw new RangeError(`'${name}' is not a floating-point type (one of f16 bf16 f32 f64)`);
  return f;
}
