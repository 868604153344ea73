/**
 * Packet encoder (the transmit side of a host library or AN): packet object -> header words ->
 * bytes, then the CRC-32 trailer. Refuses (RangeError naming the field) any object that cannot be
 * represented or that the decoder would reject, so every encoded packet decodes to an equal object.
 */
import { DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS } from '../alu/types.ts';
import {
  DIST_MODES, DIST_OF, DTYPE_OF, INDEX_TYPE_OF, MAX_GROUP_CHILDREN, MAX_TRIM_LEVEL, OPCODE_OF, PACKET_VERSION, PacketType, ROUNDING_OF,
  TARGET_KINDS, TARGET_KIND_OF,
} from './codes.ts';
import { crc32Update } from './crc.ts';
import { DECODE_ERROR_NAMES } from './errors.ts';
import { CRC_BYTES, F, HEADER_BYTES, HEADER_WORDS, MAX_PACKET_PAYLOAD, MGMT, putField, writeHeaderWords } from './fields.ts';
import type { AggFields, Packet } from './packet.ts';
import { aggElementBytes, checkHeader } from './validate.ts';

/** Largest value of an unsigned field of each width used here. */
const U5 = 0x1f;
const U6 = 0x3f;
const U8 = 0xff;
const U9 = 0x1ff;
const U16 = 0xffff;
const U32 = 0xffffffff;

/** `v` as an unsigned integer in 0..max, or RangeError naming the field. */
function uint(what: string, v: unknown, max: number): number {
  if (typeof v === 'number' && v >= 0 && v <= max && Math.floor(v) === v) return v;
  throw new RangeError(`cannot encode packet: ${what} must be an integer in 0..${max}, got ${String(v)}`);
}

function oneOf<T extends string>(what: string, v: unknown, names: readonly T[], codes: Readonly<Record<T, number>>): number {
  if (typeof v !== 'string' || !(names as readonly string[]).includes(v)) {
    throw new RangeError(`cannot encode packet: ${what} must be one of ${names.join(' ')}, got ${String(v)}`);
  }
  return codes[v as T];
}

function bool(what: string, v: unknown): number {
  if (typeof v !== 'boolean') throw new RangeError(`cannot encode packet: ${what} must be a boolean, got ${String(v)}`);
  return v ? 1 : 0;
}

function putFragment(w: Uint32Array, index: number, count: number): void {
  putField(w, F.FRAG_INDEX, index);
  putField(w, F.FRAG_COUNT, count);
  putField(w, F.FIRST, index === 0 ? 1 : 0);
  putField(w, F.LAST, index === count - 1 ? 1 : 0);
}

function putAgg(w: Uint32Array, p: AggFields): Uint8Array {
  putField(w, F.TREE, uint('tree', p.tree, U6));
  putField(w, F.GROUP, uint('group', p.group, U16));
  putField(w, F.SEQ, uint('seq', p.seq, U32));
  putField(w, F.SOURCE, uint('source', p.source, U16));
  putField(w, F.MSG_ID, uint('msgId', p.msgId, U16));
  putFragment(w, uint('fragIndex', p.fragIndex, U16), uint('fragCount', p.fragCount, U16));
  const opc = oneOf('op', p.op, OPS, OPCODE_OF);
  putField(w, F.OPCODE, opc);
  putField(w, F.DTYPE, oneOf('dataType', p.dataType, DATA_TYPES, DTYPE_OF));
  const loc = p.op === 'minloc' || p.op === 'maxloc';
  if (loc) {
    if (p.indexType === null) throw new RangeError(`cannot encode packet: ${p.op} needs an indexType (one of ${INDEX_TYPES.join(' ')})`);
    putField(w, F.INDEX_TYPE, oneOf('indexType', p.indexType, INDEX_TYPES, INDEX_TYPE_OF));
  } else if (p.indexType !== null) {
    throw new RangeError(`cannot encode packet: indexType must be null for operation ${p.op}, got ${String(p.indexType)}`);
  }
  putField(w, F.ROUNDING, oneOf('rounding', p.rounding, ROUNDINGS, ROUNDING_OF));
  putField(w, F.WIDE, bool('wide', p.wide));
  putField(w, F.FTZ, bool('ftz', p.ftz));
  putField(w, F.ALU_FLAGS, uint('aluFlags', p.aluFlags, U5));
  putField(w, F.COUNT, uint('count', p.count, U9));
  putField(w, F.DIST, oneOf('dist', p.dist, DIST_MODES, DIST_OF));
  putField(w, F.TARGET_KIND, oneOf('targetKind', p.targetKind, TARGET_KINDS, TARGET_KIND_OF));
  putField(w, F.TARGET_ID, uint('targetId', p.targetId, U32));
  // element size: the one the decoder demands, so only op/type/index choose it.
  putField(w, F.ELEM_SIZE, aggElementBytes(p.op, p.dataType, loc ? INDEX_TYPE_OF[p.indexType!] : 0));
  return payloadOf(p.payload);
}

