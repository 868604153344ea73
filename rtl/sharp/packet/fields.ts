/**
 * Bit layout of the 32-byte SHArP header: eight 32-bit words W0..W7, each sent most significant
 * byte first (network order, as every InfiniBand header), so word Wn occupies bytes 4n..4n+3 and
 * bit 31 of a word is bit 7 of its first byte. After the header come the payload (0..256 bytes)
 * and the 4-byte CRC-32 trailer. docs/sharp-packets.md has the same tables per packet type.
 *
 * A hardware parser latches the eight words as they stream in (one word per cycle on a 32-bit
 * datapath) and extracts fields with fixed wiring; the get/put helpers below are that wiring.
 */

/** Bytes of the fixed header. */
export const HEADER_BYTES = 32;
/** Header words. */
export const HEADER_WORDS = 8;
/** Bytes of the CRC-32 trailer. */
export const CRC_BYTES = 4;
/** Largest payload in bytes (seed: 256-byte operations). */
export const MAX_PACKET_PAYLOAD = 256;
/** Smallest and largest encoded packet. */
export const MIN_PACKET_BYTES = HEADER_BYTES + CRC_BYTES;
export const MAX_PACKET_BYTES = HEADER_BYTES + MAX_PACKET_PAYLOAD + CRC_BYTES;

/** One header field: `width` bits of word `word`, least significant bit at `shift`. */
export interface FieldSpec {
  readonly name: string;
  readonly word: number;
  readonly shift: number;
  readonly width: number;
}

function f(name: string, word: number, shift: number, width: number): FieldSpec {
  return { name, word, shift, width };
}

/**
 * Fields common to every packet type (W0, W1, W2, W4, W6, W7) and the aggregation view of W3 and
 * W5. Management packets give W3 ("parameter word A") and W5 ("parameter word B") their own
 * meaning (MGMT below).
 */
export const F = {
  VERSION: f('version', 0, 28, 4),
  TYPE: f('type', 0, 24, 4),
  STATUS: f('status', 0, 16, 8),
  JOB: f('job', 0, 0, 16),
  GROUP: f('group', 1, 16, 16),
  TREE: f('tree', 1, 10, 6),
  DIST: f('dist', 1, 8, 2),
  TARGET_KIND: f('targetKind', 1, 6, 2),
  FIRST: f('first', 1, 5, 1),
  LAST: f('last', 1, 4, 1),
  RSVD_W1: f('reserved W1[3:0]', 1, 0, 4),
  SEQ: f('seq', 2, 0, 32),
  OPCODE: f('opcode', 3, 28, 4),
  DTYPE: f('dtype', 3, 24, 4),
  INDEX_TYPE: f('indexType', 3, 21, 3),
  ROUNDING: f('rounding', 3, 18, 3),
  WIDE: f('wide', 3, 17, 1),
  FTZ: f('ftz', 3, 16, 1),
  ELEM_SIZE: f('elemSize', 3, 8, 8),
  RSVD_W3: f('reserved W3[7:5]', 3, 5, 3),
  ALU_FLAGS: f('aluFlags', 3, 0, 5),
  RSVD_W4: f('reserved W4[31:25]', 4, 25, 7),
  COUNT: f('count', 4, 16, 9),
  PAYLOAD_LEN: f('payloadLength', 4, 0, 16),
  TARGET_ID: f('targetId', 5, 0, 32),
  SOURCE: f('source', 6, 16, 16),
  MSG_ID: f('msgId', 6, 0, 16),
  FRAG_INDEX: f('fragIndex', 7, 16, 16),
  FRAG_COUNT: f('fragCount', 7, 0, 16),
} as const;

/** Management views of parameter words A (W3) and B (W5). */
export const MGMT = {
  PARAM_A: f('parameter word A (W3)', 3, 0, 32),
  PARAM_B: f('parameter word B (W5)', 5, 0, 32),
  GC_PARENT: f('parent', 3, 16, 16),
  GC_RSVD: f('reserved W3[15:1]', 3, 1, 15),
  GC_ROOT: f('isRoot', 3, 0, 1),
  GT_NEW_ROOT: f('newRoot', 3, 16, 16),
  GT_RSVD: f('reserved W3[15:4]', 3, 4, 12),
  GT_LEVEL: f('level', 3, 0, 4),
  JQ_RSVD: f('reserved W3[31:16]', 3, 16, 16),
  JQ_MAX_OPS: f('maxOps', 3, 0, 16),
  JQ_MAX_BYTES: f('maxBufferBytes', 5, 0, 32),
  ER_DETAIL: f('detail', 5, 0, 32),
} as const;

/** Extract a field from the header words (unsigned). */
export function getField(w: Uint32Array, fs: FieldSpec): number {
  const v = w[fs.word]!;
  return fs.width === 32 ? v : (v >>> fs.shift) & ((1 << fs.width) - 1);
}

/** Insert a field into the header words; `v` must already fit in the field. */
export function putField(w: Uint32Array, fs: FieldSpec, v: number): void {
  if (fs.width === 32) {
    w[fs.word] = v;
    return;
  }
  const mask = ((1 << fs.width) - 1) << fs.shift;
  w[fs.word] = (w[fs.word]! & ~mask) | ((v << fs.shift) & mask);
}

/** Read the eight big-endian header words from bytes[0, 32). The caller checks the length. */
export function readHeaderWords(bytes: Uint8Array, w: Uint32Array): void {
  for (let i = 0; i < HEADER_WORDS; i++) {
    const o = 4 * i;
    w[i] = ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
  }
}

/** Write the eight header words big-endian to out[offset, offset + 32). */
export function writeHeaderWords(w: Uint32Array, out: Uint8Array, offset: number): void {
  for (let i = 0; i < HEADER_WORDS; i++) {
    const v = w[i]!;
    const o = offset + 4 * i;
    out[o] = v >>> 24;
    out[o + 1] = (v >>> 16) & 0xff;
    out[o + 2] = (v >>> 8) & 0xff;
    out[o + 3] = v & 0xff;
  }
}
