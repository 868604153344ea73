/**
 * Stochastic rounding (docs/alu.md "Stochastic rounding"): the result is one of the two
 * neighbours of the exact value (the round-toward-zero one or the next one away from zero),
 * rounds up exactly when q + u >= 256 with q the first 8 bits of the discarded fraction, leaves
 * exact results alone, and is a pure function of the operands and the seeded LFSR draw.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, elementSeed, F16, F32, F64, fmix32, type FpFormat, fpAdd, fpMul, lfsrDraw8, MODE_FTZ, opSeed, RM_RDN, RM_RTZ, RM_RUP, RM_SR, srDraw } from '../../../rtl/sharp/alu/fp/index.ts';
import { FLAG_INEXACT, FLAG_OVERFLOW, FLAG_UNDERFLOW } from '../../../rtl/sharp/alu/types.ts';

const out = new Uint32Array(3);
type Res = { hi: number; lo: number; flags: number };
function run(kind: 'add' | 'mul', fmt: FpFormat, aHi: number, aLo: number, bHi: number, bLo: number, mode: number, u: number): Res {
  const flags = (kind === 'add' ? fpAdd : fpMul)(fmt, aHi, aLo, bHi, bLo, mode, u, out);
  return { hi: out[0]!, lo: out[1]!, flags };
}
function signOf(fmt: FpFormat, r: Res): number {
  return fmt.W > 32 ? r.hi >>> 31 : (r.lo >>> (fmt.W - 1)) & 1;
}

function operandArb(fmt: FpFormat): fc.Arbitrary<[number, number]> {
  if (fmt.W > 32) {
    return fc.oneof(
      fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })),
      fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 1015, max: 1030 }), fc.integer({ min: 0, max: 0xfffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([s, e, fh, fl]) => [((s << 31) | (e << 20) | fh) >>> 0, fl] as [number, number]),
      fc.tuple(fc.integer({ min: 0, max: 1 }), fc.constantFrom(0, 1, 2, 500, 1530, 2045, 2046), fc.integer({ min: 0, max: 0xfffff }), fc.integer({ min: 0, max: 0xffffffff })).map(([s, e, fh, fl]) => [((s << 31) | (e << 20) | fh) >>> 0, fl] as [number, number]),
    );
  }
  const E = fmt.E;
  const F = fmt.F;
  const bias = fmt.bias;
  const pack = ([s, e, f]: [number, number, number]): [number, number] => [0, ((s << (E + F)) | (e << F) | f) >>> 0];
  return fc.oneof(
    fc.integer({ min: 0, max: 2 ** fmt.W - 1 }).map((v) => [0, v] as [number, number]),
    fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: bias - 6, max: bias + 6 }), fc.integer({ min: 0, max: 2 ** F - 1 })).map(pack),
    fc.tuple(fc.integer({ min: 0, max: 1 }), fc.constantFrom(0, 1, 2, 3, (1 << E) - 3, (1 << E) - 2), fc.integer({ min: 0, max: 2 ** F - 1 })).map(pack),
  );
}

describe('stochastic rounding: one of the two neighbours', () => {
  for (const fmt of [F16, BF16, F32, F64]) {
    for (const kind of ['add', 'mul'] as const) {
      it(`${fmt.name} ${kind}: sr is rtz or away-from-zero; exact results unchanged; u = 0 is rtz`, () => {
        fc.assert(
          fc.property(operandArb(fmt), operandArb(fmt), fc.integer({ min: 0, max: 255 }), fc.boolean(), ([aHi, aLo], [bHi, bLo], u, ftz) => {
            const f = ftz ? MODE_FTZ : 0;
            const sr = run(kind, fmt, aHi, aLo, bHi, bLo, RM_SR | f, u);
            const tz = run(kind, fmt, aHi, aLo, bHi, bLo, RM_RTZ | f, u);
            // away from zero = round up for a positive result, down for a negative one
            const away = run(kind, fmt, aHi, aLo, bHi, bLo, (signOf(fmt, tz) ? RM_RDN : RM_RUP) | f, u);
            const same = (x: Res, y: Res) => x.hi === y.hi && x.lo === y.lo;
            expect(same(sr, tz) || same(sr, away)).toBe(true);
            // deterministic
            expect(run(kind, fmt, aHi, aLo, bHi, bLo, RM_SR | f, u)).toEqual(sr);
            if ((tz.flags & FLAG_INEXACT) === 0) {
              // exact (or NaN / infinity / invalid): the draw is ignored
              expect(sr).toEqual(tz);
              expect(run(kind, fmt, aHi, aLo, bHi, bLo, RM_SR | f, 255 - u)).toEqual(tz);
            } else {
              expect(sr.flags & FLAG_INEXACT).toBe(FLAG_INEXACT);
              // with u = 0 nothing rounds up (q <= 255), unless beyond the largest binade
              if ((tz.flags & FLAG_OVERFLOW) === 0) expect(run(kind, fmt, aHi, aLo, bHi, bLo, RM_SR | f, 0)).toEqual(tz);
              // rounding up is monotonic in u
              if (same(sr, away) && !same(tz, away)) expect(run(kind, fmt, aHi, aLo, bHi, bLo, RM_SR | f, 255)).toEqual(sr);
            }
          }),
          { numRuns: 4000, seed: fmt.W * 7 + (kind === 'add' ? 1 : 2) },
        );
      });
    }
  }
});

describe('stochastic rounding: rounds up exactly when q + u >= 256', () => {
  // 1 + k 2^-(F+8): the discarded fraction of an ulp is k/256, so q = k
  const cases: { fmt: FpFormat; one: [number, number]; tiny: (k: number, half: boolean) => [number, number]; up: [number, number] }[] = [
    {
      fmt: F32,
      one: [0, 0x3f800000],
      // (2k + half) 2^-32 as binary32
      tiny: (k, half) => f32Of(2 * k + (half ? 1 : 0), -32),
      up: [0, 0x3f800001],
    },
    {
      fmt: BF16,
      one: [0, 0x3f80],
      tiny: (k, half) => [0, f32Of(2 * k + (half ? 1 : 0), -16)[1] >>> 16],
      up: [0, 0x3f81],
    },
    {
      fmt: F64,
      one: [0x3ff00000, 0],
      tiny: (k, half) => f64Of(2 * k + (half ? 1 : 0), -61),
      up: [0x3ff00000, 1],
    },
  ];
  for (const c of cases) {
    it(`${c.fmt.name}: 1 + (k + sticky)/256 ulp rounds to 1 + ulp iff k + u >= 256, for all k, u`, () => {
      const bad: string[] = [];
      for (let k = 0; k < 256; k++) {
        for (const half of k === 0 ? [true] : [false, true]) {
          const [bh, bl] = c.tiny(k, half);
          let ups = 0;
          for (let u = 0; u < 256; u++) {
            for (const sign of [0, 1]) {
              const sgn = (x: [number, number]): [number, number] => (sign === 0 ? x : c.fmt.W > 32 ? [(x[0] | 0x80000000) >>> 0, x[1]] : [0, (x[1] | (1 << (c.fmt.W - 1))) >>> 0]);
              const r = run('add', c.fmt, ...sgn(c.one), ...sgn([bh, bl]), RM_SR, u);
              const want = k + u >= 256 ? sgn(c.up) : sgn(c.one);
              if (r.hi !== want[0] || r.lo !== want[1] || r.flags !== FLAG_INEXACT) bad.push(`k=${k} half=${half} u=${u} sign=${sign}: got ${r.hi.toString(16)} ${r.lo.toString(16)} flags ${r.flags}`);
              if (sign === 0 && r.hi === c.up[0] && r.lo === c.up[1]) ups++;
            }
          }
          // the probability of rounding up is q / 256
          if (ups !== k) bad.push(`k=${k} half=${half}: ${ups} of 256 draws round up`);
        }
      }
      expect(bad.slice(0, 5)).toEqual([]);
    });
  }

  it('f16 subnormal results: 2^-24 * k 2^-8 rounds to 2^-24 iff k + u >= 256, with underflow', () => {
    for (let k = 1; k < 256; k++) {
      // k 2^-8 as binary16: k = m 2^t with m odd
      const b = f16Of(k, -8);
      for (let u = 0; u < 256; u += 5) {
        const r = run('mul', F16, 0, 0x0001, 0, b, RM_SR, u);
        expect([r.lo, r.flags]).toEqual([k + u >= 256 ? 0x0001 : 0x0000, FLAG_UNDERFLOW | FLAG_INEXACT]);
      }
    }
  });

  it('overflow: rounds up from the largest finite value to infinity (overflow) or stays', () => {
    // f16 65504 + 16 = 65520: halfway to 2^16 (q = 128)
    expect(run('add', F16, 0, 0x7bff, 0, 0x4c00, RM_SR, 127)).toEqual({ hi: 0, lo: 0x7bff, flags: FLAG_INEXACT });
    expect(run('add', F16, 0, 0x7bff, 0, 0x4c00, RM_SR, 128)).toEqual({ hi: 0, lo: 0x7c00, flags: FLAG_INEXACT | FLAG_OVERFLOW });
    // 65504 * 2 is beyond 2^16: infinity
    expect(run('mul', F16, 0, 0x7bff, 0, 0x4000, RM_SR, 0)).toEqual({ hi: 0, lo: 0x7c00, flags: FLAG_INEXACT | FLAG_OVERFLOW });
  });
});

/** binary32 encoding of m 2^e for a small positive integer m (normal range). */
function f32Of(m: number, e: number): [number, number] {
  const p = 31 - Math.clz32(m);
  const frac = (m << (23 - p)) & 0x7fffff;
  return [0, (((e + p + 127) << 23) | frac) >>> 0];
}
function f64Of(m: number, e: number): [number, number] {
  const p = 31 - Math.clz32(m);
  const fracHi = (m << (20 - p)) & 0xfffff; // m has at most 9 bits
  return [(((e + p + 1023) << 20) | fracHi) >>> 0, 0];
}
function f16Of(m: number, e: number): number {
  const p = 31 - Math.clz32(m);
  return ((e + p + 15) << 10) | ((m << (10 - p)) & 0x3ff);
}

