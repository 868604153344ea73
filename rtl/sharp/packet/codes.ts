/**
 * Code points of the SHArP packet header: packet types, result-distribution modes, target kinds
 * and the status / error codes carried in responses and error reports. The ALU's vocabulary
 * (data types, operations, index types, rounding modes) is encoded as the position of the name in
 * the lists of rtl/sharp/alu/types.ts. See docs/sharp-packets.md.
 */
import { AluError, DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS, type DataType, type IndexType, type Op, type Rounding } from '../alu/types.ts';

/** Header format version written by this encoder and the only one the decoder accepts. */
export const PACKET_VERSION = 1;

/** 4-bit packet type field. Code 0 and 8..15 are not assigned (decode error BAD_TYPE). */
export const PacketType = {
  /** host -> leaf AN, and AN -> parent AN: one operand (or partial result) of an operation */
  AGG_REQUEST: 1,
  /** root AN -> down the tree (RC) and/or to a UD multicast group: the result, or an error status */
  AGG_RESPONSE: 2,
  /** AM -> AN: install a group's description at this AN (parent, root flag, ordered child list) */
  GROUP_CREATE: 3,
  /** AM -> AN: end the group's sub-tree at AN `newRoot`; ANs above it drop the group */
  GROUP_TRIM: 4,
  /** AN -> AM: an error detected at the reporting AN */
  ERROR_REPORT: 5,
  /** AM -> AN: a job's resource allocation at this AN */
  JOB_QUOTA: 6,
  /** AM -> AN: free every context and the quota of a job */
  JOB_REVOKE: 7,
} as const;
export type PacketTypeName = keyof typeof PacketType;
export type PacketTypeCode = (typeof PacketType)[PacketTypeName];
export const PACKET_TYPE_NAMES: readonly (PacketTypeName | undefined)[] = (() => {
  const names: (PacketTypeName | undefined)[] = new Array(16).fill(undefined);
  for (const [k, v] of Object.entries(PacketType)) names[v] = k as PacketTypeName;
  return names;
})();

/** Result-distribution mode (2-bit field; code 3 is BAD_DIST_MODE). Seed Table VI. */
export const DIST_MODES = ['rc', 'ud', 'rc+ud'] as const;
export type DistMode = (typeof DIST_MODES)[number];

/**
 * Target kind (2-bit field; code 3 is BAD_TARGET): `all` = every group member (allreduce,
 * barrier), `member` = one member rank (reduce), `external` = a node or multicast group outside
 * the group.
 */
export const TARGET_KINDS = ['all', 'member', 'external'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** Code of each ALU name in its header field: the index in the ALU's list. */
export const OPCODE_OF = Object.fromEntries(OPS.map((n, i) => [n, i])) as Readonly<Record<Op, number>>;
export const DTYPE_OF = Object.fromEntries(DATA_TYPES.map((n, i) => [n, i])) as Readonly<Record<DataType, number>>;
export const INDEX_TYPE_OF = Object.fromEntries(INDEX_TYPES.map((n, i) => [n, i])) as Readonly<Record<IndexType, number>>;
export const ROUNDING_OF = Object.fromEntries(ROUNDINGS.map((n, i) => [n, i])) as Readonly<Record<Rounding, number>>;
export const DIST_OF: Readonly<Record<DistMode, number>> = { rc: 0, ud: 1, 'rc+ud': 2 };
export const TARGET_KIND_OF: Readonly<Record<TargetKind, number>> = { all: 0, member: 1, external: 2 };

/**
 * Status / error codes (8-bit field). 0 is success. 1..9 are the ALU's own error codes (same
 * numbers as AluError in rtl/sharp/alu/types.ts); 16.. are aggregation-node, protocol and fault
 * codes. Any other value is rejected by the decoder (BAD_STATUS). Requests and the AM's management
 * packets carry 0; an AGG_RESPONSE carries 0 or an error; an ERROR_REPORT carries a nonzero code.
 */
export const SharpStatus = {
  OK: 0,
  TYPE_OP: AluError.TYPE_OP,
  PAYLOAD_TOO_LARGE: AluError.PAYLOAD_TOO_LARGE,
  SLOT_RANGE: AluError.SLOT_RANGE,
  DUPLICATE_OPERAND: AluError.DUPLICATE_OPERAND,
  HEADER_MISMATCH: AluError.HEADER_MISMATCH,
  NO_CONTEXT: AluError.NO_CONTEXT,
  BAD_CHILDREN: AluError.BAD_CHILDREN,
  BAD_INDEX_TYPE: AluError.BAD_INDEX_TYPE,
  BAD_LENGTH: AluError.BAD_LENGTH,
  /** the job's outstanding-operation quota at this AN is used up */
  QUOTA_OPS: 16,
  /** the job's buffer-byte quota at this AN is used up */
  QUOTA_BUFFER: 17,
  /** the job has no quota at this AN (never allocated, or revoked) */
  NO_QUOTA: 18,
  /** tree id not configured at this AN */
  UNKNOWN_TREE: 19,
  /** (job, tree, group) not installed at this AN */
  UNKNOWN_GROUP: 20,
  /** the sender is not in the group's child list at this AN */
  NOT_A_CHILD: 21,
  /** no room in the AN's group table for a GROUP_CREATE */
  GROUP_TABLE_FULL: 22,
  /** a packet failed decoding; ERROR_REPORT detail = the DecodeError code */
  BAD_PACKET: 23,
  /** the operation's job was revoked by the AM while the operation was in flight */
  JOB_REVOKED: 24,
  /** a link of the tree failed; ERROR_REPORT detail = the peer node id */
  LINK_DOWN: 25,
  /** an aggregation node failed; ERROR_REPORT detail = its node id */
  NODE_FAILURE: 26,
  /** a host or its process failed; ERROR_REPORT detail = its node id */
  HOST_FAILURE: 27,
  /** an error reported by another node of the tree aborted this operation */
  ABORTED: 28,
} as const;
export type SharpStatusName = keyof typeof SharpStatus;
export type SharpStatusCode = (typeof SharpStatus)[SharpStatusName];
export const STATUS_NAMES: Readonly<Record<number, SharpStatusName>> = Object.fromEntries(
  Object.entries(SharpStatus).map(([k, v]) => [v, k]),
) as Record<number, SharpStatusName>;

/** True when `code` is an assigned status code. */
export function isKnownStatus(code: number): boolean {
  return STATUS_NAMES[code] !== undefined;
}

/** Largest number of children of one AN in one group (= ALU operand slots). */
export const MAX_GROUP_CHILDREN = 64;
/** Largest GROUP_TRIM level (4-bit field). */
export const MAX_TRIM_LEVEL = 15;
/** Number of trees an AN can hold (6-bit tree id). */
export const TREE_COUNT = 64;
