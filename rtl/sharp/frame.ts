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

/** Multicast groups live in their own id space; switches look them up in their forwarding tables. */
export const MCAST_BASE = 0x100000;
