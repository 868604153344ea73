/**
 * A testbench around one ATC + host memory that checks every step against the golden cache model
 * and the freshness oracle while software (the test) drives lookups, ATT updates, refreshes and
 * latency changes between cycles:
 *
 * - the ATC's verification monitor reports each tag-array operation in the order it happens; the
 *   golden model (models/nic/cacheModel.ts) replays the same operations and must agree on every
 *   hit/miss, hit way, fill way and evicted page, and every refresh removal;
 * - every response is matched to an outstanding tag (no loss, no duplication), its status and
 *   latency are checked, hits must return the model's frame, fills must return an ATT version the
 *   oracle accepts, and installs must not be stale;
 * - every cycle, the request at the head of the request channel is judged before the cycle runs:
 *   the cache model and the miss model say whether it must be accepted (hit, merge with room, new
 *   miss with a free MSHR, bypass, error, any buffer-mode lookup) or must stall (its miss holds
 *   mshrTargets requests, or a new miss finds every MSHR busy); the channel's count says whether
 *   it was. An accept that should have stalled fails, and so does a stall that should have been an
 *   accept unless the hit pipeline held that cycle (output full, or the fairness rule's yield);
 * - MSHR releases are learnt where the ATC pushes a miss response (the monitor's drain event), so
 *   MSHR-full is judged also while the consumer holds responses back;
 * - buffer mode: preloads (port writes) and refresh removals are replayed into a model of the
 *   buffer; every lookup's hit frame or fault is predicted from it at acceptance, every preload's
 *   result and cycle, and the buffer is compared entry by entry when idle.
 *
 * Any disagreement throws at once (so fast-check shrinks to the first bad step).
 */
import { Simulator, type SimulatorOptions } from '../../rtl/kernel/index.ts';
import {
  ATC_BYPASS,
  ATC_ERROR,
  ATC_FAULT,
  ATC_HIT,
  ATC_MERGED,
  ATC_MISS,
  type Atc,
  type AtcConfig,
  AtcReq,
  ATC_MAX_ASID,
  buildAtcWithHost,
  PAGE_BYTES,
  PreloadWrite,
  type RefreshRequest,
} from '../../rtl/nic/atc/index.ts';
import { ATT_DEFAULT_OFFSET, ATT_VP_STRIDE, type AttTable, type HostMemory } from '../../rtl/nic/hostmem/index.ts';
import { SetAssocCacheModel } from '../../models/nic/cacheModel.ts';
import { MissModel } from '../../models/nic/missModel.ts';
import { type RefreshRecord, TranslationOracle } from './translationOracle.ts';

export interface WorldConfig {
  atc: Partial<AtcConfig> & { entries: number; ways: number };
  readLatency: number;
  jitter: number;
  seed: number;
  sim?: SimulatorOptions;
}

interface Outstanding {
  req: AtcReq;
  kind: 'cache' | 'bypass' | 'error';
  /** sim.cycle when it was pushed (visible to the ATC from the next cycle) */
  pushCycle: number;
  /** set by the lookup event: expected hit frame (-1 = miss); buffer mode: set at acceptance, -1 = fault */
  expectHit: number | null;
  /** set by the lookup event for a cache miss: the miss model's classification */
  expectClass: 'miss' | 'merged' | null;
  /** cycle the ATC pushed it as a miss waiter (the monitor's drain event), -1 before */
  drained: number;
}

/** One buffer-mode entry as the world's buffer model holds it. */
interface BufferEntry {
  asid: number;
  pfn: number;
  valid: boolean;
}

interface PendingPreload {
  w: PreloadWrite;
  pushCycle: number;
  /** the world's verdict: applied (true) or rejected */
  ok: boolean;
}

/** What the head of the request channel must do in a cycle, and why. */
interface HeadVerdict {
  o: Outstanding;
  must: 'accept' | 'stall';
  why: string;
  /** buffer mode: the frame a hit returns, -1 for a fault */
  bufferPfn: number;
}

