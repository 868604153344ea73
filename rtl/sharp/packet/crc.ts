/**
 * CRC-32 of the SHArP packet trailer: the IEEE 802.3 (Ethernet FCS, zlib) CRC.
 *
 * Parameters (Rocksoft model "CRC-32"): width 32, polynomial 0x04C11DB7, reflected input and
 * output (so the shift register runs LSB first with the reversed polynomial 0xEDB88320), initial
 * value 0xFFFFFFFF, final XOR 0xFFFFFFFF. Check value: CRC-32("123456789") = 0xCBF43926.
 *
 * Hardware view: table-driven, one 256 x 32 ROM lookup per byte (crc = T[(crc ^ byte) & 0xff] ^
 * (crc >>> 8)); a 32-bit datapath folds four bytes per cycle with four such ROMs (slicing-by-4),
 * which is what crc32Update does, with the same result. The trailer is stored least significant
 * byte first (as the Ethernet FCS), so running the CRC over header + payload + trailer gives the
 * constant residue CRC32_RESIDUE: a receiver can check a packet without locating the trailer.
 */

/** Reversed (LSB-first) form of the IEEE 802.3 generator polynomial 0x04C11DB7. */
export const CRC32_POLY_REFLECTED = 0xedb88320;
/** CRC-32 over any byte string followed by its own little-endian CRC trailer. */
export const CRC32_RESIDUE = 0x2144df1c;

/**
 * Lookup tables for slicing-by-4: T[0..255] is the byte-wise table (T0[n] = CRC register after
 * shifting byte n through 8 steps); T[256k + n] (k = 1..3) advances byte n by k further zero bytes.
 * Built once at module load; read-only afterwards.
 */
const T: Uint32Array = (() => {
  const t = new Uint32Array(1024);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CRC32_POLY_REFLECTED : c >>> 1;
    t[n] = c >>> 0;
  }
  for (let n = 0; n < 256; n++) {
    for (let k = 1; k < 4; k++) {
      const prev = t[256 * (k - 1) + n]!;
      t[256 * k + n] = (prev >>> 8) ^ t[prev & 0xff]!;
    }
  }
  return t;
})();

/**
 * Advance a running CRC register (the raw register, before the final XOR) over bytes[start, end).
 * Start from 0xFFFFFFFF; finish with `^ 0xFFFFFFFF` (or use crc32()). No allocation.
 * Four bytes per step (slicing-by-4: the four table lookups a 32-bit-per-cycle datapath does in
 * parallel), then byte by byte for the tail.
 */
export function crc32Update(reg: number, bytes: Uint8Array, start: number, end: number): number {
  let c = reg >>> 0;
  let i = start;
  for (; i + 4 <= end; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c = T[768 + (c & 0xff)]! ^ T[512 + ((c >>> 8) & 0xff)]! ^ T[256 + ((c >>> 16) & 0xff)]! ^ T[c >>> 24]!;
  }
  for (; i < end; i++) c = T[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return c >>> 0;
}

/** CRC-32 (IEEE 802.3) of bytes[start, end) (default: the whole array), as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  return (crc32Update(0xffffffff, bytes, start, end) ^ 0xffffffff) >>> 0;
}
