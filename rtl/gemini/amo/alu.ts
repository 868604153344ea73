import { AMO_ADD, AMO_AND, AMO_AX, AMO_FADD, AMO_FAND, AMO_FAX, AMO_FCSWAP, AMO_FXOR, AMO_OR, AMO_XOR } from './ops.ts';

/**
 * The AMO unit's 64-bit datapath, built the way the hardware is: two 32-bit halves (`hi`, `lo`,
 * unsigned) and an explicit carry from the low half into the high half for ADD. Combinational:
 * `amoAlu` writes the new word into `out` (out[0] = hi, out[1] = lo) and returns nothing; the
 * fetched value is the old word, which the caller already holds. No BigInt, no allocation.
 */
export function amoAlu(op: number, oldHi: number, oldLo: number, aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): void {
  switch (op) {
    case AMO_ADD:
    case AMO_FADD: {
      const lo = oldLo + aLo; // < 2^33, exact in a double
      const carry = lo > 0xffffffff ? 1 : 0;
      out[1] = lo >>> 0;
      out[0] = (oldHi + aHi + carry) >>> 0;
      return;
    }
    case AMO_AND:
    case AMO_FAND:
      out[0] = (oldHi & aHi) >>> 0;
      out[1] = (oldLo & aLo) >>> 0;
      return;
    case AMO_OR:
      out[0] = (oldHi | aHi) >>> 0;
      out[1] = (oldLo | aLo) >>> 0;
      return;
    case AMO_XOR:
    case AMO_FXOR:
      out[0] = (oldHi ^ aHi) >>> 0;
      out[1] = (oldLo ^ aLo) >>> 0;
      return;
    case AMO_FCSWAP: {
      const eq = oldHi === bHi && oldLo === bLo;
      out[0] = eq ? aHi : oldHi;
      out[1] = eq ? aLo : oldLo;
      return;
    }
    case AMO_AX:
    case AMO_FAX:
      out[0] = ((oldHi & aHi) ^ bHi) >>> 0;
      out[1] = ((oldLo & aLo) ^ bLo) >>> 0;
      return;
    default:
      throw new RangeError(`amoAlu: operation code ${op} is not decoded (the unit rejects it before the datapath)`);
  }
}
