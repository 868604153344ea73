/**
 * The datapath against a test-side exact reference: operands are decoded to exact rationals
 * (BigInt significand x power of two), the exact sum or product is formed, and the result is
 * rounded by the definitions of docs/alu.md, literally: nearest-even, toward zero / -inf / +inf,
 * and stochastic rounding with q = floor(f x 256) and u, including subnormals, overflow and the
 * underflow flag (tiny after rounding with an unbounded exponent, and inexact). This covers
 * bfloat16 and stochastic rounding, which TestFloat does not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, F16, F32, F64, type FpFormat, fpAdd, fpMul, RM_RDN, RM_RNE, RM_RTZ, RM_RUP, RM_SR } from '../../../rtl/sharp/alu/fp/index.ts';
import { FLAG_INEXACT, FLAG_OVERFLOW, FLAG_UNDERFLOW } from '../../../rtl/sharp/alu/types.ts';

interface Exact {
  neg: boolean;
  /** magnitude = m * 2^k */
  m: bigint;
  k: number;
}

function bits(fmt: FpFormat, hi: number, lo: number): bigint {
  return fmt.W > 32 ? (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0) : BigInt(lo >>> 0);
}

/** Finite operand as an exact rational; null for infinities and NaNs. */
function decode(fmt: FpFormat, v: bigint): Exact | null {
  const F = BigInt(fmt.F);
  const e = Number((v >> F) & BigInt(fmt.eAll));
  const frac = v & ((1n << F) - 1n);
  const neg = ((v >> BigInt(fmt.W - 1)) & 1n) === 1n;
  if (e === fmt.eAll) return null;
  if (e === 0) return { neg, m: frac, k: 1 - fmt.bias - fmt.F };
  return { neg, m: frac | (1n << F), k: e - fmt.bias - fmt.F };
}

function exactAdd(a: Exact, b: Exact): Exact {
  const k = Math.min(a.k, b.k);
  const x = (a.neg ? -a.m : a.m) << BigInt(a.k - k);
  const y = (b.neg ? -b.m : b.m) << BigInt(b.k - k);
  const s = x + y;
  return { neg: s < 0n, m: s < 0n ? -s : s, k };
}
function exactMul(a: Exact, b: Exact): Exact {
  return { neg: a.neg !== b.neg, m: a.m * b.m, k: a.k + b.k };
}

function bitLength(m: bigint): number {
  return m.toString(2).length;
}

/** Rounds m * 2^k to F+1 bits at ulp exponent ulpExp; returns the rounded integer multiple and inexactness. */
function roundAt(x: Exact, ulpExp: number, rm: number, u: number): { n: bigint; inexact: boolean } {
  const d = ulpExp - x.k;
  if (d <= 0) return { n: x.m << BigInt(-d), inexact: false };
  const D = BigInt(d);
  const n = x.m >> D;
  const rem = x.m & ((1n << D) - 1n);
  if (rem === 0n) return { n, inexact: false };
  let up: boolean;
  switch (rm) {
    case RM_RNE:
      up = 2n * rem > 1n << D || (2n * rem === 1n << D && (n & 1n) === 1n);
      break;
    case RM_RTZ:
      up = false;
      break;
    case RM_RDN:
      up = x.neg;
      break;
    case RM_RUP:
      up = !x.neg;
      break;
    default: {
      const q = (rem << 8n) >> D; // floor(f * 256)
      up = Number(q) + u >= 256;
    }
  }
  return { n: up ? n + 1n : n, inexact: true };
}

