/**
 * A host: the SHArP host library on the CPU and its HCA (ConnectX-4 in the seed's testbed),
 * connected to its leaf switch by one 100 Gb/s link (seed 000 sections IV, V).
 *
 * Host library (per group, from the AM's group-ready message): operation sequence numbers,
 * outstanding-operation and buffer-byte limits (an operation is started only when both have room,
 * so the ANs' quotas can never be exceeded by a well-behaved host: no deadlock by construction),
 * fragmentation of messages over 256 bytes into pipelined operations with several in flight,
 * reassembly, and completion detection.
 *
 * Timing of one operation (fragment):
 *   CPU post: hostSw/2 + (inline ? hostByte x payload : 0)      (serial CPU engine)
 *   HCA send: hca/2 + (inline ? 0 : PCIe read of the payload), then serialization on the link
 *   ... the network ...
 *   HCA receive: hca/2 (packet to completion-queue entry); the receive engine takes one message at
 *              a time and is busy hcaMsg + pcieWriteByte x (packet + UD GRH 40 B + CQE 64 B)
 *   CPU poll:  hostSw/2 + hostByte x payload (detect the completion, copy the result out)
 * A message completes when all its fragments have. With RC+UD distribution every result arrives
 * twice: the library completes on the first copy (the UD multicast one); the second (RC) copy
 * still goes through the HCA receive engine and costs the CPU hostDiscard (poll its completion,
 * repost the receive buffer) in its serial work queue.
 */
import { NEVER, type Scope } from '../kernel/index.ts';
import type { DataType, IndexType, Op, Rounding } from './alu/types.ts';
import { elementBytes } from './alu/types.ts';
import { FabricEndpoint } from './endpoint.ts';
import type { Frame } from './frame.ts';
import type { ToAm, ToHost } from './mgmt.ts';
import { decodePacket, encodePacket, wireBytes, type AggRequest, type DistMode, type TargetKind } from './packet/index.ts';

export interface HostTimingCycles {
  postCycles: number;
  pollCycles: number;
  hcaTxCycles: number;
  hcaRxCycles: number;
  pcieReadCycles: number;
  byteCycles: number;
  maxInlineBytes: number;
  detectCycles: number;
  /** HCA receive engine occupancy per message and per byte written to host memory */
  rxMsgCycles: number;
  rxByteCycles: number;
  /** CPU cycles to poll and drop the second copy of a result (RC+UD) */
  discardCycles: number;
}

/** bytes of a UD datagram's global route header, scattered into the receive buffer before the payload */
export const UD_GRH_BYTES = 40;
/** bytes of a completion-queue entry the HCA writes per received message */
export const CQE_BYTES = 64;

/** One collective call of the application. */
export interface Collective {
  job: number;
  group: number;
  op: Op;
  type: DataType;
  indexType?: IndexType;
  rounding?: Rounding;
  wide?: boolean;
  ftz?: boolean;
  /** number of elements (0 = barrier) */
  count: number;
  /** count x element bytes */
  data: Uint8Array;
  dist: DistMode;
  targetKind: TargetKind;
  /** member rank (member) or node id (external) */
  targetId?: number;
}

export interface Completion {
  job: number;
  group: number;
  /** per-group message number (the same on every member for the same call) */
  msg: number;
  status: number;
  /** the result (empty for a barrier, an error, or a member that is not the target) */
  data: Uint8Array;
  flags: number;
  /** cycle the application made the call */
  called: number;
  /** cycle the library detected completion */
  done: number;
}

/** a group as the AM announced it (group-ready), with the library's running state */
interface HostGroup extends Omit<Extract<ToHost, { kind: 'group-ready' }>, 'kind'> {
  outstanding: number;
  bytesInFlight: number;
  nextSeq: number;
  nextMsg: number;
  revoked: number; // status, or 0
  queue: Message[]; // messages with fragments not yet posted
}

