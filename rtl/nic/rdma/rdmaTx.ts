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

/** Transmit engine states (one operation at a time). */
const S_IDLE = 0; // take a GET request to serve, else a descriptor
const S_CHECK = 1; // wait for the memory checker's verdict and every page's translation
const S_STREAM = 2; // DMA reads of the source buffer, packets out in order as their bytes arrive
const S_NOTIFY = 3; // queue entries (events, interrupts) and a refusal packet out, one per cycle
const S_CONN = 4; // a connect operation waits for a sender context (descriptor processing paused)
export const TX_STATE_NAMES = ['idle', 'check', 'stream', 'notify', 'conn'] as const;

const OP_PUT = 0; // PUT and IMM_PUT and MP: data to the target
const OP_GET = 1; // GET: one request packet
const OP_SERVE = 2; // a GET request from another NIC: read here, GET_RESP packets back

/**
 * The RDMA engine's transmit side (docs/nic-rdma.md, "RDMA engine"): takes descriptors with their
 * VP from `descIn` and GET requests from other NICs from `serveIn` (served first), one operation
 * at a time, as an explicit state machine (S_*). Decode (combinational, in S_IDLE); local buffer
 * check through the memory checker (`mcReq` / `mcResp`, acting for the VP: key, permission, range,
 * owner) with one translation per page (`xlIn`, virtual through the ATC or physical); DMA reads
 * (`readOut` / `readIn`), each piece inside one page and one packet; segmentation into packets of
 * at most `maxPayload` bytes aligned at the target (the first packet ends at the target's next
 * maxPayload boundary: the address-aligning rule), sent in order on `pktOut` as their bytes
 * arrive; events into the VP's EQ and interrupts into the INTQ (`evOut`).
 */
