/**
 * A SHArP aggregation node: the TCA inside a SwitchIB-2 switch (seed 000 sections III-A, III-D,
 * III-F; Fig. 4), reached through the switch's internal port.
 *
 * Datapath (cycle level):
 * - receive engine: one packet at a time, tcaPacket + tcaByte x payload cycles each, then decode
 *   (malformed packets are rejected with their decode error and reported to the AM);
 * - group table: per (job, tree, group) the parent AN and the ordered child list (GROUP_CREATE);
 *   a child's operand slot is its position in that list, which fixes the reduction order;
 * - operation context table (default 256): allocated by the first request of an operation,
 *   freed when the operation completes locally; per-job quotas of outstanding operations and
 *   operand-buffer bytes (JOB_QUOTA) are enforced at allocation;
 * - the ALU (rtl/sharp/alu/alu.ts) reduces in the fixed order once every child has contributed;
 * - send engine: one packet at a time (same per-packet and per-byte costs), then the internal
 *   port serializes it into the switch: a non-root AN sends the partial result to its parent as a
 *   new AGG_REQUEST, the root distributes the AGG_RESPONSE down the tree over RC, to a UD multicast
 *   group, or both (Table VI); ANs below forward RC responses to their children. A packet starts
 *   only when the internal port will be free as it leaves the pipeline (packets wait in the AN's
 *   two send queues, not in the port); the RC copies of an RC+UD result (the reliable duplicate of
 *   what the members already got by multicast) are served after everything else (requests, errors,
 *   multicast and RC-only results), so they do not hold up the reductions of later fragments.
 *
 * Errors never stall other operations: an operation over quota becomes an error context (no
 * buffer), collects its remaining children and completes with the quota error; a child's error
 * contribution (AGG_REQUEST with a status) completes the operation with that error; protocol
 * errors (undecodable packet, unknown group, sender not a child, no quota) are reported to the AM,
 * which revokes the job (JOB_REVOKE frees every context of that job). No timeouts.
 */
import { NEVER, type Scope } from '../kernel/index.ts';
import { Alu, type AluHeader, type AluInput, type AluParams, type AluResult } from './alu/alu.ts';
import { FabricEndpoint } from './endpoint.ts';
import { mcastAddress, type Frame } from './frame.ts';
import type { ToAm } from './mgmt.ts';
import { decodePacket, encodePacket, SharpStatus, wireBytes, type AggRequest, type AggResponse, type Packet } from './packet/index.ts';

export interface AnParams {
  /** operation contexts (default 256) */
  contexts: number;
  /** group table entries (default 1024) */
  groups: number;
  /** TCA packet-processing pipeline latency in cycles (receive or send) */
  packetCycles: number;
  /** TCA datapath occupancy per payload byte in cycles (receive or send); a packet occupies the engine for max(1, ceil(byteCycles x payload)) cycles */
  byteCycles: number;
  alu: Partial<AluParams>;
}

export const DEFAULT_AN_PARAMS: Readonly<AnParams> = { contexts: 256, groups: 1024, packetCycles: 40, byteCycles: 0.3, alu: {} };

interface GroupEntry {
  job: number;
  tree: number;
  group: number;
  parent: number | null;
  children: number[];
  slotOf: Map<number, number>;
  mcast: number;
}

interface Quota {
  maxOps: number;
  maxBytes: number;
  usedOps: number;
  usedBytes: number;
  revoked: boolean;
}

interface OpCtx {
  key: string;
  job: number;
  group: GroupEntry;
  /** the first request: the template for what this AN sends on */
  first: AggRequest;
  aluOpId: number;
  arrived: Uint8Array;
  nArrived: number;
  /** 0 while healthy; else the error the operation will complete with */
  status: number;
  /** the ALU result, once it came back */
  result: AluResult | null;
  /** operands handed to the ALU (an abort is needed if it fails after this is nonzero) */
  aluSent: number;
  aluPending: boolean;
  chargedOps: number;
  chargedBytes: number;
  flags: number;
}

/** fmix32-style hash of the operation identity: the ALU's stochastic-rounding operation id. */
export function seedIdOf(job: number, tree: number, group: number, seq: number): number {
  let h = Math.imul(job ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(tree + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 15) ^ group, 0x27d4eb2f);
  h ^= Math.imul(seq ^ (seq >>> 16), 0x165667b1);
  h ^= h >>> 13;
  return h >>> 0;
}

