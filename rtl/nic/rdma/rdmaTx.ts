import { type Channel, Component, type Counter, NEVER, type Scope } from '../../kernel/index.ts';
import { type AtcReq, PAGE_BYTES } from '../atc/types.ts';
import { decodeDescriptor } from '../desc/decode.ts';
import { DESC_COLL, DESC_GET, DESC_IMM_PUT, DESC_MP, type DescConfig, DR_OK, MP_BYTES, type NicDesc } from '../desc/format.ts';
import { errorReply, NetPacket, packetCrc, PK_GET_RESP, PK_GET_REQ, PK_MP, PK_PUT } from '../link/packet.ts';
import type { MemCheckReq } from '../memcheck/types.ts';
import { DmaRead, type ReadChunk } from '../pcie/tlp.ts';
import { encodeIntq, INT_DESC, INT_ERROR, Q_EQ, Q_INTQ, type QueueEntry } from '../queues/types.ts';
import { encodeEvent, EV_ERROR, EV_LOCAL, EV_REMOTE, type RdmaConfig, rdmaConfig, type RdmaDescIn, RE_BAD_VP, RE_DECODE, RE_TOO_LONG } from './types.ts';
import { BufferCheck } from './bufferCheck.ts';
import { Outbox } from './outbox.ts';
import type { E2eTx } from '../e2e/e2eTx.ts';

/** the collective descriptor is decoded but not executed by this engine */
export const RE_UNSUPPORTED = 21;

/** Front-stage states: one operation at a time is taken, decoded, checked and given a sender context. */
const S_IDLE = 0; // take a GET request to serve, else a descriptor, into a free operation context
const S_CHECK = 1; // wait for the memory checker's verdict and every page's translation
const S_CONN = 2; // a connect operation waits for a sender context (descriptor processing paused)
export const TX_STATE_NAMES = ['idle', 'check', 'conn'] as const;

/** Back-stage states: the oldest committed operation's packets and notifications, in order. */
const B_IDLE = 0; // no committed operation
const B_STREAM = 1; // packets out in order as their payload arrives (a GET: its request packet)
const B_NOTIFY = 2; // queue entries (events, interrupts) and a refusal packet out, one per cycle
export const TX_BACK_STATE_NAMES = ['idle', 'stream', 'notify'] as const;

const OP_PUT = 0; // PUT and IMM_PUT and MP: data to the target
const OP_GET = 1; // GET: one request packet
const OP_SERVE = 2; // a GET request from another NIC: read here, GET_RESP packets back

/** What the back stage does with a committed operation. */
const K_STREAM = 0; // packets (PUT, IMM_PUT, MP, a served GET's response), then the completion entries
const K_GETREQ = 1; // one GET request packet
const K_NOTIFY = 2; // only queue entries or a refusal packet (a refused operation)
const K_CONNERR = 3; // a refused GET request that came over a connection: the error packet over one

/**
 * One row of the transmit engine's operation register file: everything about one operation from
 * its decode to its last notification (the descriptor or served request, the checked buffer and
 * its page translations, the payload buffer filled by the DMA reads, read and packet counters,
 * the sender context, the queue entries it will produce).
 */
class TxOp {
  kind = K_STREAM;
  op = OP_PUT;
  vp = 0;
  d: NicDesc | null = null;
  serve: NetPacket | null = null;
  opId = 0;
  len = 0;
  /** local (source) and target addresses of the transfer */
  srcAddr = 0;
  dstAddr = 0;
  buf: Uint8Array = new Uint8Array(0);
  /** the payload is read by DMA (PUT, served GET) */
  reads = false;
  first = 0;
  nPk = 0;
  issueOff = 0;
  sendK = 0;
  /** reads not yet complete per packet */
  readonly pending: Int32Array;
  readonly chk: BufferCheck;
  conn = false;
  ctx = 0;
  serial = 0;
  connErr: NetPacket | null = null;
  readonly out = new Outbox();

  constructor(maxPages: number, maxPackets: number) {
    this.chk = new BufferCheck(maxPages);
    this.pending = new Int32Array(maxPackets);
  }
}

