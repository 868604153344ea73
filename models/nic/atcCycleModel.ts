/**
 * Cycle-level golden model of the ATC with its host memory under concurrent stimulus, written from
 * the specification in docs/nic-memory.md ("Pipeline", "Latencies", "Host memory", "Buffer mode",
 * "Refresh") and sharing no code with rtl/. It is what the race vectors (vectors/blocks/atcRace.ts)
 * take every expectation from: for each lookup the cycle it is accepted, the cycle its response is
 * visible, its status (hit, miss, merged, bypass, fault, error) and physical address; for each
 * refresh its mode and the cycle its done register is visible; for each preload its result and the
 * cycle it is applied.
 *
 * What it holds, per cycle t (the ATC's order of ports, then host memory; they talk only through
 * channels of latency 1, so their order does not matter):
 * 1. output: the hit pipeline's last stage goes to the response channel; if that channel is full,
 *    or the fairness register says a miss waiter is owed the port and one is ready, the pipeline
 *    holds (every stage) and no request is accepted;
 * 2. a refresh is started if none is active (in-flight reads of MSHRs in its range and VP are
 *    marked stale);
 * 3. lookup of the head request: error, bypass, buffer hit or fault, cache hit (into the
 *    pipeline), or a miss that merges into the pending MSHR of its (asid, page) with room, or
 *    allocates the lowest free MSHR; otherwise it stays (head-of-line);
 * 4. one preload write; 5. one fill (stale: read again; else install unless invalid, MSHR drains);
 * 6. one ATT read issued (lowest MSHR needing one); 7. one waiter of the oldest draining MSHR is
 *    answered if the output was free (the MSHR is freed with its last waiter); the fairness
 *    register is set for t + 1 when the pipeline took the port and a waiter is ready;
 * 8. one refresh step (probe: one page; sweep: one set; buffer: one entry); the done register is
 *    written with the last and visible from the next cycle.
 * Host memory accepts one read per cycle (sampling the ATT then), its completion is pushed
 * readLatency - 2 cycles later (visible to the fill port readLatency cycles after the ATC issued
 * it); no jitter. Channels: a push in t is poppable from t + 1; a producer sees the consumer's pops
 * one cycle late (capacity 2 for requests, refreshes, preloads and reads, 4 for completions,
 * `respCapacity` for responses). The testbench pops every response the cycle it becomes visible.
 */
import type { AtcModelConfig } from './atcModel.ts';
import { SetAssocCacheModel } from './cacheModel.ts';

/** The serial model's parameters plus the miss registers and the response channel's capacity. */
export interface AtcCycleModelConfig extends AtcModelConfig {
  mshrs: number;
  mshrTargets: number;
  respCapacity: number;
}

export type CycleStatus = 'hit' | 'miss' | 'merged' | 'bypass' | 'fault' | 'error';

/** A lookup as the model follows it; the result fields are filled as the model runs. */
export interface CycleLookup {
  readonly va: number;
  readonly asid: number;
  readonly physical: boolean;
  status: CycleStatus | null;
  /** physical address, null for fault and error */
  pa: number | null;
  accept: number;
  /** first cycle the response is visible to the testbench */
  resp: number;
}

export interface CycleRefresh {
  readonly base: number;
  readonly top: number;
  readonly vp: number;
  mode: 'probe' | 'sweep' | 'buffer' | 'bad' | null;
  /** first cycle the done register shows it */
  done: number;
}

export interface CyclePreload {
  readonly page: number;
  readonly pfn: number;
  readonly valid: boolean;
  readonly asid: number;
  result: 'ok' | 'rejected' | null;
  applied: number;
}

