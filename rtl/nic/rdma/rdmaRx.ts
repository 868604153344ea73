import { type Channel, Component, type Counter, NEVER, type Scope } from '../../kernel/index.ts';
import { type AtcReq, PAGE_BYTES } from '../atc/types.ts';
import { DESC_GET } from '../desc/format.ts';
import { errorReply, NetPacket, packetCrc, PK_ERR, PK_GET_REQ, PK_GET_RESP, PK_MP, PK_PUT } from '../link/packet.ts';
import type { MemCheckReq } from '../memcheck/types.ts';
import { DmaWrite } from '../pcie/tlp.ts';
import { encodeIntq, INT_DESC, INT_ERROR, Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, type QueueEntry } from '../queues/types.ts';
import { encodeEpqEntry, encodeEvent, encodeMpEntry, EV_ERROR, EV_LOCAL, EV_REMOTE, type RdmaConfig, rdmaConfig, RE_BAD_VP, RE_INCOMPLETE } from './types.ts';
import { BufferCheck } from './bufferCheck.ts';
import type { E2eDone } from '../e2e/e2eRx.ts';
import { Outbox } from './outbox.ts';

/** Receive engine states (the retire stage: one packet at a time, in arrival order). */
const S_IDLE = 0; // take the oldest packet of the pipeline once its check is in: CRC, kind, sequence
const S_WRITE = 1; // DMA writes of the payload, one per page piece
const S_FENCE = 2; // last packet: wait until the endpoint has taken the last write (data before event)
const S_NOTIFY = 3; // queue entries, a refusal packet, a GET request for the transmit side, one per cycle
export const RX_STATE_NAMES = ['idle', 'write', 'fence', 'notify'] as const;

/** per-source transfer state */
const T_NONE = 0; // no transfer in progress
const T_ACTIVE = 1; // packets so far in sequence and written
const T_BROKEN = 2; // a packet was lost, corrupted or refused: the rest is discarded; reported at its end

/**
 * One row of the receive pipeline: a packet taken from the link, its CRC verdict, and the check
 * of its target buffer (acting for the destination VP) with the translations of its pages, made
 * while older packets are written.
 */
class RxRow {
  p: NetPacket | null = null;
  crcOk = false;
  /** a check was started for the packet (PUT or GET_RESP data with a good CRC, a known source and VP) */
  checked = false;
  /** a packet spans at most two pages (maxPayload <= 4096) */
  readonly chk = new BufferCheck(2);
}

/**
 * The RDMA engine's receive side (docs/nic-rdma.md, "RDMA engine"): takes packets from the link
 * (`pktIn`) into a pipeline of `rxPackets` rows, one per cycle; the **intake** computes a packet's
 * CRC and, for data, starts the check of its target buffer at once (the **check unit** sends one
 * request per cycle to the memory checker and routes verdicts and translations back to their row
 * by tag), so the checks of later packets overlap the writes of earlier ones. The **retire** stage
 * takes the rows in arrival order, one packet at a time, as an explicit state machine (S_*),
 * with exactly the rules of an engine that checks one packet at a time. A packet failing its CRC goes to
 * the EPQ. PUT and GET_RESP data are checked packet by packet through the memory checker
 * (write permission, key, range, owner = the destination VP), translated page by page and written
 * through PCIe; transfers are tracked per source node (T_*): a gap (lost packet), a bad CRC or a
 * refused check breaks the transfer, whose remaining packets are discarded, and the break is
 * reported once, when its last packet arrives or the source's next transfer starts: to the
 * initiator as an error packet (PUT) or as a local error event (GET_RESP, this NIC initiated).
 * The last packet of a good transfer gives the remote event (PUT) or the local event and
 * descriptor interrupt (GET), after its data write has been taken by PCIe. MP payloads go to the
 * destination VP's MPQ; GET requests to the transmit side (`serveOut`); error packets from targets
 * become error events and INTQ entries on the initiator's VP.
 */
export class RdmaRx extends Component {
  readonly cfg: RdmaConfig;
  state = S_IDLE;
  private p: NetPacket | null = null;
  // the pipeline: rows [head, head + used) hold packets in arrival order
  private readonly rows: RxRow[];
  private head = 0;
  private used = 0;
  /** the next row whose check request goes to the memory checker (an offset from head) */
  private nextReq = 0;
  /** page translations of the packet being written (its row's) */
  private pagePa: Float64Array;
  private writeOff = 0;
  private lastWrite: DmaWrite | null = null;
  private readonly out = new Outbox();
  // per source node: transfer state, its operation number, the next offset, its first packet
  private readonly tState: Uint8Array;
  private readonly tOp: Float64Array;
  private readonly tNext: Float64Array;
  private readonly tHead: (NetPacket | null)[];
  private readonly tReason: Uint8Array;
  readonly stats: { packets: Counter; crcErrors: Counter; refused: Counter; incomplete: Counter; written: Counter; discarded: Counter };
  /** a connection's transfer ended with the packet in hand: its end goes to the end-to-end receiver from `notify` */
  private done: E2eDone | null = null;
  private readonly nodes: number;

