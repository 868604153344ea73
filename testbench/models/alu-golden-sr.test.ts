/**
 * Golden ALU model, stochastic rounding: the fmix32 seeding (checked against a Math.imul
 * formulation), the Galois LFSR (its output obeys the linear recurrence of x^32+x^22+x^2+x+1),
 * the 8-bit draws (uniform over elements), and the rounding itself: always one of the two
 * neighbours, deterministic, exact results untouched, unbiased up to the 8-bit truncation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fmix32, goldenBinary, goldenReduce, lfsrDraw, lfsrStep, srDraw, srLfsrSeed, srOpSeed } from '../../models/alu/golden.ts';
import { fromNumber, toNumber } from './alu-golden-oracle.ts';

/** murmur3 fmix32 with 32-bit Number arithmetic (the model uses BigInt). */
function fmix32Imul(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function lfsrSeedImul(aluSeed: number, opId: number, node: number, element: number): number {
  const opSeed = fmix32Imul((aluSeed ^ fmix32Imul(opId)) >>> 0);
  const s = fmix32Imul((fmix32Imul((opSeed ^ Math.imul(node, 0x9e3779b1)) >>> 0) ^ Math.imul(element, 0x85ebca77)) >>> 0);
  return s === 0 ? 1 : s;
}

const u32 = fc.integer({ min: 0, max: 0xffffffff });

describe('sr seeding and LFSR', () => {
  it('fmix32 matches the murmur3 finaliser', () => {
    expect(fmix32(0)).toBe(0);
    fc.assert(
      fc.property(u32, (h) => {
        expect(fmix32(h)).toBe(fmix32Imul(h));
      }),
      { numRuns: 2000, seed: 1 },
    );
  });

  it('per-rounding LFSR seed = fmix32(fmix32(opSeed ^ node*0x9e3779b1) ^ element*0x85ebca77)', () => {
    fc.assert(
      fc.property(u32, u32, fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 255 }), (seed, opId, node, el) => {
        expect(srLfsrSeed(srOpSeed(seed, opId), node, el)).toBe(lfsrSeedImul(seed, opId, node, el));
      }),
      { numRuns: 2000, seed: 2 },
    );
  });

  it('a zero seed becomes 1', () => {
    // fmix32 is a bijection with fmix32(0) = 0, so s = 0 exactly when element*0x85ebca77 = inner
    const opSeed = srOpSeed(5, 9);
    const inner = fmix32Imul((opSeed ^ Math.imul(3, 0x9e3779b1)) >>> 0);
    const inv = Number(modInverse32(0x85ebca77n));
    const element = Math.imul(inner, inv) >>> 0;
    expect(Math.imul(element, 0x85ebca77) >>> 0).toBe(inner);
    expect(srLfsrSeed(opSeed, 3, element)).toBe(1);
    expect(srLfsrSeed(opSeed, 3, element + 1)).not.toBe(1);
  });

  it('the Galois LFSR output obeys the linear recurrence of x^32 + x^22 + x^2 + x + 1', () => {
    for (const start of [1, 0x80000000, 0xdeadbeef, 0x12345678]) {
      const bits: number[] = [];
      let s = start;
      for (let t = 0; t < 400; t++) {
        const r = lfsrStep(s);
        bits.push(r.bit);
        s = r.state;
      }
      // the output of a right-shifting Galois LFSR with mask 0x80200003 (x^32 + x^22 + x^2 + x + 1)
      // satisfies the recurrence of the reciprocal polynomial x^32 + x^31 + x^30 + x^10 + 1
      for (let t = 0; t + 32 < bits.length; t++) {
        expect(bits[t + 32]).toBe((bits[t + 31] as number) ^ (bits[t + 30] as number) ^ (bits[t + 10] as number) ^ (bits[t] as number));
      }
    }
    // one explicit step each way
    expect(lfsrStep(2)).toEqual({ bit: 0, state: 1 });
    expect(lfsrStep(1)).toEqual({ bit: 1, state: 0x80200003 });
  });

  it('an 8-bit draw is 8 steps, first output bit most significant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 0xffffffff }), (s0) => {
        let s = s0;
        let u = 0;
        for (let i = 0; i < 8; i++) {
          const r = lfsrStep(s);
          u = u * 2 + r.bit;
          s = r.state;
        }
        expect(lfsrDraw(s0)).toBe(u);
      }),
      { numRuns: 500, seed: 3 },
    );
    // by hand from state 1: outputs 1 (-> 0x80200003), 1 (-> 0xc0300002), 0 (-> 0x60180001),
    // 1 (-> 0xb02c0003), 1 (-> 0xd8360002), 0 (-> 0x6c1b0001), 1 (-> 0xb62d8003), 1
    expect(lfsrDraw(1)).toBe(0b11011011);
  });

  it('draws over 8192 elements are close to uniform (chi-square over 256 cells)', () => {
    const counts = new Array<number>(256).fill(0);
    const n = 8192;
    for (let el = 0; el < n; el++) counts[srDraw(0x1234, 77, 5, el)]! += 1;
    const expected = n / 256;
    const chi2 = counts.reduce((acc, c) => acc + (c - expected) ** 2 / expected, 0);
    // 255 degrees of freedom: mean 255, sd ~22.6; 400 is > 6 sd out
    expect(chi2).toBeLessThan(400);
  });
});