function payloadOf(v: unknown): Uint8Array {
  if (!(v instanceof Uint8Array)) throw new RangeError(`cannot encode packet: payload must be a Uint8Array, got ${String(v)}`);
  if (v.length > MAX_PACKET_PAYLOAD) throw new RangeError(`cannot encode packet: payload of ${v.length} bytes > ${MAX_PACKET_PAYLOAD}`);
  return v;
}

/** Scratch state of the encoder (header words, child list bytes): reused, never reallocated. */
const W = new Uint32Array(HEADER_WORDS);
const CHILDREN = new Uint8Array(2 * MAX_GROUP_CHILDREN);
const EMPTY = new Uint8Array(0);

/**
 * Fill W from the packet and return the payload bytes (p.payload, a view of CHILDREN, or EMPTY).
 * Throws RangeError on anything that cannot be encoded.
 */
function build(p: Packet): Uint8Array {
  if (p === null || typeof p !== 'object') throw new RangeError(`cannot encode packet: not a packet object (${String(p)})`);
  const code = (PacketType as Record<string, number>)[(p as { type: unknown }).type as string];
  if (code === undefined || !Object.hasOwn(PacketType, p.type)) {
    throw new RangeError(`cannot encode packet: type must be one of ${Object.keys(PacketType).join(' ')}, got ${String(p.type)}`);
  }
  W.fill(0);
  putField(W, F.VERSION, PACKET_VERSION);
  putField(W, F.TYPE, code);
  putField(W, F.JOB, uint('job', p.job, U16));
  let payload: Uint8Array = EMPTY;
  switch (p.type) {
    case 'AGG_REQUEST':
    case 'AGG_RESPONSE':
      putField(W, F.STATUS, uint('status', p.status, U8));
      payload = putAgg(W, p);
      break;
    case 'GROUP_CREATE': {
      putMgmtCommon(W, p.tree, p.group, p.seq, p.source);
      if (p.parent === null) putField(W, MGMT.GC_ROOT, 1);
      else putField(W, MGMT.GC_PARENT, uint('parent', p.parent, U16));
      const ch = p.children;
      if (!Array.isArray(ch) || ch.length === 0 || ch.length > MAX_GROUP_CHILDREN) {
        throw new RangeError(`cannot encode packet: children must be an array of 1..${MAX_GROUP_CHILDREN} node ids, got ${Array.isArray(ch) ? `${ch.length} entries` : String(ch)}`);
      }
      for (let i = 0; i < ch.length; i++) {
        const id = ch[i];
        if (typeof id !== 'number' || !(id >= 0 && id <= U16) || Math.floor(id) !== id) {
          throw new RangeError(`cannot encode packet: children[${i}] must be an integer in 0..${U16}, got ${String(id)}`);
        }
        CHILDREN[2 * i] = id >>> 8;
        CHILDREN[2 * i + 1] = id & 0xff;
      }
      putField(W, F.COUNT, ch.length);
      payload = CHILDREN.subarray(0, 2 * ch.length);
      break;
    }
    case 'GROUP_TRIM':
      putMgmtCommon(W, p.tree, p.group, p.seq, p.source);
      putField(W, MGMT.GT_NEW_ROOT, uint('newRoot', p.newRoot, U16));
      putField(W, MGMT.GT_LEVEL, uint('level', p.level, MAX_TRIM_LEVEL));
      break;
    case 'ERROR_REPORT':
      putMgmtCommon(W, p.tree, p.group, p.seq, p.source);
      putField(W, F.STATUS, uint('status', p.status, U8));
      putField(W, MGMT.ER_DETAIL, uint('detail', p.detail, U32));
      break;
    case 'JOB_QUOTA':
      putMgmtCommon(W, 0, 0, p.seq, p.source);
      putField(W, MGMT.JQ_MAX_OPS, uint('maxOps', p.maxOps, U16));
      putField(W, MGMT.JQ_MAX_BYTES, uint('maxBufferBytes', p.maxBufferBytes, U32));
      break;
    case 'JOB_REVOKE':
      putMgmtCommon(W, 0, 0, p.seq, p.source);
      break;
  }
  putField(W, F.PAYLOAD_LEN, payload.length);
  const bad = checkHeader(W, payload, 0);
  if (bad !== null) throw new RangeError(`cannot encode packet: ${DECODE_ERROR_NAMES[bad.error]}: ${bad.detail}`);
  return payload;
}

