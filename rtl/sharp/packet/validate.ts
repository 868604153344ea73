/**
 * Header consistency checks: everything the receive parser verifies after the frame checks
 * (length, version, CRC; see decode.ts). One function over the eight header words and the payload,
 * shared by the decoder (to reject) and the encoder (to refuse to build what the decoder would
 * reject), so the two can never disagree. The checks run in a fixed order and the first failure
 * names the error; the order is documented in docs/sharp-packets.md.
 *
 * Allocation happens only on failure (the returned record); a valid header costs field extractions
 * and compares, as the parallel compare logic of a hardware parser would.
 */
import { DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS, TYPE_BYTES, isFloat, type DataType, type Op } from '../alu/types.ts';
import { DIST_MODES, MAX_GROUP_CHILDREN, PACKET_TYPE_NAMES, PacketType, TARGET_KINDS, isKnownStatus } from './codes.ts';
import { DecodeError, type DecodeFailure } from './errors.ts';
import { F, MAX_PACKET_PAYLOAD, MGMT, getField, type FieldSpec } from './fields.ts';

function fail(error: DecodeError, detail: string): DecodeFailure {
  return { ok: false, error, detail };
}

/** Fields a packet type does not use, which must be zero. */
const UNUSED: Readonly<Record<number, readonly FieldSpec[]>> = {
  [PacketType.GROUP_CREATE]: [F.DIST, F.TARGET_KIND, F.MSG_ID, MGMT.GC_RSVD, MGMT.PARAM_B],
  [PacketType.GROUP_TRIM]: [F.DIST, F.TARGET_KIND, F.MSG_ID, F.COUNT, MGMT.GT_RSVD, MGMT.PARAM_B],
  [PacketType.ERROR_REPORT]: [F.DIST, F.TARGET_KIND, F.MSG_ID, F.COUNT, MGMT.PARAM_A],
  [PacketType.JOB_QUOTA]: [F.GROUP, F.TREE, F.DIST, F.TARGET_KIND, F.MSG_ID, F.COUNT, MGMT.JQ_RSVD],
  [PacketType.JOB_REVOKE]: [F.GROUP, F.TREE, F.DIST, F.TARGET_KIND, F.MSG_ID, F.COUNT, MGMT.PARAM_A, MGMT.PARAM_B],
};

/** Element size in bytes implied by an (op, type, index type) triple. */
export function aggElementBytes(op: Op, dataType: DataType, indexTypeCode: number): number {
  const loc = op === 'minloc' || op === 'maxloc';
  return TYPE_BYTES[dataType] + (loc ? TYPE_BYTES[INDEX_TYPES[indexTypeCode]!] : 0);
}

/**
 * Check header words `w` (already CRC-checked, length-checked) and the payload at
 * bytes[payloadStart, payloadStart + payload length). Returns null when the header is valid.
 */