export interface ResponseLogEntry {
  tag: number;
  status: number;
  pfn: number;
  accept: number;
  done: number;
}

class Failure extends Error {}

export class AtcWorld {
  readonly sim: Simulator;
  readonly atc: Atc;
  readonly host: HostMemory;
  readonly att: AttTable;
  readonly model: SetAssocCacheModel;
  /** transaction-level model of the miss handling: miss / merged / stall classification */
  readonly misses: MissModel;
  readonly oracle: TranslationOracle;
  readonly log: ResponseLogEntry[] = [];
  readonly outstanding = new Map<number, Outstanding>();
  /** cache lookups pushed but not yet seen by the tag array, in push order */
  private readonly lookupQueue: Outstanding[] = [];
  /** every request pushed and not yet popped by the ATC, in push order (the channel's contents) */
  private readonly chanQueue: Outstanding[] = [];
  /** buffer mode: the world's model of the buffer, page -> entry */
  private readonly buffer = new Map<number, BufferEntry>();
  private readonly preloads: PendingPreload[] = [];
  /** buffer mode: the configured buffer (a copy: the world judges by the configuration, not the RTL's fields) */
  private readonly buf: { base: number; entries: number; frameLimit: number };
  /** the last cycle in which a preload was taken (one per cycle) */
  private preloadCycle = -1;
  /** buffer mode: cycle each page's entry was last written by a preload */
  private readonly loadedAt = new Map<number, number>();
  /** how often each head-of-channel judgement was made (a test can require each was exercised) */
  readonly judged = { mustAccept: 0, mustStall: 0, stalledForPipeline: 0, mustStallWhileHeld: 0 };
  readonly refreshes: RefreshRecord[] = [];
  private refreshQueue: RefreshRecord[] = [];
  private active: RefreshRecord | null = null;
  private readonly installedAt = new Map<string, number>();
  private nextTag = 0;
  /** the consumer has held responses back at some point (exact hit latency no longer holds) */
  private held = false;
  private nextFrame = 2 ** 35;
  /** cycles in which the ATC's hit pipeline yielded the output port to a miss waiter (drain_turn_cycles rose) */
  private readonly yieldCycles: number[] = [];
  private minReadLatency: number;
  readonly hitLatency: number;
  counts = { lookups: 0, hits: 0, misses: 0, merged: 0, installs: 0, evictions: 0, invalidations: 0, staleFills: 0 };

  constructor(readonly cfg: WorldConfig) {
    this.sim = new Simulator(cfg.sim ?? {});
    const sys = buildAtcWithHost(this.sim, cfg.atc, { readLatency: cfg.readLatency, jitter: cfg.jitter, seed: cfg.seed });
    this.atc = sys.atc;
    this.host = sys.host;
    this.att = sys.att;
    this.minReadLatency = cfg.readLatency;
    this.hitLatency = this.atc.cfg.hitLatency;
    this.model = new SetAssocCacheModel(cfg.atc.entries, cfg.atc.ways, this.atc.cfg.replacement);
    this.misses = new MissModel(this.atc.cfg.mshrs, this.atc.cfg.mshrTargets);
    this.buf = { base: this.atc.cfg.bufferBasePage, entries: this.atc.cfg.entries, frameLimit: 2 ** (this.atc.cfg.paBits - 12) };
    // the ATT's documented default mapping (docs/nic-memory.md)
    this.oracle = new TranslationOracle((p, vp) => (p + ATT_DEFAULT_OFFSET + vp * ATT_VP_STRIDE) % this.att.frameLimit);
    this.atc.monitor = {
      lookup: (t, page, hit, way, asid) => this.onLookup(t, page, hit, way, asid),
      install: (t, page, pfn, way, evicted, asid, evictedAsid) => this.onInstall(t, page, pfn, way, evicted, asid, evictedAsid),
      invalidate: (t, page, way, asid) => this.onInvalidate(t, page, way, asid),
      refreshStart: (t, base, top) => this.onRefreshStart(t, base, top),
      refreshDone: (t) => this.onRefreshDone(t),
      fill: (t, page, asid) => {
        if (!this.misses.fill(t, asid, page)) this.fail(`fill for VP ${asid} page ${page} with no outstanding miss in the miss model`);
      },
      staleFill: () => {
        this.counts.staleFills++;
      },
      drain: (t, r) => this.onDrain(t, r),
    };
  }

