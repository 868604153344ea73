/**
 * ConnectX-2-style HCA with CORE-Direct (seed 001): one per node, shared by the node's processes.
 * Per process: QPs (a send queue and a receive queue each, a receive CQ per QP), one send CQ, and
 * one management queue (MQ) with its CQ. Block diagram, timing and limits: docs/coredirect.md.
 *
 * Packets between two nodes share one link channel (so each QP's packets arrive in order, as RC
 * guarantees). A send that finds no enabled receive WQE is taken off the link and held for its QP
 * (the receiver-not-ready case: in the hardware the sender retries after an RNR NACK); later
 * packets of that QP queue behind it, other QPs go on. Held packets are taken, in order, once a
 * receive WQE is there.
 *
 * Datapath, per cycle:
 * 1. Doorbells: at most one posted batch per process is appended to its queues (all or nothing:
 *    a batch that would overflow any queue is refused and reported to the host).
 * 2. Engine (one, shared by every queue and the receive path): when idle it grants one ready
 *    requester, an arrived packet (round robin over the inbound links) before the eligible head of
 *    a send queue or MQ (round robin over the queues with posted work), and is then busy for the
 *    operation's cost. Costs: a task `taskNs`, a received packet `rxNs`
 *    (+ `rqFetchNs` for a send, which consumes a receive WQE), + `ctxMissNs` when the QP's context
 *    misses the direct-mapped context cache.
 *    - send / RDMA write (imm): the packet leaves on the QP's link, arriving at the peer at
 *      grant + cost + wire (or loopback) latency (+ optional jitter; per-link order is kept: RC);
 *    - wait (CQ, n): eligible once n completions of that CQ are not yet consumed by waits;
 *    - send_enable / recv_enable (QP, k): en = max(en, k + 1); k never posted: the MQ goes to the
 *      error state (its later tasks are not run), the host is told, other queues go on;
 *    - arrival: send -> consumes the head receive WQE (an arrival with no enabled receive WQE waits
 *      at the head of its link: receiver not ready), CQE on the QP's receive CQ; RDMA write with
 *      immediate -> CQE, no WQE; RDMA write -> data in host memory (host told after PCIe latency).
 *    A task flagged signal tells the host (MQ CQ) that its MWR completed, PCIe latency later.
 * Internal state changes (indices, CQ counts) are next-state writes, visible the next cycle; the
 * engine is busy for at least a cycle, so an operation never sees its own effect early.
 */
import { Channel, Component, type Counter, NEVER, NumChannel, Reg, type Rng, RoundRobinArbiter, type Scope } from '../kernel/index.ts';
import { PendingArbiter } from './pendingArbiter.ts';
import type { HcaParams } from './params.ts';
import { F_SIGNAL, type PostedEntry, Q_MQ, queueName, T_RDMA_WRITE, T_RDMA_WRITE_IMM, T_RECV_ENABLE, T_SEND, T_SEND_ENABLE, T_WAIT, TASK_NAMES } from './tasks.ts';
import { WorkQueue } from './workQueue.ts';

/** Host notifications (a CQE or memory write seen by the host): kind in bits 16..19 of the word. */
export const N_MWR_DONE = 1;
export const N_RECV = 2;
export const N_MEM = 3;
export const N_ERROR = 4;
export const N_REJECT = 5;
const NOTE_SCALE = 1 << 20;
/** Packet word on a node-to-node link: readyAt * 2^21 + process * 2^15 + qp * 2^3 + kind. */
const PKT_SCALE = 1 << 21;

/** Notification word: readyAt * 2^20 + kind * 2^16 + arg (readyAt < 2^33 cycles). */
export function noteReady(w: number): number {
  return Math.floor(w / NOTE_SCALE);
}
export function noteKind(w: number): number {
  return (w % NOTE_SCALE) >>> 16;
}
export function noteArg(w: number): number {
  return w & 0xffff;
}

/** One process's view of the HCA. */
export interface HcaProcessPorts {
  /** batches of posted entries from the driver (PCIe doorbell latency) */
  readonly doorbell: Channel<PostedEntry[]>;
  /** notifications to the host (each word carries the cycle it becomes visible) */
  readonly notify: NumChannel;
}