/** A bounded FIFO with latency 1 and a registered credit (the producer sees pops one cycle late). */
class Link<T> {
  private readonly items: { v: T; at: number }[] = [];
  private pushes = 0;
  private readonly popCycles: number[] = [];
  private seen = 0;
  constructor(readonly capacity: number) {}
  canPush(t: number): boolean {
    while (this.seen < this.popCycles.length && this.popCycles[this.seen]! <= t - 1) this.seen++;
    return this.pushes - this.seen < this.capacity;
  }
  push(t: number, v: T): void {
    if (!this.canPush(t)) throw new Error(`cycle model: push into a full link in cycle ${t}`);
    this.items.push({ v, at: t + 1 });
    this.pushes++;
  }
  canPop(t: number): boolean {
    return this.items.length > 0 && this.items[0]!.at <= t;
  }
  peek(): T {
    return this.items[0]!.v;
  }
  pop(t: number): T {
    this.popCycles.push(t);
    return this.items.shift()!.v;
  }
  get held(): number {
    return this.items.length;
  }
}

interface Mshr {
  state: 'free' | 'pending' | 'draining';
  page: number;
  asid: number;
  needIssue: boolean;
  stale: boolean;
  waiters: CycleLookup[];
  answered: number;
  frame: number;
  fault: boolean;
}

interface Read {
  page: number;
  vp: number;
  tag: number;
}

interface Completion {
  tag: number;
  frame: number;
  valid: boolean;
}

const PAGE = 4096;

export class AtcCycleModel {
  /** the next cycle to simulate; stimulus given now is pushed in this cycle */
  t = 0;
  readonly cache: SetAssocCacheModel;
  readonly sets: number;
  private readonly buffer = new Map<number, { asid: number; pfn: number; valid: boolean }>();
  private readonly att = new Map<string, { frame: number; valid: boolean }>();
  private readonly req = new Link<CycleLookup>(2);
  private readonly refreshIn = new Link<CycleRefresh>(2);
  private readonly preloadIn = new Link<CyclePreload>(2);
  private readonly resp: Link<CycleLookup>;
  private readonly memReq = new Link<Read>(2);
  private readonly memResp = new Link<Completion>(4);
  /** the hit pipeline, stage 0 first; the last stage is the output */
  private readonly pipe: (CycleLookup | null)[];
  private readonly mshr: Mshr[];
  private readonly drainQ: number[] = [];
  private drainTurn = false;
  private rf: { r: CycleRefresh; mode: string; pos: number; left: number; vp: number } | null = null;
  /** host memory: reads accepted, completion due cycle and acceptance order */
  private readonly host: { due: number; seq: number; c: Completion }[] = [];
  private hostSeq = 0;
  private readonly frameLimit: number;
  /** lookups accepted and not yet answered, preloads and refreshes not yet finished */
  private busy = 0;
  /** events for a test to require coverage: merges, stalls, yields, stale fills, ... */
  readonly counts = { hits: 0, misses: 0, merged: 0, stallCycles: 0, yields: 0, staleFills: 0, faults: 0, evictions: 0, removals: 0, hitsUnderMiss: 0 };

  constructor(readonly cfg: AtcCycleModelConfig) {
    this.cache = new SetAssocCacheModel(cfg.entries, cfg.ways, cfg.policy);
    this.sets = cfg.entries / cfg.ways;
    this.resp = new Link<CycleLookup>(cfg.respCapacity);
    this.pipe = new Array<CycleLookup | null>(cfg.hitLatency - 1).fill(null);
    this.mshr = Array.from({ length: cfg.mshrs }, () => ({ state: 'free', page: 0, asid: 0, needIssue: false, stale: false, waiters: [], answered: 0, frame: 0, fault: false }));
    this.frameLimit = 2 ** (cfg.paBits - 12);
  }

  // ---------------- stimulus, given between cycles (in cycle this.t) ----------------

  canLookup(): boolean {
    return this.req.canPush(this.t);
  }
  canRefresh(): boolean {
    return this.refreshIn.canPush(this.t);
  }
  canPreload(): boolean {
    return this.preloadIn.canPush(this.t);
  }

  lookup(va: number, asid: number, physical: boolean): CycleLookup {
    const r: CycleLookup = { va, asid, physical, status: null, pa: null, accept: -1, resp: -1 };
    this.req.push(this.t, r);
    this.busy++;
    return r;
  }