export function checkHeader(w: Uint32Array, bytes: Uint8Array, payloadStart: number): DecodeFailure | null {
  const type = getField(w, F.TYPE);
  const name = PACKET_TYPE_NAMES[type];
  if (name === undefined) return fail(DecodeError.BAD_TYPE, `packet type ${type} is not assigned (1..7)`);
  if (getField(w, F.RSVD_W1) !== 0) return fail(DecodeError.RESERVED_NONZERO, `${F.RSVD_W1.name} = ${getField(w, F.RSVD_W1)}, must be 0`);
  if (getField(w, F.RSVD_W4) !== 0) return fail(DecodeError.RESERVED_NONZERO, `${F.RSVD_W4.name} = ${getField(w, F.RSVD_W4)}, must be 0`);

  const status = getField(w, F.STATUS);
  if (!isKnownStatus(status)) return fail(DecodeError.BAD_STATUS, `status ${status} is not an assigned status code`);
  if (type === PacketType.ERROR_REPORT) {
    if (status === 0) return fail(DecodeError.BAD_STATUS, 'ERROR_REPORT with status 0 (must carry an error code)');
  } else if (type !== PacketType.AGG_RESPONSE && type !== PacketType.AGG_REQUEST && status !== 0) {
    return fail(DecodeError.BAD_STATUS, `${name} with status ${status} (must be 0)`);
  }

  const fi = getField(w, F.FRAG_INDEX);
  const fc = getField(w, F.FRAG_COUNT);
  if (fc === 0) return fail(DecodeError.BAD_FRAGMENT, 'fragment count 0');
  if (fi >= fc) return fail(DecodeError.BAD_FRAGMENT, `fragment index ${fi} >= fragment count ${fc}`);
  if (getField(w, F.FIRST) !== (fi === 0 ? 1 : 0)) return fail(DecodeError.BAD_FRAGMENT, `FIRST flag ${getField(w, F.FIRST)} with fragment index ${fi}`);
  if (getField(w, F.LAST) !== (fi === fc - 1 ? 1 : 0)) {
    return fail(DecodeError.BAD_FRAGMENT, `LAST flag ${getField(w, F.LAST)} with fragment ${fi} of ${fc}`);
  }

  const len = getField(w, F.PAYLOAD_LEN);
  if (type === PacketType.AGG_REQUEST || type === PacketType.AGG_RESPONSE) return checkAgg(w, type, status, len);

  if (fc !== 1) return fail(DecodeError.BAD_FRAGMENT, `${name} must be a single fragment (index 0 of 1), got ${fi} of ${fc}`);
  const unused = UNUSED[type]!;
  for (let i = 0; i < unused.length; i++) {
    const v = getField(w, unused[i]!);
    if (v !== 0) return fail(DecodeError.RESERVED_NONZERO, `${name}: field ${unused[i]!.name} = ${v} is not used by this packet type and must be 0`);
  }
  if (type === PacketType.GROUP_CREATE) return checkGroupCreate(w, bytes, payloadStart, len);
  if (len !== 0) return fail(DecodeError.PAYLOAD_LENGTH, `${name} carries no payload, payload length is ${len}`);
  return null;
}

function checkAgg(w: Uint32Array, type: number, status: number, len: number): DecodeFailure | null {
  const opc = getField(w, F.OPCODE);
  if (opc >= OPS.length) return fail(DecodeError.BAD_OPCODE, `opcode ${opc} is not assigned (0..${OPS.length - 1}: ${OPS.join(' ')})`);
  const dt = getField(w, F.DTYPE);
  if (dt >= DATA_TYPES.length) return fail(DecodeError.BAD_DTYPE, `data type ${dt} is not assigned (0..${DATA_TYPES.length - 1}: ${DATA_TYPES.join(' ')})`);
  const rnd = getField(w, F.ROUNDING);
  if (rnd >= ROUNDINGS.length) return fail(DecodeError.BAD_ROUNDING, `rounding mode ${rnd} is not assigned (0..${ROUNDINGS.length - 1}: ${ROUNDINGS.join(' ')})`);
  if (getField(w, F.RSVD_W3) !== 0) return fail(DecodeError.RESERVED_NONZERO, `${F.RSVD_W3.name} = ${getField(w, F.RSVD_W3)}, must be 0`);
  const op = OPS[opc]!;
  const dataType = DATA_TYPES[dt]!;
  const bitwise = op === 'band' || op === 'bor' || op === 'bxor' || op === 'land' || op === 'lor' || op === 'lxor';
  if (bitwise && isFloat(dataType)) return fail(DecodeError.TYPE_OP_INVALID, `operation ${op} is not defined for floating-point type ${dataType}`);
  const idx = getField(w, F.INDEX_TYPE);
  if (idx !== 0 && op !== 'minloc' && op !== 'maxloc') {
    return fail(DecodeError.BAD_INDEX_TYPE, `index type ${idx} given for operation ${op} (only minloc/maxloc carry an index)`);
  }
  const elem = aggElementBytes(op, dataType, idx);
  const es = getField(w, F.ELEM_SIZE);
  if (es !== elem) return fail(DecodeError.ELEM_SIZE_MISMATCH, `element size ${es} but ${op} on ${dataType}${elem !== TYPE_BYTES[dataType] ? `+${INDEX_TYPES[idx]}` : ''} needs ${elem}`);
  const count = getField(w, F.COUNT);
  if (count * elem > MAX_PACKET_PAYLOAD) return fail(DecodeError.PAYLOAD_TOO_LARGE, `${count} elements x ${elem} bytes = ${count * elem} > ${MAX_PACKET_PAYLOAD}`);
  const expected = status !== 0 ? 0 : count * elem;
  if (len !== expected) {
    return fail(DecodeError.PAYLOAD_LENGTH, `payload length ${len}, expected ${expected}${expected === 0 && count * elem !== 0 ? ' (an error carries no data)' : ` (${count} x ${elem})`}`);
  }
  const dist = getField(w, F.DIST);
  if (dist >= DIST_MODES.length) return fail(DecodeError.BAD_DIST_MODE, `distribution mode ${dist} is not assigned (0 rc, 1 ud, 2 rc+ud)`);
  return checkTarget(getField(w, F.TARGET_KIND), dist, getField(w, F.TARGET_ID));
}