export class AggregationNode extends FabricEndpoint<Uint8Array> {
  readonly alu: Alu;
  readonly params: Readonly<AnParams>;
  private readonly groups = new Map<string, GroupEntry>();
  private readonly quotas = new Map<number, Quota>();
  private readonly ctxs = new Map<string, OpCtx>();
  private readonly byAlu = new Map<number, OpCtx>();
  private nextAluOp = 1;
  private rxFreeAt = 0;
  private txFreeAt = 0;
  /** frames in the receive engine: [cycle its processing ends, frame] */
  private readonly rxDone: [number, Frame][] = [];
  /** frames waiting for the send engine */
  private readonly txQueue: Frame[] = [];
  /** RC copies of results on their way down (served after txQueue: results that complete on them are also on the multicast path, or are the last hop) */
  private readonly txDown: Frame[] = [];
  /** operands and aborts for the ALU, in order */
  private readonly aluQueue: AluInput[] = [];
  private readonly reports: ToAm[] = [];
  failed = false;
  private readonly cRx;
  private readonly cTx;
  private readonly cBad;
  private readonly cOps;
  private readonly cOpErrors;
  private readonly cQuota;

  constructor(
    parent: Scope,
    name: string,
    readonly nodeId: number,
    params: Partial<AnParams> = {},
  ) {
    super(parent, name);
    this.params = { ...DEFAULT_AN_PARAMS, ...params };
    this.alu = new Alu(this, 'alu', { seed: nodeId, contexts: this.params.contexts, ...this.params.alu });
    // queued operands keep the AN running (tick returns t + 1), results wake it
    this.alu.in.bindProducer(this, { polls: true });
    this.alu.out.bindConsumer(this, { everyPush: true });
    this.cRx = this.counter('packets_in');
    this.cTx = this.counter('packets_out');
    this.cBad = this.counter('bad_packets');
    this.cOps = this.counter('operations');
    this.cOpErrors = this.counter('operation_errors');
    this.cQuota = this.counter('quota_rejections');
    this.signal('contexts', 16, () => this.ctxs.size);
  }

  /** Operation contexts in use (leak checks). */
  get contextsInUse(): number {
    return this.ctxs.size;
  }
  /** Outstanding operations and buffer bytes charged to a job (leak checks). */
  quotaUse(job: number): { ops: number; bytes: number } {
    const q = this.quotas.get(job);
    return { ops: q?.usedOps ?? 0, bytes: q?.usedBytes ?? 0 };
  }
  hasGroup(job: number, tree: number, group: number): boolean {
    return this.groups.has(`${job}/${tree}/${group}`);
  }

  override reset(): void {
    this.groups.clear();
    this.quotas.clear();
    this.ctxs.clear();
    this.byAlu.clear();
    this.nextAluOp = 1;
    this.rxFreeAt = this.txFreeAt = 0;
    this.rxDone.length = 0;
    this.txQueue.length = 0;
    this.txDown.length = 0;
    this.aluQueue.length = 0;
    this.reports.length = 0;
    this.failed = false;
  }

  /** Fault injection: the TCA stops; everything in it is lost. */
  fail(): void {
    this.failed = true;
    // the dead TCA holds nothing any more (a replacement starts empty)
    this.ctxs.clear();
    this.byAlu.clear();
    this.quotas.clear();
    this.groups.clear();
    this.rxDone.length = 0;
    this.txQueue.length = 0;
    this.txDown.length = 0;
    this.aluQueue.length = 0;
  }

  /** Cycles a packet occupies an engine (the next one can start after this). */
  private occupancy(payload: number): number {
    return Math.max(1, Math.ceil(this.params.byteCycles * payload - 1e-9));
  }