describe('stochastic-rounding random source', () => {
  const mulmod = (a: number, b: number) => Number((BigInt(a >>> 0) * BigInt(b >>> 0)) % 4294967296n);
  const fmixRef = (h: number) => {
    h = (h ^ (h >>> 16)) >>> 0;
    h = mulmod(h, 0x85ebca6b);
    h = (h ^ (h >>> 13)) >>> 0;
    h = mulmod(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  };

  it('fmix32 is the murmur3 finalizer; seeds follow docs/alu.md', () => {
    expect(fmix32(0)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 127 }), fc.integer({ min: 0, max: 200 }), (x, y, node, el) => {
        expect(fmix32(x)).toBe(fmixRef(x));
        const os = fmixRef((x ^ fmixRef(y)) >>> 0);
        expect(opSeed(x, y)).toBe(os);
        const s = fmixRef((fmixRef((os ^ mulmod(node, 0x9e3779b1)) >>> 0) ^ mulmod(el, 0x85ebca77)) >>> 0);
        expect(elementSeed(os, node, el)).toBe(s === 0 ? 1 : s);
      }),
      { numRuns: 2000, seed: 1 },
    );
  });

  it('lfsrDraw8: 8 Galois steps (mask 0x80200003), first output bit is the MSB', () => {
    // seed 1: states 1, 0x80200003, 0xc0300002, 0x60180001, 0xb02c0003, 0xd8360002, 0x6c1b0001,
    // 0xb62d8003; their low bits 1 1 0 1 1 0 1 1 are the outputs
    expect(lfsrDraw8(1)).toBe(0b11011011);
    expect(lfsrDraw8(0x100)).toBe(0); // outputs are state bits 0..7 shifted out; no tap is hit
    // taps at bits 31 and 21 cannot reach bit 0 within 8 steps: for seeds < 256 only the low
    // taps (mask 0x3) matter
    for (let seed = 1; seed < 256; seed++) expect(lfsrDraw8(seed)).toBe(lowTapsDraw(seed));
  });

  it('the output stream satisfies the recurrence of x^32 + x^22 + x^2 + x + 1', () => {
    // Output bits of a Galois LFSR obey the characteristic polynomial's linear recurrence. The
    // stream is read 8 bits at a time: the state after 8 steps is recovered by stepping a copy.
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0xffffffff }), (seed) => {
        const bits: number[] = [];
        let s = seed;
        for (let chunk = 0; chunk < 12; chunk++) {
          const u = lfsrDraw8(s);
          for (let i = 7; i >= 0; i--) bits.push((u >>> i) & 1);
          s = advance8(s);
        }
        for (let t = 0; t + 32 < bits.length; t++) {
          expect(bits[t + 32]).toBe(bits[t + 31]! ^ bits[t + 30]! ^ bits[t + 10]! ^ bits[t]!);
        }
      }),
      { numRuns: 300, seed: 9 },
    );
  });

  it('srDraw = lfsrDraw8(elementSeed(...)); distinct positions give independent-looking draws', () => {
    const os = opSeed(12345, 678);
    const counts = new Array(256).fill(0) as number[];
    for (let node = 0; node < 16; node++) {
      for (let el = 0; el < 256; el++) {
        const d = srDraw(os, node, el);
        expect(d).toBe(lfsrDraw8(elementSeed(os, node, el)));
        counts[d]!++;
      }
    }
    // 4096 draws over 256 values: every value appears, none dominates
    expect(Math.min(...counts)).toBeGreaterThan(2);
    expect(Math.max(...counts)).toBeLessThan(40);
  });
});

/** State after 8 steps (test-side model of the documented step). */
function advance8(s: number): number {
  for (let i = 0; i < 8; i++) {
    const b = s & 1;
    s = s >>> 1;
    if (b) s = (s ^ 0x80200003) >>> 0;
  }
  return s;
}
/** 8 steps of a Galois LFSR with only the feedback taps at bits 1 and 0. */
function lowTapsDraw(seed: number): number {
  let s = seed;
  let u = 0;
  for (let i = 0; i < 8; i++) {
    const b = s & 1;
    s >>>= 1;
    if (b) s ^= 0x03;
    u = (u << 1) | b;
  }
  return u;
}
