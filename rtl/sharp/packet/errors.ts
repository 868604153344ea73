/**
 * Decode error codes: why the packet decoder (the AN's / host's receive parser) rejected a byte
 * string. Checked in the order listed in docs/sharp-packets.md ("Decode checks"); the first failing
 * check names the error. Codes fit in 8 bits so an ERROR_REPORT (status BAD_PACKET) can carry one
 * in its detail word.
 */
export const DecodeError = {
  /** fewer bytes than header + CRC trailer, or fewer than the header's payload length needs */
  TRUNCATED: 1,
  /** version field is not PACKET_VERSION */
  BAD_VERSION: 2,
  /** more bytes than header + payload length + CRC trailer */
  LENGTH_MISMATCH: 3,
  /** CRC-32 trailer does not match header + payload */
  BAD_CRC: 4,
  /** packet type 0 or 8..15 */
  BAD_TYPE: 5,
  /** a reserved bit, or a field this packet type does not use, is nonzero */
  RESERVED_NONZERO: 6,
  /** status code not assigned, nonzero in a request / management packet, or zero in an error report */
  BAD_STATUS: 7,
  /** fragment count 0, index >= count, first/last flags inconsistent with index/count,
   *  or a management packet that is not a single fragment */
  BAD_FRAGMENT: 8,
  /** opcode 12..15 */
  BAD_OPCODE: 9,
  /** data type 12..15 */
  BAD_DTYPE: 10,
  /** rounding mode 5..7 */
  BAD_ROUNDING: 11,
  /** bitwise or logical operation on a floating-point type */
  TYPE_OP_INVALID: 12,
  /** nonzero index type on an operation other than minloc/maxloc */
  BAD_INDEX_TYPE: 13,
  /** element size differs from the value size (+ index size for minloc/maxloc) */
  ELEM_SIZE_MISMATCH: 14,
  /** payload length field > 256, or element count x element size > 256 */
  PAYLOAD_TOO_LARGE: 15,
  /** payload length differs from what the header implies */
  PAYLOAD_LENGTH: 16,
  /** distribution mode 3 */
  BAD_DIST_MODE: 17,
  /** target kind 3, or a target id that the target kind / distribution mode forbids */
  BAD_TARGET: 18,
  /** GROUP_CREATE child count outside 1..64 or a repeated child id */
  BAD_CHILD_LIST: 19,
  /** GROUP_CREATE root flag set with a nonzero parent field, or the parent also listed as a child */
  BAD_PARENT: 20,
} as const;
export type DecodeErrorName = keyof typeof DecodeError;
export type DecodeError = (typeof DecodeError)[DecodeErrorName];

export const DECODE_ERROR_NAMES: Readonly<Record<number, DecodeErrorName>> = Object.fromEntries(
  Object.entries(DecodeError).map(([k, v]) => [v, k]),
) as Record<number, DecodeErrorName>;

/** A rejected packet: the error code and a one-line description naming the offending field. */
export interface DecodeFailure {
  ok: false;
  error: DecodeError;
  detail: string;
}