  tick(t: number): number {
    if (this.failed) {
      while (this.input.canPop()) this.input.pop();
      while (this.mgmtIn.canPop()) this.mgmtIn.pop();
      while (this.alu.out.canPop()) this.alu.out.pop();
      return NEVER;
    }
    // management packets from the AM
    while (this.mgmtIn.canPop()) this.management(this.mgmtIn.pop(), t);
    // receive engine (pipelined): a frame enters when the datapath is free and is handled after the pipeline latency
    if (t >= this.rxFreeAt && this.input.canPop()) {
      const f = this.input.pop();
      this.cRx.inc();
      const occ = this.occupancy(Math.max(0, f.bytes.length - 36));
      this.rxFreeAt = t + occ;
      this.rxDone.push([t + occ + Math.ceil(this.params.packetCycles), f]);
    }
    while (this.rxDone.length > 0 && this.rxDone[0]![0] <= t) this.receive(this.rxDone.shift()![1], t);
    // ALU results
    while (this.alu.out.canPop()) this.aluResult(this.alu.out.pop(), t);
    // operands and aborts to the ALU
    while (this.aluQueue.length > 0 && this.alu.in.canPush()) {
      const m = this.aluQueue.shift()!;
      if (m.kind === 'operand') {
        const c = this.byAlu.get(m.opId);
        if (c) c.aluSent++;
      }
      this.alu.in.push(m);
    }
    // send engine (pipelined): one frame per datapath occupancy, started only when the internal port
    // will be free as it leaves the pipeline (frames wait here, not in the port, so the choice below
    // is made when the port can take one); requests and multicast results before RC result copies
    const pc = Math.ceil(this.params.packetCycles);
    while ((this.txQueue.length > 0 || this.txDown.length > 0) && t >= this.txFreeAt) {
      const q = this.txQueue.length > 0 ? this.txQueue : this.txDown;
      const occ = this.occupancy(Math.max(0, q[0]!.bytes.length - 36));
      if (this.port.busyUntil > t + occ + pc) break;
      const f = q.shift()!;
      this.txFreeAt = t + occ;
      this.port.send(f, t + occ + pc);
      this.cTx.inc();
    }
    this.port.flush(t);
    while (this.reports.length > 0 && this.mgmtOut.canPush()) this.mgmtOut.push(this.reports.shift()!);
    // wake-up
    let w = NEVER;
    if (this.rxDone.length > 0) w = Math.min(w, Math.max(t + 1, this.rxDone[0]![0]));
    if (this.input.held() > 0) w = Math.min(w, Math.max(t + 1, this.rxFreeAt));
    if (this.txQueue.length > 0 || this.txDown.length > 0) w = Math.min(w, Math.max(t + 1, this.txFreeAt, this.port.busyUntil - pc - this.occupancy(Math.max(0, (this.txQueue[0] ?? this.txDown[0]!).bytes.length - 36))));
    if (this.aluQueue.length > 0 || this.reports.length > 0) w = Math.min(w, t + 1);
    const pn = this.port.nextTime();
    if (pn < NEVER) w = Math.min(w, Math.max(t + 1, pn));
    return w;
  }

  private report(status: number, job: number, tree: number, group: number, seq: number, detail: number): void {
    const bytes = encodePacket({ type: 'ERROR_REPORT', status, job, tree, group, seq, source: this.nodeId, detail });
    this.reports.push({ kind: 'report', from: this.nodeId, bytes });
  }

  private management(bytes: Uint8Array, t: number): void {
    const d = decodePacket(bytes);
    if (!d.ok) {
      this.cBad.inc();
      this.report(SharpStatus.BAD_PACKET, 0, 0, 0, 0, d.error);
      return;
    }
    const p = d.pkt;
    switch (p.type) {
      case 'GROUP_CREATE': {
        const key = `${p.job}/${p.tree}/${p.group}`;
        if (!this.groups.has(key) && this.groups.size >= this.params.groups) {
          this.report(SharpStatus.GROUP_TABLE_FULL, p.job, p.tree, p.group, 0, 0);
          return;
        }
        const slotOf = new Map<number, number>();
        p.children.forEach((c, i) => slotOf.set(c, i));
        this.groups.set(key, { job: p.job, tree: p.tree, group: p.group, parent: p.parent, children: p.children, slotOf, mcast: mcastAddress(p.job, p.group) });
        return;
      }
      case 'GROUP_TRIM': {
        const key = `${p.job}/${p.tree}/${p.group}`;
        if (p.newRoot === this.nodeId) {
          const g = this.groups.get(key);
          if (g) g.parent = null;
        } else this.groups.delete(key);
        return;
      }
      case 'JOB_QUOTA':
        this.quotas.set(p.job, { maxOps: p.maxOps, maxBytes: p.maxBufferBytes, usedOps: 0, usedBytes: 0, revoked: false });
        return;
      case 'JOB_REVOKE':
        this.revoke(p.job);
        return;
      default:
        this.report(SharpStatus.BAD_PACKET, 0, 0, 0, 0, 5);
    }
  }

