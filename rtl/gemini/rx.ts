import { Channel, Component, type Counter, NEVER, type Scope } from '../kernel/index.ts';
import { AMO_FETCHING, AMO_OK } from './amo/ops.ts';
import { ROUTE_RX } from './routes.ts';
import { type AmoReq, MEM_NOTIFY, MEM_READ, MEM_WRITE, MemReq, NET_AMO_REQ, NET_AMO_RESP, NET_GET_DATA, NET_GET_REQ, NET_PUT_ACK, NET_PUT_DATA, type NetPkt, netPacket, type Transfer } from './types.ts';

/**
 * A NIC's receive side: every packet that arrives from the Netlink or from the NIC's own loopback.
 *
 * | packet | at | action |
 * | --- | --- | --- |
 * | PUT_DATA | target | posted HT write of the payload at the address the packet names; the last one asks for an acknowledgement, which sends PUT_ACK back |
 * | PUT_ACK | initiator | completion write (the 8-byte completion word at the call's `cqAddr`): the put is done when host memory takes it |
 * | GET_REQ | target | queued; the data is read from host memory at the address the request names (64-byte reads, or the one element a strided get's request names; at most `window` outstanding) and each read returns as a GET_DATA packet naming its place at the initiator |
 * | GET_DATA | initiator | HT write of the payload at the address the packet names; after the last one, the completion write |
 * | AMO_REQ | target | handed to the AMO unit; its response returns as AMO_RESP (8 bytes of payload when fetching: the old value) |
 * | AMO_RESP | initiator | fetching: HT write of the old value at the call's `localAddr`, then the completion write; non-fetching: the completion write |
 *
 * A response that needs two writes (the last GET_DATA, a fetching AMO_RESP) owes the completion
 * write (`owed`): it goes out in the next cycle the HT port is free, before any other response or
 * request that needs the port.
 *
 * Requests and responses arrive on separate queues (virtual channels), from the Netlink and from
 * the NIC's own port (loopback). Per cycle: (1) one arrived response, then one arrived request
 * (each round robin between Netlink and loopback) is handled if the resource it needs (the HT
 * port, the AMO port) is free, else it waits; (2) one HT response (a
 * write acknowledgement or a get's read data) or else one AMO response becomes a packet, if the
 * network port has room; (3) one get read is issued if the HT port is still free.
 */
export class NicRx extends Component {
  /** requests from the Netlink */
  readonly netReq: Channel<NetPkt>;
  /** responses from the Netlink */
  readonly netResp: Channel<NetPkt>;
  /** requests and responses from this NIC's own port (intra-NIC) */
  readonly loopReq: Channel<NetPkt>;
  readonly loopResp: Channel<NetPkt>;
  readonly memReq: Channel<MemReq>;
  readonly memResp: Channel<MemReq>;
  readonly net: Channel<NetPkt>;
  private readonly amoReq: Channel<AmoReq>;
  private readonly amoResp: Channel<AmoReq>;
  /** AMO requests in the unit, oldest first (the unit answers in order) */
  private readonly amoXfers: Transfer[] = [];
  /** get requests whose reads are still to be issued, oldest first: the transfer and its pieces [start, end) (a strided get's element request: one piece) */
  private readonly gets: Transfer[] = [];
  private readonly getStart: number[] = [];
  private readonly getEnd: number[] = [];
  /** reads of the head request issued so far */
  private getNext = 0;
  private getOut = 0;
  /** reads and acknowledged writes whose response has not been taken (at most the response buffer: HT credits) */
  private memOut = 0;
  private readonly memCredits: number;
  private pickReq = 0;
  private pickResp = 0;
  /** the call whose completion write is still to be pushed (after its last data write) */
  private owed: Transfer | null = null;
  /** per queued get request: the address of its first piece at this node */
  private readonly getAddr: number[] = [];
  readonly stats: { packets: Counter; writes: Counter; reads: Counter };

