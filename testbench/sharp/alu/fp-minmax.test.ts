/**
 * IEEE 754-2019 minimum/maximum, the ordered compare behind minloc/maxloc, and the format
 * converter of wide accumulation. The reference decodes encodings to JavaScript numbers (every
 * binary16/bfloat16/binary32/binary64 value is exactly a double) and compares those.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, F16, F32, F64, type FpFormat, fpCompare, fpConvert, fpMinMax, MODE_FTZ, RM_RDN, RM_RNE, RM_RTZ, RM_RUP, RM_SR } from '../../../rtl/sharp/alu/fp/index.ts';
import { FLAG_INEXACT, FLAG_INVALID, FLAG_OVERFLOW, FLAG_UNDERFLOW } from '../../../rtl/sharp/alu/types.ts';

const dv = new DataView(new ArrayBuffer(8));
/** Value of an encoding as a JS number (test-side reference decoder). */
function decode(fmt: FpFormat, hi: number, lo: number): number {
  switch (fmt.name) {
    case 'f64':
      dv.setUint32(0, hi);
      dv.setUint32(4, lo);
      return dv.getFloat64(0);
    case 'f32':
      dv.setUint32(0, lo);
      return dv.getFloat32(0);
    case 'bf16':
      dv.setUint32(0, (lo << 16) >>> 0);
      return dv.getFloat32(0);
    default: {
      const s = lo & 0x8000 ? -1 : 1;
      const e = (lo >>> 10) & 0x1f;
      const f = lo & 0x3ff;
      if (e === 31) return f ? NaN : s * Infinity;
      return e === 0 ? s * f * 2 ** -24 : s * (1024 + f) * 2 ** (e - 25);
    }
  }
}

function encArb(fmt: FpFormat): fc.Arbitrary<[number, number]> {
  if (fmt.W > 32) {
    const special = fc.constantFrom<[number, number]>([0, 0], [0x80000000, 0], [0, 1], [0x80000000, 1], [0x7ff00000, 0], [0xfff00000, 0], [0x7ff80000, 0], [0x7ff00000, 5], [0xfff40000, 0], [0x000fffff, 0xffffffff]);
    return fc.oneof(fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff })), special);
  }
  const all = 2 ** fmt.W - 1;
  const top = 2 ** (fmt.W - 1);
  const eAllBits = fmt.eAll * 2 ** fmt.F;
  const special = fc.constantFrom(0, top, 1, top + 1, eAllBits, top + eAllBits, eAllBits + 1, eAllBits + 2 ** (fmt.F - 1), 2 ** fmt.F - 1);
  return fc.oneof(fc.integer({ min: 0, max: all }).map((v) => [0, v] as [number, number]), special.map((v) => [0, v] as [number, number]));
}

function sigNaN(fmt: FpFormat, hi: number, lo: number): boolean {
  const x = decode(fmt, hi, lo);
  return Number.isNaN(x) && ((hi & fmt.qHi) | (lo & fmt.qLo)) === 0;
}
function isSub(fmt: FpFormat, hi: number, lo: number): boolean {
  const x = Math.abs(decode(fmt, hi, lo));
  return x !== 0 && x < 2 ** (1 - fmt.bias);
}
function signZero(fmt: FpFormat, hi: number, lo: number): [number, number] {
  return fmt.W > 32 ? [(hi & 0x80000000) >>> 0, 0] : [0, (lo & 2 ** (fmt.W - 1)) >>> 0];
}

const out = new Uint32Array(3);

