/**
 * bfloat16 has no Berkeley TestFloat vectors. Its datapath (rtl/sharp/alu/fp) is checked against an
 * independent reference: the golden model's goldenBinary (models/alu/float-ops.ts), which computes
 * the exact sum or product of the two decoded operands as a BigInt significand and a power of two
 * and rounds it once with its own rounding routine (models/alu/round.ts, integer arithmetic,
 * tininess after rounding). It shares no code with rtl/sharp/alu/fp (testbench/layout checks that
 * models/ imports nothing from rtl/ but name/constant tables), and the same rounding routine passes
 * every Berkeley TestFloat case of f16, f32 and f64 (testbench/models/alu-golden-testfloat.test.ts).
 * Bits and flags must match exactly. Plus NaN, signed-zero and ftz rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goldenBinary } from '../../../models/alu/golden.ts';
import { BF16, F16, F32, type FpFormat, fpAdd, fpMul, fpSub, MODE_FTZ, RM_RDN, RM_RNE, RM_RTZ, RM_RUP } from '../../../rtl/sharp/alu/fp/index.ts';
import { FLAG_INEXACT, FLAG_INVALID, FLAG_UNDERFLOW } from '../../../rtl/sharp/alu/types.ts';

const MODES = [RM_RNE, RM_RTZ, RM_RDN, RM_RUP] as const;
const MODE_NAMES = { [RM_RNE]: 'rne', [RM_RTZ]: 'rtz', [RM_RDN]: 'rdn', [RM_RUP]: 'rup' } as const;
const out = new Uint32Array(3);

type Res = { bits: number; flags: number };
function op(kind: 'add' | 'mul', fmt: FpFormat, a: number, b: number, mode: number): Res {
  const flags = (kind === 'add' ? fpAdd : fpMul)(fmt, 0, a, 0, b, mode, 0, out);
  return { bits: out[1]!, flags };
}
/** The independent reference: exact result, one rounding (models/alu). */
function reference(kind: 'add' | 'mul', a: number, b: number, mode: (typeof MODES)[number], ftz = false): Res {
  const r = goldenBinary('bf16', kind, BigInt(a), BigInt(b), MODE_NAMES[mode], { ftz });
  return { bits: Number(r.bits), flags: r.flags };
}
const isSub16 = (v: number) => (v & 0x7f80) === 0 && (v & 0x7f) !== 0;

/** bf16 encodings biased toward interesting values: close exponents, subnormals, extremes, specials. */
const bf16Arb = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }),
  fc.record({ s: fc.integer({ min: 0, max: 1 }), e: fc.integer({ min: 120, max: 134 }), f: fc.integer({ min: 0, max: 127 }) }).map(({ s, e, f }) => (s << 15) | (e << 7) | f),
  fc.record({ s: fc.integer({ min: 0, max: 1 }), e: fc.constantFrom(0, 1, 2, 3, 60, 64, 65, 190, 250, 253, 254), f: fc.integer({ min: 0, max: 127 }) }).map(({ s, e, f }) => (s << 15) | (e << 7) | f),
  fc.constantFrom(0x0000, 0x8000, 0x0001, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffff, 0x3f80, 0xbf80),
);