export interface HcaOptions {
  /** QPs of each process on this HCA */
  qps: readonly number[];
  /** global rank of each process (for messages) */
  ranks: readonly number[];
  /** receive CQEs also go to the host (CPU-progressed send/recv barrier) */
  recvCqToHost: boolean;
  /** extra random packet delay, uniform in [0, jitterNs] (property tests), with its generator */
  jitterNs?: number;
  rng?: Rng;
  /** record executed operations (tests) */
  log?: boolean;
}

/** One executed operation (recorded when `log` is set). */
export interface HcaEvent {
  cycle: number;
  proc: number;
  /** queue name (sq3, mq, rq1 for an arrival consumed there, in3 for an arrival on QP 3) */
  queue: string;
  index: number;
  kind: string;
  /** enables: the QP and index they reach (else -1) */
  qp: number;
  target: number;
}

export class Hca extends Component {
  readonly ports: HcaProcessPorts[] = [];
  readonly errors: string[] = [];
  readonly events: HcaEvent[] = [];
  /** queues the engine executes: each process's send queues, then its MQ */
  private readonly exec: WorkQueue[] = [];
  private readonly execProc: Int32Array;
  private readonly execQp: Int32Array;
  private readonly execQpn: Int32Array;
  /** entries posted and not yet executed, per executable queue (a fast "is there anything" check) */
  private readonly execPending: Int32Array;
  /**
   * A queue whose head cannot run until something else happens is parked (taken out of the task
   * arbiter): a disabled head until an enable reaches its queue, a wait until its CQ gets a
   * completion. Parking only saves evaluation work; what runs when is unchanged.
   */
  private readonly parked: Uint8Array;
  /** [process][cq] the executable queues parked on that CQ */
  private readonly cqWaiters: number[][][] = [];
  /** [process][qp] send and receive queues */
  readonly sq: WorkQueue[][] = [];
  readonly rq: WorkQueue[][] = [];
  readonly mq: WorkQueue[] = [];
  /** [process][cq] completions produced (cq: per-QP receive CQs, then send CQ, then MQ CQ) */
  readonly cqProduced: Reg[][] = [];
  private readonly cqConsumed: Float64Array[] = [];
  readonly mqFailed: boolean[] = [];
  /**
   * Links: one channel per pair of nodes that talk (and one to itself, the loopback), shared by all
   * QPs between them, so the packets of one QP arrive in order (RC). Per [process][qp]: the link,
   * its latency, the destination code (process * 2^12 + qp at the peer) and the last arrival time.
   */
  private readonly outCh: (NumChannel | null)[][] = [];
  private readonly outLat: number[][] = [];
  private readonly outDest: number[][] = [];
  private readonly linkTo = new Map<Hca, NumChannel>();
  private readonly linkLast = new Map<NumChannel, number>();
  private readonly inCh: NumChannel[] = [];
  /** per QP number: packets held because a send found no receive WQE (kinds, in arrival order) */
  private readonly held: number[][] = [];
  /** QP numbers with held packets */
  private readonly heldQps: number[] = [];
  private readonly qpnBase: number[] = [];
  private readonly ctxTag: Int32Array;
  private readonly busy: Reg;
  /** the receive path: round robin over the inbound links (few: one per peer node) */
  private rxArb: RoundRobinArbiter | null = null;
  /** the task path: round robin over the queues holding posted, unexecuted entries */
  private readonly txArb: PendingArbiter;
  private readonly rxReady: (i: number) => boolean;
  private readonly txReady: (i: number) => boolean;
  private now = 0;
  private readonly stat: { tasks: Counter; arrivals: Counter; ctxMisses: Counter; rnr: Counter; rejects: Counter; errors: Counter; noopEnables: Counter };