function modInverse32(a: bigint): bigint {
  // Newton iteration for the inverse of an odd number mod 2^32
  let x = a;
  for (let i = 0; i < 5; i++) x = (x * (2n - a * x)) & 0xffffffffn;
  return x;
}

describe('stochastic rounding', () => {
  const finiteF32 = fc.bigInt({ min: 0n, max: 0xffffffffn }).filter((x) => Number.isFinite(toNumber('f32', x)));

  it('the result is always the round-down or the round-up neighbour, and q + u >= 256 picks up', () => {
    fc.assert(
      fc.property(finiteF32, finiteF32, fc.integer({ min: 0, max: 255 }), fc.constantFrom('add' as const, 'mul' as const), (a, b, u, op) => {
        const got = goldenBinary('f32', op, a, b, 'sr', { u });
        const dn = goldenBinary('f32', op, a, b, 'rtz');
        const rdn = goldenBinary('f32', op, a, b, 'rdn');
        const rup = goldenBinary('f32', op, a, b, 'rup');
        const away = rdn.bits === dn.bits ? rup : rdn; // the neighbour away from zero
        if (dn.flags === 0) {
          expect(got).toEqual(dn); // exact: unchanged, whatever the draw
        } else if (dn.flags & 0x04) {
          // |x| >= 2^(emax+1) (rtz overflows only there): no neighbour above, always infinity
          expect(got).toEqual({ bits: away.bits, flags: 0x05 });
        } else {
          expect([dn.bits, away.bits]).toContain(got.bits);
          expect(got.flags & 0x01).toBe(0x01);
          if (u === 0) expect(got.bits).toBe(dn.bits); // q <= 255 < 256: u = 0 never rounds up
        }
      }),
      { numRuns: 3000, seed: 4 },
    );
  });

  it('q + u >= 256 is the boundary: 1 + 3/8 ulp (q = 96) rounds up exactly for u >= 160', () => {
    // 1 + 2^-23 * 3/8 is not an f32, so build it as a sum: 1 + 3 x 2^-26
    const one = 0x3f800000n;
    const tiny = fromNumber('f32', 3 * 2 ** -26);
    for (let u = 0; u < 256; u++) {
      const got = goldenBinary('f32', 'add', one, tiny, 'sr', { u });
      expect(got).toEqual({ bits: u >= 160 ? 0x3f800001n : one, flags: 0x01 });
    }
  });

  it('is unbiased up to the 8-bit truncation over many elements', () => {
    // each element sums 1 + 0.3 ulp (f16): expected up-rate q/256 with q = floor(0.30005 x 256) = 76
    const n = 120;
    const payload = (v: number): Uint8Array => {
      const p = new Uint8Array(2 * n);
      for (let i = 0; i < n; i++) {
        p[2 * i] = v & 0xff;
        p[2 * i + 1] = v >> 8;
      }
      return p;
    };
    let ups = 0;
    let total = 0;
    // 0x3c00 = 1.0 (ulp 2^-10); 0x0ccd = (1 + 205/1024) x 2^-12 = 0.30005 ulp of 1.0
    const smallBits = 0x0ccdn;
    for (let op = 0; op < 40; op++) {
      const r = goldenReduce({ type: 'f16', op: 'sum', rounding: 'sr', seed: 99 }, op, n, [payload(0x3c00), payload(Number(smallBits))]);
      for (let i = 0; i < n; i++) {
        const bits = r.data[2 * i]! | (r.data[2 * i + 1]! << 8);
        expect([0x3c00, 0x3c01]).toContain(bits);
        if (bits === 0x3c01) ups++;
        total++;
      }
    }
    const f = toNumber('f16', smallBits) / 2 ** -10;
    const p = Math.floor(f * 256) / 256;
    const rate = ups / total;
    const sd = Math.sqrt((p * (1 - p)) / total);
    expect(Math.abs(rate - p)).toBeLessThan(5 * sd);
  });

  it('overflow: from the largest finite it goes to infinity (overflow) or stays', () => {
    const max = 0x7bffn; // f16 65504, ulp 32
    const half = 0x4c00n; // 16 = half an ulp: q = 128
    for (const u of [0, 127, 128, 255]) {
      const got = goldenBinary('f16', 'add', max, half, 'sr', { u });
      expect(got).toEqual(u >= 128 ? { bits: 0x7c00n, flags: 0x05 } : { bits: max, flags: 0x01 });
    }
  });

  it('is deterministic: the same reduction twice gives the same bits; another seed differs', () => {
    const k = 7;
    const n = 64;
    const ops = Array.from({ length: k }, (_, c) => {
      const p = new Uint8Array(4 * n);
      const view = new DataView(p.buffer);
      for (let i = 0; i < n; i++) view.setFloat32(4 * i, Math.fround(1 / (c + 3) + i / 7), true);
      return p;
    });
    const cfg = { type: 'f32' as const, op: 'sum' as const, rounding: 'sr' as const, seed: 42, order: 'tree' as const };
    const r1 = goldenReduce(cfg, 1000, n, ops);
    const r2 = goldenReduce(cfg, 1000, n, ops);
    expect(r1).toEqual(r2);
    expect(goldenReduce({ ...cfg, seed: 43 }, 1000, n, ops).data).not.toEqual(r1.data);
    expect(goldenReduce(cfg, 1001, n, ops).data).not.toEqual(r1.data);
  });
});
