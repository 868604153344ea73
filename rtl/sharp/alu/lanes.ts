/**
 * Element-wise datapath of the SHArP ALU: the lanes the pipelined ALU (alu.ts) drives once per
 * combine step and beat. Each call combines a run of elements of a left payload `a` (the running
 * result, or the lower-slot side of a tree node) with a right payload `b` into `out`, for every
 * type x operation of docs/alu.md, and returns the OR of the exception flags.
 *
 * API (allocation-free; payloads are little-endian packed Uint8Arrays, docs/alu.md "Payload layout")
 *
 *   combine(cfg, a, b, out, first, n, node, opSeed): flags
 *       elements [first, first + n) of a op b -> out (out may alias a or b: every element is read
 *       before it is written). `node` = reduction node number and `opSeed` = opSeed(aluSeed,
 *       operationId); both only feed the stochastic-rounding draws (elementSeed(opSeed, node, i)).
 *       In wide mode (isWide(cfg)) a, b and out hold binary32 accumulators, 4 bytes per element.
 *   widen(cfg, src, dst, first, n): flags
 *       wide mode: element-type operands (f16/bf16, 2 bytes) -> binary32 accumulators (4 bytes),
 *       exact; a NaN becomes the canonical NaN (invalid if signalling); under ftz an f16/bf16
 *       subnormal is read as zero.
 *   narrow(cfg, src, dst, first, n, opSeed): flags
 *       wide mode: binary32 accumulators -> element type, rounded once in the configured mode (sr
 *       draws use node 0), raising overflow / underflow / inexact.
 *   canonicalize(cfg, src, dst, first, n): flags
 *       an operand that is passed on without any combine step (a one-child operation): float NaNs
 *       become the canonical NaN (invalid if signalling) and, under ftz, subnormals become signed
 *       zeros; integers and indices are copied. Not wide (use widen + narrow for that).
 *   laneBytes(cfg): bytes of one element as combine() sees it (4 in wide mode, else value + index)
 *   isWide(cfg): wide accumulation applies (cfg.wide, f16/bf16, sum/prod)
 *   fmix32, opSeed(aluSeed, operationId), elementSeed(opSeed, node, element), lfsrDraw8(seed)
 *
 * The configuration must have passed types.ts validateHeader (no bitwise/logical op on a float,
 * an integer index type); element ranges are checked against the payload lengths (RangeError).
 *
 * Hardware: one lane per element position, each an integer ALU (wrapping add, 32x32 multiplier,
 * comparators, bitwise/logical units) and the shared floating-point unit of fp/ (adder,
 * multiplier, comparator, converter); the per-element LFSR seed hash runs beside the lane.
 */
import * as Add from './fp/add.ts';
import * as Conv from './fp/convert.ts';
import * as Fmt from './fp/format.ts';
import type { FpFormat } from './fp/format.ts';
import * as MinMax from './fp/minmax.ts';
import * as Mul from './fp/mul.ts';
import * as Spec from './fp/special.ts';
import * as Sr from './fp/sr.ts';
import * as T from './types.ts';
import type { DataType, IndexType, Op, Rounding } from './types.ts';

export { fmix32, opSeed, elementSeed, lfsrDraw8, srDraw } from './fp/sr.ts';

// Module constants copied from the imports once (see fp/round.ts for why).
const fpAddRegsOf = Add.fpAddRegsOf;
const fpMulRegsOf = Mul.fpMulRegsOf;
const mulWide32 = Mul.mulWide32;
const fpConvertRegs = Conv.fpConvertRegs;
const fpMinMax = MinMax.fpMinMax;
const fpCompare = MinMax.fpCompare;
const dazBits = MinMax.dazBits;
const isNaNBits = Spec.isNaNBits;
const isSignalingBits = Spec.isSignalingBits;
const srDraw = Sr.srDraw;
const modeWord = Fmt.modeWord;
const F32 = Fmt.F32;
const FORMATS = Fmt.FORMATS;
const TYPE_BYTES = T.TYPE_BYTES;
const FLAG_INVALID = T.FLAG_INVALID;

export interface LaneConfig {
  type: DataType;
  op: Op;
  /** index type of minloc/maxloc elements (ignored by other operations) */
  indexType: IndexType;
  rounding: Rounding;
  /** flush-to-zero / denormals-are-zero (floats only) */
  ftz: boolean;
  /** wide accumulation (f16/bf16 sum/prod only; ignored otherwise) */
  wide: boolean;
}