describe('minimum / maximum (IEEE 754-2019)', () => {
  for (const fmt of [F16, BF16, F32, F64]) {
    it(`${fmt.name}: NaN propagates as the canonical NaN, -0 < +0, otherwise the smaller / larger operand`, () => {
      fc.assert(
        fc.property(encArb(fmt), encArb(fmt), fc.boolean(), fc.boolean(), ([aHi, aLo], [bHi, bLo], isMax, ftz) => {
          const flags = fpMinMax(fmt, aHi, aLo, bHi, bLo, ftz, isMax, out);
          const r: [number, number] = [out[0]!, out[1]!];
          const x = decode(fmt, aHi, aLo);
          const y = decode(fmt, bHi, bLo);
          expect(flags).toBe(sigNaN(fmt, aHi, aLo) || sigNaN(fmt, bHi, bLo) ? FLAG_INVALID : 0);
          expect(out[2]).toBe(flags);
          if (Number.isNaN(x) || Number.isNaN(y)) {
            expect(r).toEqual([fmt.nanHi >>> 0, fmt.nanLo >>> 0]);
            return;
          }
          const A: [number, number] = ftz && isSub(fmt, aHi, aLo) ? signZero(fmt, aHi, aLo) : [aHi, aLo];
          const B: [number, number] = ftz && isSub(fmt, bHi, bLo) ? signZero(fmt, bHi, bLo) : [bHi, bLo];
          const xa = decode(fmt, ...A);
          const yb = decode(fmt, ...B);
          // order with -0 below +0
          const less = xa < yb || (xa === 0 && yb === 0 && Object.is(xa, -0) && !Object.is(yb, -0));
          const greater = xa > yb || (xa === 0 && yb === 0 && !Object.is(xa, -0) && Object.is(yb, -0));
          const want = isMax ? (less ? B : A) : greater ? B : A;
          expect(r).toEqual([want[0] >>> 0, want[1] >>> 0]);
          // fpCompare agrees
          expect(fpCompare(fmt, A[0], A[1], B[0], B[1])).toBe(less ? -1 : greater ? 1 : 0);
        }),
        { numRuns: 5000, seed: fmt.W },
      );
    });
  }

  it('signed zeros and hand cases', () => {
    const mm = (a: number, b: number, isMax: boolean) => (fpMinMax(F32, 0, a, 0, b, false, isMax, out), out[1]);
    expect(mm(0x00000000, 0x80000000, false)).toBe(0x80000000);
    expect(mm(0x80000000, 0x00000000, false)).toBe(0x80000000);
    expect(mm(0x00000000, 0x80000000, true)).toBe(0x00000000);
    expect(mm(0x80000000, 0x00000000, true)).toBe(0x00000000);
    expect(mm(0xff800000, 0x7f800000, false)).toBe(0xff800000);
    expect(mm(0x7fc00001, 0x3f800000, true)).toBe(0x7fc00000);
    expect(fpMinMax(F32, 0, 0x7f800001, 0, 0x3f800000, false, true, out)).toBe(FLAG_INVALID);
  });
});