  /** Software writes VP `vp`'s ATT entry of `page` (host reads accepted from this cycle on see it). */
  attWrite(page: number, frame: number, valid: boolean, vp: number): void {
    this.att.set(`${vp}:${page}`, { frame, valid });
  }

  refresh(base: number, top: number, vp: number): CycleRefresh {
    const r: CycleRefresh = { base, top, vp, mode: null, done: -1 };
    this.refreshIn.push(this.t, r);
    this.busy++;
    return r;
  }

  preload(page: number, pfn: number, valid: boolean, asid: number): CyclePreload {
    const p: CyclePreload = { page, pfn, valid, asid, result: null, applied: -1 };
    this.preloadIn.push(this.t, p);
    this.busy++;
    return p;
  }

  /** Nothing accepted or queued is unfinished. */
  get idle(): boolean {
    return this.busy === 0;
  }

  /** Translations held (cache mode), for choosing pages to hit. */
  resident(): { page: number; asid: number }[] {
    return this.cache.resident();
  }

  /** The buffer entry of `page` if it is loaded (buffer mode). */
  loaded(page: number): { asid: number; pfn: number } | null {
    const e = this.buffer.get(page);
    return e && e.valid ? { asid: e.asid, pfn: e.pfn } : null;
  }

  /** Requests in the request channel (pushed, not accepted). */
  get queued(): number {
    return this.req.held;
  }

  // ---------------- one cycle ----------------

  step(): void {
    const t = this.t;
    // the testbench pops every response visible now
    while (this.resp.canPop(t)) this.resp.pop(t);
    this.atcCycle(t);
    this.hostCycle(t);
    this.t = t + 1;
  }

  private attEntry(page: number, vp: number): { frame: number; valid: boolean } {
    const e = this.att.get(`${vp}:${page}`);
    if (e) return e;
    // documented default: (page + 2^18 + vp * 2^24) mod 2^(paBits - 12), valid
    return { frame: (page + 2 ** 18 + vp * 2 ** 24) % this.frameLimit, valid: true };
  }

  private respond(t: number, r: CycleLookup): void {
    r.resp = t + 1;
    this.resp.push(t, r);
    this.busy--;
  }

  private waiterReady(): boolean {
    return this.drainQ.length > 0;
  }

  private atcCycle(t: number): void {
    const c = this.cfg;
    const last = this.pipe.length - 1;
    // 1. output
    let outUsed = false;
    let stalled = false;
    let yielded = false;
    const out = this.pipe[last]!;
    if (out !== null) {
      if (!this.resp.canPush(t)) stalled = true;
      else if (this.drainTurn && this.waiterReady()) {
        stalled = true;
        yielded = true;
        this.counts.yields++;
      } else {
        this.pipe[last] = null;
        this.respond(t, out);
        outUsed = true;
      }
    }
    // 2. refresh start
    if (this.rf === null && this.refreshIn.canPop(t)) this.startRefresh(t, this.refreshIn.pop(t));
    // 3. lookup
    let entering: CycleLookup | null = null;
    if (!stalled && this.req.canPop(t)) {
      const r = this.req.peek();
      const res = this.lookupStage(r);
      if (res === 'stall') this.counts.stallCycles++;
      else {
        this.req.pop(t);
        r.accept = t;
        if (res === 'pipe') entering = r;
      }
    }
    // 4. preload port
    if (this.preloadIn.canPop(t)) this.applyPreload(t, this.preloadIn.pop(t));
    // 5. fill port
    if (this.memResp.canPop(t)) this.fill(this.memResp.pop(t));
    // 6. one ATT read
    if (this.memReq.canPush(t)) {
      const m = this.mshr.findIndex((e) => e.state === 'pending' && e.needIssue);
      if (m >= 0) {
        const e = this.mshr[m]!;
        e.needIssue = false;
        this.memReq.push(t, { page: e.page, vp: e.asid, tag: m });
      }
    }
    // 7. drain one waiter
    if (!outUsed && (!stalled || yielded) && this.waiterReady() && this.resp.canPush(t)) this.drainOne(t);
    this.drainTurn = outUsed && this.waiterReady();
    // 8. refresh step
    if (this.rf !== null) this.refreshStep(t);
    // the hit pipeline advances unless it held
    if (!stalled) {
      for (let i = last; i > 0; i--) this.pipe[i] = this.pipe[i - 1]!;
      this.pipe[0] = entering;
    }
    void c;
  }

