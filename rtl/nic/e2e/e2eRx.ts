import { type Channel, Component, type Counter, Fifo, NEVER, type Scope } from '../../kernel/index.ts';
import { NetPacket, packetCrc, PK_ACK, PK_CONN_ACK, PK_CONN_NACK, PK_CONN_REQ } from '../link/packet.ts';
import { type E2eConfig, e2eConfig } from './types.ts';

/** Receiver context states (one explicit state machine per context). */
export const RC_FREE = 0; // not allocated
export const RC_OPEN = 1; // packets admitted in sequence (idle timer: rxIdle)
export const RC_DRAIN = 2; // the last packet admitted: waiting for the receive engine's end of transfer, then the closing ACK
export const RC_STATE_NAMES = ['free', 'open', 'drain'] as const;

/** The receive engine's end of a connection's transfer: the receiver context and the status (0 or an RDMA error code). */
export interface E2eDone {
  rctx: number;
  code: number;
}

/**
 * The receiver side of the reliable end-to-end layer (docs/nic-rdma.md, "Reliable end-to-end").
 * Takes every packet of a connection from the link (`ctlIn`: the link steers packets with `e2e` set
 * here, connectless ones go straight to the receive engine), one per cycle, checks its CRC (the
 * user-level CRC) and:
 * - answers for this NIC's own senders (CONN_ACK, CONN_NACK, ACK) go to the sender side (`toTx`);
 * - CONN_REQ: a context already open for (source, sender context, serial) is answered again
 *   (its CONN_ACK was lost); else the lowest free context is allocated (CONN_ACK with its number)
 *   or, with none free, CONN_NACK;
 * - data: looked up by (source, sender context, serial) in the context table (an associative
 *   match); the packet with the expected sequence number is admitted into the receive buffer
 *   (`rxBuffer` packets, drained one per cycle into the receive engine's `fwdOut`), with an ACK
 *   every `ackEvery` packets; a duplicate is dropped and answered with an ACK; a gap or a CRC error
 *   is dropped and answered with one NACK (go back to the expected packet) until the gap closes; a
 *   packet finding the buffer full is dropped (its successor then NACKs). Packets of a closed
 *   connection get the closing ACK again (the closed table: per source node and sender context the
 *   last serial closed and its status: a lost closing ACK is harmless); of an unknown one are dropped.
 * - the receive engine's end of transfer (`doneIn`): the closing ACK (`fin`, the status in
 *   `reason`) goes out, the connection is recorded in the closed table and the context freed.
 * An open context that sees no packet for `rxIdle` cycles (its sender gave up) is freed. Answers
 * leave through a FIFO onto `ackOut`, one per cycle; a packet needing an answer waits at the input
 * while that FIFO is full.
 */
export class E2eRx extends Component {
  readonly cfg: E2eConfig;
  readonly state: Uint8Array;
  private readonly src: Int32Array;
  private readonly sctx: Int32Array;
  private readonly serial: Int32Array;
  private readonly expect: Float64Array;
  private readonly nackSent: Uint8Array;
  private readonly idle: Float64Array;
  /** closed table: per (source node, sender context) the last serial closed (-1: none) and its status */
  private readonly closedSerial: Int32Array;
  private readonly closedStatus: Uint8Array;
  private readonly acks: Fifo<NetPacket>;
  private readonly buffer: Fifo<NetPacket>;
  private active = 0;
  readonly stats: { admitted: Counter; duplicates: Counter; gaps: Counter; crcErrors: Counter; bufferDrops: Counter; unknown: Counter; accepted: Counter; refused: Counter; closed: Counter; expired: Counter };

