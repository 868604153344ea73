/**
 * The decoded form of each SHArP packet type: exactly the fields that type uses. Every other header
 * bit is zero on the wire (the decoder rejects it otherwise), fragment flags and lengths are derived,
 * so a packet object and its encoding correspond one to one. Numbers are unsigned integers of the
 * width given in docs/sharp-packets.md (node ids, job, group, msgId, fragments: 16 bits; seq,
 * targetId, detail, maxBufferBytes: 32 bits; tree: 6 bits).
 */
import type { DataType, IndexType, Op, Rounding } from '../alu/types.ts';
import type { DistMode, TargetKind } from './codes.ts';

/** Header fields of an aggregation request or response. */
export interface AggFields {
  job: number;
  tree: number;
  group: number;
  /** operation sequence number: identifies the operation within (job, tree, group) */
  seq: number;
  /** node id of the sender (host or AN); the receiving AN maps it to an operand slot */
  source: number;
  /** host-library message id: the operations of one fragmented message share it */
  msgId: number;
  /** this operation's position in its message, 0 .. fragCount-1 */
  fragIndex: number;
  fragCount: number;
  op: Op;
  dataType: DataType;
  /** index type of minloc/maxloc elements; null for every other operation */
  indexType: IndexType | null;
  rounding: Rounding;
  wide: boolean;
  ftz: boolean;
  /** ALU exception flags accumulated so far (TestFloat layout, bits 0..4); 0 from a host */
  aluFlags: number;
  /** number of elements, 0..256 (0 = barrier) */
  count: number;
  dist: DistMode;
  targetKind: TargetKind;
  /** all+rc: 0; all+ud / all+rc+ud / external+ud: multicast group (nonzero);
   *  member: member rank (< 65536); external+rc: node id (< 65536) */
  targetId: number;
  /**
   * SharpStatus code: 0 = data in payload. A nonzero status with an empty payload is an error: in
   * a response, the operation failed; in a request, the sender's sub-tree failed the operation
   * (an AN over quota, say), so the parent completes the operation with that error.
   */
  status: number;
  /** count x element bytes of little-endian elements (empty when status is an error) */
  payload: Uint8Array;
}

export interface AggRequest extends AggFields {
  type: 'AGG_REQUEST';
}

export interface AggResponse extends AggFields {
  type: 'AGG_RESPONSE';
}

export interface GroupCreate {
  type: 'GROUP_CREATE';
  job: number;
  tree: number;
  group: number;
  /** the AM's management transaction number */
  seq: number;
  /** node id of the sender (the AM) */
  source: number;
  /** parent AN's node id; null at the group's root */
  parent: number | null;
  /** child node ids (hosts or ANs), 1..64 distinct; position i is ALU operand slot i */
  children: number[];
}

export interface GroupTrim {
  type: 'GROUP_TRIM';
  job: number;
  tree: number;
  group: number;
  seq: number;
  source: number;
  /** the AN where the group's sub-tree now ends (becomes its root); ANs above drop the group */
  newRoot: number;
  /** tree level of newRoot (0 = leaf switches), 0..15 */
  level: number;
}

export interface ErrorReport {
  type: 'ERROR_REPORT';
  /** nonzero SharpStatus code */
  status: number;
  job: number;
  tree: number;
  group: number;
  /** sequence number of the failed operation (0 when none) */
  seq: number;
  /** reporting node */
  source: number;
  /** code-specific detail: DecodeError for BAD_PACKET, peer/failed node id for LINK_DOWN, NODE_FAILURE, HOST_FAILURE */
  detail: number;
}

export interface JobQuota {
  type: 'JOB_QUOTA';
  job: number;
  seq: number;
  source: number;
  /** outstanding operations the job may hold at this AN (16 bits) */
  maxOps: number;
  /** operand-buffer bytes the job may hold at this AN (32 bits) */
  maxBufferBytes: number;
}

export interface JobRevoke {
  type: 'JOB_REVOKE';
  job: number;
  seq: number;
  source: number;
}

export type Packet = AggRequest | AggResponse | GroupCreate | GroupTrim | ErrorReport | JobQuota | JobRevoke;
export type AggPacket = AggRequest | AggResponse;