function checkTarget(kind: number, dist: number, id: number): DecodeFailure | null {
  if (kind >= TARGET_KINDS.length) return fail(DecodeError.BAD_TARGET, `target kind ${kind} is not assigned (0 all, 1 member, 2 external)`);
  const k = TARGET_KINDS[kind]!;
  const d = DIST_MODES[dist]!;
  if (k === 'all') {
    if (d === 'rc' && id !== 0) return fail(DecodeError.BAD_TARGET, `target all over rc: target id must be 0, got ${id}`);
    if (d !== 'rc' && id === 0) return fail(DecodeError.BAD_TARGET, `target all over ${d}: target id must name a multicast group (nonzero)`);
    return null;
  }
  if (k === 'member') {
    if (d !== 'rc') return fail(DecodeError.BAD_TARGET, `target member over ${d}: a single member is reached over rc only`);
    if (id > 0xffff) return fail(DecodeError.BAD_TARGET, `target member rank ${id} > 65535`);
    return null;
  }
  if (d === 'rc' && id > 0xffff) return fail(DecodeError.BAD_TARGET, `target external node id ${id} > 65535`);
  if (d === 'ud' && id === 0) return fail(DecodeError.BAD_TARGET, 'target external over ud: target id must name a multicast group (nonzero)');
  if (d === 'rc+ud') return fail(DecodeError.BAD_TARGET, 'target external over rc+ud: an external target is a single destination (rc node or ud group)');
  return null;
}

function checkGroupCreate(w: Uint32Array, bytes: Uint8Array, start: number, len: number): DecodeFailure | null {
  const n = getField(w, F.COUNT);
  if (n === 0 || n > MAX_GROUP_CHILDREN) return fail(DecodeError.BAD_CHILD_LIST, `child count ${n} outside 1..${MAX_GROUP_CHILDREN}`);
  if (len !== 2 * n) return fail(DecodeError.PAYLOAD_LENGTH, `payload length ${len}, expected ${2 * n} (${n} child ids x 2 bytes)`);
  for (let i = 1; i < n; i++) {
    const a = (bytes[start + 2 * i]! << 8) | bytes[start + 2 * i + 1]!;
    for (let j = 0; j < i; j++) {
      if (a === ((bytes[start + 2 * j]! << 8) | bytes[start + 2 * j + 1]!)) return fail(DecodeError.BAD_CHILD_LIST, `child id ${a} listed twice (slots ${j} and ${i})`);
    }
  }
  const root = getField(w, MGMT.GC_ROOT);
  const parent = getField(w, MGMT.GC_PARENT);
  if (root === 1 && parent !== 0) return fail(DecodeError.BAD_PARENT, `root flag set with parent field ${parent} (must be 0)`);
  if (root === 0) {
    for (let i = 0; i < n; i++) {
      if (parent === ((bytes[start + 2 * i]! << 8) | bytes[start + 2 * i + 1]!)) return fail(DecodeError.BAD_PARENT, `parent ${parent} is also child slot ${i}`);
    }
  }
  return null;
}
