/**
 * Transactions that travel between the Gemini blocks. Each is a mutable object made by its
 * initiator and handed from channel to channel (no copies); the blocks fill in results and cycles.
 */

/** One AMO request and, once answered, its response. */
export class AmoReq {
  /** request port of the AMO unit it enters (set by whoever pushes it) */
  port = 0;
  /** initiator's tag (free for the initiator) */
  tag = 0;
  op = 0;
  /** byte address in the target node's memory */
  addr = 0;
  /** bytes: the unit takes only 8 */
  size = 8;
  aHi = 0;
  aLo = 0;
  bHi = 0;
  bLo = 0;
  // ---- results
  /** AMO_OK or an AMO_ERR_* code (rtl/gemini/amo/ops.ts) */
  status = -1;
  /** old value of the word (fetching operations; also set for non-fetching ones) */
  oldHi = 0;
  oldLo = 0;
  /** the word was in the atomic cache when the operation executed */
  hit = false;
  acceptCycle = -1;
  /** cycle the response became visible on the port's response channel */
  doneCycle = -1;
}

export const MEM_READ = 0;
export const MEM_WRITE = 1;

/**
 * A host-memory transaction over HyperTransport: a read request (its response comes back as the
 * same object with `resp` set), or a posted write. `route` picks the output of the host-to-NIC
 * direction the response is delivered to. Every transaction that reaches node memory carries its
 * real byte address (the piece of the buffer it reads or writes, or the completion word the
 * initiator named). 8-byte transactions carry a word (`hi`, `lo`); larger ones carry only a byte
 * count (the model moves the payload of 8-byte pieces only; docs/gemini.md, limits).
 */
export class MemReq {
  kind = MEM_READ;
  /** byte address in node memory (reads, writes, completion writes); for the CPU's stores into the NIC, the remote address the store describes */
  addr = 0;
  bytes = 8;
  hi = 0;
  lo = 0;
  route = 0;
  /** owner's tag */
  tag = 0;
  /** set by host memory on the read response (and on a write's acknowledgement) */
  resp = false;
  /** a write that wants an acknowledgement (non-posted): answered like a read, without data */
  ack = false;
  /** owner's reference (the transfer this packet belongs to) */
  owner: unknown = null;
}

/** A completion the host memory can signal (a completion write or a status answer taken). */
export interface Completion {
  doneCycle: number;
}

/** MemReq kinds beyond read and write: a completion write (the 8-byte completion word to the address the initiator named, `Transfer.cqAddr`); taking it completes `owner`. */
export const MEM_NOTIFY = 2;
/** the host-CPU's stores into the NIC (PIO data, FMA/BTE descriptors), host-to-NIC only */
export const MEM_PIO = 3;
/** the host CPU's uncached read of an FMA status register, host-to-NIC (the FMA answers with a MEM_STATUS to the CPU) */
export const MEM_PIO_READ = 4;
/** the FMA's answer to a MEM_PIO_READ, NIC-to-host: completes `owner` (the CPU has its value) when the host end takes it; writes no memory */
export const MEM_STATUS = 5;

export const XFER_PUT = 0;
export const XFER_GET = 1;
export const XFER_AMO = 2;
export const XFER_KIND_NAMES = ['put', 'get', 'amo'] as const;

/** One blocking DMAPP call (put, get or AMO) as the initiating NIC's engines see it. */
export class Transfer implements Completion {
  kind = XFER_PUT;
  /** payload bytes (for a strided transfer: elements x elemBytes) */
  bytes = 8;
  /** 0: contiguous; otherwise the size of each element of a strided transfer */
  elemBytes = 0;
  /** stride between elements (bytes), strided transfers only */
  stride = 0;
  srcAsic = 0;
  srcNic = 0;
  dstAsic = 0;
  dstNic = 0;
  /**
   * Byte addresses the initiator names (-1: not named; `GeminiNic.start` refuses a call without the
   * ones it needs). `localAddr`: in the initiator's memory, a put's source, a get's destination, a
   * fetching AMO's result word. `remoteAddr`: in the target's memory, a put's destination, a get's
   * source (an AMO's word is `amo.addr`). Strided transfers use `stride` on both sides. `cqAddr`:
   * the initiator's completion word (DMAPP's completion queue entry / flag), written with
   * `cqData` (low half; high half 0) when the call completes.
   */
  localAddr = -1;
  remoteAddr = -1;
  cqAddr = -1;
  cqData = 0;
  /** FMA (PIO) when true, else BTE (DMA) */
  pio = true;
  amo: AmoReq | null = null;
  issueCycle = -1;
  doneCycle = -1;
  // ---- progress counters kept by the engines
  sent = 0;
  arrived = 0;
  /** packets of the transfer: ceil(bytes / 64), or one per element */
  get packets(): number {
    return this.elemBytes > 0 ? Math.ceil(this.bytes / this.elemBytes) : Math.max(1, Math.ceil(this.bytes / 64));
  }
  /** payload bytes of packet i */
  packetBytes(i: number): number {
    const unit = this.elemBytes > 0 ? this.elemBytes : 64;
    return Math.min(unit, this.bytes - i * unit);
  }
  /** byte offset of piece i from its buffer's start (64-byte pieces, or strided elements `stride` apart) */
  pieceOffset(i: number): number {
    return this.elemBytes > 0 ? i * this.stride : i * 64;
  }
  /** bytes from the first byte of a buffer to the end of its last piece */
  span(): number {
    return this.elemBytes > 0 ? (this.packets - 1) * this.stride + this.packetBytes(this.packets - 1) : this.bytes;
  }
}

export const NET_PUT_DATA = 0;
export const NET_PUT_ACK = 1;
export const NET_GET_REQ = 2;
export const NET_GET_DATA = 3;
export const NET_AMO_REQ = 4;
export const NET_AMO_RESP = 5;

/** Responses travel on their own virtual channel (separate queues at every receive side), so a request waiting for a busy AMO unit never blocks the responses that would free it. */
export function isResponse(kind: number): boolean {
  return kind === NET_PUT_ACK || kind === NET_GET_DATA || kind === NET_AMO_RESP;
}

/** A Gemini network packet (request or response) between NICs. */
export class NetPkt {
  kind = NET_PUT_DATA;
  dstAsic = 0;
  dstNic = 0;
  /** payload bytes (the wire adds the header) */
  bytes = 0;
  /** last packet of its transfer */
  last = false;
  /** GET_REQ: the one element of a strided get it asks for (-1: the whole transfer) */
  elem = -1;
  /** byte address at the node the packet goes to: PUT_DATA/GET_DATA where the payload is written, GET_REQ where it is read, AMO_RESP the result word (fetching) */
  addr = 0;
  /** payload word of an 8-byte PUT_DATA/GET_DATA piece, the fetched value of an AMO_RESP */
  hi = 0;
  lo = 0;
  xfer: Transfer | null = null;
}

/** A packet of `x` to a NIC (requests go to the target, responses back to the initiator). */
export function netPacket(kind: number, x: Transfer, toInitiator: boolean, bytes: number, last: boolean): NetPkt {
  const p = new NetPkt();
  p.kind = kind;
  p.xfer = x;
  p.dstAsic = toInitiator ? x.srcAsic : x.dstAsic;
  p.dstNic = toInitiator ? x.srcNic : x.dstNic;
  p.bytes = bytes;
  p.last = last;
  return p;
}
