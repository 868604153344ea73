/**
 * TestFloat-format vectors from the golden model (models/alu), for the widths Berkeley TestFloat
 * does not generate (bfloat16) and for any other ALU float width. Same line format as
 * `testfloat_gen`: `A B RESULT FLAGS`, upper-case hex, FLAGS bit 0 inexact, 1 underflow (tininess
 * after rounding), 2 overflow, 4 invalid; NaN results are the golden model's canonical quiet NaN.
 *
 * Operands (seeded): a third fully random encodings, the rest built from a sign, an exponent field
 * drawn from the edges (0, 1, 2, the bias, all-ones - 1, all-ones) or near the other operand's
 * (close exponents exercise cancellation in add, and products near the overflow and underflow
 * thresholds in mul), and a fraction drawn from the edges (0, 1, all ones, top bit only) or at random.
 * The expectation is computed by the golden model alone (exact BigInt result, one rounding in
 * models/alu/round.ts), which shares no code with the datapath (rtl/sharp/alu/fp) it checks.
 */
import { Rng } from '../rtl/kernel/rng.ts';
import { goldenBinary } from '../models/alu/golden.ts';
import { type FloatFormatName, formatOf } from '../models/alu/formats.ts';

export interface TestFloatGenOptions {
  type: FloatFormatName;
  op: 'add' | 'mul';
  rounding: 'rne' | 'rtz' | 'rdn' | 'rup';
  count: number;
  seed: number;
}

function hexOf(v: bigint, width: number): string {
  return v.toString(16).toUpperCase().padStart(width / 4, '0');
}

/** The text of `count` cases, one per line. */
export function generateTestFloat(o: TestFloatGenOptions): string {
  if (!Number.isSafeInteger(o.count) || o.count < 0) throw new RangeError(`generateTestFloat: count must be a non-negative integer, got ${o.count}`);
  const fmt = formatOf(o.type);
  const rng = new Rng(o.seed);
  const eAll = Number(fmt.expMask);
  const edgesE = [0, 1, 2, fmt.bias, eAll - 1, eAll];
  const F = fmt.fracBits;
  const edgesF = [0n, 1n, fmt.fracMask, 1n << BigInt(F - 1)];
  const build = (e: number): bigint => {
    const sign = rng.bool() ? fmt.signBit : 0n;
    const f = rng.bool(0.4) ? edgesF[rng.int(edgesF.length)]! : rng.bits(F);
    return sign | (BigInt(e) << BigInt(F)) | f;
  };
  const expOf = (v: bigint): number => Number((v >> BigInt(F)) & fmt.expMask);
  const clampE = (e: number): number => Math.max(0, Math.min(eAll, e));
  const lines: string[] = [];
  for (let i = 0; i < o.count; i++) {
    let a: bigint;
    let b: bigint;
    const kind = rng.int(3);
    if (kind === 0) {
      a = rng.bits(fmt.width);
      b = rng.bits(fmt.width);
    } else {
      a = build(rng.bool() ? edgesE[rng.int(edgesE.length)]! : rng.int(eAll + 1));
      const ea = expOf(a);
      // close exponents for add; for mul, exponents whose sum lands near the overflow / underflow edge
      const near = o.op === 'add' ? ea + rng.range(-F - 3, F + 3) : rng.bool() ? 3 * fmt.bias - ea + rng.range(-2, 2) : fmt.bias - ea + rng.range(-F - 3, 3);
      b = build(kind === 1 ? clampE(near) : edgesE[rng.int(edgesE.length)]!);
    }
    const r = goldenBinary(o.type, o.op, a, b, o.rounding);
    lines.push(`${hexOf(a, fmt.width)} ${hexOf(b, fmt.width)} ${hexOf(r.bits, fmt.width)} ${r.flags.toString(16).toUpperCase().padStart(2, '0')}`);
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}