  constructor(
    parent: Scope,
    name: string,
    cfg: Partial<RdmaConfig>,
    readonly pktIn: Channel<NetPacket>,
    private readonly mcReq: Channel<MemCheckReq>,
    private readonly mcResp: Channel<MemCheckReq>,
    private readonly xlIn: Channel<AtcReq>,
    private readonly writeOut: Channel<DmaWrite>,
    private readonly pktOut: Channel<NetPacket>,
    private readonly evOut: Channel<QueueEntry>,
    private readonly serveOut: Channel<NetPacket>,
    /** packets of connections, admitted in sequence by the end-to-end receiver (rtl/nic/e2e), and where their transfer's end goes */
    readonly e2eIn: Channel<NetPacket> | null = null,
    private readonly doneOut: Channel<E2eDone> | null = null,
    /** receiver contexts: one transfer slot each, after the per-node ones */
    rxContexts = 0,
  ) {
    super(parent, name);
    const c = rdmaConfig(cfg);
    this.cfg = c;
    this.nodes = c.nodes;
    pktIn.bindConsumer(this);
    e2eIn?.bindConsumer(this);
    doneOut?.bindProducer(this);
    mcReq.bindProducer(this);
    mcResp.bindConsumer(this);
    xlIn.bindConsumer(this);
    writeOut.bindProducer(this);
    pktOut.bindProducer(this);
    evOut.bindProducer(this);
    serveOut.bindProducer(this);
    const slots = c.nodes + rxContexts;
    this.tState = new Uint8Array(slots);
    this.tOp = new Float64Array(slots).fill(-1);
    this.tNext = new Float64Array(slots);
    this.tHead = new Array<NetPacket | null>(slots).fill(null);
    this.tReason = new Uint8Array(slots);
    this.rows = Array.from({ length: c.rxPackets }, () => new RxRow());
    this.pagePa = this.rows[0]!.chk.pagePa;
    this.stats = {
      packets: this.counter('packets'),
      crcErrors: this.counter('crc_errors'),
      refused: this.counter('refused'),
      incomplete: this.counter('incomplete'),
      written: this.counter('payload_bytes_written'),
      discarded: this.counter('discarded'),
    };
  }

  get idle(): boolean {
    return this.state === S_IDLE && this.used === 0 && !this.pktIn.canPop() && !(this.e2eIn?.canPop() ?? false);
  }

  /** packets in the pipeline (taken from the link, not yet finished) */
  get inFlight(): number {
    return this.used;
  }

  private row(k: number): RxRow {
    return this.rows[(this.head + k) % this.rows.length]!;
  }

  /** transfer slot of a packet: per source node, or per receiver context for a connection's packets */
  private slot(p: NetPacket): number {
    return p.e2e ? this.nodes + p.rctx : p.src;
  }

  /** the connection of packet p ends here with status `code` (reported by its closing ACK) */
  private end(p: NetPacket, code: number): void {
    this.done = { rctx: p.rctx, code };
  }

  private event(type: number, vp: number, code: number, h: NetPacket, addr: number): void {
    this.out.entries.push({ kind: Q_EQ, vp, data: encodeEvent({ type, opcode: h.opcode, code, userTag: h.userTag, peerNode: h.src, peerVp: h.srcVp, eventData: h.eventData, length: h.total, addr }) });
  }

