/**
 * Golden ALU model, scalar float operations against oracles written another way
 * (alu-golden-oracle.ts: JS binary64 arithmetic, DataView, table search):
 *   - f16 and bf16 add/mul in all five rounding modes (sr with explicit draws), with and without
 *     ftz, flags included (TestFloat has no bf16, no sr and no ftz);
 *   - f32/f64 round-to-nearest against Math.fround / JS arithmetic;
 *   - IEEE 754-2019 minimum/maximum against Math.min/Math.max, minloc/maxloc rules, conversions;
 *   - hand-picked edge cases with their expected bit patterns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goldenBinary, goldenConvert, goldenFloatLoc, goldenMinMax } from '../../models/alu/golden.ts';
import { ROUNDINGS, type Rounding } from '../../rtl/sharp/alu/types.ts';
import {
  canonicalNaN,
  dazNumber,
  type Fmt,
  fromNumber,
  isNaNPattern,
  isSNaNPattern,
  oracleBinary,
  oracleRound,
  toNumber,
} from './alu-golden-oracle.ts';

const WIDTH: Record<Fmt, number> = { f16: 16, bf16: 16, f32: 32, f64: 64 };

/** Bit patterns biased toward the interesting places: zeros, subnormals, extremes, NaNs. */
function patternArb(fmt: Fmt): fc.Arbitrary<bigint> {
  const w = WIDTH[fmt];
  const frac = fmt === 'f16' ? 10 : fmt === 'bf16' ? 7 : fmt === 'f32' ? 23 : 52;
  const expAllOnes = ((1n << BigInt(w - 1 - frac)) - 1n) << BigInt(frac);
  const sign = 1n << BigInt(w - 1);
  const special = [0n, sign, 1n, sign | 1n, expAllOnes, sign | expAllOnes, expAllOnes - 1n, expAllOnes | 1n, canonicalNaN(fmt), 1n << BigInt(frac), (1n << BigInt(frac)) - 1n];
  return fc.oneof(
    { weight: 6, arbitrary: fc.bigInt({ min: 0n, max: (1n << BigInt(w)) - 1n }) },
    { weight: 2, arbitrary: fc.constantFrom(...special) },
    // small exponents: subnormal and near-subnormal results
    { weight: 2, arbitrary: fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: (4n << BigInt(frac)) - 1n })).map(([s, m]) => (s ? sign : 0n) | m) },
  );
}

const uArb = fc.integer({ min: 0, max: 255 });

describe('f16 and bf16 add/mul vs the table oracle', () => {
  for (const fmt of ['f16', 'bf16'] as const) {
    for (const op of ['add', 'mul'] as const) {
      for (const mode of ROUNDINGS) {
        it(`${fmt} ${op} ${mode} (ftz off and on)`, () => {
          let compared = 0;
          fc.assert(
            fc.property(patternArb(fmt), patternArb(fmt), uArb, fc.boolean(), (a, b, u, ftz) => {
              const want = oracleBinary(fmt, op, a, b, mode, u, ftz);
              if (want === null) return; // bf16 sum not exact in binary64
              compared++;
              const got = goldenBinary(fmt, op, a, b, mode, mode === 'sr' ? { u, ftz } : { ftz });
              expect({ bits: got.bits.toString(16), flags: got.flags }).toEqual({ bits: want.bits.toString(16), flags: want.flags });
            }),
            { numRuns: 4000, seed: 0x5a17 + fmt.length * 7 + op.length + mode.charCodeAt(1) },
          );
          expect(compared).toBeGreaterThan(2000);
        });
      }
    }
  }

  it('f16: every product of a fixed operand with all 65536 patterns, four modes', () => {
    for (const mode of ['rne', 'rtz', 'rdn', 'rup'] as const) {
      for (const a of [0x3555n, 0x0201n, 0xb7ffn]) {
        for (let b = 0n; b < 0x10000n; b++) {
          const want = oracleBinary('f16', 'mul', a, b, mode, 0, false);
          const got = goldenBinary('f16', 'mul', a, b, mode);
          if (want === null || got.bits !== want.bits || got.flags !== want.flags) {
            throw new Error(`f16 mul ${mode} ${a.toString(16)} x ${b.toString(16)}: got ${got.bits.toString(16)}/${got.flags}, want ${want?.bits.toString(16)}/${want?.flags}`);
          }
        }
      }
    }
  });
});

