/**
 * Packet decoder (the receive parser of an AN or host): bytes -> packet object, or a specific
 * DecodeError. Never throws, keeps no state between calls, never writes to its input, and the
 * returned packet shares no memory with it.
 *
 * Frame checks first, in the order a cut-through parser meets them: enough bytes for a header and
 * trailer (TRUNCATED), the version nibble of the first byte (BAD_VERSION), the payload length of
 * W4 against the 256-byte limit (PAYLOAD_TOO_LARGE) and against the bytes received (TRUNCATED /
 * LENGTH_MISMATCH), then the CRC-32 trailer (BAD_CRC). Only a CRC-clean header is interpreted
 * (validate.ts), so a corrupted packet is reported as BAD_CRC rather than as whatever field the
 * corruption happened to hit.
 */
import { DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS } from '../alu/types.ts';
import { DIST_MODES, PACKET_VERSION, PacketType, TARGET_KINDS } from './codes.ts';
import { crc32Update } from './crc.ts';
import { DecodeError, type DecodeFailure } from './errors.ts';
import { CRC_BYTES, F, HEADER_BYTES, HEADER_WORDS, MAX_PACKET_PAYLOAD, MGMT, MIN_PACKET_BYTES, getField, readHeaderWords } from './fields.ts';
import type { AggRequest, AggResponse, Packet } from './packet.ts';
import { checkHeader } from './validate.ts';

export type DecodeResult = { ok: true; pkt: Packet } | DecodeFailure;

/** Header words of the packet being decoded: scratch, reused by every (synchronous) call. */
const W = new Uint32Array(HEADER_WORDS);

function fail(error: DecodeError, detail: string): DecodeFailure {
  return { ok: false, error, detail };
}

/** Decode one packet occupying all of `bytes`. */
export function decodePacket(bytes: Uint8Array): DecodeResult {
  if (!(bytes instanceof Uint8Array)) return fail(DecodeError.TRUNCATED, 'input is not a Uint8Array');
  const n = bytes.length;
  if (n < MIN_PACKET_BYTES) return fail(DecodeError.TRUNCATED, `${n} bytes < ${MIN_PACKET_BYTES} (32-byte header + 4-byte CRC)`);
  readHeaderWords(bytes, W);
  const version = getField(W, F.VERSION);
  if (version !== PACKET_VERSION) return fail(DecodeError.BAD_VERSION, `version ${version}, expected ${PACKET_VERSION}`);
  const len = getField(W, F.PAYLOAD_LEN);
  if (len > MAX_PACKET_PAYLOAD) return fail(DecodeError.PAYLOAD_TOO_LARGE, `payload length ${len} > ${MAX_PACKET_PAYLOAD}`);
  const need = HEADER_BYTES + len + CRC_BYTES;
  if (n < need) return fail(DecodeError.TRUNCATED, `${n} bytes < ${need} (header + ${len}-byte payload + CRC)`);
  if (n > need) return fail(DecodeError.LENGTH_MISMATCH, `${n} bytes > ${need} (header + ${len}-byte payload + CRC)`);
  const end = HEADER_BYTES + len;
  const crc = (crc32Update(0xffffffff, bytes, 0, end) ^ 0xffffffff) >>> 0;
  const got = (bytes[end]! | (bytes[end + 1]! << 8) | (bytes[end + 2]! << 16) | (bytes[end + 3]! << 24)) >>> 0;
  if (crc !== got) return fail(DecodeError.BAD_CRC, `CRC trailer 0x${hex8(got)}, computed 0x${hex8(crc)}`);
  const bad = checkHeader(W, bytes, HEADER_BYTES);
  if (bad !== null) return bad;
  return { ok: true, pkt: toPacket(W, bytes, len) };
}

function hex8(v: number): string {
  return v.toString(16).padStart(8, '0');
}

/** Build the packet object from checked header words. */
function toPacket(w: Uint32Array, bytes: Uint8Array, len: number): Packet {
  const type = getField(w, F.TYPE);
  const job = getField(w, F.JOB);
  const seq = getField(w, F.SEQ);
  const source = getField(w, F.SOURCE);
  const tree = getField(w, F.TREE);
  const group = getField(w, F.GROUP);
  switch (type) {
    case PacketType.AGG_REQUEST:
    case PacketType.AGG_RESPONSE:
      return aggPacket(w, bytes, len, type === PacketType.AGG_RESPONSE);
    case PacketType.GROUP_CREATE: {
      const children: number[] = [];
      const count = getField(w, F.COUNT);
      for (let i = 0; i < count; i++) children.push((bytes[HEADER_BYTES + 2 * i]! << 8) | bytes[HEADER_BYTES + 2 * i + 1]!);
      const parent = getField(w, MGMT.GC_ROOT) === 1 ? null : getField(w, MGMT.GC_PARENT);
      return { type: 'GROUP_CREATE', job, tree, group, seq, source, parent, children };
    }
    case PacketType.GROUP_TRIM:
      return { type: 'GROUP_TRIM', job, tree, group, seq, source, newRoot: getField(w, MGMT.GT_NEW_ROOT), level: getField(w, MGMT.GT_LEVEL) };
    case PacketType.ERROR_REPORT:
      return { type: 'ERROR_REPORT', status: getField(w, F.STATUS), job, tree, group, seq, source, detail: getField(w, MGMT.ER_DETAIL) };
    case PacketType.JOB_QUOTA:
      return { type: 'JOB_QUOTA', job, seq, source, maxOps: getField(w, MGMT.JQ_MAX_OPS), maxBufferBytes: getField(w, MGMT.JQ_MAX_BYTES) };
    default:
      // checkHeader admitted only assigned types, so this is JOB_REVOKE.
      return { type: 'JOB_REVOKE', job, seq, source };
  }
}

/** A fresh plain Uint8Array copy of the payload (never a view: Buffer.slice would alias). */
function copyPayload(bytes: Uint8Array, len: number): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = bytes[HEADER_BYTES + i]!;
  return out;
}

function aggPacket(w: Uint32Array, bytes: Uint8Array, len: number, response: boolean): AggRequest | AggResponse {
  const op = OPS[getField(w, F.OPCODE)]!;
  const loc = op === 'minloc' || op === 'maxloc';
  const p: AggRequest = {
    type: 'AGG_REQUEST',
    job: getField(w, F.JOB),
    tree: getField(w, F.TREE),
    group: getField(w, F.GROUP),
    seq: getField(w, F.SEQ),
    source: getField(w, F.SOURCE),
    msgId: getField(w, F.MSG_ID),
    fragIndex: getField(w, F.FRAG_INDEX),
    fragCount: getField(w, F.FRAG_COUNT),
    op,
    dataType: DATA_TYPES[getField(w, F.DTYPE)]!,
    indexType: loc ? INDEX_TYPES[getField(w, F.INDEX_TYPE)]! : null,
    rounding: ROUNDINGS[getField(w, F.ROUNDING)]!,
    wide: getField(w, F.WIDE) === 1,
    ftz: getField(w, F.FTZ) === 1,
    aluFlags: getField(w, F.ALU_FLAGS),
    count: getField(w, F.COUNT),
    dist: DIST_MODES[getField(w, F.DIST)]!,
    targetKind: TARGET_KINDS[getField(w, F.TARGET_KIND)]!,
    targetId: getField(w, F.TARGET_ID),
    status: getField(w, F.STATUS),
    payload: copyPayload(bytes, len),
  };
  if (!response) return p;
  const r = p as unknown as AggResponse;
  r.type = 'AGG_RESPONSE';
  return r;
}