interface Message {
  g: HostGroup;
  c: Collective;
  msg: number;
  called: number;
  frags: number;
  perFrag: number;
  posted: number;
  done: number;
  status: number;
  flags: number;
  result: Uint8Array;
  finished: boolean;
}

interface Frag {
  m: Message;
  index: number;
  seq: number;
  bytes: number;
  awaitDuplicate: boolean;
}

export class SharpHost extends FabricEndpoint<ToHost> {
  leaf = -1;
  private readonly groups = new Map<string, HostGroup>();
  private readonly inflight = new Map<string, Frag>(); // job/group/seq
  private readonly duplicates = new Set<string>();
  private readonly calls: { at: number; c: Collective; onDone?: (x: Completion) => void }[] = [];
  private readonly callbacks = new Map<Message, (x: Completion) => void>();
  /** CPU work queue: [ready cycle, kind, payload] processed in order */
  private cpuFreeAt = 0;
  private readonly cpu: { ready: number; post?: Frag; poll?: { f: Frag; status: number; data: Uint8Array; flags: number }; discard?: true }[] = [];
  private readonly rx: [number, Frame][] = []; // HCA receive pipeline: [cycle the CQE is written, frame]
  /** HCA receive engine: busy with the previous message until this cycle (one message enters at a time) */
  private rxFreeAt = 0;
  private readonly tx: [number, Frame][] = []; // HCA send pipeline
  private corruptor: ((bytes: Uint8Array) => void) | null = null;
  /**
   * Opt-in: called with each result of an operation that targeted this host from outside its group.
   * The host keeps no record of completed operations (a long run must not grow): whoever wants the
   * results takes them here, as members take theirs from the call's callback.
   */
  onExternal: ((x: Completion) => void) | null = null;
  alive = true;
  private deathReportAt = -1;
  private readonly reports: ToAm[] = [];
  private readonly cPosted;
  private readonly cRxMsgs;
  private readonly cRxBytes;
  private readonly cDiscards;
  private readonly cDone;
  private readonly cErrors;
  private readonly hLatency;

  constructor(
    parent: Scope,
    name: string,
    readonly nodeId: number,
    readonly timing: HostTimingCycles,
  ) {
    super(parent, name);
    this.cPosted = this.counter('operations_posted');
    this.cRxMsgs = this.counter('hca_rx_messages');
    this.cRxBytes = this.counter('hca_rx_bytes_written');
    this.cDiscards = this.counter('duplicates_discarded');
    this.cDone = this.counter('messages_completed');
    this.cErrors = this.counter('messages_failed');
    this.hLatency = this.histogram('message_latency', { bucketWidth: 100, buckets: 400 });
  }

  override reset(): void {
    this.groups.clear();
    this.inflight.clear();
    this.duplicates.clear();
    this.calls.length = 0;
    this.callbacks.clear();
    this.cpuFreeAt = 0;
    this.cpu.length = 0;
    this.rx.length = 0;
    this.rxFreeAt = 0;
    this.tx.length = 0;
    this.alive = true;
    this.deathReportAt = -1;
    this.reports.length = 0;
  }

  /** The application calls a collective at cycle `at` (>= now). */
  call(at: number, c: Collective, onDone?: (x: Completion) => void): void {
    this.calls.push({ at, c, onDone });
    this.calls.sort((a, b) => a.at - b.at);
    this.wake(Math.max(at, this.sim.cycle));
  }

  /** True once the host library has the group (the AM's group-ready arrived). */
  hasGroup(job: number, group: number): boolean {
    return this.groups.has(`${job}/${group}`);
  }

  /** Operations in flight plus messages not finished (leak/hang checks). */
  get outstanding(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.outstanding + g.queue.length;
    return n + this.calls.length;
  }

  /** Fault injection: the application process dies; SHArPd tells the AM after the detection delay. */
  kill(t: number): void {
    if (!this.alive) return;
    this.alive = false;
    this.deathReportAt = t + this.timing.detectCycles;
    this.wake(Math.max(t, this.sim.cycle) + 1);
  }