  constructor(
    parent: Scope,
    name: string,
    readonly params: HcaParams,
    readonly opts: HcaOptions,
  ) {
    super(parent, name);
    const P = opts.qps.length;
    let qpn = 0;
    const execProc: number[] = [];
    const execQp: number[] = [];
    const execQpn: number[] = [];
    for (let p = 0; p < P; p++) {
      const nq = opts.qps[p]!;
      this.qpnBase.push(qpn);
      const sqs: WorkQueue[] = [];
      const rqs: WorkQueue[] = [];
      for (let j = 0; j < nq; j++) {
        sqs.push(new WorkQueue(this, `p${p}_sq${j}`, params.sqLength));
        rqs.push(new WorkQueue(this, `p${p}_rq${j}`, params.rqLength));
        this.exec.push(sqs[j]!);
        execProc.push(p);
        execQp.push(j);
        execQpn.push(qpn + j);
      }
      const m = new WorkQueue(this, `p${p}_mq`, params.mqLength);
      this.exec.push(m);
      execProc.push(p);
      execQp.push(-1);
      execQpn.push(qpn + nq);
      qpn += nq + 1;
      this.sq.push(sqs);
      this.rq.push(rqs);
      this.mq.push(m);
      this.cqProduced.push(Array.from({ length: nq + 2 }, (_, c) => new Reg(this, `p${p}_cq${c}`, 32)));
      this.cqConsumed.push(new Float64Array(nq + 2));
      this.mqFailed.push(false);
      this.outCh.push(new Array<NumChannel | null>(nq).fill(null));
      this.outLat.push(new Array<number>(nq).fill(0));
      this.outDest.push(new Array<number>(nq).fill(0));
      this.ports.push({
        doorbell: new Channel<PostedEntry[]>(this, `p${p}_doorbell`, { capacity: 64, latency: params.pcieNs }).bindConsumer(this),
        notify: new NumChannel(this, `p${p}_notify`, { capacity: 1 << 20, latency: 1 }).bindProducer(this),
      });
    }
    this.execProc = Int32Array.from(execProc);
    this.execQp = Int32Array.from(execQp);
    this.execQpn = Int32Array.from(execQpn);
    this.execPending = new Int32Array(execQpn.length);
    this.parked = new Uint8Array(execQpn.length);
    for (let p = 0; p < P; p++) this.cqWaiters.push(Array.from({ length: opts.qps[p]! + 2 }, () => []));
    this.ctxTag = new Int32Array(params.ctxEntries).fill(-1);
    for (let i = 0; i < qpn; i++) this.held.push([]);
    this.busy = new Reg(this, 'busy_until', 40);
    this.txArb = new PendingArbiter(this, 'tx_arb', this.exec.length);
    this.rxReady = (i: number): boolean => this.ready(i);
    this.txReady = (x: number): boolean => this.ready(this.inCh.length + x);
    this.stat = {
      tasks: this.counter('tasks'),
      arrivals: this.counter('arrivals'),
      ctxMisses: this.counter('ctx_misses'),
      rnr: this.counter('rnr_stalls'),
      rejects: this.counter('rejected_posts'),
      errors: this.counter('mq_errors'),
      noopEnables: this.counter('noop_enables'),
    };
  }

  /** Connect QP `qp` of process `proc` here to QP `peerQp` of `peerProc` on `peer` (both directions). */
  static connect(a: Hca, procA: number, qpA: number, b: Hca, procB: number, qpB: number): void {
    if (qpA >= 4096 || qpB >= 4096) throw new RangeError(`QP index above 4095 (${qpA}, ${qpB})`);
    const lat = a === b ? a.params.loopbackNs : a.params.wireNs;
    const ab = a.link(b);
    const ba = b.link(a);
    a.outCh[procA]![qpA] = ab;
    a.outLat[procA]![qpA] = lat;
    a.outDest[procA]![qpA] = procB * 4096 + qpB;
    b.outCh[procB]![qpB] = ba;
    b.outLat[procB]![qpB] = lat;
    b.outDest[procB]![qpB] = procA * 4096 + qpA;
  }

  private link(to: Hca): NumChannel {
    let ch = this.linkTo.get(to);
    if (ch === undefined) {
      const name = to === this ? 'loopback' : `link_${to._info.path.replace(/\./g, '_')}`;
      ch = new NumChannel(this, name, { capacity: 1 << 16, latency: 1 }).bindProducer(this).bindConsumer(to);
      this.linkTo.set(to, ch);
      this.linkLast.set(ch, 0);
      to.inCh.push(ch);
    }
    return ch;
  }

  /** Call once after every connect(): sizes the arbiter over arrivals + executable queues. */
  finish(): void {
    this.rxArb = new RoundRobinArbiter(this, 'rx_arb', Math.max(1, this.inCh.length));
  }