  /** Free every context and the quota of a job; its later packets are dropped. */
  private revoke(job: number): void {
    for (const [k, c] of this.ctxs) {
      if (c.job !== job) continue;
      this.dropAluWork(c);
      this.byAlu.delete(c.aluOpId);
      this.ctxs.delete(k);
    }
    for (const [k, g] of this.groups) if (g.job === job) this.groups.delete(k);
    const q = this.quotas.get(job);
    if (q) {
      q.revoked = true;
      q.usedOps = 0;
      q.usedBytes = 0;
    } else this.quotas.set(job, { maxOps: 0, maxBytes: 0, usedOps: 0, usedBytes: 0, revoked: true });
  }

  /** Forget an operation's ALU work: drop queued operands, abort what the ALU already holds. */
  private dropAluWork(c: OpCtx): void {
    for (let i = this.aluQueue.length - 1; i >= 0; i--) {
      const m = this.aluQueue[i]!;
      if (m.kind === 'operand' && m.opId === c.aluOpId) this.aluQueue.splice(i, 1);
    }
    if (c.aluSent > 0) this.aluQueue.push({ kind: 'abort', opId: c.aluOpId });
    c.aluSent = 0;
    c.aluPending = false;
  }

  private receive(f: Frame, t: number): void {
    const d = decodePacket(f.bytes);
    if (!d.ok) {
      // the RC connection tells which job sent it, even when its fields cannot be trusted
      this.cBad.inc();
      if (!this.quotas.get(f.job)?.revoked) this.report(SharpStatus.BAD_PACKET, Math.max(0, f.job), 0, 0, 0, d.error);
      return;
    }
    const p = d.pkt;
    if (p.type === 'AGG_REQUEST') this.request(p, f, t);
    else if (p.type === 'AGG_RESPONSE') this.forwardDown(p);
    else {
      this.cBad.inc();
      this.report(SharpStatus.BAD_PACKET, p.job, 0, 0, 0, 5);
    }
  }

  private request(p: AggRequest, f: Frame, t: number): void {
    const q = this.quotas.get(p.job);
    if (q?.revoked) return; // the AM already told everyone; stragglers are dropped
    const g = this.groups.get(`${p.job}/${p.tree}/${p.group}`);
    if (!g) return this.report(SharpStatus.UNKNOWN_GROUP, p.job, p.tree, p.group, p.seq, p.source);
    const slot = g.slotOf.get(p.source);
    if (slot === undefined) return this.report(SharpStatus.NOT_A_CHILD, p.job, p.tree, p.group, p.seq, p.source);
    if (!q) return this.report(SharpStatus.NO_QUOTA, p.job, p.tree, p.group, p.seq, 0);
    const key = `${p.job}/${p.tree}/${p.group}/${p.seq}`;
    let c = this.ctxs.get(key);
    if (!c) {
      if (this.ctxs.size >= this.params.contexts) return this.report(SharpStatus.NO_CONTEXT, p.job, p.tree, p.group, p.seq, 0);
      const k = g.children.length;
      const bytes = k * p.payload.length;
      let status = 0;
      if (q.usedOps + 1 > q.maxOps) status = SharpStatus.QUOTA_OPS;
      else if (q.usedBytes + bytes > q.maxBytes) status = SharpStatus.QUOTA_BUFFER;
      c = {
        key,
        job: p.job,
        group: g,
        first: p,
        aluOpId: this.nextAluOp++,
        arrived: new Uint8Array(k),
        nArrived: 0,
        status,
        result: null,
        aluSent: 0,
        aluPending: false,
        chargedOps: status ? 0 : 1,
        chargedBytes: status ? 0 : bytes,
        flags: 0,
      };
      if (status) this.cQuota.inc();
      q.usedOps += c.chargedOps;
      q.usedBytes += c.chargedBytes;
      this.ctxs.set(key, c);
      this.byAlu.set(c.aluOpId, c);
    }
    if (c.arrived[slot]) {
      // a second operand from one child: the operation fails (the ALU would say the same)
      if (!c.status) this.failOp(c, SharpStatus.DUPLICATE_OPERAND);
      return;
    }
    c.arrived[slot] = 1;
    c.nArrived++;
    c.flags |= p.aluFlags;
    if (p.status !== 0) {
      if (!c.status) this.failOp(c, p.status);
    } else if (!c.status) {
      const hdr: AluHeader = { type: p.dataType, op: p.op, indexType: p.indexType ?? 'i32', count: p.count, children: g.children.length, rounding: p.rounding, ftz: p.ftz, wide: p.wide };
      this.aluQueue.push({ kind: 'operand', opId: c.aluOpId, seedId: seedIdOf(p.job, p.tree, p.group, p.seq), slot, hdr, data: p.payload });
      c.aluPending = true;
    }
    this.maybeFinish(c);
  }