  constructor(
    parent: Scope,
    name: string,
    amo: { req: Channel<AmoReq>; resp: Channel<AmoReq> },
    readonly window: number,
  ) {
    super(parent, name);
    this.netReq = new Channel<NetPkt>(this, 'net_req', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.netResp = new Channel<NetPkt>(this, 'net_resp', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.loopReq = new Channel<NetPkt>(this, 'loop_req', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.loopResp = new Channel<NetPkt>(this, 'loop_resp', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.memReq = new Channel<MemReq>(this, 'mem_req', { capacity: 4, latency: 1 }).bindProducer(this);
    this.memCredits = window + 8;
    this.memResp = new Channel<MemReq>(this, 'mem_resp', { capacity: this.memCredits, latency: 1 }).bindConsumer(this);
    this.net = new Channel<NetPkt>(this, 'net', { capacity: 4, latency: 1 }).bindProducer(this);
    this.amoReq = amo.req.bindProducer(this);
    this.amoResp = amo.resp.bindConsumer(this);
    this.stats = { packets: this.counter('packets'), writes: this.counter('writes'), reads: this.counter('reads') };
  }

  override reset(): void {
    this.amoXfers.length = 0;
    this.gets.length = 0;
    this.getStart.length = 0;
    this.getEnd.length = 0;
    this.getAddr.length = 0;
    this.owed = null;
    this.getNext = 0;
    this.getOut = 0;
    this.pickReq = 0;
    this.pickResp = 0;
    this.memOut = 0;
  }

  tick(t: number): number {
    // 0. a completion write owed by last cycle's response holds the HT port first
    const owed = this.owed;
    if (owed !== null && this.memReq.canPush()) {
      this.memReq.push(this.completionWrite(owed));
      this.stats.writes.inc();
      this.owed = null;
    }
    // 1. one arrived response, then one arrived request (separate virtual channels)
    let memUsed = owed !== null; // the owed write holds the HT port this cycle (or waits for it)
    if (this.arrive(this.netResp, this.loopResp, true, memUsed)) memUsed = true;
    if (this.arrive(this.netReq, this.loopReq, false, memUsed)) memUsed = true;
    // 2. responses to packets
    if (this.net.canPush()) {
      if (this.memResp.canPop()) {
        const m = this.memResp.pop();
        this.memOut--;
        const x = m.owner as Transfer;
        if (m.kind === MEM_READ) {
          this.getOut--;
          const last = m.tag === x.packets - 1;
          const d = this.reply(x, NET_GET_DATA, m.bytes, last);
          d.addr = x.localAddr + x.pieceOffset(m.tag);
          d.hi = m.hi; // the word of an 8-byte piece
          d.lo = m.lo;
          this.net.push(d);
        } else this.net.push(this.reply(x, NET_PUT_ACK, 0, true));
      } else if (this.amoResp.canPop()) {
        const r = this.amoResp.pop();
        const x = this.amoXfers.shift()!;
        if (x.amo !== r) throw new Error(`${this.path}: AMO response out of order`);
        const fetching = AMO_FETCHING[r.op] === 1 && r.status === AMO_OK;
        const a = this.reply(x, NET_AMO_RESP, fetching ? 8 : 0, true);
        a.addr = x.localAddr;
        a.hi = r.oldHi;
        a.lo = r.oldLo;
        this.net.push(a);
      }
    }
    // 3. one get read
    const g = this.gets[0];
    if (!memUsed && g !== undefined && this.getOut < this.window && this.memOut < this.memCredits && this.memReq.canPush()) {
      this.memOut++;
      const start = this.getStart[0]!;
      const piece = start + this.getNext;
      const m = new MemReq();
      m.kind = MEM_READ;
      m.route = ROUTE_RX;
      m.owner = g;
      m.tag = piece;
      m.addr = this.getAddr[0]! + g.pieceOffset(piece) - g.pieceOffset(start);
      m.bytes = g.packetBytes(piece);
      this.memReq.push(m);
      this.getNext++;
      this.getOut++;
      this.stats.reads.inc();
      if (piece + 1 === this.getEnd[0]) {
        this.gets.shift(); // all its reads are out
        this.getStart.shift();
        this.getEnd.shift();
        this.getAddr.shift();
        this.getNext = 0;
      }
    }
    if (this.netReq.canPop() || this.loopReq.canPop() || this.netResp.canPop() || this.loopResp.canPop() || this.memResp.canPop() || this.amoResp.canPop()) return t + 1;
    if (this.owed !== null || (this.gets.length > 0 && this.getOut < this.window)) return t + 1;
    return NEVER;
  }

  /** Take one packet of a class (round robin Netlink/loopback); true when it used the HT port. */
  private arrive(net: Channel<NetPkt>, loop: Channel<NetPkt>, resp: boolean, memBusy: boolean): boolean {
    const pick = resp ? this.pickResp : this.pickReq;
    const first = pick === 0 ? net : loop;
    const second = pick === 0 ? loop : net;
    const src = first.canPop() ? first : second.canPop() ? second : null;
    if (src === null) return false;
    const p = src.peek();
    const needsMem = p.kind !== NET_GET_REQ && p.kind !== NET_AMO_REQ;
    if (needsMem && memBusy) return false;
    if (!this.handle(p)) return false;
    src.pop();
    if (resp) this.pickResp = src === net ? 1 : 0;
    else this.pickReq = src === net ? 1 : 0;
    this.stats.packets.inc();
    return needsMem;
  }

  /** Handle an arrived packet; false when the resource it needs is busy this cycle. */
  private handle(p: NetPkt): boolean {
    const x = p.xfer!;
    switch (p.kind) {
      case NET_PUT_DATA:
      case NET_GET_DATA:
      case NET_PUT_ACK:
      case NET_AMO_RESP: {
        if (!this.memReq.canPush()) return false;
        const ack = p.kind === NET_PUT_DATA && p.last;
        if (ack && this.memOut >= this.memCredits) return false;
        if (ack) this.memOut++;
        // the completion alone (PUT_ACK, a non-fetching AMO), or the data write (owing the completion after a call's last piece)
        if (p.kind === NET_PUT_ACK || (p.kind === NET_AMO_RESP && p.bytes === 0)) this.memReq.push(this.completionWrite(x));
        else {
          const m = new MemReq();
          m.owner = x;
          m.route = ROUTE_RX;
          m.kind = MEM_WRITE;
          m.bytes = p.bytes;
          m.addr = p.addr;
          m.hi = p.hi;
          m.lo = p.lo;
          m.ack = ack;
          this.memReq.push(m);
          if (p.kind !== NET_PUT_DATA && p.last) this.owed = x;
        }
        this.stats.writes.inc();
        return true;
      }
      case NET_GET_REQ:
        this.gets.push(x);
        this.getStart.push(p.elem < 0 ? 0 : p.elem);
        this.getEnd.push(p.elem < 0 ? x.packets : p.elem + 1);
        this.getAddr.push(p.addr);
        return true;
      case NET_AMO_REQ:
        if (!this.amoReq.canPush()) return false;
        this.amoReq.push(x.amo!);
        this.amoXfers.push(x);
        return true;
      default:
        throw new Error(`${this.path}: unknown packet kind ${p.kind}`);
    }
  }

  /** The call's completion write: its completion word (cqData) at the address it named (cqAddr); taking it completes the call. */
  private completionWrite(x: Transfer): MemReq {
    const m = new MemReq();
    m.owner = x;
    m.route = ROUTE_RX;
    m.kind = MEM_NOTIFY;
    m.bytes = 8;
    m.addr = x.cqAddr;
    m.hi = 0;
    m.lo = x.cqData >>> 0;
    return m;
  }

  private reply(x: Transfer, kind: number, bytes: number, last: boolean): NetPkt {
    return netPacket(kind, x, true, bytes, last);
  }
}
