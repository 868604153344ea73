/**
 * The RDMA engine's interface (docs/nic-rdma.md, "RDMA engine"): error codes, event and
 * minipacket entry formats, the descriptor input, the configuration.
 */
import { Q_ENTRY_BYTES, Q_EPQ, Q_EQ, Q_MPQ } from '../queues/types.ts';

/** Event types (byte 0 of an EQ entry). */
export const EV_LOCAL = 1;
export const EV_REMOTE = 2;
export const EV_ERROR = 3;
export const EV_TYPE_NAMES = ['', 'local', 'remote', 'error'] as const;

/**
 * Error codes of error events. 1-7 are the memory checker's reasons (the local check for codes
 * reported by the initiator's own checker, the target's for a refusal the target sent back).
 */
export const RE_INVALID_ITEM = 1;
export const RE_KEY_MISMATCH = 2;
export const RE_PERMISSION = 3;
export const RE_OUT_OF_RANGE = 4;
export const RE_BAD_REQUEST = 5;
export const RE_VP_MISMATCH = 6;
export const RE_ADDR_MODE = 7;
/** the descriptor did not decode (the INTQ entry's detail holds the decoder's reason code) */
export const RE_DECODE = 16;
/** the ATC had no translation for a page (ATT entry invalid) */
export const RE_XLATE = 17;
/** the transfer is longer than the engine's maxTransfer */
export const RE_TOO_LONG = 18;
/** a packet of the transfer was lost or corrupted: the transfer is incomplete (connectless mode) */
export const RE_INCOMPLETE = 19;
/** the target has no such VP */
export const RE_BAD_VP = 20;
/** a reliable (connect) transfer got no answer from its target within the retry limit (rtl/nic/e2e) */
export const RE_E2E_FAILED = 22;
export const RE_NAMES: Record<number, string> = {
  1: 'invalid_item',
  2: 'key_mismatch',
  3: 'permission',
  4: 'out_of_range',
  5: 'bad_request',
  6: 'vp_mismatch',
  7: 'addr_mode',
  16: 'decode',
  17: 'xlate_fault',
  18: 'too_long',
  19: 'incomplete',
  20: 'bad_vp',
  21: 'unsupported',
  22: 'e2e_failed',
};

/** A descriptor with the VP that submitted it (the HDQ / SDQ readout's output). */
export interface RdmaDescIn {
  vp: number;
  bytes: Uint8Array;
  /** run alone: the transmit engine takes it only when no operation is in flight, and nothing else until it is done (a collective's children) */
  fence?: boolean;
}

/** Fields of an EQ entry (32 bytes, little-endian). */
export interface EventFields {
  /** EV_* */
  type: number;
  /** the descriptor's opcode */
  opcode: number;
  /** RE_* for an error event, else 0 */
  code: number;
  userTag: number;
  /** the other side of the transfer */
  peerNode: number;
  peerVp: number;
  eventData: number;
  length: number;
  /** the transfer's address on this side (48 bits) */
  addr: number;
}

/**
 * Byte 0 type, 1 opcode, 2 code, 3 zero, 4-5 user tag, 6-7 peer node, 8 peer VP, 9-11 zero,
 * 12-15 event data, 16-19 length, 20-25 address, 26-31 zero.
 */
export function encodeEvent(f: EventFields): Uint8Array {
  const b = new Uint8Array(Q_ENTRY_BYTES[Q_EQ]!);
  const v = new DataView(b.buffer);
  b[0] = f.type;
  b[1] = f.opcode;
  b[2] = f.code;
  v.setUint16(4, f.userTag, true);
  v.setUint16(6, f.peerNode, true);
  b[8] = f.peerVp;
  v.setUint32(12, f.eventData >>> 0, true);
  v.setUint32(16, f.length >>> 0, true);
  v.setUint32(20, f.addr % 2 ** 32, true);
  v.setUint16(24, Math.floor(f.addr / 2 ** 32), true);
  return b;
}

/**
 * MPQ entry (128 bytes): byte 0 = 1 (valid), 1 payload length, 2-3 source node, 4 source VP,
 * 5 zero, 6-7 user tag, 8-11 event data, 12-15 zero, 16-95 the 80 payload bytes, 96-127 zero.
 */
