/**
 * On-the-wire size of a SHArP packet carried by InfiniBand, for link serialization timing.
 *
 * A SHArP packet (32-byte header + payload + 4-byte CRC-32 trailer) is the payload of one
 * InfiniBand packet. Header sizes are those of the InfiniBand Architecture Specification Vol. 1
 * (Release 1.3): LRH section 7.7, ICRC 7.8.1, VCRC 7.8.2, GRH 8.3, BTH 9.2, DETH 9.3.
 *
 *   RC (host <-> AN, AN <-> AN, results down the tree):
 *     LRH 8 | BTH 12 | SHArP packet | pad | ICRC 4 | VCRC 2
 *   UD multicast (results to a multicast group):
 *     LRH 8 | GRH 40 | BTH 12 | DETH 8 | SHArP packet | pad | ICRC 4 | VCRC 2
 *
 * `pad` is the 0..3 bytes that align the IB payload to a 4-byte multiple (BTH PadCnt; LRH PktLen
 * counts 4-byte words). Counted: bytes of the link-layer packet. Not counted: line coding
 * (64b/66b at EDR 100 Gb/s), start/end delimiters and idles, link-level flow-control packets.
 * The largest SHArP packet is 32 + 256 + 4 = 292 bytes, one IB packet when the path MTU is at
 * least 512 bytes (IB MTUs: 256, 512, 1024, 2048, 4096); SHArP packets are never split.
 */
import type { Packet } from './packet.ts';
import { payloadBytes } from './encode.ts';
import { CRC_BYTES, HEADER_BYTES, MAX_PACKET_PAYLOAD } from './fields.ts';

/** Local Route Header (IBA Vol. 1, 7.7). Present in every packet. */
export const IB_LRH_BYTES = 8;
/** Base Transport Header (IBA Vol. 1, 9.2). Present in every transport packet. */
export const IB_BTH_BYTES = 12;
/** Invariant CRC (IBA Vol. 1, 7.8.1). */
export const IB_ICRC_BYTES = 4;
/** Variant CRC (IBA Vol. 1, 7.8.2). */
export const IB_VCRC_BYTES = 2;
/** Global Route Header (IBA Vol. 1, 8.3): carried by the UD multicast packets. */
export const IB_GRH_BYTES = 40;
/** Datagram Extended Transport Header (IBA Vol. 1, 9.3): Q_Key and source QP of a UD packet. */
export const IB_DETH_BYTES = 8;

/** IB bytes around the SHArP packet on an RC connection: 26. */
export const RC_OVERHEAD_BYTES = IB_LRH_BYTES + IB_BTH_BYTES + IB_ICRC_BYTES + IB_VCRC_BYTES;
/** IB bytes around the SHArP packet in a UD multicast packet: 74. */
export const UD_OVERHEAD_BYTES = RC_OVERHEAD_BYTES + IB_GRH_BYTES + IB_DETH_BYTES;

export type Transport = 'rc' | 'ud';

/** Pad bytes (BTH PadCnt) after a SHArP packet with `payloadLength` payload bytes. */
export function padBytes(payloadLength: number): number {
  return (4 - ((HEADER_BYTES + payloadLength + CRC_BYTES) & 3)) & 3;
}

/**
 * Bytes on the link for a SHArP packet, given the packet or its SHArP payload length (0..256;
 * a GROUP_CREATE's payload is 2 bytes per child), on an RC connection or as a UD multicast.
 */
export function wireBytes(pkt: Packet | number, transport: Transport): number {
  let len: number;
  if (typeof pkt === 'number') {
    if (!Number.isInteger(pkt) || pkt < 0 || pkt > MAX_PACKET_PAYLOAD) {
      throw new RangeError(`wireBytes: payload length must be an integer in 0..${MAX_PACKET_PAYLOAD}, got ${pkt}`);
    }
    len = pkt;
  } else {
    len = payloadBytes(pkt);
    if (len > MAX_PACKET_PAYLOAD) throw new RangeError(`wireBytes: packet payload of ${len} bytes > ${MAX_PACKET_PAYLOAD}`);
  }
  let overhead: number;
  if (transport === 'rc') overhead = RC_OVERHEAD_BYTES;
  else if (transport === 'ud') overhead = UD_OVERHEAD_BYTES;
  else throw new RangeError(`wireBytes: transport must be 'rc' or 'ud', got ${String(transport)}`);
  return overhead + HEADER_BYTES + len + CRC_BYTES + padBytes(len);
}