/** Reference result encoding and flags for a finite nonzero exact value. */
function roundRef(fmt: FpFormat, x: Exact, rm: number, u: number): { v: bigint; flags: number } {
  const F = fmt.F;
  const emin = 1 - fmt.bias;
  const emax = fmt.bias;
  const e = bitLength(x.m) - 1 + x.k; // |x| in [2^e, 2^(e+1))
  const sign = x.neg ? 1n << BigInt(fmt.W - 1) : 0n;
  // tiny after rounding: rounded to F+1 bits with an unbounded exponent, below 2^emin
  const full = roundAt(x, e - F, rm, u);
  const fullExp = bitLength(full.n) - 1 + (e - F);
  const tiny = fullExp < emin;
  const ulpExp = Math.max(e, emin) - F;
  const r = roundAt(x, ulpExp, rm, u);
  let flags = r.inexact ? FLAG_INEXACT : 0;
  let n = r.n;
  let q = ulpExp;
  if (n === 1n << BigInt(F + 1)) {
    n >>= 1n;
    q++;
  }
  const resExp = n === 0n ? -Infinity : bitLength(n) - 1 + q;
  if (resExp > emax) {
    const toInf = rm === RM_RTZ ? false : rm === RM_RDN ? x.neg : rm === RM_RUP ? !x.neg : true;
    flags = FLAG_OVERFLOW | FLAG_INEXACT;
    const infBits = BigInt(fmt.eAll) << BigInt(F);
    return { v: sign | (toInf ? infBits : infBits - 1n), flags };
  }
  if (tiny && r.inexact) flags |= FLAG_UNDERFLOW;
  let field: bigint;
  if (n < 1n << BigInt(F)) field = n; // subnormal (q == emin - F) or zero
  else field = (BigInt(q + F + fmt.bias) << BigInt(F)) | (n - (1n << BigInt(F)));
  return { v: sign | field, flags };
}

function encArb(fmt: FpFormat): fc.Arbitrary<bigint> {
  const W = fmt.W;
  const F = fmt.F;
  const E = fmt.E;
  const field = (s: number, e: number, f: bigint) => (BigInt(s) << BigInt(W - 1)) | (BigInt(e) << BigInt(F)) | f;
  const frac = fc.bigInt({ min: 0n, max: (1n << BigInt(F)) - 1n });
  const sign = fc.integer({ min: 0, max: 1 });
  return fc.oneof(
    fc.bigInt({ min: 0n, max: (1n << BigInt(W)) - 1n }),
    fc.tuple(sign, fc.integer({ min: fmt.bias - 4, max: fmt.bias + 4 }), frac).map(([s, e, f]) => field(s, e, f)),
    fc.tuple(sign, fc.constantFrom(0, 1, 2, (fmt.bias >> 1) + 1, fmt.bias >> 1, (1 << E) - 2, (1 << E) - 3), frac).map(([s, e, f]) => field(s, e, f)),
    // few significant bits: many exact and tie cases
    fc.tuple(sign, fc.integer({ min: 1, max: (1 << E) - 2 }), fc.integer({ min: 0, max: 7 })).map(([s, e, t]) => field(s, e, BigInt(t) << BigInt(Math.max(0, F - 3)))),
  );
}

const out = new Uint32Array(3);

describe('add and multiply against an exact rational reference', () => {
  for (const fmt of [BF16, F16, F32, F64]) {
    for (const kind of ['add', 'mul'] as const) {
      it(`${fmt.name} ${kind}: rne, rtz, rdn, rup and sr (every u) match the definitions bit for bit`, () => {
        fc.assert(
          fc.property(encArb(fmt), encArb(fmt), fc.constantFrom(RM_RNE, RM_RTZ, RM_RDN, RM_RUP, RM_SR), fc.integer({ min: 0, max: 255 }), (a, b, rm, u) => {
            const x = decode(fmt, a);
            const y = decode(fmt, b);
            if (x === null || y === null) return; // specials: covered by TestFloat and the NaN tests
            const exact = kind === 'add' ? exactAdd(x, y) : exactMul(x, y);
            if (exact.m === 0n) return; // signed zeros: covered in fp-bf16.test.ts
            const want = roundRef(fmt, exact, rm, u);
            const split = (v: bigint): [number, number] => [Number(v >> 32n), Number(v & 0xffffffffn)];
            const [aHi, aLo] = split(a);
            const [bHi, bLo] = split(b);
            const flags = (kind === 'add' ? fpAdd : fpMul)(fmt, aHi, aLo, bHi, bLo, rm, u, out);
            const got = bits(fmt, out[0]!, out[1]!);
            if (got !== want.v || flags !== want.flags) {
              throw new Error(`${fmt.name} ${kind} ${a.toString(16)} ${b.toString(16)} rm=${rm} u=${u}: got ${got.toString(16)} flags ${flags}, want ${want.v.toString(16)} flags ${want.flags}`);
            }
          }),
          { numRuns: 10000, seed: fmt.W * 3 + (kind === 'add' ? 0 : 1) },
        );
      });
    }
  }
});