const OP_SUM = 0;
const OP_PROD = 1;
const OP_MIN = 2;
const OP_MAX = 3;
const OP_MINLOC = 4;
const OP_MAXLOC = 5;
const OP_BAND = 6;
const OP_BOR = 7;
const OP_BXOR = 8;
const OP_LAND = 9;
const OP_LOR = 10;
const OP_LXOR = 11;
const OP_CODES: Readonly<Record<Op, number>> = {
  sum: OP_SUM,
  prod: OP_PROD,
  min: OP_MIN,
  max: OP_MAX,
  minloc: OP_MINLOC,
  maxloc: OP_MAXLOC,
  band: OP_BAND,
  bor: OP_BOR,
  bxor: OP_BXOR,
  land: OP_LAND,
  lor: OP_LOR,
  lxor: OP_LXOR,
};

// Operand registers [aHi, aLo, bHi, bLo] and result registers [hi, lo, flags] of the
// floating-point unit, and the 32x32 multiplier's result.
const X = new Int32Array(4);
const R = new Uint32Array(3);
const W = new Int32Array(2);

function opCode(op: Op): number {
  const c = OP_CODES[op];
  if (c === undefined) throw new RangeError(`unknown ALU operation '${String(op)}'`);
  return c;
}

function isFloatType(t: DataType): boolean {
  return t === 'f16' || t === 'bf16' || t === 'f32' || t === 'f64';
}

/** Whether wide accumulation applies to this configuration. */
export function isWide(cfg: LaneConfig): boolean {
  return cfg.wide && (cfg.type === 'f16' || cfg.type === 'bf16') && (cfg.op === 'sum' || cfg.op === 'prod');
}

/** Bytes per element of the payloads combine() works on. */
export function laneBytes(cfg: LaneConfig): number {
  if (isWide(cfg)) return 4;
  const vb = TYPE_BYTES[cfg.type];
  if (vb === undefined) throw new RangeError(`unknown data type '${String(cfg.type)}'`);
  if (cfg.op === 'minloc' || cfg.op === 'maxloc') {
    const ib = TYPE_BYTES[cfg.indexType];
    if (ib === undefined || isFloatType(cfg.indexType)) throw new RangeError(`bad index type '${String(cfg.indexType)}'`);
    return vb + ib;
  }
  return vb;
}

function checkRange(what: string, p: Uint8Array, first: number, n: number, eb: number): void {
  if (!Number.isInteger(first) || !Number.isInteger(n) || first < 0 || n < 0 || (first + n) * eb > p.length) {
    throw new RangeError(`${what}: elements [${first}, ${first + n}) of ${eb} bytes do not fit a ${p.length}-byte payload`);
  }
}

// ---------------------------------------------------------------- byte access (little-endian)

/** 1, 2 or 4 bytes at o as int32 bits (zero-extended for 1 and 2). */
function rd(p: Uint8Array, o: number, bytes: number): number {
  if (bytes === 4) return p[o]! | (p[o + 1]! << 8) | (p[o + 2]! << 16) | (p[o + 3]! << 24);
  if (bytes === 2) return p[o]! | (p[o + 1]! << 8);
  return p[o]!;
}

function wr(p: Uint8Array, o: number, bytes: number, v: number): void {
  p[o] = v;
  if (bytes >= 2) {
    p[o + 1] = v >>> 8;
    if (bytes === 4) {
      p[o + 2] = v >>> 16;
      p[o + 3] = v >>> 24;
    }
  }
}

// Pair reader output: (pH, pL), a 1..8-byte integer sign- or zero-extended to 64 bits.
let pH = 0;
let pL = 0;

function rdPair(p: Uint8Array, o: number, bytes: number, signed: boolean): void {
  if (bytes === 8) {
    pL = rd(p, o, 4);
    pH = rd(p, o + 4, 4);
    return;
  }
  let v = rd(p, o, bytes);
  if (signed) {
    const sh = 32 - 8 * bytes;
    v = (v << sh) >> sh;
    pH = v >> 31;
  } else pH = 0;
  pL = v;
}

function wrPair(p: Uint8Array, o: number, bytes: number, hi: number, lo: number): void {
  if (bytes === 8) {
    wr(p, o, 4, lo);
    wr(p, o + 4, 4, hi);
  } else wr(p, o, bytes, lo);
}

/** 64-bit compare of (aH, aL) and (bH, bL): high words signed or unsigned, low words unsigned. */
function cmp64(aH: number, aL: number, bH: number, bL: number, signed: boolean): number {
  if (aH !== bH) {
    if (signed) return (aH | 0) < (bH | 0) ? -1 : 1;
    return aH >>> 0 < bH >>> 0 ? -1 : 1;
  }
  if (aL === bL) return 0;
  return aL >>> 0 < bL >>> 0 ? -1 : 1;
}