  private failOp(c: OpCtx, status: number): void {
    c.status = status;
    this.dropAluWork(c);
  }

  private aluResult(r: AluResult, t: number): void {
    const c = this.byAlu.get(r.opId);
    if (!c || c.status) return; // revoked or already failed
    c.aluPending = false;
    if (r.status !== 0) {
      c.status = r.status;
    } else {
      c.result = r;
      c.flags |= r.flags;
    }
    this.maybeFinish(c);
  }

  /** Done when every child contributed and the ALU has answered (or the operation failed). */
  private maybeFinish(c: OpCtx): void {
    const k = c.group.children.length;
    if (c.nArrived < k) return;
    if (!c.status && !c.result) return;
    this.ctxs.delete(c.key);
    this.byAlu.delete(c.aluOpId);
    const q = this.quotas.get(c.job);
    if (q && !q.revoked) {
      q.usedOps -= c.chargedOps;
      q.usedBytes -= c.chargedBytes;
    }
    if (c.status) this.cOpErrors.inc();
    else this.cOps.inc();
    const data = c.status ? new Uint8Array(0) : c.result!.data;
    const g = c.group;
    if (g.parent !== null) {
      const up: AggRequest = { ...c.first, type: 'AGG_REQUEST', source: this.nodeId, status: c.status, aluFlags: c.flags & 31, payload: data };
      this.sendTo(g.parent, up, c.job);
    } else {
      const resp: AggResponse = { ...c.first, type: 'AGG_RESPONSE', source: this.nodeId, status: c.status, aluFlags: c.flags & 31, payload: data };
      this.distribute(resp, c.job);
    }
  }

  /** Root: send the result by the operation's distribution mode. */
  private distribute(r: AggResponse, job: number): void {
    const g = this.groups.get(`${r.job}/${r.tree}/${r.group}`);
    if (!g) return;
    if (r.targetKind === 'external') {
      // the result to the external node; members get a completion without data
      this.sendTo(r.targetId, r, job);
      const done: AggResponse = { ...r, count: 0, payload: new Uint8Array(0), targetKind: 'all', targetId: r.dist === 'rc' ? 0 : g.mcast, dist: r.dist };
      return this.distribute({ ...done }, job);
    }
    // the multicast copy goes first: with rc+ud the members complete on it, the RC copies follow
    if (r.dist === 'ud' || r.dist === 'rc+ud') {
      const bytes = encodePacket(r);
      this.txQueue.push({ dst: g.mcast, src: this.nodeId, mcast: true, job: -1, bytes, wireBytes: wireBytes(r, 'ud') });
    }
    if (r.dist === 'rc' || r.dist === 'rc+ud') this.sendToChildren(g, r, job);
  }

  /** A response from the parent (RC distribution): pass it to every child. */
  private forwardDown(r: AggResponse): void {
    if (this.quotas.get(r.job)?.revoked) return;
    const g = this.groups.get(`${r.job}/${r.tree}/${r.group}`);
    if (!g) return this.report(SharpStatus.UNKNOWN_GROUP, r.job, r.tree, r.group, r.seq, r.source);
    this.sendToChildren(g, { ...r, source: this.nodeId }, r.job);
  }

  private sendTo(dst: number, p: Packet, job: number): void {
    this.txQueue.push({ dst, src: this.nodeId, mcast: false, job, bytes: encodePacket(p), wireBytes: wireBytes(p, 'rc') });
  }

  /**
   * One RC copy of a result per child (to the low-priority queue with rc+ud). The copies are the
   * same packet: it is encoded once and the frames share its bytes (nothing writes to a frame's
   * bytes after it is built; receivers decode them).
   */
  private sendToChildren(g: GroupEntry, r: AggResponse, job: number): void {
    if (g.children.length === 0) return;
    const bytes = encodePacket(r);
    const wire = wireBytes(r, 'rc');
    const q = r.dist === 'rc+ud' ? this.txDown : this.txQueue;
    for (const dst of g.children) q.push({ dst, src: this.nodeId, mcast: false, job, bytes, wireBytes: wire });
  }
}