  /** What process p's MQ is doing (reports): its head task, or why it is stopped. */
  mqStatus(p: number): string {
    const m = this.mq[p]!;
    if (this.mqFailed[p]) return 'MQ in error state';
    if (m.occupancy() === 0) return 'MQ empty';
    const k = m.headKind();
    const what = TASK_NAMES[k] ?? String(k);
    if (k === T_WAIT) {
      const cq = m.headCq();
      return `MQ task ${m.ci.q} ${what} on CQ ${cq}: ${this.cqProduced[p]![cq]!.q - this.cqConsumed[p]![cq]!} of ${m.headCount()} completions`;
    }
    return `MQ task ${m.ci.q} ${what}`;
  }

  /** QP number of (process, qp) (the context-cache index) */
  qpn(proc: number, qp: number): number {
    return this.qpnBase[proc]! + qp;
  }

  tick(t: number): number {
    const P = this.ports.length;
    let more = false;
    for (let p = 0; p < P; p++) {
      const db = this.ports[p]!.doorbell;
      if (db.canPop()) {
        this.doorbell(t, p, db.pop());
        more = true; // appended entries are visible next cycle (and there may be another batch)
      }
    }
    const busyUntil = this.busy.q;
    if (t < busyUntil) return more ? t + 1 : busyUntil;
    this.now = t;
    // one operation per engine slot: an arrived packet first (the receive path has priority), else a task
    let cost = 0;
    const g = this.inCh.length > 0 ? this.rxArb!.grant(this.rxReady) : -1;
    if (g >= 0) cost = this.arrive(t, g);
    else if (this.heldQps.length > 0 && (cost = this.retryHeld(t)) > 0) {
      // a held packet was taken
    } else {
      const x = this.txArb.grant(this.txReady);
      if (x >= 0) cost = this.execute(t, x);
    }
    if (cost > 0) {
      this.busy.d = t + cost;
      return more ? t + 1 : t + cost;
    }
    if (more) return t + 1;
    // idle: sleep until the earliest packet still in flight (doorbells wake us by themselves)
    let wake = NEVER;
    for (let i = 0; i < this.inCh.length; i++) {
      const ch = this.inCh[i]!;
      if (ch.canPop()) {
        const r = Math.floor(ch.peek() / PKT_SCALE);
        if (r > t && r < wake) wake = r;
      }
    }
    return wake;
  }