// ---------------------------------------------------------------- integer lanes

/** 8/16/32-bit integers, all operations but minloc/maxloc. */
function intLanes32(opc: number, bytes: number, signed: boolean, a: Uint8Array, b: Uint8Array, out: Uint8Array, first: number, n: number): void {
  const sh = 32 - 8 * bytes;
  for (let i = first, end = first + n; i < end; i++) {
    const o = i * bytes;
    const x = rd(a, o, bytes);
    const y = rd(b, o, bytes);
    let r: number;
    switch (opc) {
      case OP_SUM:
        r = (x + y) | 0;
        break;
      case OP_PROD:
        r = Math.imul(x, y);
        break;
      case OP_MIN:
        r = signed ? ((x << sh) >> sh <= (y << sh) >> sh ? x : y) : x >>> 0 <= y >>> 0 ? x : y;
        break;
      case OP_MAX:
        r = signed ? ((x << sh) >> sh >= (y << sh) >> sh ? x : y) : x >>> 0 >= y >>> 0 ? x : y;
        break;
      case OP_BAND:
        r = x & y;
        break;
      case OP_BOR:
        r = x | y;
        break;
      case OP_BXOR:
        r = x ^ y;
        break;
      case OP_LAND:
        r = x !== 0 && y !== 0 ? 1 : 0;
        break;
      case OP_LOR:
        r = x !== 0 || y !== 0 ? 1 : 0;
        break;
      default: // OP_LXOR
        r = (x !== 0) !== (y !== 0) ? 1 : 0;
        break;
    }
    wr(out, o, bytes, r);
  }
}

/** 64-bit integers on (hi, lo) word pairs, all operations but minloc/maxloc. */
function intLanes64(opc: number, signed: boolean, a: Uint8Array, b: Uint8Array, out: Uint8Array, first: number, n: number): void {
  for (let i = first, end = first + n; i < end; i++) {
    const o = i * 8;
    const xl = rd(a, o, 4);
    const xh = rd(a, o + 4, 4);
    const yl = rd(b, o, 4);
    const yh = rd(b, o + 4, 4);
    let rh: number, rl: number;
    switch (opc) {
      case OP_SUM:
        rl = (xl + yl) | 0;
        rh = (xh + yh + (rl >>> 0 < xl >>> 0 ? 1 : 0)) | 0;
        break;
      case OP_PROD:
        // low 64 bits of the product: xl*yl + ((xh*yl + xl*yh) << 32)
        mulWide32(xl, yl, W);
        rl = W[1]!;
        rh = (W[0]! + Math.imul(xh, yl) + Math.imul(xl, yh)) | 0;
        break;
      case OP_MIN:
      case OP_MAX: {
        const c = cmp64(xh, xl, yh, yl, signed);
        const takeX = opc === OP_MIN ? c <= 0 : c >= 0;
        rh = takeX ? xh : yh;
        rl = takeX ? xl : yl;
        break;
      }
      case OP_BAND:
        rh = xh & yh;
        rl = xl & yl;
        break;
      case OP_BOR:
        rh = xh | yh;
        rl = xl | yl;
        break;
      case OP_BXOR:
        rh = xh ^ yh;
        rl = xl ^ yl;
        break;
      default: {
        const tx = (xh | xl) !== 0;
        const ty = (yh | yl) !== 0;
        rh = 0;
        rl = opc === OP_LAND ? (tx && ty ? 1 : 0) : opc === OP_LOR ? (tx || ty ? 1 : 0) : tx !== ty ? 1 : 0;
        break;
      }
    }
    wr(out, o, 4, rl);
    wr(out, o + 4, 4, rh);
  }
}

/**
 * minloc/maxloc on any value type. Values compared per type (signed/unsigned integers; floats
 * with NaN winning, -0 < +0, daz under ftz); equal values, or two NaNs, keep the smaller index
 * (indices compared signed/unsigned per index type). Returns the flags (invalid for a
 * signalling NaN value).
 */