  private fail(msg: string): never {
    throw new Failure(`cycle ${this.sim.cycle}: ${msg}`);
  }

  // ---------------- stimulus (between cycles) ----------------

  /** Push a lookup if the request channel has room; returns its tag or -1. */
  lookup(va: number, physical = false, asid = 0): number {
    if (!this.atc.req.canPush()) return -1;
    const r = new AtcReq();
    r.tag = this.nextTag++;
    r.va = va;
    r.physical = physical;
    r.asid = asid;
    const bad = !(Number.isInteger(va) && va >= 0 && va < 2 ** this.atc.cfg.vaBits) || !(Number.isInteger(asid) && asid >= 0 && asid <= ATC_MAX_ASID);
    const o: Outstanding = { req: r, kind: bad ? 'error' : physical ? 'bypass' : 'cache', pushCycle: this.sim.cycle, expectHit: null, expectClass: null, drained: -1 };
    this.outstanding.set(r.tag, o);
    if (o.kind === 'cache' && this.atc.cfg.mode === 'cache') this.lookupQueue.push(o);
    this.chanQueue.push(o);
    this.atc.req.push(r);
    return r.tag;
  }

  /**
   * Software writes one buffer entry through the preload port if it has room (buffer mode; in
   * cache mode the write must be rejected). Returns whether it was pushed.
   */
  preload(page: number, pfn: number, valid = true, asid = 0): boolean {
    if (!this.atc.preloadIn.canPush()) return false;
    const w = new PreloadWrite();
    w.page = page;
    w.pfn = pfn;
    w.valid = valid;
    w.asid = asid;
    const b = this.buf;
    const idx = page - b.base;
    const ok = this.atc.cfg.mode === 'buffer' && Number.isInteger(page) && idx >= 0 && idx < b.entries && Number.isInteger(pfn) && pfn >= 0 && pfn < b.frameLimit && Number.isInteger(asid) && asid >= 0 && asid <= ATC_MAX_ASID;
    this.preloads.push({ w, pushCycle: this.sim.cycle, ok });
    this.atc.preloadIn.push(w);
    return true;
  }

  /** Software changes a translation in VP `vp`'s ATT (a unique new frame, or invalid). */
  attWrite(page: number, valid: boolean, vp = 0): void {
    const frame = this.nextFrame++;
    this.att.write(page, frame, valid, vp);
    this.oracle.write(page, frame, valid, vp);
  }

  /** Push a refresh of [base, top] of `vp` (-1: every VP) if the channel has room. */
  refresh(base: number, top: number, vp = -1): boolean {
    if (!this.atc.refreshIn.canPush()) return false;
    const rec = this.oracle.requestRefresh(base, top, vp);
    this.refreshes.push(rec);
    this.refreshQueue.push(rec);
    const rq: RefreshRequest = { basePage: base, topPage: top, vp, refreshId: this.refreshes.length };
    this.atc.refreshIn.push(rq);
    return true;
  }

