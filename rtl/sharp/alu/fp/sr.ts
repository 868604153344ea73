/**
 * Stochastic-rounding random source (docs/alu.md, "Stochastic rounding"): a 32-bit Galois LFSR
 * with the maximal-length polynomial x^32 + x^22 + x^2 + x + 1 (right-shifting form, feedback
 * mask 0x80200003), reseeded for every rounding from the rounding's position in the reduction
 * (operation seed, combine node, element index) through the murmur3 fmix32 finalizer. The draw
 * never depends on arrival order, timing or other operations.
 *
 * Hardware: the seed hash is a two-stage multiply/xor-shift pipeline per lane; the 8-bit draw is
 * eight LFSR steps unrolled into combinational logic (one draw per rounding).
 */

/** murmur3 32-bit finalizer (mod 2^32). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** An operation's seed from the ALU instance's seed and the operation id (both 32-bit). */
export function opSeed(aluSeed: number, operationId: number): number {
  return fmix32((aluSeed ^ fmix32(operationId)) | 0);
}

/**
 * LFSR seed of one rounding: combine node `node` (0 for the final narrowing of wide
 * accumulation), element index `element`. Never 0 (an all-zero LFSR state is stuck).
 */
export function elementSeed(opSeedValue: number, node: number, element: number): number {
  const s = fmix32(fmix32((opSeedValue ^ Math.imul(node, 0x9e3779b1)) | 0) ^ Math.imul(element, 0x85ebca77));
  return s === 0 ? 1 : s;
}

/** Mask of the Galois feedback taps. */
export const LFSR_TAPS = 0x80200003;

/** One 8-bit draw: 8 LFSR steps from state `seed`; the first output bit is the MSB of the draw. */
export function lfsrDraw8(seed: number): number {
  let s = seed | 0;
  let u = 0;
  for (let i = 0; i < 8; i++) {
    const b = s & 1;
    s = s >>> 1;
    if (b !== 0) s ^= LFSR_TAPS;
    u = (u << 1) | b;
  }
  return u;
}

/** The draw for (opSeed, node, element) in one call. */
export function srDraw(opSeedValue: number, node: number, element: number): number {
  return lfsrDraw8(elementSeed(opSeedValue, node, element));
}