  tick(t: number): number {
    if (!this.alive) {
      while (this.input.canPop()) this.input.pop();
      while (this.mgmtIn.canPop()) this.mgmtIn.pop();
      if (this.deathReportAt >= 0 && t >= this.deathReportAt && this.mgmtOut.canPush()) {
        this.mgmtOut.push({ kind: 'event', event: 'host-failure', node: this.nodeId, peer: this.nodeId });
        this.deathReportAt = -1;
      }
      return this.deathReportAt >= 0 ? Math.max(t + 1, this.deathReportAt) : NEVER;
    }
    while (this.mgmtIn.canPop()) this.management(this.mgmtIn.pop(), t);
    while (this.calls.length > 0 && this.calls[0]!.at <= t) {
      const { c, onDone } = this.calls.shift()!;
      this.startMessage(c, t, onDone);
    }
    // HCA receive engine: a message enters when the engine is free and occupies it for its
    // per-message time plus the DMA write of everything it puts in host memory; its completion is
    // visible a fixed pipeline latency after it entered
    if (t >= this.rxFreeAt && this.input.canPop()) {
      const f = this.input.pop();
      const written = f.bytes.length + (f.mcast ? UD_GRH_BYTES : 0) + CQE_BYTES;
      this.cRxMsgs.inc();
      this.cRxBytes.inc(written);
      this.rxFreeAt = t + Math.max(1, Math.ceil(this.timing.rxMsgCycles + this.timing.rxByteCycles * written - 1e-9));
      this.rx.push([t + this.timing.hcaRxCycles, f]);
    }
    while (this.rx.length > 0 && this.rx[0]![0] <= t) this.receive(this.rx.shift()![1], t);
    this.runCpu(t);
    while (this.tx.length > 0 && this.tx[0]![0] <= t) this.port.send(this.tx.shift()![1], t);
    this.port.flush(t);
    while (this.reports.length > 0 && this.mgmtOut.canPush()) this.mgmtOut.push(this.reports.shift()!);
    let w = NEVER;
    if (this.calls.length > 0) w = Math.min(w, Math.max(t + 1, this.calls[0]!.at));
    if (this.rx.length > 0) w = Math.min(w, Math.max(t + 1, this.rx[0]![0]));
    if (this.input.held() > 0) w = Math.min(w, Math.max(t + 1, this.rxFreeAt));
    if (this.tx.length > 0) w = Math.min(w, Math.max(t + 1, this.tx[0]![0]));
    if (this.cpu.length > 0) w = Math.min(w, Math.max(t + 1, this.cpuFreeAt, this.cpu[0]!.ready));
    const pn = this.port.nextTime();
    if (pn < NEVER) w = Math.min(w, Math.max(t + 1, pn));
    if (this.reports.length > 0) w = Math.min(w, t + 1);
    return w;
  }

  private management(m: ToHost, t: number): void {
    if (m.kind === 'group-ready') {
      this.groups.set(`${m.job}/${m.group}`, {
        job: m.job, group: m.group, tree: m.tree, rank: m.rank, size: m.size, mcast: m.mcast, maxOps: m.maxOps, maxBytes: m.maxBytes,
        outstanding: 0, bytesInFlight: 0, nextSeq: 1, nextMsg: 1, revoked: 0, queue: [],
      });
      return;
    }
    // the job's resources were revoked: every unfinished message of the job fails now
    for (const g of this.groups.values()) {
      if (g.job !== m.job) continue;
      g.revoked = m.status;
      for (const msg of g.queue) this.finish(msg, m.status, t);
      g.queue.length = 0;
      g.outstanding = 0;
      g.bytesInFlight = 0;
    }
    for (const [k, f] of this.inflight) {
      if (f.m.g.job !== m.job) continue;
      this.inflight.delete(k);
      this.finish(f.m, m.status, t);
    }
    for (let i = this.cpu.length - 1; i >= 0; i--) {
      const e = this.cpu[i]!;
      const f = e.post ?? e.poll?.f;
      if (f && f.m.g.job === m.job) this.cpu.splice(i, 1);
    }
  }

