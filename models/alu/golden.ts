/**
 * Golden model of the SHArP ALU: one whole reduction (docs/alu.md).
 *
 * goldenReduce validates the operation with its own code, then reduces every element of the
 * children's payloads in the fixed order (`linear` fold over slots, or the balanced pairwise
 * `tree` with nodes numbered in creation order), combining with the exact element operations of
 * float-ops.ts / int-ops.ts, and returns the packed result and the OR of all flags. Arithmetic is
 * exact BigInt throughout: clarity over speed. Nothing here is shared with the RTL datapath.
 */
import {
  AluError,
  type AluErrorCode,
  DATA_TYPES,
  type DataType,
  INDEX_TYPES,
  type IndexType,
  MAX_CHILDREN,
  MAX_PAYLOAD_BYTES,
  type Op,
  OPS,
  ORDERS,
  type ReductionOrder,
  ROUNDINGS,
  type Rounding,
} from '../../rtl/sharp/alu/types.ts';
import { goldenBinary, goldenConvert, goldenFloatLoc, goldenMinMax } from './float-ops.ts';
import { goldenIntLoc, goldenIntOp, type IntOp, type IntType } from './int-ops.ts';
import { goldenElementBytes, isFloatType, isLocOp, isSignedIntType, readLE, VALUE_BYTES, writeLE } from './payload.ts';
import { lfsrDraw, srLfsrSeed, srOpSeed } from './sr.ts';

export { goldenBinary, goldenConvert, goldenFloatLoc, goldenMinMax } from './float-ops.ts';
export { goldenIntLoc, goldenIntOp } from './int-ops.ts';
export { goldenElementBytes } from './payload.ts';
export { fmix32, lfsrDraw, lfsrStep, srDraw, srLfsrSeed, srOpSeed } from './sr.ts';

export interface GoldenConfig {
  type: DataType;
  op: Op;
  /** index type of minloc/maxloc elements (default 'i32'); ignored by other operations */
  indexType?: IndexType;
  /** float rounding (default 'rne'); ignored by integer types */
  rounding?: Rounding;
  /** flush-to-zero / denormals-are-zero for floats (default false) */
  ftz?: boolean;
  /** binary32 accumulation for f16/bf16 sum/prod (default false); ignored elsewhere */
  wide?: boolean;
  /** reduction order (default 'linear') */
  order?: ReductionOrder;
  /** the ALU's seed for stochastic rounding (32-bit, default 0) */
  seed?: number;
}

export interface GoldenResult {
  status: AluErrorCode;
  /** count x element bytes on success; empty on error and for a barrier (count 0) */
  data: Uint8Array;
  /** OR of the flags of every element operation and combine step (0 on error) */
  flags: number;
}

/** One item of the reduction: a value bit pattern, plus its index for minloc/maxloc. */
interface Item {
  value: bigint;
  index: bigint;
}

const LOGICAL_OR_BITWISE: readonly Op[] = ['band', 'bor', 'bxor', 'land', 'lor', 'lxor'];

function fail(status: AluErrorCode): GoldenResult {
  return { status, data: new Uint8Array(0), flags: 0 };
}

function checkConfigFields(cfg: GoldenConfig): void {
  if (cfg === null || typeof cfg !== 'object') throw new TypeError('goldenReduce: cfg must be an object');
  const rounding = cfg.rounding ?? 'rne';
  if (!(ROUNDINGS as readonly string[]).includes(rounding)) throw new RangeError(`goldenReduce: unknown rounding '${String(rounding)}' (one of ${ROUNDINGS.join(' ')})`);
  const order = cfg.order ?? 'linear';
  if (!(ORDERS as readonly string[]).includes(order)) throw new RangeError(`goldenReduce: unknown order '${String(order)}' (one of ${ORDERS.join(' ')})`);
  for (const k of ['ftz', 'wide'] as const) {
    if (cfg[k] !== undefined && typeof cfg[k] !== 'boolean') throw new TypeError(`goldenReduce: cfg.${k} must be a boolean, got ${String(cfg[k])}`);
  }
  if (cfg.seed !== undefined && !Number.isInteger(cfg.seed)) throw new RangeError(`goldenReduce: cfg.seed must be an integer, got ${String(cfg.seed)}`);
}

/**
 * Header checks, in this order: TYPE_OP (unknown type or op, bitwise/logical on a float),
 * BAD_INDEX_TYPE (minloc/maxloc with a non-integer index type), BAD_CHILDREN (not 1..64),
 * PAYLOAD_TOO_LARGE (count x element bytes > 256).
 */
export function goldenValidateHeader(type: DataType, op: Op, indexType: IndexType, count: number, children: number): AluErrorCode {
  if (!(DATA_TYPES as readonly string[]).includes(type) || !(OPS as readonly string[]).includes(op)) return AluError.TYPE_OP;
  if (isFloatType(type) && LOGICAL_OR_BITWISE.includes(op)) return AluError.TYPE_OP;
  if (isLocOp(op) && !(INDEX_TYPES as readonly string[]).includes(indexType)) return AluError.BAD_INDEX_TYPE;
  if (!Number.isInteger(children) || children < 1 || children > MAX_CHILDREN) return AluError.BAD_CHILDREN;
  if (count * goldenElementBytes(type, op, indexType) > MAX_PAYLOAD_BYTES) return AluError.PAYLOAD_TOO_LARGE;
  return AluError.OK;
}