function locLanes(cfg: LaneConfig, isMax: boolean, a: Uint8Array, b: Uint8Array, out: Uint8Array, first: number, n: number): number {
  const type = cfg.type;
  const vb = TYPE_BYTES[type];
  const ib = TYPE_BYTES[cfg.indexType];
  const eb = vb + ib;
  const vSigned = type[0] === 'i';
  const iSigned = cfg.indexType[0] === 'i';
  const fmt: FpFormat | undefined = isFloatType(type) ? FORMATS[type as 'f16' | 'bf16' | 'f32' | 'f64'] : undefined;
  let flags = 0;
  for (let i = first, end = first + n; i < end; i++) {
    const o = i * eb;
    rdPair(a, o, vb, vSigned);
    let ah = pH;
    let al = pL;
    rdPair(b, o, vb, vSigned);
    let bh = pH;
    let bl = pL;
    rdPair(a, o + vb, ib, iSigned);
    const aih = pH;
    const ail = pL;
    rdPair(b, o + vb, ib, iSigned);
    const bih = pH;
    const bil = pL;
    // index order decides ties: B wins a tie only with a strictly smaller index
    const bFirst = cmp64(bih, bil, aih, ail, iSigned) < 0;
    let takeA: boolean;
    if (fmt !== undefined) {
      const nanA = isNaNBits(fmt, ah, al);
      const nanB = isNaNBits(fmt, bh, bl);
      if (isSignalingBits(fmt, ah, al) || isSignalingBits(fmt, bh, bl)) flags |= FLAG_INVALID;
      if (nanA || nanB) {
        takeA = nanA && nanB ? !bFirst : nanA;
        ah = bh = fmt.nanHi;
        al = bl = fmt.nanLo;
      } else {
        if (cfg.ftz) {
          dazBits(fmt, ah, al, true, R);
          ah = R[0]!;
          al = R[1]!;
          dazBits(fmt, bh, bl, true, R);
          bh = R[0]!;
          bl = R[1]!;
        }
        const c = fpCompare(fmt, ah, al, bh, bl);
        takeA = c === 0 ? !bFirst : isMax ? c > 0 : c < 0;
      }
    } else {
      const c = cmp64(ah, al, bh, bl, vSigned);
      takeA = c === 0 ? !bFirst : isMax ? c > 0 : c < 0;
    }
    if (takeA) {
      wrPair(out, o, vb, ah, al);
      wrPair(out, o + vb, ib, aih, ail);
    } else {
      wrPair(out, o, vb, bh, bl);
      wrPair(out, o + vb, ib, bih, bil);
    }
  }
  return flags;
}

// ---------------------------------------------------------------- float lanes

/** Float sum/prod/min/max on format fmt, `vb` bytes per element. */
function floatLanes(fmt: FpFormat, opc: number, mode: number, sr: boolean, ftz: boolean, a: Uint8Array, b: Uint8Array, out: Uint8Array, first: number, n: number, node: number, seed: number): number {
  const vb = fmt.bytes;
  const dbl = vb === 8;
  // the format's own adder and multiplier entry points, bound once per call (see fp/add.ts fpAdd)
  const add = fpAddRegsOf(fmt);
  const mul = fpMulRegsOf(fmt);
  let flags = 0;
  for (let i = first, end = first + n; i < end; i++) {
    const o = i * vb;
    if (dbl) {
      X[1] = rd(a, o, 4);
      X[0] = rd(a, o + 4, 4);
      X[3] = rd(b, o, 4);
      X[2] = rd(b, o + 4, 4);
    } else {
      X[0] = 0;
      X[1] = rd(a, o, vb);
      X[2] = 0;
      X[3] = rd(b, o, vb);
    }
    const u = sr ? srDraw(seed, node, i) : 0;
    switch (opc) {
      case OP_SUM:
        flags |= add(X, mode, u, R);
        break;
      case OP_PROD:
        flags |= mul(X, mode, u, R);
        break;
      default:
        flags |= fpMinMax(fmt, X[0]!, X[1]!, X[2]!, X[3]!, ftz, opc === OP_MAX, R);
        break;
    }
    if (dbl) {
      wr(out, o, 4, R[1]!);
      wr(out, o + 4, 4, R[0]!);
    } else wr(out, o, vb, R[1]!);
  }
  return flags;
}

// ---------------------------------------------------------------- public entry points

/**
 * Combines elements [first, first + n) of a (left operand) and b (right operand) into out.
 * Returns the OR of the flags of all element operations (0 for integer types).
 */
export function combine(cfg: LaneConfig, a: Uint8Array, b: Uint8Array, out: Uint8Array, first: number, n: number, node: number, opSeed: number): number {
  const eb = laneBytes(cfg);
  checkRange('combine a', a, first, n, eb);
  checkRange('combine b', b, first, n, eb);
  checkRange('combine out', out, first, n, eb);
  const opc = opCode(cfg.op);
  const type = cfg.type;
  if (opc === OP_MINLOC || opc === OP_MAXLOC) return locLanes(cfg, opc === OP_MAXLOC, a, b, out, first, n);
  if (isFloatType(type)) {
    if (opc > OP_MAX) throw new RangeError(`operation '${cfg.op}' is not defined for ${type}`);
    const fmt = isWide(cfg) ? F32 : FORMATS[type as 'f16' | 'bf16' | 'f32' | 'f64'];
    return floatLanes(fmt, opc, modeWord(cfg.rounding, cfg.ftz), cfg.rounding === 'sr', cfg.ftz, a, b, out, first, n, node, opSeed);
  }
  if (eb === 8) intLanes64(opc, type === 'i64', a, b, out, first, n);
  else intLanes32(opc, eb, type[0] === 'i', a, b, out, first, n);
  return 0;
}