export class RdmaTx extends Component {
  readonly cfg: RdmaConfig;
  private readonly dcfg: DescConfig;
  state = S_IDLE;
  // operation registers
  private op = OP_PUT;
  private vp = 0;
  private d: NicDesc | null = null;
  private serve: NetPacket | null = null;
  private opId = 0;
  private len = 0;
  /** local (source) and target addresses of the transfer */
  private srcAddr = 0;
  private dstAddr = 0;
  private buf: Uint8Array = new Uint8Array(0);
  private readonly chk: BufferCheck;
  private readonly pagePa: Float64Array;
  // streaming
  private first = 0;
  private nPk = 0;
  private issueOff = 0;
  private sendK = 0;
  private readsInFlight = 0;
  private readonly pending: Int32Array;
  private readonly readsCap: number;
  // reliable end-to-end: the operation runs over a connection (its sender context), and a serve's refusal sent over one
  private conn = false;
  private ctx = 0;
  private serial = 0;
  private connErr: NetPacket | null = null;
  // notification
  private readonly out = new Outbox();
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
    this.chk = new BufferCheck(Math.ceil(c.maxTransfer / PAGE_BYTES) + 1);
    this.pagePa = this.chk.pagePa;
    this.pending = new Int32Array(Math.ceil(c.maxTransfer / 64) + 2);
    this.readsCap = c.maxReads;
    this.stats = { ops: this.counter('operations'), errors: this.counter('errors'), packets: this.counter('packets'), bytes: this.counter('payload_bytes'), reads: this.counter('dma_reads') };
  }

  /** The engine holds no operation and nothing waits at its inputs. */
  get idle(): boolean {
    return this.state === S_IDLE && !this.descIn.canPop() && !this.serveIn.canPop();
  }

  // ---- notifications ----
  private event(type: number, vp: number, code: number, peerNode: number, peerVp: number, addr: number): void {
    const d = this.d;
    const s = this.serve;
    const opcode = d !== null ? d.kind : DESC_GET;
    const userTag = d !== null ? d.userTag : s!.userTag;
    const eventData = d !== null ? d.eventData : s!.eventData;
    this.out.entries.push({ kind: Q_EQ, vp, data: encodeEvent({ type, opcode, code, userTag, peerNode, peerVp, eventData, length: this.len, addr }) });
  }

  private fail(code: number): void {
    this.stats.errors.inc();
    const s = this.serve;
    if (s !== null) {
      // a GET request this NIC refuses: the initiator's VP gets the error (over a connection if the request came over one)
      const e = errorReply(this.cfg.node, s, DESC_GET, code);
      if (this.conn) {
        this.connErr = e;
        this.nPk = 1;
        this.state = S_CONN;
        return;
      }
      this.out.sendPacket(e);
    } else {
      const d = this.d!;
      this.event(EV_ERROR, this.vp, code, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code, vp: this.vp, info: d.userTag, addr: 0 }) });
    }
    this.state = S_NOTIFY;
  }

  /** Completion of the operation's last packet (over a connection: its entries wait for the connection's close). */
  private completed(): void {
    const s = this.serve;
    const at = this.out.entries.length;
    if (s !== null) {
      if (s.remoteEvent) this.event(EV_REMOTE, s.dstVp, 0, s.src, s.srcVp, s.addr);
    } else {
      const d = this.d!;
      if (d.localEvent) this.event(EV_LOCAL, this.vp, 0, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      if (d.interrupt) this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_DESC, code: d.kind, vp: this.vp, info: d.userTag, addr: 0 }) });
    }
    if (this.conn) this.e2e!.complete(this.ctx, this.out.entries.splice(at));
    this.state = S_NOTIFY;
  }

  // ---- S_CONN ----
  /** A sender context for the operation: true once it has one (the engine stays in S_CONN until then). */
  private connect(): boolean {
    const s = this.serve;
    const d = this.d;
    const dst = s !== null ? s.src : d!.dstNode;
    const t =
      s !== null
        ? { vp: s.dstVp < this.cfg.vps ? s.dstVp : -1, opcode: DESC_GET, userTag: s.userTag, eventData: s.eventData, peerNode: s.src, peerVp: s.srcVp, length: this.len }
        : { vp: this.vp, opcode: d!.kind, userTag: d!.userTag, eventData: d!.eventData, peerNode: d!.dstNode, peerVp: d!.dstVp, length: this.len };
    const c = this.e2e!.alloc(dst, this.nPk, t);
    if (c < 0) return false;
    this.ctx = c;
    this.serial = this.e2e!.serialOf(c);
    return true;
  }

  /** Stamp packet p as packet `seq` of the operation's connection (before its CRC). */
  private stamp(p: NetPacket, seq: number): void {
    p.e2e = true;
    p.ctx = this.ctx;
    p.serial = this.serial;
    p.seq = seq;
  }

  /** Over a connection, packet sendK may go only while the context's window has room for it. */
  private windowOpen(): boolean {
    // (a connection that failed takes the rest of its packets and discards them)
    return !this.conn || this.sendK - this.e2e!.ackedOf(this.ctx) < this.e2e!.cfg.window || this.e2e!.gone(this.ctx, this.serial);
  }

  /** The channel the operation's packets take: the link, or the sender context. */
  private get pkts(): Channel<NetPacket> {
    return this.conn ? this.e2eOut! : this.pktOut;
  }

  // ---- S_IDLE ----
  private start(): void {
    this.d = null;
    this.serve = null;
    this.conn = false;
    if (this.serveIn.canPop()) {
      const s = (this.serve = this.serveIn.pop());
      this.conn = s.e2e && this.e2e !== null;
      this.op = OP_SERVE;
      this.len = s.total;
      this.srcAddr = s.addr;
      this.dstAddr = s.retAddr;
      this.opId = s.opId;
      this.stats.ops.inc();
      if (s.dstVp >= this.cfg.vps) return this.fail(RE_BAD_VP);
      if (s.total > this.cfg.maxTransfer) return this.fail(RE_TOO_LONG);
      return this.check(s.item, s.key, s.addr, s.total, false, s.dstVp, s.physical);
    }
    const inp = this.descIn.pop();
    this.stats.ops.inc();
    this.vp = inp.vp;
    this.opId = (this.opId + 1) >>> 0;
    const r = decodeDescriptor(inp.bytes, this.dcfg);
    this.d = r.desc;
    const d = r.desc;
    this.len = r.reason === DR_OK ? d.length : 0;
    if (r.reason !== DR_OK) {
      d.kind = inp.bytes.length > 0 ? inp.bytes[0]! & 0x0f : 0;
      d.userTag = inp.bytes.length >= 8 ? inp.bytes[6]! | (inp.bytes[7]! << 8) : 0;
      this.stats.errors.inc();
      this.out.entries.push({ kind: Q_EQ, vp: this.vp, data: encodeEvent({ type: EV_ERROR, opcode: d.kind, code: RE_DECODE, userTag: d.userTag, peerNode: 0, peerVp: 0, eventData: 0, length: 0, addr: 0 }) });
      this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code: RE_DECODE, vp: this.vp, info: r.reason, addr: 0 }) });
      this.state = S_NOTIFY;
      return;
    }
    this.conn = d.connect && this.e2e !== null;
    if (d.kind === DESC_COLL) return this.fail(RE_UNSUPPORTED);
    if (d.length > this.cfg.maxTransfer) return this.fail(RE_TOO_LONG);
    if (d.kind === DESC_IMM_PUT || d.kind === DESC_MP) {
      this.op = OP_PUT;
      this.buf = d.kind === DESC_MP ? padded(d.data, MP_BYTES) : d.data;
      this.dstAddr = d.kind === DESC_MP ? 0 : d.remoteAddr;
      this.beginStream(false);
      if (d.kind === DESC_MP) this.nPk = 1; // one packet carrying the whole 80-byte payload
      if (this.conn) this.state = S_CONN;
      return;
    }
    this.op = d.kind === DESC_GET ? OP_GET : OP_PUT;
    this.srcAddr = d.localAddr;
    this.dstAddr = d.remoteAddr;
    // PUT reads the local buffer; GET will write it: check it now, acting for the VP
    this.check(d.localItem, d.localKey, d.localAddr, d.length, d.kind === DESC_GET, this.vp, d.physical);
  }

  private check(item: number, key: number, va: number, len: number, write: boolean, vp: number, physical: boolean): void {
    this.chk.begin(item, key, va, len, write, vp, physical);
    this.state = S_CHECK;
  }

  // ---- S_STREAM ----
  private beginStream(reads: boolean): void {
    const mp = this.cfg.maxPayload;
    const L = this.len;
    this.first = Math.min(mp - (this.dstAddr % mp), L);
    this.nPk = L <= this.first ? 1 : 1 + Math.ceil((L - this.first) / mp);
    this.sendK = 0;
    this.readsInFlight = 0;
    this.pending.fill(0, 0, this.nPk);
    if (reads) {
      this.buf = new Uint8Array(L);
      this.issueOff = 0;
    } else this.issueOff = L;
    this.state = this.conn ? S_CONN : S_STREAM;
  }

  private packetOf(off: number): number {
    return off < this.first ? 0 : 1 + Math.floor((off - this.first) / this.cfg.maxPayload);
  }

  private packetStart(k: number): number {
    return k === 0 ? 0 : this.first + (k - 1) * this.cfg.maxPayload;
  }

  private issueRead(): void {
    const off = this.issueOff;
    const k = this.packetOf(off);
    const pkEnd = k + 1 === this.nPk ? this.len : this.packetStart(k + 1);
    const va = this.srcAddr + off;
    const pageIdx = Math.floor(va / PAGE_BYTES) - Math.floor(this.srcAddr / PAGE_BYTES);
    const n = Math.min(pkEnd - off, PAGE_BYTES - (va % PAGE_BYTES));
    const r = new DmaRead();
    r.tag = off;
    r.addr = this.pagePa[pageIdx]! + (va % PAGE_BYTES);
    r.len = n;
    this.readIn.push(r);
    this.pending[k]!++;
    this.readsInFlight++;
    this.issueOff += n;
    this.stats.reads.inc();
  }

  private sendPacket(): void {
    const k = this.sendK;
    const off = this.packetStart(k);
    const end = k + 1 === this.nPk ? this.len : this.packetStart(k + 1);
    const p = new NetPacket();
    const s = this.serve;
    p.src = this.cfg.node;
    p.opId = this.opId;
    p.offset = off;
    p.total = this.len;
    p.last = k + 1 === this.nPk;
    p.addr = this.dstAddr + off;
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
      p.data = this.buf.subarray(off, end);
    } else {
      const d = this.d!;
      p.kind = d.kind === DESC_MP ? PK_MP : PK_PUT;
      p.dst = d.dstNode;
      p.srcVp = this.vp;
      p.dstVp = d.dstVp;
      p.opcode = d.kind;
      p.item = d.remoteItem;
      p.key = d.remoteKey;
      p.physical = d.physical;
      p.remoteEvent = d.remoteEvent;
      p.userTag = d.userTag;
      p.eventData = d.eventData;
      p.data = d.kind === DESC_MP ? this.buf : this.buf.subarray(off, end);
      if (d.kind === DESC_MP) p.last = true;
    }
    if (this.conn) this.stamp(p, k);
    p.crc = packetCrc(p);
    this.pkts.push(p);
    this.stats.packets.inc();
    this.stats.bytes.inc(p.data.length);
    this.sendK++;
  }

  private sendGetRequest(): void {
    const d = this.d!;
    const p = new NetPacket();
    p.kind = PK_GET_REQ;
    p.src = this.cfg.node;
    p.dst = d.dstNode;
    p.srcVp = this.vp;
    p.dstVp = d.dstVp;
    p.opcode = DESC_GET;
    p.opId = this.opId;
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
    if (this.conn) this.stamp(p, 0);
    p.crc = packetCrc(p);
    this.pkts.push(p);
    this.stats.packets.inc();
    this.state = S_IDLE;
  }

  tick(t: number): number {
    // read data arrives (any state: the reads of the operation being streamed)
    if (this.readOut.canPop()) {
      const c = this.readOut.pop();
      if (c.last) {
        const r = c.req;
        if (r.data !== null) this.buf.set(r.data, r.tag);
        this.pending[this.packetOf(r.tag)]!--;
        this.readsInFlight--;
      }
    }
    switch (this.state) {
      case S_IDLE:
        if (this.serveIn.canPop() || this.descIn.canPop()) this.start();
        break;
      case S_CHECK:
        if (this.chk.step(this.mcReq, this.mcResp, this.xlIn)) {
          const code = this.chk.code;
          if (code !== 0) this.fail(code);
          else if (this.op === OP_GET) {
            // the request goes out from S_STREAM (over a connection: one packet)
            this.nPk = 1;
            this.state = this.conn ? S_CONN : S_STREAM;
          } else this.beginStream(true);
        }
        break;
      case S_STREAM:
        if (this.op === OP_GET) {
          if (this.pkts.canPush()) this.sendGetRequest();
          break;
        }
        if (this.issueOff < this.len && this.readsInFlight < this.readsCap && this.readIn.canPush()) this.issueRead();
        if (this.sendK < this.nPk && this.pending[this.sendK] === 0 && this.issueOff >= Math.min(this.len, this.packetStart(this.sendK + 1)) && this.pkts.canPush() && this.windowOpen()) {
          this.sendPacket();
          if (this.sendK === this.nPk) this.completed();
        }
        break;
      case S_NOTIFY:
        if (this.out.drain(this.evOut, this.pktOut, null)) this.state = S_IDLE;
        break;
      case S_CONN: {
        const e = this.connErr;
        if (e !== null) {
          // a refused GET request that came over a connection: the error packet goes back over one
          if (this.e2eOut!.canPush() && this.connect()) {
            this.stamp(e, 0);
            e.crc = packetCrc(e);
            this.e2eOut!.push(e);
            this.connErr = null;
            this.state = S_IDLE;
          }
        } else if (this.connect()) this.state = S_STREAM;
        break;
      }
    }
    return this.state !== S_IDLE || this.descIn.canPop() || this.serveIn.canPop() || this.readsInFlight > 0 ? t + 1 : NEVER;
  }
}

function padded(data: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(n);
  b.set(data.subarray(0, n));
  return b;
}
