import { Channel, Component, type Counter, NEVER, type Scope } from '../kernel/index.ts';
import { FMA_DESCRIPTOR_BYTES, ROUTE_FMA_PIO } from './routes.ts';
import { type Completion, MEM_PIO, MEM_PIO_READ, MEM_STATUS, MemReq, NET_AMO_REQ, NET_GET_REQ, NET_PUT_DATA, type NetPkt, netPacket, type Transfer, XFER_AMO, XFER_GET } from './types.ts';

/**
 * Fast Memory Access unit (FMA): the NIC's programmed-I/O path, used for transfers below the PIO
 * threshold (2 KB by default, DMAPP's tunable) and for every strided transfer. The CPU writes a
 * descriptor and, for a put, the data itself into the FMA's window; those stores cross
 * HyperTransport (host-to-NIC) and the FMA turns each arriving piece into a network packet: a
 * put's 64-byte pieces into PUT_DATA packets, a get's or an AMO's descriptor into one request
 * packet. Each store names the remote address of its piece, which its packet carries; an 8-byte
 * piece of a put also carries its word, which the CPU loads from the put's source (`localAddr`)
 * as it stores it.
 *
 * Strided transfers (elemBytes > 0) go one element at a time: each element has its own remote
 * address, so the CPU writes one descriptor per element (then, for a put, the element's data; for
 * a get the descriptor becomes a GET_REQ for that element), and before it may rewrite the
 * descriptor it reads the FMA's status register (an uncached read: the request crosses HT to the
 * FMA, which answers once every earlier store of the element has been turned into a packet; the
 * answer crosses HT back to the CPU). So every element costs an HT round trip of the CPU's
 * (docs/gemini.md, strided).
 *
 * Per cycle: (1) take the next command when the previous one's stores are all out; (2) the CPU
 * side: push one store (descriptor, data piece, or a strided element's status read) into the
 * host-to-NIC direction if the window buffer has a credit, or (strided) wait for the status answer;
 * (3) turn one arrived store into a packet, if the network port has room, or answer an arrived
 * status read, if the NIC-to-host direction has room (else it waits).
 */
/**
 * Stores the FMA window buffers. HyperTransport flow control is credit based: the CPU side sends a
 * store only when the buffer has room, so an arriving store never blocks the link (and the AMO
 * unit's and the engines' responses behind it).
 */
export const FMA_WINDOW_STORES = 64;

/** CPU-side steps of one strided element */
const EL_DESC = 0;
const EL_DATA = 1;
const EL_STATUS = 2;
const EL_WAIT = 3;

export class Fma extends Component {
  readonly cmd: Channel<Transfer>;
  /** CPU stores into the FMA window (producer: this, standing for the CPU; consumer: the HT link) */
  readonly pioOut: Channel<MemReq>;
  /** those stores after HyperTransport */
  readonly pioIn: Channel<MemReq>;
  /** status answers to the CPU's reads (producer: this; consumer: the HT link, NIC-to-host) */
  readonly statusOut: Channel<MemReq>;
  readonly net: Channel<NetPkt>;
  private cur: Transfer | null = null;
  /** next store of `cur`: -1 the descriptor, i >= 0 data piece i (contiguous); strided: the element */
  private nextStore = -1;
  /** strided: the CPU's step within element nextStore */
  private elStep = EL_DESC;
  /** the CPU's view of the status read it waits for (host memory sets doneCycle when the answer arrives) */
  private readonly status: Completion = { doneCycle: -1 };
  /** stores pushed whose arrival has not been consumed: at most the window buffer's size (HT credits) */
  private inFlight = 0;
  /** arrival side: the strided get whose element descriptors are arriving, and the next element */
  private arrX: Transfer | null = null;
  private arrElem = 0;
  readonly stats: { transfers: Counter; packets: Counter; statusReads: Counter };