export function encodeMpEntry(len: number, srcNode: number, srcVp: number, userTag: number, eventData: number, payload: Uint8Array): Uint8Array {
  const b = new Uint8Array(Q_ENTRY_BYTES[Q_MPQ]!);
  const v = new DataView(b.buffer);
  b[0] = 1;
  b[1] = len;
  v.setUint16(2, srcNode, true);
  b[4] = srcVp;
  v.setUint16(6, userTag, true);
  v.setUint32(8, eventData >>> 0, true);
  b.set(payload.subarray(0, 80), 16);
  return b;
}

/**
 * EPQ entry (128 bytes) for a packet that failed its CRC: byte 0 packet kind, 1 reason (1 = CRC),
 * 2-3 source node, 4-5 destination node, 6 source VP, 7 destination VP, 8-11 operation number,
 * 12-15 offset (low 32 bits), 16-19 data length, 20-23 CRC carried, 24-27 CRC computed, 28-31
 * zero, 32-127 the first 96 data bytes.
 */
export function encodeEpqEntry(kind: number, src: number, dst: number, srcVp: number, dstVp: number, opId: number, offset: number, data: Uint8Array | null, crcCarried: number, crcComputed: number): Uint8Array {
  const b = new Uint8Array(Q_ENTRY_BYTES[Q_EPQ]!);
  const v = new DataView(b.buffer);
  b[0] = kind;
  b[1] = 1;
  v.setUint16(2, src & 0xffff, true);
  v.setUint16(4, dst & 0xffff, true);
  b[6] = srcVp & 0xff;
  b[7] = dstVp & 0xff;
  v.setUint32(8, opId >>> 0, true);
  v.setUint32(12, offset >>> 0, true);
  v.setUint32(16, data === null ? 0 : data.length, true);
  v.setUint32(20, crcCarried >>> 0, true);
  v.setUint32(24, crcComputed >>> 0, true);
  if (data !== null) b.set(data.subarray(0, 96), 32);
  return b;
}

export interface RdmaConfig {
  /** this NIC's node number */
  node: number;
  /** nodes a descriptor may name (decoder check), default 2 */
  nodes: number;
  /** virtual ports, default 40 */
  vps: number;
  /** memory-checker items, default 4096 */
  items: number;
  /** largest packet payload in bytes, a power of two in [64, 4096] (so no packet crosses a page), default 256 */
  maxPayload: number;
  /** longest transfer in bytes, default 1 MiB (the engine keeps one translation per page) */
  maxTransfer: number;
  /** payload DMA reads the transmit engine keeps in flight (over all its operations), default 16 */
  maxReads: number;
  /** operations the transmit engine holds at once (one being decoded and checked, the others fetching and streaming), default 8; 1 = one operation at a time */
  txOps: number;
  /** packets in the receive engine's pipeline (their buffer checks overlap earlier packets' writes), default 4; 1 = one packet at a time */
  rxPackets: number;
  /** virtual address bits, default 48 */
  vaBits: number;
}

export const RDMA_DEFAULTS: Readonly<RdmaConfig> = { node: 0, nodes: 2, vps: 40, items: 4096, maxPayload: 256, maxTransfer: 1 << 20, maxReads: 16, txOps: 8, rxPackets: 4, vaBits: 48 };

export function rdmaConfig(p: Partial<RdmaConfig> = {}): RdmaConfig {
  for (const k of Object.keys(p)) if (!(k in RDMA_DEFAULTS)) throw new RangeError(`rdma config: unknown parameter ${k}`);
  const c: RdmaConfig = { ...RDMA_DEFAULTS, ...p };
  const int = (n: string, v: number, lo: number, hi: number): void => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`rdma config: ${n} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  int('nodes', c.nodes, 1, 65536);
  int('node', c.node, 0, c.nodes - 1);
  int('vps', c.vps, 1, 256);
  int('items', c.items, 1, 1 << 20);
  int('maxPayload', c.maxPayload, 64, 4096);
  if ((c.maxPayload & (c.maxPayload - 1)) !== 0) throw new RangeError(`rdma config: maxPayload must be a power of two, got ${c.maxPayload}`);
  int('maxTransfer', c.maxTransfer, 1, 2 ** 32);
  int('maxReads', c.maxReads, 1, 256);
  int('txOps', c.txOps, 1, 256);
  int('rxPackets', c.rxPackets, 1, 256);
  int('vaBits', c.vaBits, 13, 52);
  return c;
}