/** Common fields of a management packet: single fragment, no message id. */
function putMgmtCommon(w: Uint32Array, tree: unknown, group: unknown, seq: unknown, source: unknown): void {
  putField(w, F.TREE, uint('tree', tree, U6));
  putField(w, F.GROUP, uint('group', group, U16));
  putField(w, F.SEQ, uint('seq', seq, U32));
  putField(w, F.SOURCE, uint('source', source, U16));
  putFragment(w, 0, 1);
}

/** Encoded size of a packet in bytes: 32-byte header + payload + 4-byte CRC. */
export function packetBytes(p: Packet): number {
  return HEADER_BYTES + payloadBytes(p) + CRC_BYTES;
}

/** SHArP payload bytes of a packet (data, or 2 bytes per GROUP_CREATE child). */
export function payloadBytes(p: Packet): number {
  if (p.type === 'AGG_REQUEST' || p.type === 'AGG_RESPONSE') return p.payload.length;
  if (p.type === 'GROUP_CREATE') return 2 * p.children.length;
  return 0;
}

/** Write the header words W, the payload and the CRC trailer to out at offset. */
function emit(payload: Uint8Array, out: Uint8Array, offset: number): void {
  writeHeaderWords(W, out, offset);
  out.set(payload, offset + HEADER_BYTES);
  const end = offset + HEADER_BYTES + payload.length;
  const crc = (crc32Update(0xffffffff, out, offset, end) ^ 0xffffffff) >>> 0;
  // Trailer least significant byte first (Ethernet FCS order; see crc.ts).
  out[end] = crc & 0xff;
  out[end + 1] = (crc >>> 8) & 0xff;
  out[end + 2] = (crc >>> 16) & 0xff;
  out[end + 3] = crc >>> 24;
}

/**
 * Encode `p` into out[offset, offset + packetBytes(p)) without allocating; returns the number of
 * bytes written. Throws RangeError (and writes nothing) if `p` cannot be encoded or does not fit.
 */
export function encodePacketInto(p: Packet, out: Uint8Array, offset = 0): number {
  const payload = build(p);
  const n = HEADER_BYTES + payload.length + CRC_BYTES;
  if (!(out instanceof Uint8Array) || !Number.isInteger(offset) || offset < 0 || offset + n > out.length) {
    throw new RangeError(`cannot encode packet: ${n} bytes do not fit in the output buffer at offset ${String(offset)}`);
  }
  emit(payload, out, offset);
  return n;
}

/** Encode a packet into a new byte array. Throws RangeError on a packet that cannot be encoded. */
export function encodePacket(p: Packet): Uint8Array {
  const payload = build(p);
  const out = new Uint8Array(HEADER_BYTES + payload.length + CRC_BYTES);
  emit(payload, out, 0);
  return out;
}
