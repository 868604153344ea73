/**
 * Bit-exact IEEE 754 arithmetic for the SHArP ALU datapath (binary16, bfloat16, binary32,
 * binary64), on 32-bit integer words: no BigInt, no allocation per operation. Round to nearest
 * even without ftz takes the binary64 fast path (native.ts: the host's IEEE binary64 unit plus an
 * exact error term, bit-identical results); every other mode the bit-level datapath (add.ts,
 * mul.ts: integer words only). Semantics: docs/alu.md.
 *
 * API
 * ---
 * Formats: `F16`, `BF16`, `F32`, `F64` (or `FORMATS[name]`, `formatOf(name)`), descriptors of one
 * generic datapath parameterized by exponent and fraction widths.
 *
 * Operand encoding: a value is a pair of 32-bit words (hi, lo). binary64: hi = bits 63..32,
 * lo = bits 31..0. binary32, binary16, bfloat16: the encoding in lo (hi = 0).
 *
 * Mode word: rounding code | MODE_FTZ, with rounding codes RM_RNE, RM_RTZ, RM_RDN, RM_RUP, RM_SR
 * (`modeWord('rne' | 'rtz' | 'rdn' | 'rup' | 'sr', ftz)`). MODE_FTZ reads subnormal inputs as zero
 * and flushes results that are tiny after rounding to zero (raising underflow and inexact).
 *
 * Stochastic draw `u`: 0..255, the 8-bit LFSR draw of this rounding (`srDraw(opSeed, node,
 * element)` from fp/sr.ts); ignored unless the rounding mode is RM_SR.
 *
 * Results: every operation writes into a caller-provided Uint32Array `out` (length >= 3):
 * out[0] = result hi word, out[1] = result lo word, out[2] = flags, and returns the flags
 * (FLAG_INEXACT 1, FLAG_UNDERFLOW 2, FLAG_OVERFLOW 4, FLAG_INVALID 16 from ../types.ts).
 * `out` may be reused across calls; nothing else is written.
 *
 *   fpAdd(fmt, aHi, aLo, bHi, bLo, mode, u, out): flags        a + b
 *   fpSub(fmt, aHi, aLo, bHi, bLo, mode, u, out): flags        a - b
 *   fpMul(fmt, aHi, aLo, bHi, bLo, mode, u, out): flags        a * b
 *   fpMinMax(fmt, aHi, aLo, bHi, bLo, ftz, isMax, out): flags  IEEE 754-2019 minimum / maximum
 *   fpConvert(src, dst, hi, lo, mode, u, out): flags           format conversion (widen exact /
 *                                                              narrow rounded)
 *   fpAddRegs(fmt, ops, mode, u, out) / fpMulRegs(...) /       the same with the operands in a
 *   fpConvertRegs(src, dst, ops, mode, u, out)                 caller-owned Int32Array register
 *                                                              block [aHi, aLo, bHi, bLo] (or
 *                                                              [hi, lo]): the fast path for loops,
 *                                                              as 32-bit words passed as arguments
 *                                                              to a non-inlined function get boxed
 *   fpAddF64 / fpAddF32 / fpAddF16 / fpAddBf16(aHi, aLo,       fpAdd of one format (likewise
 *     bHi, bLo, mode, u, out), fpAddOf(fmt)                    fpMulF64 ..., fpMulOf): bound once
 *   fpAddRegsOf(fmt) / fpMulRegsOf(fmt)                        by a caller that works on one format,
 *                                                              each is a small function the engine
 *                                                              inlines with that format's feedback
 *                                                              only (the generic entries dispatch
 *                                                              on fmt at every call)
 *   fpCompare(fmt, aHi, aLo, bHi, bLo): -1 | 0 | 1             ordered compare of non-NaNs, -0 < +0
 *   dazBits(fmt, hi, lo, ftz, out)                             value as read under ftz
 *   isNaNBits / isSignalingBits / isSubnormalBits(fmt, hi, lo) classification
 *
 * Every NaN result is the format's canonical quiet NaN (fmt.nanHi, fmt.nanLo). Flags follow
 * Berkeley SoftFloat with tininess detected after rounding (checked against TestFloat vectors by
 * testbench/sharp/alu/testfloat.test.ts).
 */
export { F16, BF16, F32, F64, FORMATS, formatOf, modeWord, type FpFormat, type FpName, MODE_FTZ, RM_RNE, RM_RTZ, RM_RDN, RM_RUP, RM_SR, ROUNDING_CODES, GUARD_BITS } from './format.ts';
export { fpAdd, fpAddRegs, fpSub, fpAddF64, fpAddF32, fpAddF16, fpAddBf16, fpAddOf, fpAddRegsOf, type FpBinary, type FpBinaryRegs } from './add.ts';
export { fpMul, fpMulRegs, mulWide32, fpMulF64, fpMulF32, fpMulF16, fpMulBf16, fpMulOf, fpMulRegsOf } from './mul.ts';
export { fpConvert, fpConvertRegs } from './convert.ts';
export { fpCompare, fpMinMax, dazBits } from './minmax.ts';
export { isNaNBits, isSignalingBits, isSubnormalBits, signBit, expField } from './special.ts';
export { fmix32, opSeed, elementSeed, lfsrDraw8, srDraw, LFSR_TAPS } from './sr.ts';