describe('format conversion (wide accumulation)', () => {
  it('f16 / bf16 -> f32 is exact; NaNs become canonical; ftz reads subnormals as zero', () => {
    for (const fmt of [F16, BF16]) {
      for (let v = 0; v < 0x10000; v++) {
        for (const ftz of [false, true]) {
          const flags = fpConvert(fmt, F32, 0, v, RM_RNE | (ftz ? MODE_FTZ : 0), 0, out);
          const x = decode(fmt, 0, v);
          const got = decode(F32, 0, out[1]!);
          if (Number.isNaN(x)) {
            if (out[1] !== 0x7fc00000 || flags !== (sigNaN(fmt, 0, v) ? FLAG_INVALID : 0)) throw new Error(`${fmt.name} ${v.toString(16)}: NaN -> ${out[1]!.toString(16)} flags ${flags}`);
            continue;
          }
          const want = ftz && isSub(fmt, 0, v) ? (v & 0x8000 ? -0 : 0) : x;
          if (!Object.is(got, want) || flags !== 0) throw new Error(`${fmt.name} ${v.toString(16)} ftz=${ftz}: ${got} flags ${flags}, want ${want}`);
        }
      }
    }
  });

  it('f32 -> f16 rounds correctly in every mode (reference: exact rational rounding on doubles)', () => {
    // Reference rounding of a double x to binary16: candidates are the neighbouring f16 values.
    const f16Values: number[] = [];
    for (let v = 0; v < 0x7c00; v++) f16Values.push(decode(F16, 0, v));
    const roundRef = (x: number, rm: number): number => {
      const ax = Math.abs(x);
      const neg = x < 0 || Object.is(x, -0);
      // largest f16 magnitude <= ax
      let lo = 0;
      let hiIdx = f16Values.length - 1;
      while (lo < hiIdx) {
        const mid = (lo + hiIdx + 1) >> 1;
        if (f16Values[mid]! <= ax) lo = mid;
        else hiIdx = mid - 1;
      }
      const down = lo;
      const downV = f16Values[down]!;
      if (downV === ax) return (neg ? 0x8000 : 0) | down;
      const up = down + 1; // 0x7c00 = infinity
      const upV = up < f16Values.length ? f16Values[up]! : 65536;
      let pickUp: boolean;
      if (rm === RM_RTZ) pickUp = false;
      else if (rm === RM_RUP) pickUp = !neg;
      else if (rm === RM_RDN) pickUp = neg;
      else pickUp = ax - downV > upV - ax || (ax - downV === upV - ax && (down & 1) === 1);
      let r = pickUp ? up : down;
      if (r === 0x7c00 && rm === RM_RNE && ax < 65520) r = 0x7bff;
      return (neg ? 0x8000 : 0) | r;
    };
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0x30000000, max: 0x48000000 }), fc.integer({ min: 0xb0000000, max: 0xc8000000 })),
        fc.constantFrom(RM_RNE, RM_RTZ, RM_RDN, RM_RUP),
        (v, rm) => {
          const x = decode(F32, 0, v);
          const flags = fpConvert(F32, F16, 0, v, rm, 0, out);
          if (Number.isNaN(x)) {
            expect(out[1]).toBe(0x7e00);
            return;
          }
          if (!Number.isFinite(x)) {
            expect([out[1], flags]).toEqual([x > 0 ? 0x7c00 : 0xfc00, 0]);
            return;
          }
          const want = roundRef(x, rm);
          expect(out[1]!.toString(16)).toBe(want.toString(16));
          const exact = decode(F16, 0, want) === x;
          const ax = Math.abs(x);
          // overflow: rounded with an unbounded exponent, the magnitude reaches 2^16
          const awayFromZero = rm === RM_RUP ? x > 0 : rm === RM_RDN ? x < 0 : false;
          const overflow = rm === RM_RNE ? ax >= 65520 : awayFromZero ? ax > 65504 : ax >= 65536;
          let wantFlags = exact ? 0 : FLAG_INEXACT;
          if (overflow) wantFlags |= FLAG_OVERFLOW;
          // tiny after rounding: |x| rounded to 11 bits with unbounded exponent < 2^-14
          if (!exact && Math.abs(x) < 2 ** -14) {
            const tinyLimit = rm === RM_RNE ? 2 ** -14 - 2 ** -26 : 2 ** -14 - 2 ** -25;
            const roundsToMin = rm === RM_RNE ? Math.abs(x) >= tinyLimit : rm === RM_RTZ ? false : ((rm === RM_RUP) === x > 0) && Math.abs(x) > tinyLimit;
            if (!roundsToMin) wantFlags |= FLAG_UNDERFLOW;
          }
          expect(flags).toBe(wantFlags);
        },
      ),
      { numRuns: 20000, seed: 21 },
    );
  });

  it('f32 -> bf16 keeps the top half when exact, rounds the rest, and sr picks a neighbour', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 255 }), (v, u) => {
        const x = decode(F32, 0, v);
        if (Number.isNaN(x)) return;
        const tz = (fpConvert(F32, BF16, 0, v, RM_RTZ, 0, out), out[1]!);
        const sr = (fpConvert(F32, BF16, 0, v, RM_SR, u, out), out[1]!);
        const away = (fpConvert(F32, BF16, 0, v, x < 0 ? RM_RDN : RM_RUP, 0, out), out[1]!);
        if ((v & 0xffff) === 0) expect([tz, sr, away]).toEqual([v >>> 16, v >>> 16, v >>> 16]);
        else if ((v & 0x7f800000) !== 0 && (v & 0x7f800000) !== 0x7f800000) {
          expect(tz).toBe(v >>> 16);
          // q = the top 8 discarded bits
          const q = (v >>> 8) & 0xff;
          expect(sr).toBe(q + u >= 256 ? away : tz);
        } else expect([tz, away]).toContain(sr);
      }),
      { numRuns: 20000, seed: 22 },
    );
  });
});
