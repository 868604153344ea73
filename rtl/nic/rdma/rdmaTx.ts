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

/** the collective descriptor is decoded but not executed by this engine */
export const RE_UNSUPPORTED = 21;

/** Transmit engine states (one operation at a time). */
const S_IDLE = 0; // take a GET request to serve, else a descriptor
const S_CHECK = 1; // wait for the memory checker's verdict and every page's translation
const S_STREAM = 2; // DMA reads of the source buffer, packets out in order as their bytes arrive
const S_NOTIFY = 3; // queue entries (events, interrupts) and a refusal packet out, one per cycle
export const TX_STATE_NAMES = ['idle', 'check', 'stream', 'notify'] as const;

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
  ) {
    super(parent, name);
    const c = rdmaConfig(cfg);
    this.cfg = c;
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
      // a GET request this NIC refuses: the initiator's VP gets the error
      this.out.sendPacket(errorReply(this.cfg.node, s, DESC_GET, code));
    } else {
      const d = this.d!;
      this.event(EV_ERROR, this.vp, code, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code, vp: this.vp, info: d.userTag, addr: 0 }) });
    }
    this.state = S_NOTIFY;
  }

  /** Completion of the operation's last packet. */
  private completed(): void {
    const s = this.serve;
    if (s !== null) {
      if (s.remoteEvent) this.event(EV_REMOTE, s.dstVp, 0, s.src, s.srcVp, s.addr);
    } else {
      const d = this.d!;
      if (d.localEvent) this.event(EV_LOCAL, this.vp, 0, d.dstNode, d.dstVp, d.kind === DESC_IMM_PUT || d.kind === DESC_MP ? 0 : d.localAddr);
      if (d.interrupt) this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_DESC, code: d.kind, vp: this.vp, info: d.userTag, addr: 0 }) });
    }
    this.state = S_NOTIFY;
  }

  // ---- S_IDLE ----
  private start(): void {
    this.d = null;
    this.serve = null;
    if (this.serveIn.canPop()) {
      const s = (this.serve = this.serveIn.pop());
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
    if (d.kind === DESC_COLL) return this.fail(RE_UNSUPPORTED);
    if (d.length > this.cfg.maxTransfer) return this.fail(RE_TOO_LONG);
    if (d.kind === DESC_IMM_PUT || d.kind === DESC_MP) {
      this.op = OP_PUT;
      this.buf = d.kind === DESC_MP ? padded(d.data, MP_BYTES) : d.data;
      this.dstAddr = d.kind === DESC_MP ? 0 : d.remoteAddr;
      this.beginStream(false);
      if (d.kind === DESC_MP) this.nPk = 1; // one packet carrying the whole 80-byte payload
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
    this.state = S_STREAM;
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
    p.crc = packetCrc(p);
    this.pktOut.push(p);
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
    p.crc = packetCrc(p);
    this.pktOut.push(p);
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
          else if (this.op === OP_GET) this.state = S_STREAM; // the request goes out from there
          else this.beginStream(true);
        }
        break;
      case S_STREAM:
        if (this.op === OP_GET) {
          if (this.pktOut.canPush()) this.sendGetRequest();
          break;
        }
        if (this.issueOff < this.len && this.readsInFlight < this.readsCap && this.readIn.canPush()) this.issueRead();
        if (this.sendK < this.nPk && this.pending[this.sendK] === 0 && this.issueOff >= Math.min(this.len, this.packetStart(this.sendK + 1)) && this.pktOut.canPush()) {
          this.sendPacket();
          if (this.sendK === this.nPk) this.completed();
        }
        break;
      case S_NOTIFY:
        if (this.out.drain(this.evOut, this.pktOut, null)) this.state = S_IDLE;
        break;
    }
    return this.state !== S_IDLE || this.descIn.canPop() || this.serveIn.canPop() || this.readsInFlight > 0 ? t + 1 : NEVER;
  }
}

function padded(data: Uint8Array, n: number): Uint8Array {
  const b = new Uint8Array(n);
  b.set(data.subarray(0, n));
  return b;
}
