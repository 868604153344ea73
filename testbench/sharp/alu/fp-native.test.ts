/**
 * The round-to-nearest-even fast path (rtl/sharp/alu/fp/native.ts: the host's binary64 unit plus
 * an exact error term) against the bit-level datapath (addBits / mulBits) on the same operands:
 * bits and flags equal for every format, on random encodings biased towards the edges (zeros,
 * subnormals, the largest finite values, infinities, NaNs, exponents that sum near the overflow
 * and underflow thresholds, significands ending in long runs of zeros). TestFloat covers the same
 * path with its own vectors (testfloat.test.ts); this one reaches operand pairs those files lack.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BF16, F16, F32, F64, type FpFormat, fpAdd, fpAddRegs, fpMul, fpMulRegs, RM_RNE } from '../../../rtl/sharp/alu/fp/index.ts';
import { addBits } from '../../../rtl/sharp/alu/fp/add.ts';
import { mulBits } from '../../../rtl/sharp/alu/fp/mul.ts';

/** an encoding of `fmt` as (hi, lo) words, biased towards the edges */
function encoding(fmt: FpFormat): fc.Arbitrary<[number, number]> {
  const E = fmt.E;
  const F = fmt.F;
  const eAll = (1 << E) - 1;
  const exp = fc.oneof(fc.integer({ min: 0, max: eAll }), fc.constantFrom(0, 1, 2, eAll - 1, eAll), fc.integer({ min: (eAll >> 1) - F - 2, max: (eAll >> 1) + F + 2 }), fc.integer({ min: (eAll >> 2) - 3, max: (eAll >> 2) + 3 }), fc.integer({ min: eAll - (eAll >> 2) - 3, max: eAll - (eAll >> 2) + 3 }));
  const zerosBelow = fc.integer({ min: 0, max: F });
  return fc.tuple(fc.boolean(), exp, fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), zerosBelow, fc.constantFrom(0, 1, 2)).map(([neg, e, r1, r2, z, kind]) => {
    // fraction: random, all zeros or all ones, with z low bits cleared
    let fh = F > 32 ? r1 & ((1 << (F - 32)) - 1) : 0;
    let fl = F >= 32 ? r2 >>> 0 : r2 & ((1 << F) - 1);
    if (kind === 1) fh = fl = 0;
    if (kind === 2) {
      fh = F > 32 ? (1 << (F - 32)) - 1 : 0;
      fl = F >= 32 ? 0xffffffff : (1 << F) - 1;
    }
    if (z >= 32) {
      fl = 0;
      fh &= ~((1 << (z - 32)) - 1);
    } else if (z > 0) fl &= ~((1 << z) - 1);
    if (F >= 32) return [((neg ? 0x80000000 : 0) | (e << (F - 32)) | fh) >>> 0, fl >>> 0];
    return [0, ((neg ? 1 << (E + F) : 0) | (e << F) | fl) >>> 0];
  });
}

const FORMATS: FpFormat[] = [F64, F32, F16, BF16];

describe('round-to-nearest-even fast path = bit-level datapath', () => {
  for (const fmt of FORMATS) {
    for (const op of ['add', 'mul'] as const) {
      it(`${fmt.name} ${op}: bits and flags equal on edge-biased random operands`, () => {
        const fast = new Uint32Array(3);
        const slow = new Uint32Array(3);
        const regs = new Uint32Array(3);
        const ops = new Int32Array(4);
        fc.assert(
          fc.property(encoding(fmt), encoding(fmt), ([aHi, aLo], [bHi, bLo]) => {
            ops[0] = aHi;
            ops[1] = aLo;
            ops[2] = bHi;
            ops[3] = bLo;
            const ff = op === 'add' ? fpAdd(fmt, aHi, aLo, bHi, bLo, RM_RNE, 0, fast) : fpMul(fmt, aHi, aLo, bHi, bLo, RM_RNE, 0, fast);
            const fr = op === 'add' ? fpAddRegs(fmt, ops, RM_RNE, 0, regs) : fpMulRegs(fmt, ops, RM_RNE, 0, regs);
            const fs = op === 'add' ? addBits(fmt, ops, RM_RNE, 0, slow) : mulBits(fmt, ops, RM_RNE, 0, slow);
            const hex = (o: Uint32Array): string => `${o[0]!.toString(16)}:${o[1]!.toString(16)} flags ${o[2]}`;
            expect(hex(fast), `${fmt.name} ${op} ${aHi.toString(16)}:${aLo.toString(16)} ${bHi.toString(16)}:${bLo.toString(16)}`).toBe(hex(slow));
            expect(hex(regs)).toBe(hex(slow));
            expect(ff).toBe(fs);
            expect(fr).toBe(fs);
          }),
          { numRuns: 4000, seed: 0x5eed + fmt.W + (op === 'mul' ? 1 : 0) },
        );
      });
    }
  }
});
