/**
 * TH Express-2 descriptor formats (docs/nic-frontend.md, "Descriptors"): kinds, sizes, byte
 * offsets of every field, the decoded form and the decoder's reason codes. Little-endian; a
 * descriptor is 64 or 128 bytes.
 */

export const DESC_IMM_PUT = 0;
export const DESC_PUT = 1;
export const DESC_GET = 2;
export const DESC_MP = 3;
export const DESC_COLL = 4;
export const DESC_KIND_NAMES = ['imm_put', 'put', 'get', 'mp', 'coll'] as const;
export type DescKindName = (typeof DESC_KIND_NAMES)[number];

/** Immediate bytes an IMM_PUT carries: 16 in a 64-byte descriptor, 80 in a 128-byte one; MP payload: 80. */
export const IMM_BYTES_64 = 16;
export const IMM_BYTES_128 = 80;
export const MP_BYTES = 80;
/** children of a collective descriptor */
export const COLL_MAX_CHILDREN = 5;
export const CHILD_BYTES = 16;

/** Byte offsets (see the tables in docs/nic-frontend.md). */
export const OFF = {
  ctl: 0, // opcode[3:0], size[5:4], localEvent[6], remoteEvent[7]
  flags: 1, // connect[0], physical[1], interrupt[2], reserved[7:3]
  dstNode: 2, // 16 bits
  dstVp: 4, // 8 bits
  rsv5: 5,
  userTag: 6, // 16 bits
  len: 8, // PUT/GET/COLL: 32-bit length; IMM_PUT/MP: 8-bit length, bytes 9-15 reserved
  localKey: 12,
  remoteKey: 16,
  localItem: 20, // 12 bits of 16
  remoteItem: 22, // 12 bits of 16
  localAddr: 24, // 48 bits of 64
  remoteAddr: 32, // 48 bits of 64 (COLL: child count, swap flags, sequence id)
  collCount: 32,
  collSwap: 33, // swapAddr[0], swapVp[1]
  collSeq: 34, // 16 bits
  eventData: 40, // 32 bits, 44-47 reserved
  payload: 48, // IMM_PUT / MP data, COLL children
} as const;

/** Reason codes of the decoder, in priority order (the first failing check is reported). */
export const DR_OK = 0;
/** the buffer is not 64 or 128 bytes */
export const DR_BAD_BUFFER = 1;
/** opcode is not 0..4 */
export const DR_BAD_OPCODE = 2;
/** size field is not the buffer's size, or not a size the kind allows (PUT/GET 64, MP/COLL 128, IMM_PUT either) */
export const DR_BAD_SIZE = 3;
/** a reserved bit (of this kind's layout, including unused children) is set */
export const DR_RESERVED = 4;
/** a flag the kind does not allow: physical on IMM_PUT or MP, remote event on MP */
export const DR_BAD_FLAGS = 5;
/** collective child count not in [1, 5] */
export const DR_BAD_CHILDREN = 6;
/** destination node >= nodes or virtual port >= vps (the descriptor's or a child's) */
export const DR_BAD_DEST = 7;
/** memory-checker item >= items */
export const DR_BAD_ITEM = 8;
/** length 0 (any kind) or an immediate / MP length above its capacity */
export const DR_BAD_LENGTH = 9;
/** address + length runs past 2^vaBits (local or remote, a child's included) */
export const DR_BAD_ADDRESS = 10;
export const DESC_REASON_NAMES = ['ok', 'bad_buffer', 'bad_opcode', 'bad_size', 'reserved', 'bad_flags', 'bad_children', 'bad_dest', 'bad_item', 'bad_length', 'bad_address'] as const;
export type DescReasonName = (typeof DESC_REASON_NAMES)[number];

/** One child of a collective descriptor (where the element goes). */
export interface CollChild {
  node: number;
  vp: number;
  key: number;
  addr: number;
  item: number;
}

/** A descriptor's fields (decoded, or to encode). Fields a kind does not use are 0 / empty. */
export interface NicDesc {
  kind: number;
  /** 64 or 128 */
  bytes: number;
  localEvent: boolean;
  remoteEvent: boolean;
  connect: boolean;
  physical: boolean;
  interrupt: boolean;
  dstNode: number;
  dstVp: number;
  userTag: number;
  /** bytes to move (PUT/GET/COLL), immediate or MP bytes (IMM_PUT/MP) */
  length: number;
  localKey: number;
  remoteKey: number;
  localItem: number;
  remoteItem: number;
  localAddr: number;
  remoteAddr: number;
  eventData: number;
  /** IMM_PUT / MP payload (length bytes) */
  data: Uint8Array;
  swapAddr: boolean;
  swapVp: boolean;
  seqId: number;
  children: CollChild[];
}

export interface DescConfig {
  /** virtual ports per NIC (default 40) */
  vps: number;
  /** nodes in the network (default 65536) */
  nodes: number;
  /** memory-checker items (default 4096) */
  items: number;
  /** virtual address bits (default 48) */
  vaBits: number;
}

export const DESC_DEFAULTS: Readonly<DescConfig> = { vps: 40, nodes: 65536, items: 4096, vaBits: 48 };

export function descConfig(p: Partial<DescConfig> = {}): DescConfig {
  const c = { ...DESC_DEFAULTS, ...p };
  const chk = (k: keyof DescConfig, lo: number, hi: number): void => {
    const v = c[k];
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`descriptor config: ${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  };
  chk('vps', 1, 256);
  chk('nodes', 1, 65536);
  chk('items', 1, 4096);
  chk('vaBits', 13, 48);
  return c;
}

/** A descriptor with every field zero / false of the given kind and size. */
export function blankDesc(kind: number, bytes = kind === DESC_MP || kind === DESC_COLL ? 128 : 64): NicDesc {
  return {
    kind,
    bytes,
    localEvent: false,
    remoteEvent: false,
    connect: false,
    physical: false,
    interrupt: false,
    dstNode: 0,
    dstVp: 0,
    userTag: 0,
    length: 0,
    localKey: 0,
    remoteKey: 0,
    localItem: 0,
    remoteItem: 0,
    localAddr: 0,
    remoteAddr: 0,
    eventData: 0,
    data: new Uint8Array(0),
    swapAddr: false,
    swapVp: false,
    seqId: 0,
    children: [],
  };
}
