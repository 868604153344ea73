/** SHArP packet layer: formats, encoder, decoder, CRC and wire sizes. See docs/sharp-packets.md. */
export {
  PACKET_VERSION, PacketType, PACKET_TYPE_NAMES, DIST_MODES, TARGET_KINDS, SharpStatus, STATUS_NAMES, isKnownStatus,
  OPCODE_OF, DTYPE_OF, INDEX_TYPE_OF, ROUNDING_OF, DIST_OF, TARGET_KIND_OF, MAX_GROUP_CHILDREN, MAX_TRIM_LEVEL, TREE_COUNT,
  type PacketTypeName, type PacketTypeCode, type DistMode, type TargetKind, type SharpStatusName, type SharpStatusCode,
} from './codes.ts';
export { DecodeError, DECODE_ERROR_NAMES, type DecodeErrorName, type DecodeFailure } from './errors.ts';
export {
  HEADER_BYTES, HEADER_WORDS, CRC_BYTES, MAX_PACKET_PAYLOAD, MIN_PACKET_BYTES, MAX_PACKET_BYTES, F, MGMT, getField, putField,
  readHeaderWords, writeHeaderWords, type FieldSpec,
} from './fields.ts';
export type { AggFields, AggRequest, AggResponse, GroupCreate, GroupTrim, ErrorReport, JobQuota, JobRevoke, Packet, AggPacket } from './packet.ts';
export { crc32, crc32Update, CRC32_POLY_REFLECTED, CRC32_RESIDUE } from './crc.ts';
export { aggElementBytes, checkHeader } from './validate.ts';
export { encodePacket, encodePacketInto, packetBytes, payloadBytes } from './encode.ts';
export { decodePacket, type DecodeResult } from './decode.ts';
export {
  wireBytes, padBytes, IB_LRH_BYTES, IB_BTH_BYTES, IB_ICRC_BYTES, IB_VCRC_BYTES, IB_GRH_BYTES, IB_DETH_BYTES, RC_OVERHEAD_BYTES,
  UD_OVERHEAD_BYTES, type Transport,
} from './wire.ts';