  constructor(
    parent: Scope,
    name: string,
    cfg: Partial<E2eConfig>,
    readonly node: number,
    /** nodes that may send (the closed table's rows) */
    readonly nodes: number,
    readonly ctlIn: Channel<NetPacket>,
    private readonly toTx: Channel<NetPacket>,
    private readonly ackOut: Channel<NetPacket>,
    private readonly fwdOut: Channel<NetPacket>,
    readonly doneIn: Channel<E2eDone>,
  ) {
    super(parent, name);
    const c = e2eConfig(cfg);
    this.cfg = c;
    ctlIn.bindConsumer(this);
    toTx.bindProducer(this);
    ackOut.bindProducer(this);
    fwdOut.bindProducer(this);
    doneIn.bindConsumer(this);
    const n = c.receiverContexts;
    this.state = new Uint8Array(n);
    this.src = new Int32Array(n);
    this.sctx = new Int32Array(n);
    this.serial = new Int32Array(n);
    this.expect = new Float64Array(n);
    this.nackSent = new Uint8Array(n);
    this.idle = new Float64Array(n);
    this.closedSerial = new Int32Array(nodes * c.senderContexts).fill(-1);
    this.closedStatus = new Uint8Array(nodes * c.senderContexts);
    this.acks = new Fifo<NetPacket>(this, 4, { name: 'acks' });
    this.buffer = new Fifo<NetPacket>(this, c.rxBuffer, { name: 'buffer' });
    this.stats = {
      admitted: this.counter('admitted'),
      duplicates: this.counter('duplicates'),
      gaps: this.counter('gaps'),
      crcErrors: this.counter('crc_errors'),
      bufferDrops: this.counter('buffer_drops'),
      unknown: this.counter('unknown'),
      accepted: this.counter('conn_accepted'),
      refused: this.counter('conn_refused'),
      closed: this.counter('closed'),
      expired: this.counter('expired'),
    };
  }

  /** No context in use and nothing waiting. */
  get quiet(): boolean {
    return this.active === 0 && !this.ctlIn.canPop() && !this.doneIn.canPop() && this.acks.held() === 0 && this.buffer.held() === 0;
  }

  /** Contexts in use. */
  get inUse(): number {
    return this.active;
  }

  /** an answer to the connection (source `to`, sender context, serial) */
  private answer(kind: number, to: { src: number; ctx: number; serial: number }, seq: number): NetPacket {
    const a = new NetPacket();
    a.kind = kind;
    a.e2e = true;
    a.src = this.node;
    a.dst = to.src;
    a.ctx = to.ctx;
    a.serial = to.serial;
    a.seq = seq;
    a.last = true;
    return a;
  }

  private send(a: NetPacket): void {
    a.crc = packetCrc(a);
    this.acks.push(a);
  }

  private closedAnswer(p: NetPacket, row: number): void {
    const a = this.answer(PK_ACK, p, p.total);
    a.fin = true;
    a.reason = this.closedStatus[row]!;
    this.send(a);
  }

  private lookup(p: NetPacket): number {
    for (let r = 0; r < this.cfg.receiverContexts; r++) {
      if (this.state[r] !== RC_FREE && this.src[r] === p.src && this.sctx[r] === p.ctx && this.serial[r] === p.serial) return r;
    }
    return -1;
  }

