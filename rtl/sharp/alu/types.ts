/**
 * The SHArP ALU's interface: data types, operations, rounding modes, flags and error codes.
 * Names and codes only (no arithmetic): the RTL datapath, the golden model in models/ and the
 * command line all speak this vocabulary. See docs/alu.md.
 */

export const DATA_TYPES = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f16', 'bf16', 'f32', 'f64'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export const OPS = ['sum', 'prod', 'min', 'max', 'minloc', 'maxloc', 'band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const;
export type Op = (typeof OPS)[number];

export const INDEX_TYPES = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64'] as const;
export type IndexType = (typeof INDEX_TYPES)[number];

/** Rounding modes: the four IEEE directed/nearest modes and LFSR stochastic rounding. */
export const ROUNDINGS = ['rne', 'rtz', 'rdn', 'rup', 'sr'] as const;
export type Rounding = (typeof ROUNDINGS)[number];

export const ORDERS = ['linear', 'tree'] as const;
export type ReductionOrder = (typeof ORDERS)[number];

/** Size in bytes of one value of each type. */
export const TYPE_BYTES: Readonly<Record<DataType, number>> = {
  i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8, f16: 2, bf16: 2, f32: 4, f64: 8,
};

export const FLOAT_TYPES: readonly DataType[] = ['f16', 'bf16', 'f32', 'f64'];

/**
 * Exception flags, bit layout as Berkeley TestFloat/SoftFloat: bit 0 inexact, bit 1 underflow,
 * bit 2 overflow, bit 3 divide-by-zero (never raised here), bit 4 invalid.
 */
export const FLAG_INEXACT = 0x01;
export const FLAG_UNDERFLOW = 0x02;
export const FLAG_OVERFLOW = 0x04;
export const FLAG_DIVZERO = 0x08;
export const FLAG_INVALID = 0x10;

/** Per-operation status codes (0 = success). A failed operation produces no data. */
export const AluError = {
  OK: 0,
  /** the operation is not defined for the data type (bitwise/logical on floats, ...) */
  TYPE_OP: 1,
  /** element count x element size (x index size for minloc/maxloc) exceeds 256 bytes */
  PAYLOAD_TOO_LARGE: 2,
  /** child slot >= the operation's number of children */
  SLOT_RANGE: 3,
  /** a second operand from the same child slot for one operation */
  DUPLICATE_OPERAND: 4,
  /** an operand's type/op/count/children disagree with the operation's first operand */
  HEADER_MISMATCH: 5,
  /** no free operation context */
  NO_CONTEXT: 6,
  /** number of children outside 1..64 */
  BAD_CHILDREN: 7,
  /** index type given is not an integer type */
  BAD_INDEX_TYPE: 8,
  /** payload length differs from count x element size */
  BAD_LENGTH: 9,
} as const;
export type AluErrorCode = (typeof AluError)[keyof typeof AluError];

export const ALU_ERROR_NAMES: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(AluError).map(([k, v]) => [v, k]));

/** Largest payload of one operation in bytes. */
export const MAX_PAYLOAD_BYTES = 256;
/** Largest number of children (operand slots) of one operation. */
export const MAX_CHILDREN = 64;

/** Bits of the discarded fraction that stochastic rounding compares with its random draw. */
export const SR_BITS = 8;

export function isFloat(t: DataType): boolean {
  return t === 'f16' || t === 'bf16' || t === 'f32' || t === 'f64';
}

export function isSigned(t: DataType): boolean {
  return t[0] === 'i';
}

/** Bytes of one element of an operation's payload (value, plus index for minloc/maxloc). */
export function elementBytes(type: DataType, op: Op, indexType: IndexType): number {
  return TYPE_BYTES[type] + (op === 'minloc' || op === 'maxloc' ? TYPE_BYTES[indexType] : 0);
}

/** The error an operation header gets before any data is touched, or OK. */
export function validateHeader(type: DataType, op: Op, count: number, children: number, indexType: IndexType): AluErrorCode {
  if (!(DATA_TYPES as readonly string[]).includes(type) || !(OPS as readonly string[]).includes(op)) return AluError.TYPE_OP;
  if (isFloat(type) && (op === 'band' || op === 'bor' || op === 'bxor' || op === 'land' || op === 'lor' || op === 'lxor')) return AluError.TYPE_OP;
  if ((op === 'minloc' || op === 'maxloc') && !(INDEX_TYPES as readonly string[]).includes(indexType)) return AluError.BAD_INDEX_TYPE;
  if (!Number.isInteger(children) || children < 1 || children > MAX_CHILDREN) return AluError.BAD_CHILDREN;
  if (!Number.isInteger(count) || count < 0 || count * elementBytes(type, op, indexType) > MAX_PAYLOAD_BYTES) return AluError.PAYLOAD_TOO_LARGE;
  return AluError.OK;
}

export function parseDataType(s: string): DataType {
  if (!(DATA_TYPES as readonly string[]).includes(s)) throw new RangeError(`unknown data type '${s}' (one of ${DATA_TYPES.join(' ')})`);
  return s as DataType;
}

export function parseOp(s: string): Op {
  if (!(OPS as readonly string[]).includes(s)) throw new RangeError(`unknown operation '${s}' (one of ${OPS.join(' ')})`);
  return s as Op;
}
