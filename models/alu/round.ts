/**
 * Golden model of the SHArP ALU: the one rounding of an exact value to a destination format
 * (docs/alu.md, "Floats" and "Stochastic rounding").
 *
 * Every float operation of the golden model computes its exact result as sign x m x 2^e (BigInt m)
 * and calls roundExact once. The rounding works on integer significands only:
 *   - the quantum (weight of the last kept bit) is 2^(max(lead, emin) - fracBits), lead being the
 *     exponent of the leading bit of m x 2^e; subnormals fall out of the max().
 *   - the discarded bits R below the quantum decide the direction per mode; for `sr`,
 *     q = floor(R / 2^shift x 2^8) and the magnitude goes up when q + u >= 2^8.
 *   - tininess is judged after rounding: the value is rounded a second time with an unbounded
 *     exponent range (quantum 2^(lead - fracBits)) and compared with 2^emin.
 */
import { FLAG_INEXACT, FLAG_OVERFLOW, FLAG_UNDERFLOW, SR_BITS, type Rounding } from '../../rtl/sharp/alu/types.ts';
import { bitLength, type FloatFormat, infBits, zeroBits } from './formats.ts';

export interface RoundOptions {
  /** flush-to-zero: a result tiny after rounding becomes a zero of its sign (underflow + inexact) */
  ftz?: boolean;
  /** the 8-bit stochastic-rounding draw; required when the mode is `sr` */
  u?: number;
}

export interface RoundResult {
  bits: bigint;
  flags: number;
}

const SR_ONE = 1n << BigInt(SR_BITS);

/**
 * Rounds m x 2^e (m > 0) to an integer multiple n of 2^quantumExp. Returns n and whether the
 * discarded part was nonzero.
 */
function roundToQuantum(m: bigint, e: number, quantumExp: number, sign: 0 | 1, mode: Rounding, u: bigint): { n: bigint; inexact: boolean } {
  const shift = quantumExp - e;
  if (shift <= 0) return { n: m << BigInt(-shift), inexact: false };
  const s = BigInt(shift);
  const n = m >> s;
  const rest = m - (n << s);
  if (rest === 0n) return { n, inexact: false };
  let up: boolean;
  switch (mode) {
    case 'rne': {
      const half = 1n << (s - 1n);
      up = rest > half || (rest === half && (n & 1n) === 1n);
      break;
    }
    case 'rtz':
      up = false;
      break;
    case 'rdn':
      up = sign === 1;
      break;
    case 'rup':
      up = sign === 0;
      break;
    case 'sr': {
      // q = floor(rest / 2^shift x 2^SR_BITS): the first SR_BITS bits of the discarded fraction
      const q = shift >= SR_BITS ? rest >> BigInt(shift - SR_BITS) : rest << BigInt(SR_BITS - shift);
      up = q + u >= SR_ONE;
      break;
    }
    default:
      throw new RangeError(`unknown rounding mode '${String(mode)}'`);
  }
  return { n: up ? n + 1n : n, inexact: true };
}

export function checkRounding(mode: Rounding, u: number | undefined): bigint {
  if (mode !== 'rne' && mode !== 'rtz' && mode !== 'rdn' && mode !== 'rup' && mode !== 'sr') {
    throw new RangeError(`unknown rounding mode '${String(mode)}' (one of rne rtz rdn rup sr)`);
  }
  if (mode !== 'sr') return 0n;
  if (u === undefined || !Number.isInteger(u) || u < 0 || u >= 1 << SR_BITS) {
    throw new RangeError(`stochastic rounding needs an ${SR_BITS}-bit draw u in 0..${(1 << SR_BITS) - 1}, got ${String(u)}`);
  }
  return BigInt(u);
}

/**
 * Rounds the exact nonzero value (-1)^sign x m x 2^e once to `fmt` in `mode`. Flags: inexact,
 * overflow (+ inexact), underflow (tiny after rounding and inexact); in ftz mode a tiny result is
 * replaced by a zero of its sign with underflow + inexact.
 */
export function roundExact(fmt: FloatFormat, sign: 0 | 1, m: bigint, e: number, mode: Rounding, opts: RoundOptions = {}): RoundResult {
  if (m <= 0n) throw new RangeError(`roundExact: significand must be positive, got ${m}`);
  const u = checkRounding(mode, opts.u);
  const f = fmt.fracBits;
  const lead = e + bitLength(m) - 1;

  // Tininess after rounding: round to p bits with an unbounded exponent range.
  let tiny = false;
  if (lead < fmt.emin) {
    const unb = roundToQuantum(m, e, lead - f, sign, mode, u);
    const unbLead = unb.n >> BigInt(f + 1) !== 0n ? lead + 1 : lead;
    tiny = unb.n !== 0n && unbLead < fmt.emin;
    // (unb.n is never 0: m x 2^e has its leading bit at weight 2^lead >= the quantum)
  }
  if (tiny && opts.ftz) return { bits: zeroBits(fmt, sign), flags: FLAG_UNDERFLOW | FLAG_INEXACT };

  let quantumExp = Math.max(lead, fmt.emin) - f;
  let { n, inexact } = roundToQuantum(m, e, quantumExp, sign, mode, u);
  if (n >> BigInt(f + 1) !== 0n) {
    // carried out to 2^p: renormalise
    n >>= 1n;
    quantumExp += 1;
  }
  const signBits = sign ? fmt.signBit : 0n;
  if (quantumExp + f > fmt.emax) {
    const toInf = mode === 'rne' || mode === 'sr' || (mode === 'rup' && sign === 0) || (mode === 'rdn' && sign === 1);
    return { bits: toInf ? infBits(fmt, sign) : signBits | fmt.maxFinite, flags: FLAG_OVERFLOW | FLAG_INEXACT };
  }
  let bits: bigint;
  if (n >= fmt.hidden) {
    const expField = BigInt(quantumExp + f + fmt.bias);
    bits = signBits | (expField << BigInt(f)) | (n - fmt.hidden);
  } else {
    bits = signBits | n; // subnormal or zero, exponent field 0
  }
  let flags = inexact ? FLAG_INEXACT : 0;
  if (tiny && inexact) flags |= FLAG_UNDERFLOW;
  return { bits, flags };
}
