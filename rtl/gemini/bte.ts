import { Channel, Component, type Counter, NEVER, type Scope } from '../kernel/index.ts';
import { BTE_DESCRIPTOR_BYTES, ROUTE_BTE, ROUTE_BTE_PIO } from './routes.ts';
import { MEM_PIO, MEM_READ, MemReq, NET_GET_REQ, NET_PUT_DATA, type NetPkt, netPacket, type Transfer, XFER_GET } from './types.ts';

/**
 * Block Transfer Engine (BTE): the NIC's DMA path, used from the PIO threshold up. The CPU writes
 * one 64-byte descriptor (across HyperTransport); for a put the BTE then reads the source buffer
 * from host memory (`localAddr` on) in 64-byte reads, at most `window`
 * outstanding, and sends each read's data as a PUT_DATA packet naming its place at the target
 * (`remoteAddr` on); for a get it sends one request (naming the source) and
 * the target NIC's receive side reads and returns the data. One transfer at a time.
 *
 * Per cycle: (1) take a command and push its descriptor store; (2) an arrived descriptor starts
 * the transfer (a get emits its request packet); (3) issue one read while the window allows;
 * (4) turn one read response into a packet if the network port has room.
 */
export class Bte extends Component {
  readonly cmd: Channel<Transfer>;
  readonly pioOut: Channel<MemReq>;
  readonly pioIn: Channel<MemReq>;
  readonly memReq: Channel<MemReq>;
  readonly memResp: Channel<MemReq>;
  readonly net: Channel<NetPkt>;
  private pending = false;
  private active: Transfer | null = null;
  private nextRead = 0;
  private outstanding = 0;
  readonly stats: { transfers: Counter; reads: Counter; packets: Counter };

  constructor(
    parent: Scope,
    name: string,
    readonly window: number,
  ) {
    super(parent, name);
    if (!Number.isInteger(window) || window < 1) throw new RangeError(`${this.path}: window must be a positive integer, got ${window}`);
    this.cmd = new Channel<Transfer>(this, 'cmd', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.pioOut = new Channel<MemReq>(this, 'pio_out', { capacity: 2, latency: 1 }).bindProducer(this);
    this.pioIn = new Channel<MemReq>(this, 'pio_in', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.memReq = new Channel<MemReq>(this, 'mem_req', { capacity: 4, latency: 1 }).bindProducer(this);
    // room for every outstanding read: a response never blocks the link (HT credits)
    this.memResp = new Channel<MemReq>(this, 'mem_resp', { capacity: Math.max(2, window), latency: 1 }).bindConsumer(this);
    this.net = new Channel<NetPkt>(this, 'net', { capacity: 4, latency: 1 }).bindProducer(this);
    this.stats = { transfers: this.counter('transfers'), reads: this.counter('reads'), packets: this.counter('packets') };
  }

  override reset(): void {
    this.pending = false;
    this.active = null;
    this.nextRead = 0;
    this.outstanding = 0;
  }

  tick(t: number): number {
    if (!this.pending && this.active === null && this.cmd.canPop() && this.pioOut.canPush()) {
      const x = this.cmd.pop();
      const m = new MemReq();
      m.kind = MEM_PIO;
      m.route = ROUTE_BTE_PIO;
      m.bytes = BTE_DESCRIPTOR_BYTES;
      m.owner = x;
      this.pioOut.push(m);
      this.pending = true;
      this.stats.transfers.inc();
    }
    let netUsed = false;
    if (this.pioIn.canPop()) {
      const x = this.pioIn.peek().owner as Transfer;
      if (x.kind === XFER_GET) {
        if (this.net.canPush()) {
          this.pioIn.pop();
          this.pending = false;
          const g = this.packet(x, NET_GET_REQ, 0, true);
          g.addr = x.remoteAddr;
          this.net.push(g);
          netUsed = true;
        }
      } else {
        this.pioIn.pop();
        this.pending = false;
        this.active = x;
        this.nextRead = 0;
        this.outstanding = 0;
      }
    }
    const a = this.active;
    if (a !== null && this.nextRead < a.packets && this.outstanding < this.window && this.memReq.canPush()) {
      const m = new MemReq();
      m.kind = MEM_READ;
      m.route = ROUTE_BTE;
      m.bytes = a.packetBytes(this.nextRead);
      m.tag = this.nextRead;
      m.addr = a.localAddr + a.pieceOffset(this.nextRead);
      m.owner = a;
      this.memReq.push(m);
      this.nextRead++;
      this.outstanding++;
      this.stats.reads.inc();
    }
    if (!netUsed && this.memResp.canPop() && this.net.canPush()) {
      const m = this.memResp.pop();
      const x = m.owner as Transfer;
      this.outstanding--;
      const last = m.tag === x.packets - 1;
      const p = this.packet(x, NET_PUT_DATA, m.bytes, last);
      p.addr = x.remoteAddr + x.pieceOffset(m.tag);
      p.hi = m.hi; // the word of an 8-byte piece (read from the source)
      p.lo = m.lo;
      this.net.push(p);
      if (last) this.active = null;
    }
    if (this.active !== null || this.pioIn.canPop() || this.memResp.canPop() || (!this.pending && this.cmd.canPop())) return t + 1;
    return NEVER;
  }

  private packet(x: Transfer, kind: number, bytes: number, last: boolean): NetPkt {
    this.stats.packets.inc();
    return netPacket(kind, x, false, bytes, last);
  }
}