describe('bfloat16 datapath against the independent golden reference (exact BigInt result, one rounding)', () => {
  for (const kind of ['mul', 'add'] as const) {
    it(`${kind}: bits and flags equal the reference in every mode`, () => {
      fc.assert(
        fc.property(bf16Arb, bf16Arb, fc.constantFrom(...MODES), (a, b, mode) => {
          expect(op(kind, BF16, a, b, mode)).toEqual(reference(kind, a, b, mode));
        }),
        { numRuns: 20000, seed: 0x5eed + (kind === 'add' ? 1 : 0) },
      );
    });

    it(`${kind}: every operand against a fixed set of partners, every mode (exhaustive in A)`, () => {
      // all 65,536 encodings of A against partners at the edges: 1, smallest subnormal,
      // largest finite and a negative close-exponent value
      const partners = [0x3f80, 0x0001, 0x7f7f, 0xbfc1];
      let bad = 0;
      let first = '';
      for (const mode of MODES)
        for (const b of partners)
          for (let a = 0; a <= 0xffff; a++) {
            const got = op(kind, BF16, a, b, mode);
            const ref = reference(kind, a, b, mode);
            if (got.bits !== ref.bits || got.flags !== ref.flags) {
              if (bad++ === 0) first = `${kind} ${a.toString(16)} ${b.toString(16)} mode ${mode}: got ${got.bits.toString(16)}/${got.flags} expected ${ref.bits.toString(16)}/${ref.flags}`;
            }
          }
      expect(first).toBe('');
      expect(bad).toBe(0);
    });
  }

  it('hand-checked cases', () => {
    // 1 + 2^-8: a tie between 1 and 1 + 2^-7, to even -> 1; rup -> 1 + 2^-7
    expect(op('add', BF16, 0x3f80, 0x3b80, RM_RNE)).toEqual({ bits: 0x3f80, flags: FLAG_INEXACT });
    expect(op('add', BF16, 0x3f80, 0x3b80, RM_RUP)).toEqual({ bits: 0x3f81, flags: FLAG_INEXACT });
    // (1 + 2^-7) + 2^-8: tie, to even -> 1 + 2^-6
    expect(op('add', BF16, 0x3f81, 0x3b80, RM_RNE)).toEqual({ bits: 0x3f82, flags: FLAG_INEXACT });
    // 1.5 * 1.5 = 2.25 exactly
    expect(op('mul', BF16, 0x3fc0, 0x3fc0, RM_RNE)).toEqual({ bits: 0x4010, flags: 0 });
    // largest finite * 2 overflows: inf in rne, largest finite in rtz
    expect(op('mul', BF16, 0x7f7f, 0x4000, RM_RNE)).toEqual({ bits: 0x7f80, flags: 0x05 });
    expect(op('mul', BF16, 0x7f7f, 0x4000, RM_RTZ)).toEqual({ bits: 0x7f7f, flags: 0x05 });
    // smallest subnormal / 2 -> 0 with underflow (rne, tie to even), -> smallest subnormal in rup
    expect(op('mul', BF16, 0x0001, 0x3f00, RM_RNE)).toEqual({ bits: 0x0000, flags: 0x03 });
    expect(op('mul', BF16, 0x0001, 0x3f00, RM_RUP)).toEqual({ bits: 0x0001, flags: 0x03 });
    // subnormal + subnormal stays exact
    expect(op('add', BF16, 0x0001, 0x0001, RM_RNE)).toEqual({ bits: 0x0002, flags: 0 });
  });
});

describe('NaN results are canonical', () => {
  for (const fmt of [BF16, F16, F32]) {
    it(`${fmt.name}: any NaN operand gives the canonical NaN, invalid iff one is signalling`, () => {
      const E = fmt.E;
      const F = fmt.F;
      const nanArb = fc.record({ s: fc.integer({ min: 0, max: 1 }), f: fc.integer({ min: 1, max: 2 ** F - 1 }) }).map(({ s, f }) => ((s << (E + F)) | (((1 << E) - 1) << F) | f) >>> 0);
      const anyArb = fc.integer({ min: 0, max: 2 ** (1 + E + F) - 1 });
      fc.assert(
        fc.property(nanArb, anyArb, fc.boolean(), fc.constantFrom('add', 'mul') as fc.Arbitrary<'add' | 'mul'>, fc.constantFrom(...MODES), (nan, x, swap, kind, mode) => {
          const [a, b] = swap ? [x, nan] : [nan, x];
          const r = op(kind, fmt, a, b, mode);
          expect(r.bits).toBe(fmt.nanLo);
          const quiet = (v: number) => (v & (1 << (F - 1))) !== 0;
          const isNaN = (v: number) => ((v >>> F) & ((1 << E) - 1)) === (1 << E) - 1 && (v & ((1 << F) - 1)) !== 0;
          const sig = (v: number) => isNaN(v) && !quiet(v);
          expect(r.flags).toBe(sig(a) || sig(b) ? FLAG_INVALID : 0);
        }),
        { numRuns: 3000, seed: 3 },
      );
    });
  }

  it('invalid operations give the canonical NaN', () => {
    expect(op('add', BF16, 0x7f80, 0xff80, RM_RNE)).toEqual({ bits: 0x7fc0, flags: FLAG_INVALID });
    expect(op('mul', BF16, 0x7f80, 0x8000, RM_RNE)).toEqual({ bits: 0x7fc0, flags: FLAG_INVALID });
    expect(op('mul', BF16, 0x0000, 0xff80, RM_RTZ)).toEqual({ bits: 0x7fc0, flags: FLAG_INVALID });
    // under ftz a subnormal is a zero: inf * subnormal is invalid
    expect(op('mul', BF16, 0x7f80, 0x0001, RM_RNE | MODE_FTZ)).toEqual({ bits: 0x7fc0, flags: FLAG_INVALID });
    expect(op('mul', BF16, 0x7f80, 0x0001, RM_RNE)).toEqual({ bits: 0x7f80, flags: 0 });
  });
});