  /** 'pipe': accepted into the hit pipeline; 'mshr': accepted as a miss; 'stall': not accepted. */
  private lookupStage(r: CycleLookup): 'pipe' | 'mshr' | 'stall' {
    const c = this.cfg;
    const va = r.va;
    if (!(Number.isInteger(va) && va >= 0 && va < 2 ** c.vaBits) || !(Number.isInteger(r.asid) && r.asid >= 0 && r.asid <= 0xffff)) {
      r.status = 'error';
      r.pa = null;
      return 'pipe';
    }
    if (r.physical) {
      r.status = 'bypass';
      r.pa = va;
      return 'pipe';
    }
    const page = Math.floor(va / PAGE);
    const off = va - page * PAGE;
    if (c.mode === 'buffer') {
      const e = this.buffer.get(page);
      const inside = page >= c.bufferBasePage && page < c.bufferBasePage + c.entries;
      if (inside && e !== undefined && e.valid && e.asid === r.asid) {
        r.status = 'hit';
        r.pa = e.pfn * PAGE + off;
        this.counts.hits++;
      } else {
        r.status = 'fault';
        r.pa = null;
        this.counts.faults++;
      }
      return 'pipe';
    }
    const l = this.cache.lookup(page, r.asid);
    if (l.hit) {
      r.status = 'hit';
      r.pa = l.pfn! * PAGE + off;
      this.counts.hits++;
      if (this.mshr.some((e) => e.state !== 'free')) this.counts.hitsUnderMiss++;
      return 'pipe';
    }
    const pending = this.mshr.find((e) => e.state === 'pending' && e.page === page && e.asid === r.asid);
    if (pending !== undefined) {
      if (pending.waiters.length >= c.mshrTargets) return 'stall';
      pending.waiters.push(r);
      this.counts.merged++;
      return 'mshr';
    }
    const free = this.mshr.find((e) => e.state === 'free');
    if (free === undefined) return 'stall';
    Object.assign(free, { state: 'pending', page, asid: r.asid, needIssue: true, stale: false, waiters: [r], answered: 0 });
    this.counts.misses++;
    return 'mshr';
  }

  private applyPreload(t: number, p: CyclePreload): void {
    const c = this.cfg;
    const ok = c.mode === 'buffer' && Number.isInteger(p.page) && p.page >= c.bufferBasePage && p.page < c.bufferBasePage + c.entries && Number.isInteger(p.pfn) && p.pfn >= 0 && p.pfn < this.frameLimit && Number.isInteger(p.asid) && p.asid >= 0 && p.asid <= 0xffff;
    if (ok) this.buffer.set(p.page, { asid: p.asid, pfn: p.pfn, valid: p.valid });
    p.result = ok ? 'ok' : 'rejected';
    p.applied = t;
    this.busy--;
  }

  private fill(cp: Completion): void {
    const e = this.mshr[cp.tag];
    if (e === undefined || e.state !== 'pending' || e.needIssue) throw new Error(`cycle model: completion for MSHR ${cp.tag} without a read in flight`);
    if (e.stale) {
      e.stale = false;
      e.needIssue = true;
      this.counts.staleFills++;
      return;
    }
    if (cp.valid && this.cache.fill(e.page, cp.frame, e.asid).evicted !== null) this.counts.evictions++;
    e.state = 'draining';
    e.frame = cp.frame;
    e.fault = !cp.valid;
    e.answered = 0;
    this.drainQ.push(this.mshr.indexOf(e));
  }

