/**
 * Golden model of the SHArP ALU: the random bits of stochastic rounding (docs/alu.md,
 * "Stochastic rounding").
 *
 * Each rounding reseeds a 32-bit Galois LFSR (x^32 + x^22 + x^2 + x + 1, right-shifting, feedback
 * mask 0x80200003) from its place in the reduction (ALU seed, operation id, node, element) through
 * the murmur3 fmix32 finaliser, then takes one 8-bit draw: 8 LFSR steps, first output bit = MSB.
 * Written with BigInt arithmetic mod 2^32, spelled out as in the document.
 */
import { SR_BITS } from '../../rtl/sharp/alu/types.ts';

const M32 = 0xffffffffn;
export const LFSR_MASK = 0x80200003n;

function u32(x: number | bigint, what: string): bigint {
  if (typeof x === 'bigint') return x & M32;
  if (!Number.isInteger(x)) throw new RangeError(`${what} must be an integer, got ${x}`);
  return BigInt(x) & M32;
}

/** murmur3 fmix32, all arithmetic mod 2^32. */
export function fmix32(x: number | bigint): number {
  let h = u32(x, 'fmix32 input');
  h ^= h >> 16n;
  h = (h * 0x85ebca6bn) & M32;
  h ^= h >> 13n;
  h = (h * 0xc2b2ae35n) & M32;
  h ^= h >> 16n;
  return Number(h);
}

/** opSeed = fmix32(aluSeed ^ fmix32(operationId)). */
export function srOpSeed(aluSeed: number | bigint, operationId: number | bigint): number {
  return fmix32(u32(aluSeed, 'ALU seed') ^ BigInt(fmix32(u32(operationId, 'operation id'))));
}

/** The LFSR state for one rounding: fmix32(fmix32(opSeed ^ node*0x9e3779b1) ^ element*0x85ebca77), 0 -> 1. */
export function srLfsrSeed(opSeed: number, node: number, element: number): number {
  if (!Number.isInteger(node) || node < 0) throw new RangeError(`sr node must be a non-negative integer, got ${node}`);
  if (!Number.isInteger(element) || element < 0) throw new RangeError(`sr element must be a non-negative integer, got ${element}`);
  const a = BigInt(fmix32(u32(opSeed, 'opSeed') ^ ((BigInt(node) * 0x9e3779b1n) & M32)));
  const s = fmix32(a ^ ((BigInt(element) * 0x85ebca77n) & M32));
  return s === 0 ? 1 : s;
}

/** One Galois LFSR step: returns the output bit and the next state. */
export function lfsrStep(state: number): { bit: number; state: number } {
  const s = u32(state, 'LFSR state');
  const bit = s & 1n;
  let next = s >> 1n;
  if (bit) next ^= LFSR_MASK;
  return { bit: Number(bit), state: Number(next) };
}

/** An SR_BITS-bit draw from a freshly seeded LFSR, first output bit most significant. */
export function lfsrDraw(state: number): number {
  let s = state;
  let u = 0;
  for (let i = 0; i < SR_BITS; i++) {
    const r = lfsrStep(s);
    u = (u << 1) | r.bit;
    s = r.state;
  }
  return u;
}

/** The draw used by the rounding at (node, element) of operation `operationId` on an ALU seeded `aluSeed`. */
export function srDraw(aluSeed: number | bigint, operationId: number | bigint, node: number, element: number): number {
  return lfsrDraw(srLfsrSeed(srOpSeed(aluSeed, operationId), node, element));
}