describe('f32 and f64 round-to-nearest vs JS arithmetic', () => {
  const finite = (fmt: 'f32' | 'f64') => patternArb(fmt).filter((x) => Number.isFinite(toNumber(fmt, x)));
  it('f32 add/mul = Math.fround of the binary64 result', () => {
    fc.assert(
      fc.property(finite('f32'), finite('f32'), (a, b) => {
        const x = toNumber('f32', a);
        const y = toNumber('f32', b);
        for (const [op, r] of [['add', Math.fround(x + y)], ['mul', Math.fround(x * y)]] as const) {
          const got = goldenBinary('f32', op, a, b, 'rne');
          if (Number.isNaN(r)) expect(isNaNPattern('f32', got.bits)).toBe(true);
          else expect(toNumber('f32', got.bits)).toBe(r);
        }
      }),
      { numRuns: 3000, seed: 32 },
    );
  });
  it('f64 add/mul = JS arithmetic', () => {
    fc.assert(
      fc.property(finite('f64'), finite('f64'), (a, b) => {
        const x = toNumber('f64', a);
        const y = toNumber('f64', b);
        expect(goldenBinary('f64', 'add', a, b, 'rne').bits).toBe(fromNumber('f64', x + y));
        const p = x * y;
        if (!Number.isNaN(p)) expect(goldenBinary('f64', 'mul', a, b, 'rne').bits).toBe(fromNumber('f64', p));
      }),
      { numRuns: 3000, seed: 64 },
    );
  });
});