/**
 * The RDMA engine's transmit side (docs/nic-rdma.md, "RDMA engine"): takes descriptors with their
 * VP from `descIn` and GET requests from other NICs from `serveIn` (served first) and keeps up to
 * `txOps` operations in flight in an operation register file (a ring of `TxOp` rows), as two
 * explicit state machines and a read issuer:
 * - the **front** (S_*), one operation at a time: decode (combinational, in S_IDLE); local buffer
 *   check through the memory checker (`mcReq` / `mcResp`, acting for the VP: key, permission,
 *   range, owner) with one translation per page (`xlIn`, virtual through the ATC or physical); a
 *   sender context for a connect operation (S_CONN); then the operation is committed to the ring;
 * - the **read issuer**: DMA reads of the committed operations' source buffers in commit order
 *   (`readOut` / `readIn`), each piece inside one page and one packet, at most `maxReads` in flight
 *   over all operations, so the next operation's payload is fetched while the previous one's
 *   packets stream;
 * - the **back** (B_*), the oldest committed operation: segmentation into packets of at most
 *   `maxPayload` bytes aligned at the target (the first packet ends at the target's next maxPayload
 *   boundary: the address-aligning rule), sent in order on `pktOut` as their bytes arrive; then
 *   events into the VP's EQ and interrupts into the INTQ (`evOut`); a refused operation's entries
 *   in its turn. Packets and entries therefore leave in descriptor order, as with one operation
 *   at a time.
 */
export class RdmaTx extends Component {
  readonly cfg: RdmaConfig;
  private readonly dcfg: DescConfig;
  /** the front stage's state */
  state = S_IDLE;
  /** the back stage's state */
  back = B_IDLE;
  private opId = 0;
  // the operation ring: rows [head, head + used) are in flight; row `head + used` is the front's while it works on one
  private readonly ops: TxOp[];
  private head = 0;
  /** rows committed to the back stage (the front's row is not counted) */
  private used = 0;
  /** the row whose reads the issuer is issuing (an offset from head, < used) */
  private iss = 0;
  private readsInFlight = 0;
  private readonly readsCap: number;
  /** the operation taken last runs alone (a fenced descriptor): nothing else is taken until it is done */
  private alone = false;
  readonly stats: { ops: Counter; errors: Counter; packets: Counter; bytes: Counter; reads: Counter };

  constructor(
    parent: Scope,
    name: string,
    cfg: Partial<RdmaConfig>,
    readonly descIn: Channel<RdmaDescIn>,
    readonly serveIn: Channel<NetPacket>,
    private readonly mcReq: Channel<MemCheckReq>,
    private readonly mcResp: Channel<MemCheckReq>,
    private readonly xlIn: Channel<AtcReq>,
    private readonly readIn: Channel<DmaRead>,
    private readonly readOut: Channel<ReadChunk>,
    private readonly pktOut: Channel<NetPacket>,
    private readonly evOut: Channel<QueueEntry>,
    /** the end-to-end sender (rtl/nic/e2e) and its packet input; null: connect descriptors run connectless */
    private readonly e2e: E2eTx | null = null,
    private readonly e2eOut: Channel<NetPacket> | null = null,
  ) {
    super(parent, name);
    const c = rdmaConfig(cfg);
    this.cfg = c;
    e2eOut?.bindProducer(this);
    this.dcfg = { vps: c.vps, nodes: c.nodes, items: c.items, vaBits: c.vaBits };
    descIn.bindConsumer(this);
    serveIn.bindConsumer(this);
    mcReq.bindProducer(this);
    mcResp.bindConsumer(this);
    xlIn.bindConsumer(this);
    readIn.bindProducer(this);
    readOut.bindConsumer(this);
    pktOut.bindProducer(this);
    evOut.bindProducer(this);
    const pages = Math.ceil(c.maxTransfer / PAGE_BYTES) + 1;
    const packets = Math.ceil(c.maxTransfer / 64) + 2;
    // txOps rows: the front takes an operation only while fewer than txOps are committed, into the row after them
    this.ops = Array.from({ length: c.txOps }, () => new TxOp(pages, packets));
    this.readsCap = c.maxReads;
    this.stats = { ops: this.counter('operations'), errors: this.counter('errors'), packets: this.counter('packets'), bytes: this.counter('payload_bytes'), reads: this.counter('dma_reads') };
  }

  /** The engine holds no operation and nothing waits at its inputs. */
  get idle(): boolean {
    return this.state === S_IDLE && this.used === 0 && !this.descIn.canPop() && !this.serveIn.canPop();
  }