  /** One packet from the link; false if it must wait (no room for its answer or its forward). */
  private take(p: NetPacket): boolean {
    const crcOk = packetCrc(p) === p.crc;
    if (p.kind === PK_CONN_ACK || p.kind === PK_CONN_NACK || p.kind === PK_ACK) {
      if (!this.toTx.canPush()) return false;
      if (crcOk) this.toTx.push(p);
      else this.stats.crcErrors.inc();
      return true;
    }
    if (!this.acks.canPush()) return false;
    const row = p.src * this.cfg.senderContexts + p.ctx;
    if (!Number.isInteger(p.src) || p.src < 0 || p.src >= this.nodes || !Number.isInteger(p.ctx) || p.ctx < 0 || p.ctx >= this.cfg.senderContexts) {
      this.stats.unknown.inc();
      return true;
    }
    const r = this.lookup(p);
    if (p.kind === PK_CONN_REQ) {
      if (!crcOk) {
        this.stats.crcErrors.inc();
        return true;
      }
      if (r >= 0) {
        const a = this.answer(PK_CONN_ACK, p, 0);
        a.rctx = r;
        this.send(a);
      } else {
        // (a CONN_REQ of a connection already closed cannot arrive: packets of one pair stay in order
        // and the request precedes the connection's data)
        let f = -1;
        for (let k = 0; k < this.cfg.receiverContexts; k++) {
          if (this.state[k] === RC_FREE) {
            f = k;
            break;
          }
        }
        if (f < 0) {
          this.stats.refused.inc();
          this.send(this.answer(PK_CONN_NACK, p, 0));
        } else {
          this.stats.accepted.inc();
          this.state[f] = RC_OPEN;
          this.src[f] = p.src;
          this.sctx[f] = p.ctx;
          this.serial[f] = p.serial;
          this.expect[f] = 0;
          this.nackSent[f] = 0;
          this.idle[f] = this.cfg.rxIdle;
          this.active++;
          const a = this.answer(PK_CONN_ACK, p, 0);
          a.rctx = f;
          this.send(a);
        }
      }
      return true;
    }
    // a data packet of a connection
    if (r < 0) {
      if (crcOk && this.closedSerial[row] === p.serial) this.closedAnswer(p, row);
      else this.stats.unknown.inc();
      return true;
    }
    if (this.state[r] === RC_DRAIN) {
      this.stats.duplicates.inc(); // the close will answer
      return true;
    }
    this.idle[r] = this.cfg.rxIdle;
    const e = this.expect[r]!;
    if (!crcOk || p.seq > e) {
      if (crcOk) this.stats.gaps.inc();
      else this.stats.crcErrors.inc();
      if (this.nackSent[r] === 0) {
        this.nackSent[r] = 1;
        const a = this.answer(PK_ACK, p, e);
        a.nack = true;
        this.send(a);
      }
      return true;
    }
    if (p.seq < e) {
      this.stats.duplicates.inc();
      this.send(this.answer(PK_ACK, p, e));
      return true;
    }
    if (!this.buffer.canPush()) {
      this.stats.bufferDrops.inc();
      return true;
    }
    p.rctx = r;
    this.buffer.push(p);
    this.stats.admitted.inc();
    this.expect[r] = e + 1;
    this.nackSent[r] = 0;
    if (p.last) this.state[r] = RC_DRAIN;
    else if ((e + 1) % this.cfg.ackEvery === 0) this.send(this.answer(PK_ACK, p, e + 1));
    return true;
  }

  tick(t: number): number {
    // the receive engine's end of a transfer: the closing ACK
    if (this.doneIn.canPop() && this.acks.canPush()) {
      const d = this.doneIn.pop();
      const r = d.rctx;
      const a = this.answer(PK_ACK, { src: this.src[r]!, ctx: this.sctx[r]!, serial: this.serial[r]! }, this.expect[r]!);
      a.fin = true;
      a.reason = d.code;
      this.send(a);
      const row = this.src[r]! * this.cfg.senderContexts + this.sctx[r]!;
      this.closedSerial[row] = this.serial[r]!;
      this.closedStatus[row] = d.code;
      this.state[r] = RC_FREE;
      this.active--;
      this.stats.closed.inc();
    }
    if (this.ctlIn.canPop() && this.take(this.ctlIn.peek())) this.ctlIn.pop();
    for (let r = 0; r < this.cfg.receiverContexts; r++) {
      if (this.state[r] === RC_OPEN && --this.idle[r]! <= 0) {
        this.state[r] = RC_FREE;
        this.active--;
        this.stats.expired.inc();
      }
    }
    if (this.acks.canPop() && this.ackOut.canPush()) this.ackOut.push(this.acks.pop());
    if (this.buffer.canPop() && this.fwdOut.canPush()) this.fwdOut.push(this.buffer.pop());
    return this.active > 0 || this.ctlIn.canPop() || this.doneIn.canPop() || this.acks.held() > 0 || this.buffer.held() > 0 ? t + 1 : NEVER;
  }
}
