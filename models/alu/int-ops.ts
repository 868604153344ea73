/**
 * Golden model of the SHArP ALU: the element operations on integers (docs/alu.md, "Integers").
 *
 * Operands and results are unsigned BigInt bit patterns of the type's width. sum/prod wrap
 * modulo 2^n; min/max/minloc/maxloc compare signed for iN and unsigned for uN; logical operations
 * treat nonzero as true and give 1 or 0.
 */
import type { DataType, IndexType } from '../../rtl/sharp/alu/types.ts';
import { isFloatType, isSignedIntType, VALUE_BYTES } from './payload.ts';

export type IntOp = 'sum' | 'prod' | 'min' | 'max' | 'band' | 'bor' | 'bxor' | 'land' | 'lor' | 'lxor';
export type IntType = Exclude<DataType, 'f16' | 'bf16' | 'f32' | 'f64'>;

function widthOf(type: DataType | IndexType, what: string): number {
  if (isFloatType(type as DataType) || !(type in VALUE_BYTES)) throw new RangeError(`${what}: '${String(type)}' is not an integer type`);
  return 8 * VALUE_BYTES[type];
}

/** The number a bit pattern stands for in `type` (two's complement for iN). */
export function intValue(type: DataType | IndexType, bits: bigint): bigint {
  const n = widthOf(type, 'intValue');
  return isSignedIntType(type) ? BigInt.asIntN(n, bits) : BigInt.asUintN(n, bits);
}

function checkPattern(n: number, bits: bigint, what: string): void {
  if (typeof bits !== 'bigint' || bits < 0n || bits >> BigInt(n) !== 0n) throw new RangeError(`${what}: ${String(bits)} is not a ${n}-bit pattern`);
}

/** One integer element operation on two bit patterns of `type`. */
export function goldenIntOp(type: IntType, op: IntOp, a: bigint, b: bigint): bigint {
  const n = widthOf(type, 'goldenIntOp');
  checkPattern(n, a, `goldenIntOp ${type} operand a`);
  checkPattern(n, b, `goldenIntOp ${type} operand b`);
  const va = intValue(type, a);
  const vb = intValue(type, b);
  switch (op) {
    case 'sum':
      return BigInt.asUintN(n, va + vb);
    case 'prod':
      return BigInt.asUintN(n, va * vb);
    case 'min':
      return vb < va ? b : a;
    case 'max':
      return vb > va ? b : a;
    case 'band':
      return a & b;
    case 'bor':
      return a | b;
    case 'bxor':
      return a ^ b;
    case 'land':
      return a !== 0n && b !== 0n ? 1n : 0n;
    case 'lor':
      return a !== 0n || b !== 0n ? 1n : 0n;
    case 'lxor':
      return (a !== 0n) !== (b !== 0n) ? 1n : 0n;
    default:
      throw new RangeError(`goldenIntOp: unknown operation '${String(op)}'`);
  }
}

/**
 * The minloc/maxloc combine on integers: the smaller (minloc) or larger (maxloc) value wins; on
 * equal values the smaller index (compared per the index type's signedness). Indices are given
 * and returned as numbers of their index type (already sign-interpreted).
 */
export function goldenIntLoc(
  type: IntType,
  op: 'minloc' | 'maxloc',
  a: { value: bigint; index: bigint },
  b: { value: bigint; index: bigint },
): { value: bigint; index: bigint } {
  const n = widthOf(type, 'goldenIntLoc');
  checkPattern(n, a.value, `goldenIntLoc ${type} value a`);
  checkPattern(n, b.value, `goldenIntLoc ${type} value b`);
  if (op !== 'minloc' && op !== 'maxloc') throw new RangeError(`goldenIntLoc: unknown operation '${String(op)}' (minloc or maxloc)`);
  const va = intValue(type, a.value);
  const vb = intValue(type, b.value);
  if (va === vb) return { value: a.value, index: a.index <= b.index ? a.index : b.index };
  const aWins = op === 'minloc' ? va < vb : va > vb;
  return aWins ? { value: a.value, index: a.index } : { value: b.value, index: b.index };
}