  private doorbell(t: number, p: number, batch: PostedEntry[]): void {
    // all or nothing: count what each queue receives
    for (const e of batch) {
      const q = this.queueOf(p, e.queue);
      if (q === null || !q.fits(this.countFor(batch, e.queue))) {
        const why = q === null ? `names queue ${queueName(e.queue)}, which process ${p} does not have` : `would overflow ${queueName(e.queue)} (${q.occupancy()} of ${q.length} entries in use)`;
        this.fail(t, p, N_REJECT, `rank ${this.opts.ranks[p]}: post of ${batch.length} entries refused: it ${why}; nothing was posted`);
        this.stat.rejects.inc();
        return;
      }
    }
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i]!;
      this.queueOf(p, e.queue)!.append(batch, i, i + 1);
      if ((e.queue & 1) === 0 || e.queue === Q_MQ) {
        const x = this.execIndex(p, e.queue);
        if (this.execPending[x]!++ === 0 && this.parked[x] === 0) this.txArb.mark(x, true);
      }
    }
  }

  private countFor(batch: PostedEntry[], queue: number): number {
    let n = 0;
    for (const e of batch) if (e.queue === queue) n++;
    return n;
  }

  /** index in the executable-queue list of process p's send queue (queue even) or MQ */
  private execIndex(p: number, queue: number): number {
    const base = this.qpnBase[p]!; // the exec list has the same layout as the QP numbers
    return queue === Q_MQ ? base + this.sq[p]!.length : base + (queue >> 1);
  }

  private queueOf(p: number, queue: number): WorkQueue | null {
    if (queue === Q_MQ) return this.mq[p]!;
    const qp = queue >> 1;
    if (!(Number.isInteger(queue) && queue >= 0 && qp < this.sq[p]!.length)) return null;
    return (queue & 1) === 0 ? this.sq[p]![qp]! : this.rq[p]![qp]!;
  }

  private ready(i: number): boolean {
    const nIn = this.inCh.length;
    if (i < nIn) {
      const ch = this.inCh[i]!;
      if (!ch.canPop()) return false;
      const w = ch.peek();
      if (Math.floor(w / PKT_SCALE) > this.now) return false;
      return true; // a send without a receive WQE is taken too, and held (arrive())
    }
    const x = i - nIn;
    if (this.execPending[x] === 0) return false;
    const q = this.exec[x]!;
    const p = this.execProc[x]!;
    if (!q.headEnabled()) {
      if (q.headDisabled()) this.park(x); // an enable of this queue unparks it
      return false; // (or the posted entries become visible next cycle)
    }
    const qp = this.execQp[x]!;
    if (qp < 0 && this.mqFailed[p]) {
      this.park(x); // for good
      return false;
    }
    const k = q.headKind();
    if (k === T_WAIT) {
      const cq = q.headCq();
      if (this.cqProduced[p]![cq]!.q - this.cqConsumed[p]![cq]! >= q.headCount()) return true;
      this.park(x);
      this.cqWaiters[p]![cq]!.push(x);
      return false;
    }
    if (k === T_SEND || k === T_RDMA_WRITE || k === T_RDMA_WRITE_IMM) {
      const ch = this.outCh[p]![q.headQp()];
      return ch === null || ch === undefined || ch.canPush();
    }
    return true;
  }

  private park(x: number): void {
    this.parked[x] = 1;
    this.txArb.mark(x, false);
  }

  private unpark(x: number): void {
    if (this.parked[x] === 0) return;
    this.parked[x] = 0;
    if (this.execPending[x]! > 0) this.txArb.mark(x, true);
  }

  /** a completion on (p, cq): its parked waiters are checked again */
  private produce(p: number, cq: number): void {
    const c = this.cqProduced[p]![cq]!;
    c.d = c.next + 1;
    const w = this.cqWaiters[p]![cq]!;
    while (w.length > 0) this.unpark(w.pop()!);
  }

  private ctx(qpn: number): number {
    const s = qpn % this.params.ctxEntries;
    if (this.ctxTag[s] === qpn) return 0;
    this.ctxTag[s] = qpn;
    this.stat.ctxMisses.inc();
    return this.params.ctxMissNs;
  }

  private note(t: number, p: number, kind: number, arg: number): void {
    this.ports[p]!.notify.push((t + this.params.pcieNs) * NOTE_SCALE + kind * 65536 + (arg & 0xffff));
  }

  private fail(t: number, p: number, kind: number, msg: string): void {
    this.errors.push(msg);
    this.note(t, p, kind, this.errors.length - 1);
  }

  /** Take the first held packet whose QP now has a receive WQE (or is no longer blocked); 0 if none. */
  private retryHeld(t: number): number {
    for (let k = 0; k < this.heldQps.length; k++) {
      const n = this.heldQps[k]!;
      const h = this.held[n]!;
      const p = this.procOfQpn(n);
      const qp = n - this.qpnBase[p]!;
      if (h[0] === T_SEND && !this.rq[p]![qp]!.headEnabled()) continue;
      const kind = h.shift()!;
      if (h.length === 0) this.heldQps.splice(k, 1);
      return this.take(t, p, qp, kind);
    }
    return 0;
  }

  private procOfQpn(n: number): number {
    let p = 0;
    while (p + 1 < this.qpnBase.length && this.qpnBase[p + 1]! <= n) p++;
    return p;
  }

  private arrive(t: number, i: number): number {
    const code = this.inCh[i]!.pop() % PKT_SCALE;
    const p = code >>> 15;
    const qp = (code >>> 3) & 4095;
    const kind = code & 7;
    const n = this.qpn(p, qp);
    const h = this.held[n]!;
    if (h.length > 0 || (kind === T_SEND && !this.rq[p]![qp]!.headEnabled())) {
      // receiver not ready (or packets of this QP already held): hold it, in order
      if (h.length === 0) this.heldQps.push(n);
      h.push(kind);
      this.stat.rnr.inc();
      return this.params.rxNs;
    }
    return this.take(t, p, qp, kind);
  }

  /** Process an arrived packet for (p, qp): receive WQE, CQE, or memory write. Returns the cost. */
  private take(t: number, p: number, qp: number, kind: number): number {
    let cost = this.params.rxNs + this.ctx(this.qpn(p, qp));
    this.stat.arrivals.inc();
    if (this.opts.log) this.events.push({ cycle: t, proc: p, queue: `in${qp}`, index: -1, kind: TASK_NAMES[kind]!, qp, target: -1 });
    if (kind === T_RDMA_WRITE) {
      this.note(t + cost, p, N_MEM, qp);
      return cost;
    }
    if (kind === T_SEND) {
      cost += this.params.rqFetchNs;
      const r = this.rq[p]![qp]!;
      if (this.opts.log) this.events.push({ cycle: t, proc: p, queue: `rq${qp}`, index: r.ci.q, kind: 'recv', qp, target: -1 });
      r.consumeHead();
    }
    this.produce(p, qp);
    if (this.opts.recvCqToHost) this.note(t + cost, p, N_RECV, qp);
    return cost;
  }

  private execute(t: number, x: number): number {
    const q = this.exec[x]!;
    const p = this.execProc[x]!;
    const kind = q.headKind();
    const flags = q.headFlags();
    const index = q.ci.q;
    let cost = this.params.taskNs + this.ctx(this.execQpn[x]!);
    this.stat.tasks.inc();
    if (this.opts.log) this.events.push({ cycle: t, proc: p, queue: this.execQp[x]! < 0 ? 'mq' : `sq${this.execQp[x]}`, index, kind: TASK_NAMES[kind] ?? String(kind), qp: kind === T_SEND_ENABLE || kind === T_RECV_ENABLE ? q.headQp() : -1, target: kind === T_SEND_ENABLE || kind === T_RECV_ENABLE ? q.headTarget() : -1 });
    q.consumeHead();
    if (--this.execPending[x]! === 0) this.txArb.mark(x, false);
    switch (kind) {
      case T_SEND:
      case T_RDMA_WRITE:
      case T_RDMA_WRITE_IMM: {
        const qp = q.headQp();
        const ch = this.outCh[p]![qp];
        if (ch === null || ch === undefined) {
          this.fail(t, p, N_ERROR, `rank ${this.opts.ranks[p]}: ${TASK_NAMES[kind]} on QP ${qp}, which is not connected`);
          this.stat.errors.inc();
          return cost;
        }
        const jit = this.opts.jitterNs ? this.opts.rng!.int(this.opts.jitterNs + 1) : 0;
        const at = Math.max(this.linkLast.get(ch)!, t + cost + this.outLat[p]![qp]! + jit);
        this.linkLast.set(ch, at);
        ch.push(at * PKT_SCALE + this.outDest[p]![qp]! * 8 + kind);
        this.produce(p, this.sq[p]!.length);
        break;
      }
      case T_WAIT: {
        const cq = q.headCq();
        this.cqConsumed[p]![cq]! += q.headCount();
        break;
      }
      case T_SEND_ENABLE:
      case T_RECV_ENABLE: {
        const qp = q.headQp();
        const target = kind === T_SEND_ENABLE ? this.sq[p]![qp]! : this.rq[p]![qp]!;
        const k = q.headTarget();
        if (k < target.pi.q && (k < target.ci.q || target.isEnabled(k))) this.stat.noopEnables.inc(); // already eligible (or run)
        if (kind === T_SEND_ENABLE) this.unpark(this.execIndex(p, 2 * qp));
        if (!target.enableUpTo(k)) {
          this.mqFailed[p] = true;
          this.stat.errors.inc();
          this.fail(t, p, N_ERROR, `rank ${this.opts.ranks[p]}: MQ task ${index} (${TASK_NAMES[kind]} of ${kind === T_SEND_ENABLE ? 'sq' : 'rq'}${qp} up to index ${k}): entry ${k} was never posted (that queue holds indices below ${target.pi.q}); the MQ stops, other queues go on`);
          return cost;
        }
        break;
      }
      default:
        this.mqFailed[p] = true;
        this.stat.errors.inc();
        this.fail(t, p, N_ERROR, `rank ${this.opts.ranks[p]}: unknown task kind ${kind} at ${queueName(this.execQp[x]! < 0 ? Q_MQ : 2 * this.execQp[x]!)} index ${index}`);
        return cost;
    }
    if (flags & F_SIGNAL) this.note(t + cost, p, N_MWR_DONE, 0);
    return cost;
  }
}