describe('hand-picked float edge cases', () => {
  it('exact zero sums: +0 except -0 when rounding toward -inf; (-0)+(-0) = -0', () => {
    for (const mode of ROUNDINGS) {
      const opts = mode === 'sr' ? { u: 200 } : {};
      const want = mode === 'rdn' ? 0x80000000n : 0n;
      expect(goldenBinary('f32', 'add', 0x3f800000n, 0xbf800000n, mode, opts)).toEqual({ bits: want, flags: 0 });
      expect(goldenBinary('f32', 'add', 0n, 0x80000000n, mode, opts)).toEqual({ bits: want, flags: 0 });
      expect(goldenBinary('f32', 'add', 0x80000000n, 0x80000000n, mode, opts)).toEqual({ bits: 0x80000000n, flags: 0 });
      expect(goldenBinary('f32', 'mul', 0x80000000n, 0x3f800000n, mode, opts)).toEqual({ bits: 0x80000000n, flags: 0 });
    }
  });

  it('invalid operations give the canonical quiet NaN of each format', () => {
    const cases: Array<[Fmt, bigint, bigint, bigint]> = [
      // format, +inf, -inf, signalling NaN
      ['f16', 0x7c00n, 0xfc00n, 0x7c01n],
      ['bf16', 0x7f80n, 0xff80n, 0xff81n],
      ['f32', 0x7f800000n, 0xff800000n, 0x7f800001n],
      ['f64', 0x7ff0000000000000n, 0xfff0000000000000n, 0xfff0000000000001n],
    ];
    for (const [fmt, pinf, ninf, snan] of cases) {
      const nan = canonicalNaN(fmt);
      expect(goldenBinary(fmt, 'add', pinf, ninf, 'rne')).toEqual({ bits: nan, flags: 0x10 });
      expect(goldenBinary(fmt, 'mul', 0n, ninf, 'rdn')).toEqual({ bits: nan, flags: 0x10 });
      expect(goldenBinary(fmt, 'add', snan, 0n, 'rtz')).toEqual({ bits: nan, flags: 0x10 });
      expect(goldenBinary(fmt, 'mul', 0n, snan | (1n << (fmt === 'f16' ? 9n : fmt === 'bf16' ? 6n : fmt === 'f32' ? 22n : 51n)), 'rne')).toEqual({ bits: nan, flags: 0 });
      expect(goldenBinary(fmt, 'add', pinf, pinf, 'rne')).toEqual({ bits: pinf, flags: 0 });
    }
    expect(canonicalNaN('f16')).toBe(0x7e00n);
    expect(canonicalNaN('bf16')).toBe(0x7fc0n);
    expect(canonicalNaN('f32')).toBe(0x7fc00000n);
    expect(canonicalNaN('f64')).toBe(0x7ff8000000000000n);
  });

  it('overflow goes to infinity or the largest finite per mode', () => {
    const max = 0x7f7fffffn;
    const neg = 0x80000000n;
    const two = 0x40000000n;
    const want: Record<Rounding, [bigint, bigint]> = {
      rne: [0x7f800000n, 0xff800000n],
      rtz: [max, neg | max],
      rdn: [max, 0xff800000n],
      rup: [0x7f800000n, neg | max],
      sr: [0x7f800000n, 0xff800000n], // |x| = 2^129 >= 2^(emax+1): infinity whatever the draw
    };
    for (const mode of ROUNDINGS) {
      const opts = mode === 'sr' ? { u: 0 } : {};
      expect(goldenBinary('f32', 'mul', max, two, mode, opts)).toEqual({ bits: want[mode][0], flags: 0x05 });
      expect(goldenBinary('f32', 'mul', neg | max, two, mode, opts)).toEqual({ bits: want[mode][1], flags: 0x05 });
    }
  });

  it('underflow is tininess after rounding and inexact', () => {
    // f32: (2^-126 - 2^-150) x ... : just below the smallest normal, rounding to it in rne
    const justBelow = goldenBinary('f32', 'mul', 0x00ffffffn, 0x3f000000n, 'rne'); // (2^-125 - 2^-149) x 0.5
    expect(justBelow).toEqual({ bits: 0x00800000n, flags: 0x03 }); // rounds to 2^-126 but tiny at unbounded range
    // exact subnormal: no underflow, no inexact
    expect(goldenBinary('f32', 'mul', 0x00000002n, 0x3f000000n, 'rne')).toEqual({ bits: 0x00000001n, flags: 0 });
    // exactly representable result at the smallest normal: not tiny
    expect(goldenBinary('f32', 'add', 0x00400000n, 0x00400000n, 'rne')).toEqual({ bits: 0x00800000n, flags: 0 });
    // below half the smallest subnormal: 0 (rne) or the smallest subnormal (rup)
    expect(goldenBinary('f32', 'mul', 0x00000001n, 0x3e800000n, 'rne')).toEqual({ bits: 0n, flags: 0x03 });
    expect(goldenBinary('f32', 'mul', 0x00000001n, 0x3e800000n, 'rup')).toEqual({ bits: 1n, flags: 0x03 });
  });

  it('ftz: subnormal inputs read as zeros, tiny results flushed with underflow + inexact', () => {
    // subnormal + subnormal: DAZ makes it 0 + 0
    expect(goldenBinary('f16', 'add', 0x0001n, 0x0001n, 'rne', { ftz: true })).toEqual({ bits: 0n, flags: 0 });
    expect(goldenBinary('f16', 'add', 0x8001n, 0x8001n, 'rne', { ftz: true })).toEqual({ bits: 0x8000n, flags: 0 });
    expect(goldenBinary('f16', 'add', 0x0001n, 0x0001n, 'rne')).toEqual({ bits: 0x0002n, flags: 0 });
    // exact subnormal result of normal operands: flushed
    expect(goldenBinary('f16', 'add', 0x0600n, 0x8400n, 'rne', { ftz: true })).toEqual({ bits: 0n, flags: 0x03 });
    expect(goldenBinary('f16', 'add', 0x8600n, 0x0400n, 'rup', { ftz: true })).toEqual({ bits: 0x8000n, flags: 0x03 });
    expect(goldenBinary('f16', 'add', 0x0600n, 0x8400n, 'rne')).toEqual({ bits: 0x0200n, flags: 0 });
    // a subnormal times a large number is zero under DAZ
    expect(goldenBinary('f16', 'mul', 0x0200n, 0x7800n, 'rne', { ftz: true })).toEqual({ bits: 0n, flags: 0 });
  });

  it('rejects malformed scalar arguments with a message naming them', () => {
    expect(() => goldenBinary('f16', 'add', 0x10000n, 0n, 'rne')).toThrow(/operand a.*16-bit f16/);
    expect(() => goldenBinary('f32', 'mul', 0n, -1n, 'rne')).toThrow(/operand b/);
    expect(() => goldenBinary('f8' as Fmt, 'add', 0n, 0n, 'rne')).toThrow(/unknown float format 'f8'/);
    expect(() => goldenBinary('f32', 'div' as 'add', 0n, 0n, 'rne')).toThrow(/unknown operation 'div'/);
    expect(() => goldenBinary('f32', 'add', 0n, 0n, 'rnd' as Rounding)).toThrow(/unknown rounding mode 'rnd'/);
    expect(() => goldenBinary('f32', 'add', 0n, 0n, 'sr')).toThrow(/8-bit draw/);
    expect(() => goldenBinary('f32', 'add', 0n, 0n, 'sr', { u: 256 })).toThrow(/8-bit draw/);
  });
});