  /** Report a broken transfer (or a refused MP / GET request) whose header is h. */
  private report(h: NetPacket, code: number): void {
    if (h.kind === PK_GET_RESP) {
      // this NIC initiated the GET: the error goes to its own VP
      this.event(EV_ERROR, h.dstVp, code, h, 0);
      this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code, vp: h.dstVp, info: h.userTag, addr: 0 }) });
      if (h.e2e) this.end(h, 0);
      return;
    }
    // a connection's refusal goes back in its closing ACK, a connectless one as an error packet
    if (h.e2e) this.end(h, code);
    else this.out.sendPacket(errorReply(this.cfg.node, h, h.opcode, code));
  }

  /** Close the source's transfer: report it if it is broken or incomplete. */
  private closeTransfer(src: number, code: number): void {
    const h = this.tHead[src];
    if (this.tState[src] !== T_NONE && h !== null) {
      this.stats.incomplete.inc();
      this.report(h, this.tState[src] === T_BROKEN ? this.tReason[src]! : code);
    }
    this.tState[src] = T_NONE;
    this.tHead[src] = null;
  }

  /** Retire stage: the oldest row's packet, its CRC verdict and (for data) its finished check. */
  private accept(r: RxRow): void {
    const p = r.p!;
    const crcOk = r.crcOk;
    this.stats.packets.inc();
    if (!crcOk) {
      this.stats.crcErrors.inc();
      this.out.entries.push({ kind: Q_EPQ, vp: 0, data: encodeEpqEntry(p.kind, p.src, p.dst, p.srcVp, p.dstVp, p.opId, p.offset, p.data, p.crc, packetCrc(p)) });
    }
    const src = this.slot(p);
    if (!Number.isInteger(p.src) || p.src < 0 || p.src >= this.cfg.nodes) {
      this.stats.discarded.inc();
      this.state = S_NOTIFY;
      return;
    }
    if (p.kind === PK_PUT || p.kind === PK_GET_RESP) {
      // sequence: a new transfer closes the previous one of this source
      // a transfer starts at offset 0; any other packet continues the source's current transfer
      // if it has the same operation number and kind (GET responses and PUTs number separately)
      const h = this.tHead[src];
      const same = p.offset !== 0 && this.tState[src] !== T_NONE && this.tOp[src] === p.opId && h !== null && h.kind === p.kind;
      if (!same) {
        // (a connection's slot holds a stale transfer only if its sender gave up: dropped silently)
        if (this.tState[src] !== T_NONE && !p.e2e) this.closeTransfer(src, RE_INCOMPLETE);
        this.tState[src] = T_ACTIVE;
        this.tOp[src] = p.opId;
        this.tNext[src] = 0;
        this.tHead[src] = p;
      }
      if (this.tState[src] === T_ACTIVE && (!crcOk || p.offset !== this.tNext[src])) {
        this.tState[src] = T_BROKEN;
        this.tReason[src] = RE_INCOMPLETE;
      }
      if (this.tState[src] === T_BROKEN) {
        this.stats.discarded.inc();
        if (p.last) this.closeTransfer(src, RE_INCOMPLETE);
        this.state = S_NOTIFY;
        return;
      }
      if (p.dstVp >= this.cfg.vps) return this.refuse(src, RE_BAD_VP);
      this.p = p;
      // the target buffer's check (acting for the destination VP), made at the intake
      const code = r.chk.code;
      if (code !== 0) return this.refuse(src, code);
      this.pagePa = r.chk.pagePa;
      this.writeOff = 0;
      this.state = S_WRITE;
      return;
    }
    if (!crcOk) {
      this.stats.discarded.inc();
      this.state = S_NOTIFY;
      return;
    }
    if (p.kind === PK_MP) {
      if (p.dstVp >= this.cfg.vps) this.report(p, RE_BAD_VP);
      else this.out.entries.push({ kind: Q_MPQ, vp: p.dstVp, data: encodeMpEntry(p.total, p.src, p.srcVp, p.userTag, p.eventData, p.data ?? new Uint8Array(0)) });
    } else if (p.kind === PK_GET_REQ) {
      if (p.dstVp >= this.cfg.vps) this.report(p, RE_BAD_VP);
      else this.out.side = p;
    } else if (p.kind === PK_ERR) {
      if (p.dstVp < this.cfg.vps) {
        this.event(EV_ERROR, p.dstVp, p.reason, p, 0);
        this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code: p.reason, vp: p.dstVp, info: p.userTag, addr: 0 }) });
      } else this.stats.discarded.inc();
    } else this.stats.discarded.inc();
    // a one-packet connection (MP, GET request, a target's refusal) ends with its packet
    if (p.e2e && this.done === null) this.end(p, 0);
    this.state = S_NOTIFY;
  }

  /** The current transfer of `src` is refused: break it; report now if this was its last packet. */
  private refuse(src: number, code: number): void {
    this.stats.refused.inc();
    this.tState[src] = T_BROKEN;
    this.tReason[src] = code;
    const p = this.p ?? this.tHead[src]!;
    if (p.last) this.closeTransfer(src, code);
    this.p = null;
    this.state = S_NOTIFY;
  }

  private finishPacket(): void {
    const p = this.p!;
    this.tNext[this.slot(p)] = p.offset + (p.data === null ? 0 : p.data.length);
    if (!p.last) {
      this.p = null;
      this.free();
      return;
    }
    this.state = S_FENCE;
  }

  /** The retire stage is done with the oldest row. */
  private free(): void {
    const r = this.row(0);
    r.p = null;
    this.head = (this.head + 1) % this.rows.length;
    this.used--;
    if (this.nextReq > 0) this.nextReq--;
    this.state = S_IDLE;
  }

  /** One write of the packet in hand (one page piece). */
  private write(): void {
    const p = this.p!;
    const data = p.data!;
    if (!this.writeOut.canPush()) return;
    const va = p.addr + this.writeOff;
    const n = Math.min(data.length - this.writeOff, PAGE_BYTES - (va % PAGE_BYTES));
    const page = Math.floor(va / PAGE_BYTES) - Math.floor(p.addr / PAGE_BYTES);
    const w = new DmaWrite();
    w.addr = this.pagePa[page]! + (va % PAGE_BYTES);
    w.data = data.subarray(this.writeOff, this.writeOff + n);
    this.writeOut.push(w);
    this.lastWrite = w;
    this.writeOff += n;
    this.stats.written.inc(n);
    if (this.writeOff === data.length) this.finishPacket();
  }

  /** Intake: a packet from the link (connectless first, then those the end-to-end receiver admitted) into the pipeline's next row; data packets start their check. */
  private intake(): void {
    const p = this.pktIn.canPop() ? this.pktIn.pop() : this.e2eIn!.pop();
    const r = this.row(this.used);
    r.p = p;
    // a connection's packets were checked by the end-to-end receiver (which set their receiver context)
    r.crcOk = p.e2e || packetCrc(p) === p.crc;
    r.checked = r.crcOk && (p.kind === PK_PUT || p.kind === PK_GET_RESP) && Number.isInteger(p.src) && p.src >= 0 && p.src < this.cfg.nodes && p.dstVp < this.cfg.vps;
    if (r.checked) {
      r.chk.begin(p.item, p.key, p.addr, p.data === null ? 0 : p.data.length, true, p.dstVp, p.physical);
      r.chk.mc.tag = (this.head + this.used) % this.rows.length;
    }
    this.used++;
  }

  /** Check unit: one request out (oldest first), one verdict and one translation in, each routed to its row by tag. */
  private checks(rows: number): void {
    while (this.nextReq < rows && !this.row(this.nextReq).checked) this.nextReq++;
    if (this.nextReq < rows && this.mcReq.canPush()) {
      this.row(this.nextReq).chk.send(this.mcReq);
      this.nextReq++;
    }
    if (this.mcResp.canPop()) this.rows[this.mcResp.pop().tag]!.chk.takeVerdict();
    if (this.xlIn.canPop()) {
      const x = this.xlIn.pop();
      this.rows[x.tag]!.chk.takeXlate(x);
    }
  }

  private complete(): void {
    const p = this.p!;
    const src = this.slot(p);
    const h = this.tHead[src]!;
    const base = p.addr - p.offset;
    if (p.kind === PK_PUT) {
      if (h.remoteEvent) this.event(EV_REMOTE, p.dstVp, 0, h, base);
    } else {
      if (h.localEvent) this.event(EV_LOCAL, p.dstVp, 0, h, base);
      if (h.interrupt) this.out.entries.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_DESC, code: DESC_GET, vp: p.dstVp, info: h.userTag, addr: 0 }) });
    }
    if (p.e2e) this.end(p, 0);
    this.tState[src] = T_NONE;
    this.tHead[src] = null;
    this.p = null;
    this.state = S_NOTIFY;
  }

  /** the connection's end to the end-to-end receiver, after the transfer's entries; true once sent (or none) */
  private sendDone(): boolean {
    if (this.done === null) return true;
    if (this.doneOut === null || !this.doneOut.canPush()) return false;
    this.doneOut.push(this.done);
    this.done = null;
    return true;
  }

  tick(t: number): number {
    // rows taken before this cycle (the intake adds at the end of the cycle)
    const rows = this.used;
    switch (this.state) {
      case S_IDLE: {
        // the oldest packet, once its check (if it has one) is in
        if (rows === 0) break;
        const r = this.row(0);
        if (r.checked && !r.chk.done) break;
        this.accept(r);
        // the state accept() chose acts in the same cycle (as one cycle after a one-packet engine's check)
        const next: number = this.state;
        if (next === S_WRITE) this.write();
        else if (next === S_NOTIFY && this.out.drain(this.evOut, this.pktOut, this.serveOut) && this.sendDone()) this.free();
        break;
      }
      case S_WRITE:
        this.write();
        break;
      case S_FENCE:
        if (this.lastWrite === null || this.lastWrite.acceptCycle >= 0) this.complete();
        break;
      case S_NOTIFY:
        if (this.out.drain(this.evOut, this.pktOut, this.serveOut) && this.sendDone()) this.free();
        break;
    }
    // (the rows the retire stage left: its free() this cycle moved the head)
    this.checks(this.used);
    if (this.used < this.rows.length && (this.pktIn.canPop() || (this.e2eIn !== null && this.e2eIn.canPop()))) this.intake();
    return this.state !== S_IDLE || this.used > 0 || this.pktIn.canPop() || (this.e2eIn?.canPop() ?? false) ? t + 1 : NEVER;
  }
}