  /** @param cpu the node's memory as the CPU loads it (the source of the words it stores into the window) */
  constructor(
    parent: Scope,
    name: string,
    private readonly cpu: { load64(addr: number): { hi: number; lo: number } },
  ) {
    super(parent, name);
    this.cmd = new Channel<Transfer>(this, 'cmd', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.pioOut = new Channel<MemReq>(this, 'pio_out', { capacity: 4, latency: 1 }).bindProducer(this);
    this.pioIn = new Channel<MemReq>(this, 'pio_in', { capacity: FMA_WINDOW_STORES, latency: 1 }).bindConsumer(this);
    this.statusOut = new Channel<MemReq>(this, 'status_out', { capacity: 2, latency: 1 }).bindProducer(this);
    this.net = new Channel<NetPkt>(this, 'net', { capacity: 4, latency: 1 }).bindProducer(this);
    this.stats = { transfers: this.counter('transfers'), packets: this.counter('packets'), statusReads: this.counter('status_reads') };
  }

  override reset(): void {
    this.cur = null;
    this.nextStore = -1;
    this.elStep = EL_DESC;
    this.status.doneCycle = -1;
    this.inFlight = 0;
    this.arrX = null;
    this.arrElem = 0;
  }

  tick(t: number): number {
    if (this.cur === null && this.cmd.canPop()) {
      this.cur = this.cmd.pop();
      this.nextStore = this.cur.elemBytes > 0 ? 0 : -1;
      this.elStep = EL_DESC;
      this.stats.transfers.inc();
    }
    const x = this.cur;
    if (x !== null && x.elemBytes > 0) this.issueStrided(t, x);
    else if (x !== null && this.pioOut.canPush() && this.inFlight < FMA_WINDOW_STORES) {
      this.store(x, MEM_PIO, this.nextStore, this.nextStore < 0 ? FMA_DESCRIPTOR_BYTES : x.packetBytes(this.nextStore));
      this.nextStore++;
      const stores = x.kind === XFER_GET || x.kind === XFER_AMO ? 0 : x.packets;
      if (this.nextStore >= stores) this.cur = null;
    }
    if (this.pioIn.canPop()) this.arrive();
    if (this.cur !== null || this.cmd.canPop() || this.pioIn.canPop()) return t + 1;
    return NEVER;
  }

  /** The CPU side of a strided transfer: descriptor, data (put), status read, wait; then the next element. */
  private issueStrided(t: number, x: Transfer): void {
    if (this.elStep === EL_WAIT) {
      const d = this.status.doneCycle;
      if (d < 0 || d >= t) return; // the answer is not in the CPU's hands yet
      this.status.doneCycle = -1;
      this.nextStore++;
      this.elStep = EL_DESC;
      if (this.nextStore >= x.packets) this.cur = null;
      return;
    }
    if (!this.pioOut.canPush() || this.inFlight >= FMA_WINDOW_STORES) return;
    const e = this.nextStore;
    if (this.elStep === EL_DESC) {
      this.store(x, MEM_PIO, -1, FMA_DESCRIPTOR_BYTES);
      this.elStep = x.kind === XFER_GET ? EL_STATUS : EL_DATA;
    } else if (this.elStep === EL_DATA) {
      this.store(x, MEM_PIO, e, x.packetBytes(e));
      this.elStep = EL_STATUS;
    } else {
      this.store(x, MEM_PIO_READ, e, 8);
      this.stats.statusReads.inc();
      this.elStep = EL_WAIT;
    }
  }

  /** One CPU store into the FMA window (tag -1: the descriptor; a data store names its piece's remote address and, 8 bytes, carries the word the CPU loaded from the source). */
  private store(x: Transfer, kind: number, tag: number, bytes: number): void {
    this.inFlight++;
    const m = new MemReq();
    m.kind = kind;
    m.route = ROUTE_FMA_PIO;
    m.owner = x;
    m.tag = tag;
    m.bytes = bytes;
    if (tag >= 0 && kind === MEM_PIO) {
      m.addr = x.remoteAddr + x.pieceOffset(tag);
      if (bytes === 8) {
        const w = this.cpu.load64(x.localAddr + x.pieceOffset(tag));
        m.hi = w.hi;
        m.lo = w.lo;
      }
    }
    this.pioOut.push(m);
  }

  /** One arrived store: a packet, or (a status read) the answer to the CPU; waits if the way out is full. */
  private arrive(): void {
    const m = this.pioIn.peek();
    const x = m.owner as Transfer;
    if (m.kind === MEM_PIO_READ) {
      if (!this.statusOut.canPush()) return;
      const a = new MemReq();
      a.kind = MEM_STATUS;
      a.bytes = 8;
      a.owner = this.status;
      this.statusOut.push(a);
    } else {
      if (!this.net.canPush()) return;
      let p: NetPkt | null = null;
      if (x.kind === XFER_GET) {
        p = netPacket(NET_GET_REQ, x, false, 0, true);
        p.addr = x.remoteAddr;
        if (x.elemBytes > 0) {
          if (this.arrX !== x) {
            this.arrX = x;
            this.arrElem = 0;
          }
          p.elem = this.arrElem++;
          p.last = p.elem === x.packets - 1;
          p.addr = x.remoteAddr + x.pieceOffset(p.elem);
        }
      } else if (x.kind === XFER_AMO) {
        p = netPacket(NET_AMO_REQ, x, false, 24, true); // operation, operands
        p.addr = x.amo!.addr;
      } else if (m.tag >= 0) {
        p = netPacket(NET_PUT_DATA, x, false, m.bytes, m.tag === x.packets - 1); // (tag -1: a put's descriptor; the data pieces follow)
        p.addr = m.addr;
        p.hi = m.hi;
        p.lo = m.lo;
      }
      if (p !== null) {
        this.net.push(p);
        this.stats.packets.inc();
      }
    }
    this.pioIn.pop();
    this.inFlight--;
  }
}