describe('minimum/maximum and minloc/maxloc', () => {
  for (const fmt of ['f16', 'bf16', 'f32', 'f64'] as const) {
    it(`${fmt} min/max = Math.min/Math.max (NaN propagates, -0 < +0), invalid only for sNaN`, () => {
      fc.assert(
        fc.property(patternArb(fmt), patternArb(fmt), fc.boolean(), (a, b, ftz) => {
          const x = dazNumber(fmt, a, ftz);
          const y = dazNumber(fmt, b, ftz);
          const invalid = isSNaNPattern(fmt, a) || isSNaNPattern(fmt, b) ? 0x10 : 0;
          for (const [op, r] of [['min', Math.min(x, y)], ['max', Math.max(x, y)]] as const) {
            const got = goldenMinMax(fmt, op, a, b, { ftz });
            expect(got.flags).toBe(invalid);
            if (Number.isNaN(r)) expect(got.bits).toBe(canonicalNaN(fmt));
            else expect(Object.is(toNumber(fmt, got.bits), r)).toBe(true);
          }
        }),
        { numRuns: 1500, seed: 7 },
      );
    });
  }

  it('minloc/maxloc: NaN wins, smaller index among NaNs and ties, -0 < +0', () => {
    fc.assert(
      fc.property(patternArb('bf16'), patternArb('bf16'), fc.bigInt({ min: -5n, max: 5n }), fc.bigInt({ min: -5n, max: 5n }), (a, b, ia, ib) => {
        const x = toNumber('bf16', a);
        const y = toNumber('bf16', b);
        const invalid = isSNaNPattern('bf16', a) || isSNaNPattern('bf16', b) ? 0x10 : 0;
        // order of two numbers with -0 < +0
        const less = (p: number, q: number): boolean => p < q || (p === 0 && q === 0 && Object.is(p, -0) && Object.is(q, 0));
        for (const op of ['minloc', 'maxloc'] as const) {
          const got = goldenFloatLoc('bf16', op, { value: a, index: ia }, { value: b, index: ib });
          expect(got.flags).toBe(invalid);
          const bothNaN = Number.isNaN(x) && Number.isNaN(y);
          let winner: 'a' | 'b';
          if (bothNaN || (!Number.isNaN(x) && !Number.isNaN(y) && Object.is(x, y))) winner = ia <= ib ? 'a' : 'b';
          else if (Number.isNaN(x)) winner = 'a';
          else if (Number.isNaN(y)) winner = 'b';
          else winner = (op === 'minloc' ? less(x, y) : less(y, x)) ? 'a' : 'b';
          const wantIndex = winner === 'a' ? ia : ib;
          const wantValue = Number.isNaN(winner === 'a' ? x : y) ? canonicalNaN('bf16') : winner === 'a' ? a : b;
          expect({ value: got.value, index: got.index }).toEqual({ value: wantValue, index: wantIndex });
        }
      }),
      { numRuns: 3000, seed: 11 },
    );
  });
});

describe('conversions (wide accumulation)', () => {
  it('f16/bf16 -> f32 is exact; NaN becomes the canonical NaN, sNaN raises invalid; DAZ under ftz', () => {
    for (const fmt of ['f16', 'bf16'] as const) {
      for (let p = 0n; p < 0x10000n; p += 7n) {
        const ftz = p % 2n === 0n;
        const got = goldenConvert(fmt, 'f32', p, 'rne', { ftz });
        const x = dazNumber(fmt, p, ftz);
        if (Number.isNaN(x)) expect(got).toEqual({ bits: 0x7fc00000n, flags: isSNaNPattern(fmt, p) ? 0x10 : 0 });
        else expect(got).toEqual({ bits: fromNumber('f32', x), flags: 0 });
      }
    }
  });

  it('f32 -> f16/bf16 narrowing matches the table oracle in every mode', () => {
    fc.assert(
      fc.property(patternArb('f32'), uArb, fc.boolean(), fc.constantFrom(...ROUNDINGS), fc.constantFrom('f16' as const, 'bf16' as const), (p, u, ftz, mode, fmt) => {
        const got = goldenConvert('f32', fmt, p, mode, mode === 'sr' ? { u, ftz } : { ftz });
        const x = dazNumber('f32', p, ftz);
        if (Number.isNaN(x)) {
          expect(got).toEqual({ bits: canonicalNaN(fmt), flags: isSNaNPattern('f32', p) ? 0x10 : 0 });
        } else if (x === 0 || !Number.isFinite(x)) {
          expect(toNumber(fmt, got.bits)).toBe(x);
          expect(got.flags).toBe(0);
        } else {
          const want = oracleRound(fmt, x, mode, u, ftz);
          expect({ bits: got.bits.toString(16), flags: got.flags }).toEqual({ bits: want.bits.toString(16), flags: want.flags });
        }
      }),
      { numRuns: 4000, seed: 16 },
    );
  });
});