/** Combines the items of the slots in the fixed order; `combine(left, right, node)`. */
function reduceInOrder(items: Item[], order: ReductionOrder, combine: (l: Item, r: Item, node: number) => Item): Item {
  if (order === 'linear') {
    let acc = items[0] as Item;
    for (let s = 1; s < items.length; s++) acc = combine(acc, items[s] as Item, s);
    return acc;
  }
  let level = items;
  let node = 1;
  while (level.length > 1) {
    const next: Item[] = [];
    for (let j = 0; j + 1 < level.length; j += 2) next.push(combine(level[j] as Item, level[j + 1] as Item, node++));
    if (level.length % 2 === 1) next.push(level[level.length - 1] as Item);
    level = next;
  }
  return level[0] as Item;
}

/**
 * Reduces the payloads of children 0..K-1 (operands[slot]) of one operation. Returns the AluError
 * status, the packed result and the OR of all flags. Throws (RangeError/TypeError) only for
 * arguments that are not ALU inputs at all: unknown rounding/order, non-integer or negative count,
 * a slot that is not a Uint8Array.
 */
export function goldenReduce(cfg: GoldenConfig, operationId: number, count: number, operands: readonly Uint8Array[]): GoldenResult {
  checkConfigFields(cfg);
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`goldenReduce: count must be a non-negative integer, got ${String(count)}`);
  if (!Number.isInteger(operationId)) throw new RangeError(`goldenReduce: operationId must be an integer, got ${String(operationId)}`);
  if (!Array.isArray(operands)) throw new TypeError('goldenReduce: operands must be an array of Uint8Array, one per child slot');
  for (let slot = 0; slot < operands.length; slot++) {
    if (!(operands[slot] instanceof Uint8Array)) throw new TypeError(`goldenReduce: operand of child slot ${slot} is missing or not a Uint8Array`);
  }
  const { type, op } = cfg;
  const indexType = cfg.indexType ?? 'i32';
  const status = goldenValidateHeader(type, op, indexType, count, operands.length);
  if (status !== AluError.OK) return fail(status);
  const elemBytes = goldenElementBytes(type, op, indexType);
  if (operands.some((p) => p.length !== count * elemBytes)) return fail(AluError.BAD_LENGTH);
  if (count === 0) return { status: AluError.OK, data: new Uint8Array(0), flags: 0 };

  const rounding = cfg.rounding ?? 'rne';
  const order = cfg.order ?? 'linear';
  const ftz = cfg.ftz === true;
  const valueBytes = VALUE_BYTES[type];
  const loc = isLocOp(op);
  const indexBytes = loc ? VALUE_BYTES[indexType] : 0;
  const opSeed = srOpSeed(cfg.seed ?? 0, operationId);
  const drawAt = (node: number, element: number): number | undefined => (rounding === 'sr' ? lfsrDraw(srLfsrSeed(opSeed, node, element)) : undefined);
  const wide = cfg.wide === true && (type === 'f16' || type === 'bf16') && (op === 'sum' || op === 'prod');

  const out = new Uint8Array(count * elemBytes);
  let flags = 0;
  for (let el = 0; el < count; el++) {
    const base = el * elemBytes;
    let items: Item[] = operands.map((p) => {
      const raw = readLE(p, base + valueBytes, indexBytes);
      return { value: readLE(p, base, valueBytes), index: loc && isSignedIntType(indexType) ? BigInt.asIntN(8 * indexBytes, raw) : raw };
    });
    let combine: (l: Item, r: Item, node: number) => Item;
    if (isFloatType(type)) {
      if (op === 'sum' || op === 'prod') {
        const fop = op === 'sum' ? 'add' : 'mul';
        const stepFormat = wide ? 'f32' : type;
        if (wide) {
          // exact widening of every operand (NaN -> canonical, sNaN raises invalid)
          items = items.map((it) => {
            const w = goldenConvert(type, 'f32', it.value, 'rne', { ftz });
            flags |= w.flags;
            return { value: w.bits, index: 0n };
          });
        }
        combine = (l, r, node) => {
          const res = goldenBinary(stepFormat, fop, l.value, r.value, rounding, { ftz, u: drawAt(node, el) });
          flags |= res.flags;
          return { value: res.bits, index: 0n };
        };
      } else if (op === 'min' || op === 'max') {
        combine = (l, r) => {
          const res = goldenMinMax(type, op, l.value, r.value, { ftz });
          flags |= res.flags;
          return { value: res.bits, index: 0n };
        };
      } else if (op === 'minloc' || op === 'maxloc') {
        combine = (l, r) => {
          const res = goldenFloatLoc(type, op, l, r, { ftz });
          flags |= res.flags;
          return { value: res.value, index: res.index };
        };
      } else {
        throw new Error(`internal: float operation '${op}' passed validation`);
      }
    } else if (op === 'minloc' || op === 'maxloc') {
      combine = (l, r) => goldenIntLoc(type as IntType, op, l, r);
    } else {
      combine = (l, r) => ({ value: goldenIntOp(type as IntType, op as IntOp, l.value, r.value), index: 0n });
    }
    let result = reduceInOrder(items, order, combine);
    if (wide) {
      // the one final narrowing of the binary32 accumulator, at node 0
      const n = goldenConvert('f32', type, result.value, rounding, { ftz, u: drawAt(0, el) });
      flags |= n.flags;
      result = { value: n.bits, index: 0n };
    }
    writeLE(out, base, valueBytes, result.value);
    if (loc) writeLE(out, base + valueBytes, indexBytes, result.index);
  }
  return { status: AluError.OK, data: out, flags };
}