  private startMessage(c: Collective, t: number, onDone?: (x: Completion) => void): void {
    const g = this.groups.get(`${c.job}/${c.group}`);
    if (!g) throw new Error(`${this.path}: collective for job ${c.job} group ${c.group}, which this host is not a member of (or whose setup has not completed)`);
    const elem = elementBytes(c.type, c.op, c.indexType ?? 'i32');
    if (c.data.length !== c.count * elem) throw new Error(`${this.path}: collective data is ${c.data.length} bytes, expected ${c.count} x ${elem}`);
    const perFrag = Math.max(1, Math.floor(256 / elem));
    const frags = c.count === 0 ? 1 : Math.ceil(c.count / perFrag);
    const m: Message = { g, c, msg: g.nextMsg++, called: t, frags, perFrag, posted: 0, done: 0, status: 0, flags: 0, result: new Uint8Array(c.data.length), finished: false };
    if (onDone) this.callbacks.set(m, onDone);
    if (g.revoked) return this.finish(m, g.revoked, t);
    g.queue.push(m);
    this.postReady(g, t);
  }

  /** Post fragments while the group's outstanding-operation and buffer limits allow. */
  private postReady(g: HostGroup, t: number): void {
    while (g.queue.length > 0) {
      const m = g.queue[0]!;
      const elem = m.c.count === 0 ? 0 : m.c.data.length / m.c.count;
      const first = m.posted * m.perFrag;
      const n = Math.min(m.perFrag, m.c.count - first);
      const bytes = Math.max(0, n) * elem;
      if (g.outstanding + 1 > g.maxOps || g.bytesInFlight + bytes > g.maxBytes) return;
      g.outstanding++;
      g.bytesInFlight += bytes;
      const f: Frag = { m, index: m.posted, seq: g.nextSeq++, bytes, awaitDuplicate: m.c.dist === 'rc+ud' };
      m.posted++;
      if (m.posted === m.frags) g.queue.shift();
      this.inflight.set(`${g.job}/${g.group}/${f.seq}`, f);
      this.cpu.push({ ready: t, post: f });
    }
  }

  private runCpu(t: number): void {
    while (this.cpu.length > 0 && t >= this.cpuFreeAt && this.cpu[0]!.ready <= t) {
      const e = this.cpu.shift()!;
      const tm = this.timing;
      if (e.post) {
        const f = e.post;
        const inline = 36 + f.bytes <= tm.maxInlineBytes;
        const done = t + tm.postCycles + (inline ? Math.ceil(tm.byteCycles * f.bytes) : 0);
        this.cpuFreeAt = done;
        const frame = this.buildFrame(f);
        this.tx.push([done + tm.hcaTxCycles + (inline ? 0 : tm.pcieReadCycles), frame]);
        this.tx.sort((a, b) => a[0] - b[0]);
        this.cPosted.inc();
      } else if (e.discard) {
        this.cpuFreeAt = t + tm.discardCycles;
        this.cDiscards.inc();
      } else if (e.poll) {
        const { f, status, data, flags } = e.poll;
        const done = t + tm.pollCycles + Math.ceil(tm.byteCycles * data.length);
        this.cpuFreeAt = done;
        this.fragmentDone(f, status, data, flags, done);
      }
    }
  }