  private drainOne(t: number): void {
    const e = this.mshr[this.drainQ[0]!]!;
    const k = e.answered;
    const r = e.waiters[k]!;
    if (e.fault) {
      r.status = 'fault';
      r.pa = null;
      this.counts.faults++;
    } else {
      r.status = k === 0 ? 'miss' : 'merged';
      r.pa = e.frame * PAGE + (r.va % PAGE);
    }
    this.respond(t, r);
    e.answered = k + 1;
    if (e.answered === e.waiters.length) {
      e.state = 'free';
      e.waiters = [];
      this.drainQ.shift();
    }
  }

  private startRefresh(_t: number, r: CycleRefresh): void {
    const c = this.cfg;
    const vp = Number.isInteger(r.vp) && r.vp >= 0 && r.vp <= 0xffff ? r.vp : -1;
    const { base, top } = r;
    let mode: 'probe' | 'sweep' | 'buffer' | 'bad';
    let cycles: number;
    let pos = 0;
    if (!Number.isInteger(base) || !Number.isInteger(top) || base < 0 || top < base) {
      mode = 'bad';
      cycles = 1;
    } else if (c.mode === 'buffer') {
      const lo = Math.max(base, c.bufferBasePage);
      const hi = Math.min(top, c.bufferBasePage + c.entries - 1);
      mode = 'buffer';
      cycles = Math.max(1, hi - lo + 1);
      pos = lo;
    } else if (top - base + 1 <= c.refreshProbeMax) {
      mode = 'probe';
      cycles = top - base + 1;
      pos = base;
    } else {
      mode = 'sweep';
      cycles = this.sets;
    }
    if (mode !== 'bad') {
      for (const e of this.mshr) if (e.state === 'pending' && !e.needIssue && e.page >= base && e.page <= top && (vp < 0 || e.asid === vp)) e.stale = true;
    }
    r.mode = mode;
    this.rf = { r, mode, pos, left: cycles, vp };
  }

  private refreshStep(t: number): void {
    const rf = this.rf!;
    const { base, top } = rf.r;
    const match = (asid: number): boolean => rf.vp < 0 || asid === rf.vp;
    if (rf.mode === 'probe' || rf.mode === 'sweep') {
      const set = rf.mode === 'probe' ? rf.pos % this.sets : rf.pos;
      const lo = rf.mode === 'probe' ? rf.pos : base;
      const hi = rf.mode === 'probe' ? rf.pos : top;
      for (const x of this.cache.contents(set)) {
        if (x !== null && x.page >= lo && x.page <= hi && match(x.asid)) {
          this.cache.invalidate(x.page, x.asid);
          this.counts.removals++;
        }
      }
    } else if (rf.mode === 'buffer') {
      const e = this.buffer.get(rf.pos);
      if (rf.pos <= top && e !== undefined && e.valid && match(e.asid)) {
        e.valid = false;
        this.counts.removals++;
      }
    }
    rf.pos++;
    rf.left--;
    if (rf.left === 0) {
      rf.r.done = t + 1;
      this.rf = null;
      this.busy--;
    }
  }

  private hostCycle(t: number): void {
    if (this.host.length < 256 && this.memReq.canPop(t)) {
      const rd = this.memReq.pop(t);
      const e = this.attEntry(rd.page, rd.vp);
      this.host.push({ due: t + this.cfg.readLatency - 2, seq: this.hostSeq++, c: { tag: rd.tag, frame: e.frame, valid: e.valid } });
    }
    let best = -1;
    for (let i = 0; i < this.host.length; i++) {
      const h = this.host[i]!;
      if (h.due <= t && (best < 0 || h.due < this.host[best]!.due || (h.due === this.host[best]!.due && h.seq < this.host[best]!.seq))) best = i;
    }
    if (best >= 0 && this.memResp.canPush(t)) this.memResp.push(t, this.host.splice(best, 1)[0]!.c);
  }
}
