/**
 * The execute-stage datapath of the HPU core: the integer ALU, the branch comparator and the
 * single-cycle 32 x 32 multiplier (built from four 16 x 16 partial products, as a synthesised
 * multiplier array would be). Combinational: pure functions of their inputs.
 */
import * as DEC from './decode.ts';

// local constants (an imported binding is a getter call under the TypeScript loader)
const { F_ADD, F_AND, F_OR, F_SLL, F_SLT, F_SLTU, F_SRA, F_SRL, F_SUB, F_XOR } = DEC;

export function alu(fn: number, a: number, b: number): number {
  const sh = b & 31;
  switch (fn) {
    case F_ADD:
      return (a + b) | 0;
    case F_SUB:
      return (a - b) | 0;
    case F_SLL:
      return a << sh;
    case F_SLT:
      return a < b ? 1 : 0;
    case F_SLTU:
      return (a ^ 0x80000000) < (b ^ 0x80000000) ? 1 : 0; // unsigned compare via biased signed compare
    case F_XOR:
      return a ^ b;
    case F_SRL:
      return (a >>> sh) | 0;
    case F_SRA:
      return a >> sh;
    case F_OR:
      return a | b;
    case F_AND:
      return a & b;
  }
  return 0;
}

/** Branch condition by funct3 (beq, bne, -, -, blt, bge, bltu, bgeu). */
export function branchTaken(f3: number, a: number, b: number): boolean {
  const eq = a === b;
  const lt = f3 >= 6 ? (a ^ 0x80000000) < (b ^ 0x80000000) : a < b;
  switch (f3) {
    case 0:
      return eq;
    case 1:
      return !eq;
    case 4:
    case 6:
      return lt;
    default:
      return !lt;
  }
}

// high word of a 64-bit product, from 16-bit limbs (unsigned operands given as 0..2^32-1)
function mulHighUnsigned(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  // middle column: (p00 >>> 16) + low halves of p01, p10 (fits in 2^18)
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (p11 + Math.floor(p01 / 65536) + Math.floor(p10 / 65536) + Math.floor(mid / 65536)) >>> 0;
}

/** mul, mulh, mulhsu, mulhu by funct3 (0..3). */
export function multiply(f3: number, a: number, b: number): number {
  if (f3 === 0) return Math.imul(a, b);
  let hi = mulHighUnsigned(a >>> 0, b >>> 0);
  // signed corrections: a signed operand of value a - 2^32 subtracts the other operand from the high word
  if (f3 !== 3 && a < 0) hi = (hi - (b >>> 0)) >>> 0;
  if (f3 === 1 && b < 0) hi = (hi - (a >>> 0)) >>> 0;
  return hi | 0;
}
