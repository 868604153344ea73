/**
 * Network packets between TH Express-2 NICs (docs/nic-rdma.md, "Packets"): kinds, the packet
 * object the RDMA engines and the link hand along by reference, and its CRC.
 */
import { crc32Update } from '../../sharp/packet/crc.ts';

/** RDMA write data (PUT, IMM_PUT): `len` bytes for `addr` at the target */
export const PK_PUT = 0;
/** GET request: read `total` bytes at `addr` of the target and send them back to `retAddr` */
export const PK_GET_REQ = 1;
/** GET response data: written at the initiator (`addr` is the initiator's local address) */
export const PK_GET_RESP = 2;
/** minipacket: `data` goes into the destination VP's MPQ */
export const PK_MP = 3;
/** the target refused an operation: `reason` (an RDMA error code) for the initiator's VP `dstVp` */
export const PK_ERR = 4;
/** reliable end-to-end (docs/nic-rdma.md, "Reliable end-to-end"): connection request, sender -> receiver */
export const PK_CONN_REQ = 5;
/** the receiver allocated context `rctx` for the connection */
export const PK_CONN_ACK = 6;
/** the receiver has no free context: the sender backs off and asks again */
export const PK_CONN_NACK = 7;
/** cumulative acknowledgement: `seq` packets received in order; `nack`: resend from `seq`; `fin`: closed with status `reason` */
export const PK_ACK = 8;
export const PK_NAMES = ['put', 'get_req', 'get_resp', 'mp', 'err', 'conn_req', 'conn_ack', 'conn_nack', 'ack'] as const;

/** Header bytes on the wire besides the payload (routing, RDMA fields, connection fields, CRC). */
export const PK_HEADER_BYTES = 32;

export class NetPacket {
  kind = PK_PUT;
  /** source and destination node */
  src = 0;
  dst = 0;
  /** the initiator's VP (PUT, GET_REQ, MP; for GET_RESP and ERR: the VP at the destination) */
  srcVp = 0;
  dstVp = 0;
  /** the descriptor's opcode (DESC_*), returned in events */
  opcode = 0;
  /** initiator's operation number (per initiator NIC) */
  opId = 0;
  /** byte offset of this packet in the transfer, and the transfer's length */
  offset = 0;
  total = 0;
  /** the transfer's last packet */
  last = false;
  /** target address of this packet's first byte, item, key; physical = PCI addresses */
  addr = 0;
  item = 0;
  key = 0;
  physical = false;
  /** GET_REQ: where the data goes back to at the initiator (local address, item, key) */
  retAddr = 0;
  retItem = 0;
  retKey = 0;
  localEvent = false;
  remoteEvent = false;
  interrupt = false;
  userTag = 0;
  eventData = 0;
  /** PK_ERR: the error code */
  reason = 0;
  data: Uint8Array | null = null;
  // ---- reliable end-to-end (set only on packets of a connection, `e2e` true) ----
  /** the packet belongs to a connection (steered to the end-to-end receiver at the destination) */
  e2e = false;
  /** the sender's context and the connection's serial number (per sender context) */
  ctx = 0;
  serial = 0;
  /** data: sequence number in the connection; ACK: packets received in order */
  seq = 0;
  /** CONN_ACK: the receiver's context (and, inside the receiving NIC, the context a data packet was admitted to) */
  rctx = 0;
  /** ACK flags: resend from seq (a gap or CRC error seen) / the connection is closed (status in `reason`) */
  nack = false;
  fin = false;
  /** CRC-32 over the header fields and the data, set by the sender */
  crc = 0;
  // ---- written by the link ----
  /** first cycle the destination can take it */
  arriveCycle = -1;

  /** bytes on the wire */
  get wireBytes(): number {
    return PK_HEADER_BYTES + (this.data === null ? 0 : this.data.length);
  }
}

const hdr = new Uint8Array(64);
const hv = new DataView(hdr.buffer);

/** CRC-32 of the packet's header fields and data (what the sender stores in `crc`). */
export function packetCrc(p: NetPacket): number {
  hv.setUint8(0, p.kind);
  hv.setUint16(1, p.src, true);
  hv.setUint16(3, p.dst, true);
  hv.setUint8(5, p.srcVp);
  hv.setUint8(6, p.dstVp);
  hv.setUint8(7, p.opcode | (p.last ? 0x10 : 0) | (p.physical ? 0x20 : 0) | (p.localEvent ? 0x40 : 0) | (p.remoteEvent ? 0x80 : 0));
  hv.setUint32(8, p.opId >>> 0, true);
  hv.setFloat64(12, p.offset, true);
  hv.setFloat64(20, p.total, true);
  hv.setFloat64(28, p.addr, true);
  hv.setUint16(36, p.item, true);
  hv.setUint32(38, p.key >>> 0, true);
  hv.setFloat64(42, p.retAddr, true);
  hv.setUint16(50, p.retItem, true);
  hv.setUint32(52, p.retKey >>> 0, true);
  hv.setUint16(56, p.userTag, true);
  hv.setUint32(58, p.eventData >>> 0, true);
  hv.setUint8(62, p.reason);
  hv.setUint8(63, p.interrupt ? 1 : 0);
  let c = crc32Update(0xffffffff, hdr, 0, hdr.length);
  if (p.e2e) {
    // the connection fields (absent from connectless packets, whose CRC stays what it was)
    hv.setUint16(0, p.ctx, true);
    hv.setUint16(2, p.serial, true);
    hv.setUint32(4, p.seq >>> 0, true);
    hv.setUint16(8, p.rctx, true);
    hv.setUint8(10, (p.nack ? 1 : 0) | (p.fin ? 2 : 0));
    c = crc32Update(c, hdr, 0, 11);
  }
  if (p.data !== null) c = crc32Update(c, p.data, 0, p.data.length);
  return (c ^ 0xffffffff) >>> 0;
}

/**
 * The error packet a NIC (node `node`) sends back to the initiator of `req` (a PUT or GET request
 * it refused, or a transfer it found broken): addressed to the request's source and VP, carrying
 * the request's operation number, length, user tag and event data, the given opcode and reason.
 */
export function errorReply(node: number, req: NetPacket, opcode: number, reason: number): NetPacket {
  const e = new NetPacket();
  e.kind = PK_ERR;
  e.src = node;
  e.dst = req.src;
  e.srcVp = req.dstVp;
  e.dstVp = req.srcVp;
  e.opcode = opcode;
  e.opId = req.opId;
  e.total = req.total;
  e.userTag = req.userTag;
  e.eventData = req.eventData;
  e.reason = reason;
  e.crc = packetCrc(e);
  return e;
}