function wideFormat(cfg: LaneConfig, what: string): FpFormat {
  if (!isWide(cfg)) throw new RangeError(`${what}: wide accumulation does not apply to ${cfg.type} ${cfg.op}${cfg.wide ? '' : ' (wide is off)'}`);
  return FORMATS[cfg.type as 'f16' | 'bf16'];
}

/** Wide mode: element-type operands src (2 bytes each) -> binary32 accumulators dst (4 bytes each); dst may be the same array as src. */
export function widen(cfg: LaneConfig, src: Uint8Array, dst: Uint8Array, first: number, n: number): number {
  const fmt = wideFormat(cfg, 'widen');
  checkRange('widen src', src, first, n, 2);
  checkRange('widen dst', dst, first, n, 4);
  const mode = modeWord(cfg.rounding, cfg.ftz);
  let flags = 0;
  // descending, so that dst may alias src (a 4-byte write at 4i never clobbers an unread 2i)
  for (let i = first + n - 1; i >= first; i--) {
    X[0] = 0;
    X[1] = rd(src, 2 * i, 2);
    flags |= fpConvertRegs(fmt, F32, X, mode, 0, R);
    wr(dst, 4 * i, 4, R[1]!);
  }
  return flags;
}

/** Wide mode: binary32 accumulators src (4 bytes each) -> element type dst (2 bytes each), rounded; dst may be the same array as src. */
export function narrow(cfg: LaneConfig, src: Uint8Array, dst: Uint8Array, first: number, n: number, opSeed: number): number {
  const fmt = wideFormat(cfg, 'narrow');
  checkRange('narrow src', src, first, n, 4);
  checkRange('narrow dst', dst, first, n, 2);
  const mode = modeWord(cfg.rounding, cfg.ftz);
  const sr = cfg.rounding === 'sr';
  let flags = 0;
  // ascending, so that dst may alias src (a 2-byte write at 2i never clobbers an unread 4j, j > i)
  for (let i = first, end = first + n; i < end; i++) {
    X[0] = 0;
    X[1] = rd(src, 4 * i, 4);
    flags |= fpConvertRegs(F32, fmt, X, mode, sr ? srDraw(opSeed, 0, i) : 0, R);
    wr(dst, 2 * i, 2, R[1]!);
  }
  return flags;
}

/**
 * An operand passed on without a combine step: float NaN -> canonical NaN (invalid when
 * signalling), under ftz a subnormal -> zero of its sign; anything else (integers, indices,
 * ordinary floats) copied. Not for wide mode. dst may alias src.
 */
export function canonicalize(cfg: LaneConfig, src: Uint8Array, dst: Uint8Array, first: number, n: number): number {
  if (isWide(cfg)) throw new RangeError('canonicalize: not for wide accumulation (use widen and narrow)');
  const eb = laneBytes(cfg);
  checkRange('canonicalize src', src, first, n, eb);
  checkRange('canonicalize dst', dst, first, n, eb);
  const type = cfg.type;
  const lo = first * eb;
  const hi = (first + n) * eb;
  if (src !== dst) for (let k = lo; k < hi; k++) dst[k] = src[k]!;
  if (!isFloatType(type)) return 0;
  const fmt = FORMATS[type as 'f16' | 'bf16' | 'f32' | 'f64'];
  const vb = fmt.bytes;
  let flags = 0;
  for (let i = first, end = first + n; i < end; i++) {
    const o = i * eb;
    const l = rd(dst, o, vb === 8 ? 4 : vb);
    const h = vb === 8 ? rd(dst, o + 4, 4) : 0;
    if (isNaNBits(fmt, h, l)) {
      if (isSignalingBits(fmt, h, l)) flags |= FLAG_INVALID;
      R[0] = fmt.nanHi;
      R[1] = fmt.nanLo;
    } else dazBits(fmt, h, l, cfg.ftz, R);
    if (vb === 8) {
      wr(dst, o, 4, R[1]!);
      wr(dst, o + 4, 4, R[0]!);
    } else wr(dst, o, vb, R[1]!);
  }
  return flags;
}