describe('signs of zero', () => {
  it('x + (-x) is +0, or -0 rounding down; zeros keep a common sign; products xor signs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7f7f }), fc.constantFrom(...MODES), fc.boolean(), (x, mode, ftz) => {
        const m = mode | (ftz ? MODE_FTZ : 0);
        const zero = mode === RM_RDN ? 0x8000 : 0x0000;
        expect(op('add', BF16, x, x | 0x8000, m).bits).toBe(zero);
        expect(op('add', BF16, x | 0x8000, x, m).bits).toBe(zero);
        if (x !== 0) {
          const r = fpSub(BF16, 0, x, 0, x, m, 0, out);
          expect([out[1], r]).toEqual([zero, 0]);
        }
      }),
      { numRuns: 2000, seed: 5 },
    );
    for (const mode of MODES) {
      expect(op('add', BF16, 0x8000, 0x8000, mode).bits).toBe(0x8000);
      expect(op('add', BF16, 0x0000, 0x0000, mode).bits).toBe(0x0000);
      expect(op('add', BF16, 0x0000, 0x8000, mode).bits).toBe(mode === RM_RDN ? 0x8000 : 0x0000);
      expect(op('mul', BF16, 0x8000, 0x3f80, mode)).toEqual({ bits: 0x8000, flags: 0 });
      expect(op('mul', BF16, 0x8000, 0xbf80, mode)).toEqual({ bits: 0x0000, flags: 0 });
      // a nonzero result that rounds to zero keeps its sign
      expect(op('mul', BF16, 0x8001, 0x0001, mode).bits & 0x8000).toBe(0x8000);
    }
  });
});

describe('ftz (flush-to-zero, denormals-are-zero)', () => {
  const daz = (v: number) => (isSub16(v) ? v & 0x8000 : v);
  for (const kind of ['add', 'mul'] as const) {
    it(`${kind}: result = operation on daz inputs, with a tiny result flushed to a signed zero (UF|NX)`, () => {
      fc.assert(
        fc.property(bf16Arb, bf16Arb, fc.constantFrom(...MODES), (a, b, mode) => {
          const got = op(kind, BF16, a, b, mode | MODE_FTZ);
          const ref = reference(kind, daz(a), daz(b), mode);
          expect(isSub16(got.bits)).toBe(false);
          const tiny = (ref.flags & FLAG_UNDERFLOW) !== 0 || isSub16(ref.bits);
          if (tiny) expect(got).toEqual({ bits: ref.bits & 0x8000, flags: FLAG_UNDERFLOW | FLAG_INEXACT });
          else expect(got).toEqual(ref);
        }),
        { numRuns: 20000, seed: 7 },
      );
    });
  }

  it('an exact subnormal result is flushed too; subnormal inputs are zeros', () => {
    // 2^-126 (1 + 2^-7) - 2^-126 = 2^-133 (subnormal, exact): flushed under ftz with UF|NX
    expect(op('add', BF16, 0x0081, 0x8080, RM_RNE)).toEqual({ bits: 0x0001, flags: 0 });
    expect(op('add', BF16, 0x0081, 0x8080, RM_RNE | MODE_FTZ)).toEqual({ bits: 0x0000, flags: 0x03 });
    expect(op('add', BF16, 0x8081, 0x0080, RM_RNE | MODE_FTZ)).toEqual({ bits: 0x8000, flags: 0x03 });
    expect(op('add', BF16, 0x0080, 0x8040, RM_RNE | MODE_FTZ)).toEqual({ bits: 0x0080, flags: 0 });
    expect(op('add', BF16, 0x8040, 0x0001, RM_RNE | MODE_FTZ)).toEqual({ bits: 0x0000, flags: 0 });
    expect(op('add', BF16, 0x3f80, 0x0001, RM_RUP | MODE_FTZ)).toEqual({ bits: 0x3f80, flags: 0 });
    expect(op('add', BF16, 0x3f80, 0x0001, RM_RUP)).toEqual({ bits: 0x3f81, flags: FLAG_INEXACT });
  });
});
