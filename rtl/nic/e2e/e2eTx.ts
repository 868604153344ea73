import { type Channel, Component, type Counter, Fifo, NEVER, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';
import { NetPacket, packetCrc, PK_ACK, PK_CONN_ACK, PK_CONN_NACK, PK_CONN_REQ } from '../link/packet.ts';
import { encodeIntq, INT_ERROR, Q_EQ, Q_INTQ, type QueueEntry } from '../queues/types.ts';
import { encodeEvent, EV_ERROR, RE_E2E_FAILED } from '../rdma/types.ts';
import { type E2eConfig, e2eConfig } from './types.ts';

/** Sender context states (one explicit state machine per context, stepped in `tick`). */
export const SC_FREE = 0; // not allocated
export const SC_CONNECT = 1; // CONN_REQ sent, waiting for CONN_ACK / CONN_NACK (timer: timeout)
export const SC_BACKOFF = 2; // NACKed: waiting the back-off before the request goes out again
export const SC_OPEN = 3; // connected: data out within the window, waiting for the closing ACK (timer: timeout)
export const SC_REPORT = 4; // closed or failed: its queue entries wait for room in the report FIFO
export const SC_STATE_NAMES = ['free', 'connect', 'backoff', 'open', 'report'] as const;

/** What the context reports if the receiver's close carries an error, or the transfer fails. */
export interface ErrorTemplate {
  /** the VP the error event goes to (-1: none) */
  vp: number;
  opcode: number;
  userTag: number;
  eventData: number;
  peerNode: number;
  peerVp: number;
  length: number;
}

const MAX_BACKOFF_SHIFT = 4;

/**
 * The sender side of the reliable end-to-end layer (docs/nic-rdma.md, "Reliable end-to-end"):
 * `senderContexts` contexts in a register file (state, destination, serial, receiver context,
 * packet count, window pointers, timer, retry and NACK counts, the error template and the entries
 * to report at the close), and per context a retransmission buffer of `window` packets.
 * - Allocation port (`alloc`, the transmit engine in its `conn` state): the lowest free context, or
 *   -1 (the engine then holds its descriptor: descriptor processing pauses). The context sends a
 *   CONN_REQ at once; the engine meanwhile fetches and streams the data into the context
 *   (`dataIn`), which buffers it until the CONN_ACK (data fetch overlaps connection setup); the
 *   engine pushes a packet only while the context's window has room (`ackedOf`, a credit port).
 * - Answers from the receiver (`ctlIn`, from this NIC's end-to-end receiver): CONN_ACK opens,
 *   CONN_NACK backs off (backoff x 2^min(n, 4)) and asks again, ACK slides the window, an ACK with
 *   `nack` goes back to its sequence number (go-back-N), an ACK with `fin` closes: the entries
 *   the engine left (`complete`) and, if the receiver's status is an error, an error event and
 *   INTQ entry go to `evOut`, and the context is freed.
 * - Timer (a down-counter per context, reloaded with `timeout` by every answer): at zero a
 *   connecting context resends its CONN_REQ, an open one resends from its oldest unacknowledged
 *   packet (at least the last, so a lost close is asked again); after `retries` timeouts in a row
 *   the transfer fails: error event `e2e_failed` (22) and INTQ entry on the VP, context freed.
 * One packet per cycle onto `pktOut` (round-robin over the contexts with something to send: a
 * CONN_REQ or the next packet of the window; a packet is sent as a fresh copy each time), one
 * packet per cycle taken from `dataIn`, one answer per cycle from `ctlIn`, one entry per cycle out.
 */
export class E2eTx extends Component {
  readonly cfg: E2eConfig;
  // ---- the context register file ----
  readonly state: Uint8Array;
  private readonly dst: Int32Array;
  private readonly serial: Uint16Array;
  private readonly rctx: Int32Array;
  private readonly nPk: Float64Array;
  /** oldest unacknowledged, next to send, packets received from the engine */
  private readonly base: Float64Array;
  private readonly next: Float64Array;
  private readonly have: Float64Array;
  /** packets sent at least once (a packet below it goes out again: a retransmission) */
  private readonly high: Float64Array;
  private readonly timer: Float64Array;
  private readonly tries: Int32Array;
  private readonly nacks: Int32Array;
  private readonly needReq: Uint8Array;
  private readonly status: Uint8Array;
  private readonly vp: Int32Array;
  private readonly tmpl: ErrorTemplate[];
  private readonly okEntries: QueueEntry[][];
  /** retransmission buffers: window slots per context */
  private readonly buf: (NetPacket | null)[];
  private readonly arb: RoundRobinArbiter;
  private readonly sendable: (c: number) => boolean;
  private readonly reports: Fifo<QueueEntry>;
  private active = 0;
  readonly stats: { connections: Counter; completed: Counter; failed: Counter; requests: Counter; nacked: Counter; sent: Counter; resent: Counter; timeouts: Counter; pauses: Counter };

  constructor(
    parent: Scope,
    name: string,
    cfg: Partial<E2eConfig>,
    /** this NIC's node */
    readonly node: number,
    /** packets of connections from the transmit engine (context, serial, sequence number set) */
    readonly dataIn: Channel<NetPacket>,
    /** CONN_ACK / CONN_NACK / ACK for this NIC's senders, from its end-to-end receiver */
    readonly ctlIn: Channel<NetPacket>,
    private readonly pktOut: Channel<NetPacket>,
    private readonly evOut: Channel<QueueEntry>,
  ) {
    super(parent, name);
    const c = e2eConfig(cfg);
    this.cfg = c;
    const n = c.senderContexts;
    dataIn.bindConsumer(this);
    ctlIn.bindConsumer(this);
    pktOut.bindProducer(this);
    evOut.bindProducer(this);
    this.state = new Uint8Array(n);
    this.dst = new Int32Array(n);
    this.serial = new Uint16Array(n);
    this.rctx = new Int32Array(n);
    this.nPk = new Float64Array(n);
    this.base = new Float64Array(n);
    this.next = new Float64Array(n);
    this.have = new Float64Array(n);
    this.high = new Float64Array(n);
    this.timer = new Float64Array(n);
    this.tries = new Int32Array(n);
    this.nacks = new Int32Array(n);
    this.needReq = new Uint8Array(n);
    this.status = new Uint8Array(n);
    this.vp = new Int32Array(n);
    this.tmpl = Array.from({ length: n }, () => ({ vp: -1, opcode: 0, userTag: 0, eventData: 0, peerNode: 0, peerVp: 0, length: 0 }));
    this.okEntries = Array.from({ length: n }, () => []);
    this.buf = new Array<NetPacket | null>(n * c.window).fill(null);
    this.arb = new RoundRobinArbiter(this, 'arb', n);
    this.sendable = (k: number): boolean => this.needReq[k] === 1 || (this.state[k] === SC_OPEN && this.next[k]! < this.have[k]!);
    this.reports = new Fifo<QueueEntry>(this, 16, { name: 'reports' });
    this.stats = {
      connections: this.counter('connections'),
      completed: this.counter('completed'),
      failed: this.counter('failed'),
      requests: this.counter('conn_requests'),
      nacked: this.counter('conn_nacked'),
      sent: this.counter('data_sent'),
      resent: this.counter('data_resent'),
      timeouts: this.counter('timeouts'),
      pauses: this.counter('alloc_refused'),
    };
  }

  /** No context in use and nothing waiting at the inputs or in the report FIFO. */
  get idle(): boolean {
    return this.active === 0 && !this.dataIn.canPop() && !this.ctlIn.canPop() && !this.reports.canPop();
  }

  /** Contexts in use. */
  get inUse(): number {
    return this.active;
  }

  /**
   * Allocation port: a context for a connection to `dst` carrying `nPk` packets, reporting to
   * template `t`; its index, or -1 when every context is in use (counted: a pause of the engine).
   */
  alloc(dst: number, nPk: number, t: ErrorTemplate): number {
    const n = this.cfg.senderContexts;
    let c = -1;
    for (let k = 0; k < n; k++) {
      if (this.state[k] === SC_FREE) {
        c = k;
        break;
      }
    }
    if (c < 0) {
      this.stats.pauses.inc();
      return -1;
    }
    this.state[c] = SC_CONNECT;
    this.dst[c] = dst;
    this.serial[c] = (this.serial[c]! + 1) & 0xffff;
    this.nPk[c] = nPk;
    this.base[c] = 0;
    this.next[c] = 0;
    this.have[c] = 0;
    this.high[c] = 0;
    this.timer[c] = this.cfg.timeout;
    this.tries[c] = 0;
    this.nacks[c] = 0;
    this.needReq[c] = 1;
    this.status[c] = 0;
    Object.assign(this.tmpl[c]!, t);
    this.okEntries[c]!.length = 0;
    this.active++;
    this.stats.connections.inc();
    this.wake(this.sim.cycle + 1);
    return c;
  }

  /** The serial number context c's current connection carries. */
  serialOf(c: number): number {
    return this.serial[c]!;
  }

  /**
   * Credit port: packets of context c's transfer acknowledged so far. The engine pushes packet k
   * only while k - acked < window, so a packet at the head of `dataIn` always has a slot in its
   * context's buffer (no context's full window ever blocks another's packets).
   */
  ackedOf(c: number): number {
    return this.base[c]!;
  }

  /** Context c no longer carries connection `serial` (it failed): the engine's remaining packets of it are discarded. */
  gone(c: number, serial: number): boolean {
    const st = this.state[c]!;
    return st === SC_FREE || st === SC_REPORT || this.serial[c] !== serial;
  }

  /** The engine's entries for a successful close of context c (local event, descriptor interrupt, a served GET's remote event). */
  complete(c: number, entries: readonly QueueEntry[]): void {
    if (this.state[c] === SC_FREE || this.state[c] === SC_REPORT) return; // the connection failed: its error is reported instead
    this.okEntries[c]!.push(...entries);
  }

  private control(kind: number, c: number): NetPacket {
    const p = new NetPacket();
    p.kind = kind;
    p.e2e = true;
    p.src = this.node;
    p.dst = this.dst[c]!;
    p.ctx = c;
    p.serial = this.serial[c]!;
    p.total = this.nPk[c]!;
    p.last = true;
    p.srcVp = this.tmpl[c]!.vp < 0 ? 0 : this.tmpl[c]!.vp;
    p.crc = packetCrc(p);
    return p;
  }

  /** An answer from the receiver. */
  private answer(p: NetPacket): void {
    const c = p.ctx;
    if (!Number.isInteger(c) || c < 0 || c >= this.cfg.senderContexts) return;
    const st = this.state[c]!;
    if (st === SC_FREE || st === SC_REPORT || p.serial !== this.serial[c] || p.src !== this.dst[c]) return; // stale: an earlier connection's
    if (p.kind === PK_CONN_ACK) {
      if (st !== SC_CONNECT) return;
      this.rctx[c] = p.rctx;
      this.state[c] = SC_OPEN;
      this.needReq[c] = 0;
      this.tries[c] = 0;
      this.timer[c] = this.cfg.timeout;
      return;
    }
    if (p.kind === PK_CONN_NACK) {
      if (st !== SC_CONNECT) return;
      this.stats.nacked.inc();
      this.state[c] = SC_BACKOFF;
      this.needReq[c] = 0;
      this.tries[c] = 0;
      this.timer[c] = this.cfg.backoff * 2 ** Math.min(this.nacks[c]!, MAX_BACKOFF_SHIFT);
      this.nacks[c]!++;
      return;
    }
    if (p.kind !== PK_ACK || st !== SC_OPEN) return;
    // any answer shows the path works: the retry count starts again
    this.tries[c] = 0;
    this.timer[c] = this.cfg.timeout;
    if (p.fin) {
      this.status[c] = p.reason;
      this.close(c, false);
      return;
    }
    // without the close, at most nPk - 1 packets count as acknowledged: the last stays resendable
    const a = Math.min(p.seq, this.nPk[c]! - 1);
    if (a > this.base[c]!) this.base[c] = a;
    if (p.nack) this.next[c] = this.base[c]!;
    else if (this.next[c]! < this.base[c]!) this.next[c] = this.base[c]!;
  }

  /** The connection is over: its entries are reported, then it is freed (SC_REPORT until the FIFO has room). */
  private close(c: number, failed: boolean): void {
    this.state[c] = SC_REPORT;
    this.needReq[c] = 0;
    if (failed) {
      this.status[c] = RE_E2E_FAILED;
      this.okEntries[c]!.length = 0;
    }
    for (let k = 0; k < this.cfg.window; k++) this.buf[c * this.cfg.window + k] = null;
    if (failed) this.stats.failed.inc();
    else this.stats.completed.inc();
  }

  private report(c: number): boolean {
    const ok = this.okEntries[c]!;
    const t = this.tmpl[c]!;
    const code = this.status[c]!;
    const errs = code !== 0 && t.vp >= 0 ? 2 : 0;
    if (this.reports.capacity - this.reports.held() < ok.length + errs) return false;
    for (const e of ok) this.reports.push(e);
    ok.length = 0;
    if (errs > 0) {
      this.reports.push({ kind: Q_EQ, vp: t.vp, data: encodeEvent({ type: EV_ERROR, opcode: t.opcode, code, userTag: t.userTag, peerNode: t.peerNode, peerVp: t.peerVp, eventData: t.eventData, length: t.length, addr: 0 }) });
      this.reports.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code, vp: t.vp, info: t.userTag, addr: 0 }) });
    }
    this.state[c] = SC_FREE;
    this.active--;
    return true;
  }

  /** The context's timer ran out. */
  private expire(c: number): void {
    const st = this.state[c]!;
    if (st === SC_BACKOFF) {
      this.state[c] = SC_CONNECT;
      this.needReq[c] = 1;
      this.timer[c] = this.cfg.timeout;
      return;
    }
    this.stats.timeouts.inc();
    this.tries[c]!++;
    if (this.tries[c]! > this.cfg.retries) return this.close(c, true);
    this.timer[c] = this.cfg.timeout;
    if (st === SC_CONNECT) this.needReq[c] = 1;
    else this.next[c] = Math.min(this.base[c]!, this.nPk[c]! - 1);
  }

  tick(t: number): number {
    const n = this.cfg.senderContexts;
    const W = this.cfg.window;
    if (this.ctlIn.canPop()) this.answer(this.ctlIn.pop());
    // one packet of the engine into its context's buffer, while the window has room
    if (this.dataIn.canPop()) {
      const p = this.dataIn.peek();
      const c = p.ctx;
      if (this.gone(c, p.serial)) this.dataIn.pop(); // the connection already failed
      else if (this.have[c]! - this.base[c]! < W) {
        this.dataIn.pop();
        this.buf[c * W + (this.have[c]! % W)] = p;
        this.have[c]!++;
      }
    }
    // timers and reports
    for (let c = 0; c < n; c++) {
      const st = this.state[c]!;
      if (st === SC_FREE) continue;
      if (st === SC_REPORT) {
        this.report(c);
        continue;
      }
      // an open context with everything it has been given acknowledged waits for the engine, not for an answer
      if (st === SC_OPEN && this.base[c]! >= this.have[c]! && this.have[c]! < this.nPk[c]!) this.timer[c] = this.cfg.timeout;
      else if (--this.timer[c]! <= 0) this.expire(c);
    }
    // one packet out
    if (this.active > 0 && this.pktOut.canPush()) {
      const c = this.arb.grant(this.sendable);
      if (c >= 0) {
        if (this.needReq[c] === 1) {
          this.needReq[c] = 0;
          this.stats.requests.inc();
          this.pktOut.push(this.control(PK_CONN_REQ, c));
        } else {
          const k = this.next[c]!;
          const p = this.buf[c * W + (k % W)]!;
          const q = new NetPacket();
          Object.assign(q, p);
          q.arriveCycle = -1;
          this.pktOut.push(q);
          if (k < this.high[c]!) this.stats.resent.inc();
          else {
            this.stats.sent.inc();
            this.high[c] = k + 1;
          }
          this.next[c] = k + 1;
        }
      }
    }
    if (this.reports.canPop() && this.evOut.canPush()) this.evOut.push(this.reports.pop());
    return this.active > 0 || this.dataIn.canPop() || this.ctlIn.canPop() || this.reports.held() > 0 ? t + 1 : NEVER;
  }
}
