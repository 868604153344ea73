import { Channel, Component, type Counter, NEVER, type Scope } from '../kernel/index.ts';
import { FMA_DESCRIPTOR_BYTES, ROUTE_FMA_PIO } from './routes.ts';
import { MEM_PIO, MemReq, NET_AMO_REQ, NET_GET_REQ, NET_PUT_DATA, type NetPkt, netPacket, type Transfer, XFER_AMO, XFER_GET } from './types.ts';

/**
 * Fast Memory Access unit (FMA): the NIC's programmed-I/O path, used for transfers below the PIO
 * threshold (2 KB by default, DMAPP's tunable). The CPU writes a descriptor and, for a put, the
 * data itself into the FMA's window; those stores cross HyperTransport (host-to-NIC) and the FMA
 * turns each arriving piece into a network packet: a put's 64-byte pieces (or a strided put's
 * elements) into PUT_DATA packets, a get's or an AMO's descriptor into one request packet.
 *
 * Per cycle: (1) take the next command when the previous one's stores are all out; (2) push one CPU
 * store (descriptor first, then data pieces) into the host-to-NIC direction, if the window buffer
 * has a credit; (3) turn one arrived
 * store into a packet, if the network port has room (else the store waits).
 */
/**
 * Stores the FMA window buffers. HyperTransport flow control is credit based: the CPU side sends a
 * store only when the buffer has room, so an arriving store never blocks the link (and the AMO
 * unit's and the engines' responses behind it).
 */
export const FMA_WINDOW_STORES = 64;

export class Fma extends Component {
  readonly cmd: Channel<Transfer>;
  /** CPU stores into the FMA window (producer: this, standing for the CPU; consumer: the HT link) */
  readonly pioOut: Channel<MemReq>;
  /** those stores after HyperTransport */
  readonly pioIn: Channel<MemReq>;
  readonly net: Channel<NetPkt>;
  private cur: Transfer | null = null;
  /** next store of `cur`: -1 the descriptor, i >= 0 data piece i */
  private nextStore = -1;
  /** stores pushed whose arrival has not been consumed: at most the window buffer's size (HT credits) */
  private inFlight = 0;
  readonly stats: { transfers: Counter; packets: Counter };

  constructor(parent: Scope, name: string) {
    super(parent, name);
    this.cmd = new Channel<Transfer>(this, 'cmd', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.pioOut = new Channel<MemReq>(this, 'pio_out', { capacity: 4, latency: 1 }).bindProducer(this);
    this.pioIn = new Channel<MemReq>(this, 'pio_in', { capacity: FMA_WINDOW_STORES, latency: 1 }).bindConsumer(this);
    this.net = new Channel<NetPkt>(this, 'net', { capacity: 4, latency: 1 }).bindProducer(this);
    this.stats = { transfers: this.counter('transfers'), packets: this.counter('packets') };
  }

  override reset(): void {
    this.cur = null;
    this.nextStore = -1;
    this.inFlight = 0;
  }

  tick(t: number): number {
    if (this.cur === null && this.cmd.canPop()) {
      this.cur = this.cmd.pop();
      this.nextStore = -1;
      this.stats.transfers.inc();
    }
    const x = this.cur;
    if (x !== null && this.pioOut.canPush() && this.inFlight < FMA_WINDOW_STORES) {
      this.inFlight++;
      const m = new MemReq();
      m.kind = MEM_PIO;
      m.route = ROUTE_FMA_PIO;
      m.owner = x;
      m.tag = this.nextStore;
      m.bytes = this.nextStore < 0 ? FMA_DESCRIPTOR_BYTES : x.packetBytes(this.nextStore);
      this.pioOut.push(m);
      this.nextStore++;
      const stores = x.kind === XFER_GET || x.kind === XFER_AMO ? 0 : x.packets;
      if (this.nextStore >= stores) this.cur = null;
    }
    if (this.pioIn.canPop() && this.net.canPush()) {
      const m = this.pioIn.peek();
      const x2 = m.owner as Transfer;
      let p: NetPkt | null = null;
      if (x2.kind === XFER_GET) p = netPacket(NET_GET_REQ, x2, false, 0, true);
      else if (x2.kind === XFER_AMO) p = netPacket(NET_AMO_REQ, x2, false, 24, true); // operation, operands
      else if (m.tag >= 0) p = netPacket(NET_PUT_DATA, x2, false, m.bytes, m.tag === x2.packets - 1); // (tag -1: a put's descriptor; the data pieces follow)
      this.pioIn.pop();
      this.inFlight--;
      if (p !== null) {
        this.net.push(p);
        this.stats.packets.inc();
      }
    }
    if (this.cur !== null || (this.cur === null && this.cmd.canPop()) || this.pioIn.canPop()) return t + 1;
    return NEVER;
  }
}
