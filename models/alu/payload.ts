/**
 * Golden model of the SHArP ALU: payload layout (docs/alu.md, "Payload layout").
 *
 * A payload is `count` packed little-endian elements; a minloc/maxloc element is the value
 * followed immediately by its index, no padding. Values are handled as unsigned BigInt bit
 * patterns of the type's width.
 */
import type { DataType, IndexType, Op } from '../../rtl/sharp/alu/types.ts';

/** Bytes of one value of each data type (the golden model's own table). */
export const VALUE_BYTES: Readonly<Record<DataType, number>> = {
  i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8, f16: 2, bf16: 2, f32: 4, f64: 8,
};

export function isFloatType(t: DataType): t is 'f16' | 'bf16' | 'f32' | 'f64' {
  return t === 'f16' || t === 'bf16' || t === 'f32' || t === 'f64';
}

export function isSignedIntType(t: DataType | IndexType): boolean {
  return t === 'i8' || t === 'i16' || t === 'i32' || t === 'i64';
}

export function isLocOp(op: Op): op is 'minloc' | 'maxloc' {
  return op === 'minloc' || op === 'maxloc';
}

/** Bytes of one payload element: the value, plus the index for minloc/maxloc. */
export function goldenElementBytes(type: DataType, op: Op, indexType: IndexType): number {
  return VALUE_BYTES[type] + (isLocOp(op) ? VALUE_BYTES[indexType] : 0);
}

/** Unsigned little-endian integer of `n` bytes at `offset`. */
export function readLE(bytes: Uint8Array, offset: number, n: number): bigint {
  let v = 0n;
  for (let k = n - 1; k >= 0; k--) v = (v << 8n) | BigInt(bytes[offset + k] as number);
  return v;
}

/** Writes the low `n` bytes of `value` (taken modulo 2^(8n)) little-endian at `offset`. */
export function writeLE(bytes: Uint8Array, offset: number, n: number, value: bigint): void {
  let v = BigInt.asUintN(8 * n, value);
  for (let k = 0; k < n; k++) {
    bytes[offset + k] = Number(v & 0xffn);
    v >>= 8n;
  }
}
