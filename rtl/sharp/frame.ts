/**
 * A frame on an InfiniBand link: the transport envelope (destination, source, transport kind,
 * connection) around an encoded SHArP packet. The envelope stands for the LRH/BTH/DETH/GRH
 * headers, which the model does not encode bit by bit; their sizes are counted in `wireBytes`
 * (rtl/sharp/packet/wire.ts). The SHArP packet itself is real bytes, decoded by the receiver.
 */
export interface Frame {
  /** destination node id (unicast) or multicast group (when `mcast`) */
  dst: number;
  /** sending node id */
  src: number;
  /** UD multicast (replicated by switches) instead of RC unicast */
  mcast: boolean;
  /** RC connection: the job whose SHArPd set the connection up (-1 for management and UD) */
  job: number;
  /** the encoded SHArP packet */
  bytes: Uint8Array;
  /** bytes on the wire including transport headers (serialization time) */
  wireBytes: number;
}

/**
 * The UD multicast group of a SHArP group (it stands for the MGID the subnet manager assigns).
 * Multicast frames are told apart by `Frame.mcast`, so the address has its own id space: the job
 * (16 bits) above the group (16 bits), one-to-one on every (job, group) the packet fields can carry
 * and exactly the 32 bits of the request's targetId field; never 0 (a multicast target of 0 is
 * BAD_TARGET) because job 0 is reserved (ANs report undecodable management packets under job 0).
 * (It used to be 0x100000 + (job << 16) + group in signed 32-bit arithmetic, which went negative
 * from job 32,768 on.)
 */
export function mcastAddress(job: number, group: number): number {
  if (!Number.isInteger(job) || job < 1 || job > 0xffff) throw new RangeError(`multicast address: job id must be in 1..65535, got ${job}`);
  if (!Number.isInteger(group) || group < 0 || group > 0xffff) throw new RangeError(`multicast address: group id must be in 0..65535, got ${group}`);
  return job * 0x10000 + group;
}