  private buildFrame(f: Frag): Frame {
    const m = f.m;
    const c = m.c;
    const g = m.g;
    const first = f.index * m.perFrag;
    const n = c.count === 0 ? 0 : Math.min(m.perFrag, c.count - first);
    const elem = c.count === 0 ? 0 : c.data.length / c.count;
    const loc = c.op === 'minloc' || c.op === 'maxloc';
    const p: AggRequest = {
      type: 'AGG_REQUEST', status: 0, job: g.job, tree: g.tree, group: g.group, seq: f.seq, source: this.nodeId,
      msgId: m.msg & 0xffff, fragIndex: f.index, fragCount: m.frags, op: c.op, dataType: c.type, indexType: loc ? (c.indexType ?? 'i32') : null,
      rounding: c.rounding ?? 'rne', wide: c.wide ?? false, ftz: c.ftz ?? false, aluFlags: 0, count: n,
      dist: c.dist, targetKind: c.targetKind,
      targetId: c.targetKind === 'all' ? (c.dist === 'rc' ? 0 : g.mcast) : (c.targetId ?? 0),
      payload: c.data.subarray(first * elem, (first + n) * elem),
    };
    const bytes = encodePacket(p);
    if (this.corruptor) {
      this.corruptor(bytes);
      this.corruptor = null;
    }
    return { dst: this.leaf, src: this.nodeId, mcast: false, job: g.job, bytes, wireBytes: wireBytes(p, 'rc') };
  }

  private receive(frame: Frame, t: number): void {
    const d = decodePacket(frame.bytes);
    if (!d.ok || d.pkt.type !== 'AGG_RESPONSE') return; // a host only expects responses; anything else is dropped by the HCA
    const r = d.pkt;
    const key = `${r.job}/${r.group}/${r.seq}`;
    if (this.duplicates.delete(key)) {
      // the second copy of an rc+ud result: the library still polls its completion and reposts the buffer
      this.cpu.push({ ready: t, discard: true });
      return;
    }
    const f = this.inflight.get(key);
    if (!f) {
      const g = this.groups.get(`${r.job}/${r.group}`);
      if (!g && r.status === 0) this.onExternal?.({ job: r.job, group: r.group, msg: r.msgId, status: 0, data: r.payload, flags: r.aluFlags, called: -1, done: t });
      return;
    }
    this.inflight.delete(key);
    if (f.awaitDuplicate) this.duplicates.add(key);
    this.cpu.push({ ready: t, poll: { f, status: r.status, data: r.payload, flags: r.aluFlags } });
  }

  private fragmentDone(f: Frag, status: number, data: Uint8Array, flags: number, t: number): void {
    const m = f.m;
    const g = m.g;
    g.outstanding--;
    g.bytesInFlight -= f.bytes;
    if (status && !m.status) m.status = status;
    m.flags |= flags;
    if (!status && data.length > 0) m.result.set(data, f.index * m.perFrag * (m.c.data.length / Math.max(1, m.c.count)));
    m.done++;
    if (m.done === m.frags) this.finish(m, m.status, t);
    this.postReady(g, t);
  }

  private finish(m: Message, status: number, t: number): void {
    if (m.finished) return;
    m.finished = true;
    const keep = status === 0 && (m.c.targetKind === 'all' || (m.c.targetKind === 'member' && m.c.targetId === m.g.rank));
    const x: Completion = { job: m.g.job, group: m.g.group, msg: m.msg, status, data: keep ? m.result : new Uint8Array(0), flags: status ? 0 : m.flags, called: m.called, done: t };
    if (status) this.cErrors.inc();
    else this.cDone.inc();
    this.hLatency.record(t - m.called);
    const cb = this.callbacks.get(m);
    if (cb) {
      this.callbacks.delete(m);
      cb(x);
    }
  }

  /** A well-behaved host never exceeds its limits; tests use this to act as a faulty one. */
  forceLimits(job: number, group: number, maxOps: number, maxBytes: number): void {
    const g = this.groups.get(`${job}/${group}`);
    if (!g) throw new Error(`${this.path}: no group ${job}/${group}`);
    g.maxOps = maxOps;
    g.maxBytes = maxBytes;
  }

  /**
   * Fault injection: the next request this host builds has `mutate` applied to its encoded bytes
   * (a buggy library or memory error above the transport: the link CRCs are recomputed, so only
   * the aggregation node's decoder can notice).
   */
  corruptNext(mutate: (bytes: Uint8Array) => void): void {
    this.corruptor = mutate;
  }
}