  setLatency(readLatency: number, jitter: number): void {
    this.host.setLatency(readLatency, jitter);
    this.minReadLatency = Math.min(this.minReadLatency, readLatency);
  }

  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.cycle();
      this.collect();
    }
  }

  /**
   * One cycle with the head-of-channel judgement around it: what the head request must do is
   * decided from the models before the cycle (their state is the tag array and MSHRs as the
   * lookup stage reads them), what it did from the channel's count after it.
   */
  private cycle(): void {
    const t = this.sim.cycle;
    const s = this.atc.stats;
    const y = s.drainTurnCycles.value;
    const os = s.outputStallCycles.value;
    const head = this.chanQueue[0];
    const verdict = head !== undefined && head.pushCycle < t ? this.judgeHead(head, t) : null;
    const held0 = this.atc.req.held();
    // what the output stage sees in this cycle: a full response channel, a miss waiter owed the port
    const respFull = !this.atc.resp.canPush();
    const waiter = this.misses.waiterReady();
    this.sim.step(1);
    const popped = held0 - this.atc.req.held();
    const yielded = s.drainTurnCycles.value !== y;
    if (yielded) this.yieldCycles.push(t);
    if (yielded && !waiter) this.fail(`the hit pipeline yielded the output port in cycle ${t} with no miss waiter ready`);
    if (s.outputStallCycles.value !== os && !respFull) this.fail(`the hit pipeline stalled for a full response channel in cycle ${t}, but the channel had room`);
    if (popped > 1) this.fail(`the ATC took ${popped} requests in one cycle`);
    if (verdict !== null) {
      const o = verdict.o;
      if (popped === 1) {
        this.chanQueue.shift();
        if (verdict.must === 'stall') this.fail(`tag ${o.req.tag} (VP ${o.req.asid} va ${o.req.va}): accepted in cycle ${t} although it must stall: ${verdict.why}`);
        if (o.req.acceptCycle !== t) this.fail(`tag ${o.req.tag}: taken from the channel in cycle ${t}, the request says accepted in ${o.req.acceptCycle}`);
        if (this.atc.cfg.mode === 'buffer' && o.kind === 'cache') o.expectHit = verdict.bufferPfn;
        this.judged.mustAccept++;
      } else if (verdict.must === 'accept') {
        // the only other reason not to take it: the hit pipeline held this cycle
        if (s.outputStallCycles.value === os && !yielded) this.fail(`tag ${o.req.tag} (VP ${o.req.asid} va ${o.req.va}): not accepted in cycle ${t} although it must be (${verdict.why}) and the hit pipeline did not hold`);
        this.judged.stalledForPipeline++;
      } else {
        this.judged.mustStall++;
        if (this.held) this.judged.mustStallWhileHeld++;
      }
    } else if (popped !== 0) this.fail(`the ATC took a request in cycle ${t} although none was visible`);
    this.checkPreloads(t);
  }

  /** What the head request must do in cycle t, from the cache/buffer model and the miss model. */
  private judgeHead(o: Outstanding, t: number): HeadVerdict {
    if (o.kind !== 'cache') return { o, must: 'accept', why: o.kind, bufferPfn: -1 };
    const r = o.req;
    const page = Math.floor(r.va / PAGE_BYTES);
    const c = this.atc.cfg;
    if (c.mode === 'buffer') {
      const e = this.buffer.get(page);
      const hit = e !== undefined && e.valid && e.asid === r.asid;
      return { o, must: 'accept', why: hit ? 'buffer hit' : 'buffer fault', bufferPfn: hit ? e.pfn : -1 };
    }
    if (this.model.peek(page, r.asid) !== null) return { o, must: 'accept', why: 'hit', bufferPfn: -1 };
    const held = this.misses.pendingWaiters(r.asid, page);
    if (held >= 0) {
      if (held < c.mshrTargets) return { o, must: 'accept', why: `merges into the outstanding miss of VP ${r.asid} page ${page} (${held} of ${c.mshrTargets} targets)`, bufferPfn: -1 };
      return { o, must: 'stall', why: `the outstanding miss of VP ${r.asid} page ${page} holds ${held} requests (mshrTargets ${c.mshrTargets})`, bufferPfn: -1 };
    }
    const busy = this.misses.busy(t);
    if (busy < c.mshrs) return { o, must: 'accept', why: `new miss, ${busy} of ${c.mshrs} MSHRs busy`, bufferPfn: -1 };
    return { o, must: 'stall', why: `new miss and all ${c.mshrs} MSHRs are busy`, bufferPfn: -1 };
  }

  /** The preload port takes one write per cycle: the oldest visible one must have been applied in cycle t. */
  private checkPreloads(t: number): void {
    const p = this.preloads[0];
    if (p === undefined || this.preloadCycle === t) return;
    if (p.pushCycle >= t) {
      if (p.w.result !== -1) this.fail(`preload of page ${p.w.page} applied in cycle ${t} before it was visible`);
      return;
    }
    if (p.w.result === -1) this.fail(`preload of page ${p.w.page} (pushed in ${p.pushCycle}) not taken in cycle ${t}`);
    this.applyPreload(t);
  }

  /**
   * Replays into the buffer model the preload the ATC took in cycle t, if any (the port writes in
   * step 4, before that cycle's refresh step: a removal event of the same cycle calls this first).
   */
  private applyPreload(t: number): void {
    const p = this.preloads[0];
    if (p === undefined || p.pushCycle >= t || p.w.result === -1) return;
    this.preloadCycle = t;
    const want = p.ok ? 0 : 1;
    if (p.w.result !== want) this.fail(`preload of page ${p.w.page} frame ${p.w.pfn} VP ${p.w.asid}: result ${p.w.result}, expected ${want} (${p.ok ? 'applied' : 'rejected'})`);
    this.preloads.shift();
    if (p.ok) {
      this.buffer.set(p.w.page, { asid: p.w.asid, pfn: p.w.pfn, valid: p.w.valid });
      this.loadedAt.set(p.w.page, t);
    }
  }

  /** Cycles in (a, d) in which the hit pipeline held to let a miss waiter out (the fairness rule). */
  private yieldsBetween(a: number, d: number): number {
    let n = 0;
    for (let i = this.yieldCycles.length - 1; i >= 0 && this.yieldCycles[i]! > a; i--) if (this.yieldCycles[i]! < d) n++;
    return n;
  }

  /** Let n cycles pass without popping responses (consumer backpressure), then take what is there. */
  hold(n: number): void {
    this.held = true;
    for (let i = 0; i < n; i++) this.cycle();
    this.collect();
  }

  get idle(): boolean {
    return this.outstanding.size === 0 && this.active === null && this.refreshQueue.length === 0 && this.preloads.length === 0;
  }

  /** Run until every lookup is answered and every refresh done; then compare the arrays with the model. */
  drain(maxCycles = 200000): void {
    for (let i = 0; i < maxCycles && !this.idle; i++) this.step();
    if (!this.idle) this.fail(`not idle after ${maxCycles} cycles: ${this.outstanding.size} lookups outstanding (lost?), refresh active ${this.active !== null}`);
    if (this.atc.mshr.busy !== 0) this.fail(`${this.atc.mshr.busy} MSHRs still busy when idle`);
    if (this.atc.inFlight !== 0) this.fail(`ATC reports ${this.atc.inFlight} requests in flight when idle`);
    this.compareArrays();
  }

  /** Every set of the RTL tag array equals the model's. */
  compareArrays(): void {
    const tags = this.atc.tags;
    if (this.atc.cfg.mode === 'buffer') {
      const base = this.buf.base;
      for (let i = 0; i < tags.entries; i++) {
        const rtl = tags.valid[i] ? { page: tags.page[i]!, asid: tags.asid[i]!, pfn: tags.pfn[i]! } : null;
        const e = this.buffer.get(base + i);
        const mm = e && e.valid ? { page: base + i, asid: e.asid, pfn: e.pfn } : null;
        if (JSON.stringify(rtl) !== JSON.stringify(mm)) this.fail(`buffer entry ${i}: RTL holds ${JSON.stringify(rtl)}, model ${JSON.stringify(mm)}`);
      }
      return;
    }
    for (let set = 0; set < this.atc.sets; set++) {
      const m = this.model.contents(set);
      for (let w = 0; w < tags.ways; w++) {
        const i = set * tags.ways + w;
        const rtl = tags.valid[i] ? { page: tags.page[i]!, asid: tags.asid[i]!, pfn: tags.pfn[i]! } : null;
        const mm = m[w] ?? null;
        if (JSON.stringify(rtl) !== JSON.stringify(mm)) this.fail(`set ${set} way ${w}: RTL holds ${JSON.stringify(rtl)}, model ${JSON.stringify(mm)}`);
      }
    }
  }

  // ---------------- checking ----------------

  private collect(): void {
    const resp = this.atc.resp;
    while (resp.canPop()) {
      const r = resp.pop();
      const o = this.outstanding.get(r.tag);
      if (!o || o.req !== r) this.fail(`response for tag ${r.tag} that is not outstanding (duplicate or corrupted)`);
      this.outstanding.delete(r.tag);
      this.log.push({ tag: r.tag, status: r.status, pfn: r.pfn, accept: r.acceptCycle, done: r.doneCycle });
      if (r.doneCycle > this.sim.cycle || (!this.held && r.doneCycle !== this.sim.cycle)) this.fail(`tag ${r.tag}: doneCycle ${r.doneCycle} but popped in cycle ${this.sim.cycle}`);
      const lat = r.doneCycle - r.acceptCycle;
      // with backpressure the hit pipeline stalls, so a fast response may take longer than hitLatency
      // exact: hitLatency plus the cycles the hit pipeline held for a miss waiter while this one was in it
      const fastWant = this.hitLatency + this.yieldsBetween(r.acceptCycle, r.doneCycle);
      const fastOk = this.held ? lat >= this.hitLatency : lat === fastWant;
      if (o.kind === 'error') {
        if (r.status !== ATC_ERROR) this.fail(`tag ${r.tag}: bad address answered with status ${r.status}`);
        if (!fastOk) this.fail(`tag ${r.tag}: error latency ${lat}, expected ${fastWant}`);
        continue;
      }
      if (o.kind === 'bypass') {
        if (r.status !== ATC_BYPASS || r.pa !== r.va) this.fail(`tag ${r.tag}: bypass answered status ${r.status} pa ${r.pa}`);
        if (!fastOk) this.fail(`tag ${r.tag}: bypass latency ${lat}, expected ${fastWant}`);
        continue;
      }
      const page = Math.floor(r.va / PAGE_BYTES);
      if (this.atc.cfg.mode === 'buffer') {
        if (o.expectHit === null) this.fail(`tag ${r.tag}: answered but never accepted`);
        if (o.drained >= 0) this.fail(`tag ${r.tag}: a buffer lookup was answered as a miss waiter`);
        if (o.expectHit >= 0 && (r.status !== ATC_HIT || r.pfn !== o.expectHit || r.pa !== r.pfn * PAGE_BYTES + (r.va % PAGE_BYTES))) this.fail(`tag ${r.tag}: buffer model says hit with frame ${o.expectHit}, RTL answered status ${r.status} frame ${r.pfn} pa ${r.pa}`);
        if (o.expectHit < 0 && (r.status !== ATC_FAULT || r.pfn !== -1 || r.pa !== -1)) this.fail(`tag ${r.tag}: buffer model says fault (VP ${r.asid} page ${page} not loaded), RTL answered status ${r.status} frame ${r.pfn}`);
        if (!fastOk) this.fail(`tag ${r.tag}: buffer lookup latency ${lat}, expected ${this.held ? `at least ${this.hitLatency}` : `exactly ${fastWant}`}`);
        continue;
      }
      if (o.expectHit === null) this.fail(`tag ${r.tag}: answered but its lookup never reached the tag array`);
      if (o.expectHit >= 0) {
        if (r.status !== ATC_HIT || r.pfn !== o.expectHit) this.fail(`tag ${r.tag}: model says hit with frame ${o.expectHit}, RTL answered status ${r.status} frame ${r.pfn}`);
        if (o.drained >= 0) this.fail(`tag ${r.tag}: a hit was answered as a miss waiter`);
        if (!fastOk) this.fail(`tag ${r.tag}: hit latency ${lat}, expected exactly ${fastWant}`);
        if (r.pa !== r.pfn * PAGE_BYTES + (r.va % PAGE_BYTES)) this.fail(`tag ${r.tag}: pa ${r.pa} does not match frame ${r.pfn}`);
      } else {
        if (r.status !== ATC_MISS && r.status !== ATC_MERGED && r.status !== ATC_FAULT) this.fail(`tag ${r.tag}: model says miss, RTL answered status ${r.status}`);
        const cls = o.expectClass;
        if ((r.status === ATC_MISS && cls !== 'miss') || (r.status === ATC_MERGED && cls !== 'merged')) this.fail(`tag ${r.tag}: RTL answered ${r.status === ATC_MISS ? 'miss' : 'merged'}, the miss model classified it ${cls}`);
        if (o.drained < 0) this.fail(`tag ${r.tag}: a miss response the ATC never reported draining`);
        // a primary miss waits at least a whole ATT read; a merged one may join just before the fill
        if (r.status === ATC_MISS && lat < this.minReadLatency + 1) this.fail(`tag ${r.tag}: miss answered after ${lat} cycles, less than the read latency + 1 = ${this.minReadLatency + 1}`);
        if (lat < 1) this.fail(`tag ${r.tag}: answered ${lat} cycles after acceptance`);
      }
      const bad = this.oracle.judgeResponse(page, r.status === ATC_FAULT ? null : r.pfn, r.acceptCycle, r.asid);
      if (bad !== null) this.fail(bad);
    }
  }

  private onLookup(t: number, page: number, hit: boolean, way: number, asid: number): void {
    this.counts.lookups++;
    const o = this.lookupQueue.shift();
    if (!o) this.fail(`tag array lookup of page ${page} with no cache lookup pending`);
    const want = Math.floor(o.req.va / PAGE_BYTES);
    if (want !== page || o.req.asid !== asid) this.fail(`lookup out of order: tag array looked up VP ${asid} page ${page}, next pushed lookup is VP ${o.req.asid} page ${want}`);
    if (o.req.acceptCycle !== t) this.fail(`lookup of page ${page} in cycle ${t} but the request says accepted in ${o.req.acceptCycle}`);
    const m = this.model.lookup(page, asid);
    if (m.hit !== hit || (hit && m.way !== way)) this.fail(`page ${page}: RTL ${hit ? `hit way ${way}` : 'miss'}, model ${m.hit ? `hit way ${m.way}` : 'miss'}`);
    o.expectHit = hit ? m.pfn! : -1;
    if (hit) this.counts.hits++;
    else {
      // the miss model decides merged / miss / stall; a lookup that must stall may not be accepted
      const held = this.misses.pendingWaiters(asid, page);
      const full = this.misses.busy(t) >= this.atc.cfg.mshrs;
      let cls: 'miss' | 'merged';
      if (held >= 0) {
        if (held >= this.atc.cfg.mshrTargets) this.fail(`VP ${asid} page ${page}: accepted in cycle ${t} although its miss already holds ${held} requests (mshrTargets ${this.atc.cfg.mshrTargets}): must stall`);
        cls = 'merged';
      } else {
        // releases are learnt where the ATC pushes the response (drain event), so this holds with held responses too
        if (full) this.fail(`VP ${asid} page ${page}: accepted as a new miss in cycle ${t} although all ${this.atc.cfg.mshrs} MSHRs are busy: must stall`);
        cls = 'miss';
      }
      this.misses.accept(t, asid, page, cls);
      o.expectClass = cls;
      this.counts[cls === 'miss' ? 'misses' : 'merged']++;
    }
  }

  /** The ATC pushed a miss waiter in cycle t: the miss model counts it down (the MSHR frees from t + 1 after the last). */
  private onDrain(t: number, r: AtcReq): void {
    const o = this.outstanding.get(r.tag);
    if (!o || o.req !== r) this.fail(`drain of tag ${r.tag} that is not outstanding`);
    if (o.drained >= 0) this.fail(`tag ${r.tag} drained twice (cycles ${o.drained} and ${t})`);
    if (o.expectHit !== -1) this.fail(`tag ${r.tag} drained as a miss waiter but its lookup was ${o.expectHit === null ? 'never seen' : 'a hit'}`);
    o.drained = t;
    if (!this.misses.answer(t, r.asid, Math.floor(r.va / PAGE_BYTES))) this.fail(`tag ${r.tag}: drained but the miss model has no filled miss of VP ${r.asid} page ${Math.floor(r.va / PAGE_BYTES)} draining`);
  }

  private onInstall(t: number, page: number, pfn: number, way: number, evicted: number, asid: number, evictedAsid: number): void {
    this.counts.installs++;
    const f = this.model.fill(page, pfn, asid);
    if (f.way !== way || (f.evicted ?? -1) !== evicted || (f.evictedAsid ?? -1) !== evictedAsid) this.fail(`fill of VP ${asid} page ${page}: RTL way ${way} evicting ${evictedAsid}:${evicted}, model way ${f.way} evicting ${f.evictedAsid ?? -1}:${f.evicted ?? -1}`);
    if (evicted >= 0) this.counts.evictions++;
    this.installedAt.set(`${asid}:${page}`, t);
    const bad = this.oracle.judgeInstall(page, pfn, t, asid);
    if (bad !== null) this.fail(bad);
  }

  private onInvalidate(t: number, page: number, way: number, asid: number): void {
    if (this.atc.cfg.mode === 'buffer') this.applyPreload(t);
    this.counts.invalidations++;
    const a = this.active;
    if (!a) this.fail(`page ${page} invalidated with no refresh active`);
    if (page < a.base || page > a.top) this.fail(`refresh [${a.base}, ${a.top}] removed page ${page} outside its range`);
    if (a.vp >= 0 && asid !== a.vp) this.fail(`refresh of VP ${a.vp} removed a translation of VP ${asid}`);
    if (this.atc.cfg.mode === 'cache') {
      const w = this.model.invalidate(page, asid);
      if (w !== way) this.fail(`refresh removed page ${page} from way ${way}, model has it in way ${w}`);
    } else {
      const e = this.buffer.get(page);
      if (way !== page - this.buf.base) this.fail(`buffer refresh removed page ${page} from entry ${way}, its entry is ${page - this.buf.base}`);
      if (!e || !e.valid || e.asid !== asid) this.fail(`buffer refresh removed VP ${asid} page ${page}, which the buffer model does not hold`);
      e.valid = false;
    }
  }

  private onRefreshStart(t: number, base: number, top: number): void {
    const rec = this.refreshQueue.shift();
    if (!rec || rec.base !== base || rec.top !== top) this.fail(`refresh [${base}, ${top}] started, expected ${rec ? `[${rec.base}, ${rec.top}]` : 'none'}`);
    if (this.active) this.fail('a refresh started while another is active');
    rec.startCycle = t;
    this.active = rec;
  }

  private onRefreshDone(t: number): void {
    if (this.atc.cfg.mode === 'buffer') this.applyPreload(t);
    const a = this.active;
    if (!a) this.fail('refresh done with none active');
    a.doneCycle = t + 1;
    // every page of the range still held must have been installed after the refresh started
    // (a fresh fill, already judged by the oracle); older tags must all be gone
    if (this.atc.cfg.mode === 'cache') {
      for (const { page: p, asid } of this.model.resident()) {
        const at = this.installedAt.get(`${asid}:${p}`) ?? -1;
        if (p >= a.base && p <= a.top && (a.vp < 0 || asid === a.vp) && at < a.startCycle) this.fail(`refresh [${a.base}, ${a.top}] of VP ${a.vp} done but VP ${asid} page ${p}, installed in cycle ${at}, is still cached`);
      }
    } else {
      // every entry of the range (of the VP) must be gone: a preload applied after the refresh passed its entry may stay
      for (const [p, e] of this.buffer) {
        if (e.valid && p >= a.base && p <= a.top && (a.vp < 0 || e.asid === a.vp) && (this.loadedAt.get(p) ?? -1) < a.startCycle) this.fail(`buffer refresh [${a.base}, ${a.top}] of VP ${a.vp} done but VP ${e.asid} page ${p} is still loaded`);
      }
    }
    this.active = null;
  }
}