  /** operations committed to the back stage and not yet finished */
  get inFlight(): number {
    return this.used;
  }

  private row(k: number): TxOp {
    return this.ops[(this.head + k) % this.ops.length]!;
  }

  /** the front stage's row */
  private get f(): TxOp {
    return this.row(this.used);
  }

  // ---- notifications ----
  private event(o: TxOp, type: number, vp: number, code: number, peerNode: number, peerVp: number, addr: number): void {
    const d = o.d;
    const s = o.serve;
    const opcode = d !== null ? d.kind : DESC_GET;
    const userTag = d !== null ? d.userTag : s!.userTag;
    const eventData = d !== null ? d.eventData : s!.eventData;
    o.out.entries.push({ kind: Q_EQ, vp, data: encodeEvent({ type, opcode, code, userTag, peerNode, peerVp, eventData, length: o.len, addr }) });
  }

  /** The front's operation is refused with `code`: its report is committed to the back stage (or waits for a sender context). */
  private fail(code: number): void {
    this.stats.errors.inc();
    const o = this.f;
    const s = o.serve;
    if (s !== null) {
      // a GET request this NIC refuses: the initiator's VP gets the error (over a connection if the request came over one)
      const e = errorReply(this.cfg.node, s, DESC_GET, code);
      if (o.conn) {
        o.connErr = e;
        o.nPk = 1;
        o.kind = K_CONNERR;
        this.state = S_CONN;
        return;
      }
      o.out.sendPacket(e);
    } else {
      const d = o.d!;
      this.event(o, EV_ERROR, o.vp, code, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      o.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code, vp: o.vp, info: d.userTag, addr: 0 }) });
    }
    o.kind = K_NOTIFY;
    this.commit();
  }

  /** The front's operation goes to the back stage (visible to the issuer and the back stage next cycle). */
  private commit(): void {
    this.used++;
    this.state = S_IDLE;
  }

  /** Completion of the back's operation's last packet (over a connection: its entries wait for the connection's close). */
  private completed(o: TxOp): void {
    const s = o.serve;
    const at = o.out.entries.length;
    if (s !== null) {
      if (s.remoteEvent) this.event(o, EV_REMOTE, s.dstVp, 0, s.src, s.srcVp, s.addr);
    } else {
      const d = o.d!;
      if (d.localEvent) this.event(o, EV_LOCAL, o.vp, 0, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      if (d.interrupt) o.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_DESC, code: d.kind, vp: o.vp, info: d.userTag, addr: 0 }) });
    }
    if (o.conn) this.e2e!.complete(o.ctx, o.out.entries.splice(at));
    this.back = B_NOTIFY;
  }

  // ---- S_CONN ----
  /** A sender context for the front's operation: true once it has one (the front stays in S_CONN until then). */
  private connect(): boolean {
    const o = this.f;
    const s = o.serve;
    const d = o.d;
    const dst = s !== null ? s.src : d!.dstNode;
    const t =
      s !== null
        ? { vp: s.dstVp < this.cfg.vps ? s.dstVp : -1, opcode: DESC_GET, userTag: s.userTag, eventData: s.eventData, peerNode: s.src, peerVp: s.srcVp, length: o.len }
        : { vp: o.vp, opcode: d!.kind, userTag: d!.userTag, eventData: d!.eventData, peerNode: d!.dstNode, peerVp: d!.dstVp, length: o.len };
    const c = this.e2e!.alloc(dst, o.nPk, t);
    if (c < 0) return false;
    o.ctx = c;
    o.serial = this.e2e!.serialOf(c);
    return true;
  }

  /** Stamp packet p as packet `seq` of operation o's connection (before its CRC). */
  private stamp(o: TxOp, p: NetPacket, seq: number): void {
    p.e2e = true;
    p.ctx = o.ctx;
    p.serial = o.serial;
    p.seq = seq;
  }

  /** Over a connection, packet sendK may go only while the context's window has room for it. */
  private windowOpen(o: TxOp): boolean {
    // (a connection that failed takes the rest of its packets and discards them)
    return !o.conn || o.sendK - this.e2e!.ackedOf(o.ctx) < this.e2e!.cfg.window || this.e2e!.gone(o.ctx, o.serial);
  }

  /** The channel an operation's packets take: the link, or the sender context. */
  private pkts(o: TxOp): Channel<NetPacket> {
    return o.conn ? this.e2eOut! : this.pktOut;
  }

  // ---- S_IDLE ----
  private start(): void {
    const o = this.f;
    o.d = null;
    o.serve = null;
    o.conn = false;
    o.connErr = null;
    o.reads = false;
    o.kind = K_STREAM;
    o.sendK = 0;
    o.nPk = 0;
    if (this.serveIn.canPop()) {
      this.alone = false;
      const s = (o.serve = this.serveIn.pop());
      o.conn = s.e2e && this.e2e !== null;
      o.op = OP_SERVE;
      o.len = s.total;
      o.srcAddr = s.addr;
      o.dstAddr = s.retAddr;
      o.opId = s.opId;
      this.stats.ops.inc();
      if (s.dstVp >= this.cfg.vps) return this.fail(RE_BAD_VP);
      if (s.total > this.cfg.maxTransfer) return this.fail(RE_TOO_LONG);
      return this.check(s.item, s.key, s.addr, s.total, false, s.dstVp, s.physical);
    }
    const inp = this.descIn.pop();
    this.alone = inp.fence === true;
    this.stats.ops.inc();
    o.vp = inp.vp;
    this.opId = (this.opId + 1) >>> 0;
    o.opId = this.opId;
    const r = decodeDescriptor(inp.bytes, this.dcfg);
    o.d = r.desc;
    const d = r.desc;
    o.len = r.reason === DR_OK ? d.length : 0;
    if (r.reason !== DR_OK) {
      d.kind = inp.bytes.length > 0 ? inp.bytes[0]! & 0x0f : 0;
      d.userTag = inp.bytes.length >= 8 ? inp.bytes[6]! | (inp.bytes[7]! << 8) : 0;
      this.stats.errors.inc();
      o.out.entries.push({ kind: Q_EQ, vp: o.vp, data: encodeEvent({ type: EV_ERROR, opcode: d.kind, code: RE_DECODE, userTag: d.userTag, peerNode: 0, peerVp: 0, eventData: 0, length: 0, addr: 0 }) });
      o.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code: RE_DECODE, vp: o.vp, info: r.reason, addr: 0 }) });
      o.kind = K_NOTIFY;
      this.commit();
      return;
    }
    o.conn = d.connect && this.e2e !== null;
    if (d.kind === DESC_COLL) return this.fail(RE_UNSUPPORTED);
    if (d.length > this.cfg.maxTransfer) return this.fail(RE_TOO_LONG);
    if (d.kind === DESC_IMM_PUT || d.kind === DESC_MP) {
      o.op = OP_PUT;
      o.buf = d.kind === DESC_MP ? padded(d.data, MP_BYTES) : d.data;
      o.dstAddr = d.kind === DESC_MP ? 0 : d.remoteAddr;
      this.beginStream(o, false);
      if (d.kind === DESC_MP) o.nPk = 1; // one packet carrying the whole 80-byte payload
      return;
    }
    o.op = d.kind === DESC_GET ? OP_GET : OP_PUT;
    o.srcAddr = d.localAddr;
    o.dstAddr = d.remoteAddr;
    // PUT reads the local buffer; GET will write it: check it now, acting for the VP
    this.check(d.localItem, d.localKey, d.localAddr, d.length, d.kind === DESC_GET, o.vp, d.physical);
  }

  private check(item: number, key: number, va: number, len: number, write: boolean, vp: number, physical: boolean): void {
    this.f.chk.begin(item, key, va, len, write, vp, physical);
    this.state = S_CHECK;
  }

  /** The front's operation is ready to stream: committed now, or after its sender context (S_CONN). */
  private beginStream(o: TxOp, reads: boolean): void {
    const mp = this.cfg.maxPayload;
    const L = o.len;
    o.first = Math.min(mp - (o.dstAddr % mp), L);
    o.nPk = L <= o.first ? 1 : 1 + Math.ceil((L - o.first) / mp);
    o.sendK = 0;
    o.pending.fill(0, 0, o.nPk);
    o.reads = reads;
    if (reads) {
      o.buf = new Uint8Array(L);
      o.issueOff = 0;
    } else o.issueOff = L;
    o.kind = K_STREAM;
    if (o.conn) this.state = S_CONN;
    else this.commit();
  }

  private packetOf(o: TxOp, off: number): number {
    return off < o.first ? 0 : 1 + Math.floor((off - o.first) / this.cfg.maxPayload);
  }

  private packetStart(o: TxOp, k: number): number {
    return k === 0 ? 0 : o.first + (k - 1) * this.cfg.maxPayload;
  }

  // ---- read issuer ----
  /** One DMA read of row k's next piece; the read's tag names the row and the offset. */
  private issueRead(k: number, o: TxOp): void {
    const off = o.issueOff;
    const pk = this.packetOf(o, off);
    const pkEnd = pk + 1 === o.nPk ? o.len : this.packetStart(o, pk + 1);
    const va = o.srcAddr + off;
    const pageIdx = Math.floor(va / PAGE_BYTES) - Math.floor(o.srcAddr / PAGE_BYTES);
    const n = Math.min(pkEnd - off, PAGE_BYTES - (va % PAGE_BYTES));
    const r = new DmaRead();
    r.tag = off * this.ops.length + ((this.head + k) % this.ops.length);
    r.addr = o.chk.pagePa[pageIdx]! + (va % PAGE_BYTES);
    r.len = n;
    this.readIn.push(r);
    o.pending[pk]!++;
    this.readsInFlight++;
    o.issueOff += n;
    this.stats.reads.inc();
  }

  // ---- back stage ----
  private sendPacket(o: TxOp): void {
    const k = o.sendK;
    const off = this.packetStart(o, k);
    const end = k + 1 === o.nPk ? o.len : this.packetStart(o, k + 1);
    const p = new NetPacket();
    const s = o.serve;
    p.src = this.cfg.node;
    p.opId = o.opId;
    p.offset = off;
    p.total = o.len;
    p.last = k + 1 === o.nPk;
    p.addr = o.dstAddr + off;
    if (s !== null) {
      p.kind = PK_GET_RESP;
      p.dst = s.src;
      p.srcVp = s.dstVp;
      p.dstVp = s.srcVp;
      p.opcode = DESC_GET;
      p.item = s.retItem;
      p.key = s.retKey;
      p.physical = s.physical;
      p.localEvent = s.localEvent;
      p.interrupt = s.interrupt;
      p.userTag = s.userTag;
      p.eventData = s.eventData;
      p.data = o.buf.subarray(off, end);
    } else {
      const d = o.d!;
      p.kind = d.kind === DESC_MP ? PK_MP : PK_PUT;
      p.dst = d.dstNode;
      p.srcVp = o.vp;
      p.dstVp = d.dstVp;
      p.opcode = d.kind;
      p.item = d.remoteItem;
      p.key = d.remoteKey;
      p.physical = d.physical;
      p.remoteEvent = d.remoteEvent;
      p.userTag = d.userTag;
      p.eventData = d.eventData;
      p.data = d.kind === DESC_MP ? o.buf : o.buf.subarray(off, end);
      if (d.kind === DESC_MP) p.last = true;
    }
    if (o.conn) this.stamp(o, p, k);
    p.crc = packetCrc(p);
    this.pkts(o).push(p);
    this.stats.packets.inc();
    this.stats.bytes.inc(p.data.length);
    o.sendK++;
  }

  private sendGetRequest(o: TxOp): void {
    const d = o.d!;
    const p = new NetPacket();
    p.kind = PK_GET_REQ;
    p.src = this.cfg.node;
    p.dst = d.dstNode;
    p.srcVp = o.vp;
    p.dstVp = d.dstVp;
    p.opcode = DESC_GET;
    p.opId = o.opId;
    p.total = d.length;
    p.last = true;
    p.addr = d.remoteAddr;
    p.item = d.remoteItem;
    p.key = d.remoteKey;
    p.physical = d.physical;
    p.retAddr = d.localAddr;
    p.retItem = d.localItem;
    p.retKey = d.localKey;
    p.localEvent = d.localEvent;
    p.remoteEvent = d.remoteEvent;
    p.interrupt = d.interrupt;
    p.userTag = d.userTag;
    p.eventData = d.eventData;
    if (o.conn) this.stamp(o, p, 0);
    p.crc = packetCrc(p);
    this.pkts(o).push(p);
    this.stats.packets.inc();
  }

  /** The back's operation is finished: its row is free (the issuer's pointer moves with the head). */
  private retire(): void {
    const o = this.row(0);
    o.d = null;
    o.serve = null;
    o.connErr = null;
    this.head = (this.head + 1) % this.ops.length;
    this.used--;
    if (this.iss > 0) this.iss--;
    this.back = B_IDLE;
  }

  /** One cycle of the back stage on the oldest committed operation (as committed at the start of the cycle). */
  private backStep(committed: number): void {
    if (this.back === B_IDLE) {
      if (committed === 0) return;
      const o = this.row(0);
      if (o.kind === K_NOTIFY) this.back = B_NOTIFY;
      else if (o.kind === K_CONNERR) {
        // the refusal packet over the sender context the front allocated
        if (!this.e2eOut!.canPush()) return;
        const e = o.connErr!;
        this.stamp(o, e, 0);
        e.crc = packetCrc(e);
        this.e2eOut!.push(e);
        this.retire();
        return;
      } else this.back = B_STREAM;
    }
    const o = this.row(0);
    if (this.back === B_STREAM) {
      if (o.op === OP_GET) {
        if (this.pkts(o).canPush()) {
          this.sendGetRequest(o);
          this.retire();
        }
        return;
      }
      if (o.sendK < o.nPk && o.pending[o.sendK] === 0 && o.issueOff >= Math.min(o.len, this.packetStart(o, o.sendK + 1)) && this.pkts(o).canPush() && this.windowOpen(o)) {
        this.sendPacket(o);
        if (o.sendK === o.nPk) this.completed(o);
      }
      return;
    }
    // B_NOTIFY
    if (o.out.drain(this.evOut, this.pktOut, null)) this.retire();
  }

  /** The front may take an operation: a free row, no fenced operation in flight, and a fenced descriptor only when nothing is in flight. */
  private mayTake(committed: number): boolean {
    if (committed >= this.cfg.txOps || (this.alone && committed > 0)) return false;
    if (this.serveIn.canPop()) return true;
    return this.descIn.canPop() && (committed === 0 || this.descIn.peek().fence !== true);
  }

  tick(t: number): number {
    // rows committed before this cycle (the front commits at the end of the cycle)
    const committed = this.used;
    // read data arrives (for any operation in flight)
    if (this.readOut.canPop()) {
      const c = this.readOut.pop();
      if (c.last) {
        const r = c.req;
        const o = this.ops[r.tag % this.ops.length]!;
        const off = Math.floor(r.tag / this.ops.length);
        if (r.data !== null) o.buf.set(r.data, off);
        o.pending[this.packetOf(o, off)]!--;
        this.readsInFlight--;
      }
    }
    // read issuer: the committed operations' reads in commit order
    if (this.iss < committed) {
      const o = this.row(this.iss);
      if (o.reads && o.issueOff < o.len) {
        if (this.readsInFlight < this.readsCap && this.readIn.canPush()) this.issueRead(this.iss, o);
      } else this.iss++;
    }
    this.backStep(committed);
    // front stage: a new operation only into a free row
    switch (this.state) {
      case S_IDLE:
        if (this.mayTake(committed)) this.start();
        break;
      case S_CHECK: {
        const o = this.f;
        if (o.chk.step(this.mcReq, this.mcResp, this.xlIn)) {
          const code = o.chk.code;
          if (code !== 0) this.fail(code);
          else if (o.op === OP_GET) {
            // the request goes out from the back stage (over a connection: one packet)
            o.nPk = 1;
            o.kind = K_GETREQ;
            if (o.conn) this.state = S_CONN;
            else this.commit();
          } else this.beginStream(o, true);
        }
        break;
      }
      case S_CONN:
        // a sender context only once every earlier operation has handed over all its packets: a
        // later connection holding the receiver's last context while an earlier one waits for it,
        // behind it in packet order, would wait for each other until the retries ran out
        if (committed === 0 && this.connect()) this.commit();
        break;
    }
    return this.state !== S_IDLE || this.used > 0 || this.descIn.canPop() || this.serveIn.canPop() || this.readsInFlight > 0 ? t + 1 : NEVER;
  }
}

function padded(data: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(n);
  b.set(data.subarray(0, n));
  return b;
}
