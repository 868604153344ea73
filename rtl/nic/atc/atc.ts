import { Channel, Component, type Counter, type Histogram, NEVER, type NumChannel, Pipeline, Reg, type Scope } from '../../kernel/index.ts';
import { type AttRead, READ_TAG_LIMIT } from '../hostmem/hostmem.ts';
import { MSHR_DRAINING, MSHR_PENDING, MshrFile } from './mshr.ts';
import { REFRESH_BAD, REFRESH_MODE_NAMES, RefreshEngine } from './refresh.ts';
import { makeReplacement, type ReplacementState } from './replacement.ts';
import { TagArray } from './tagArray.ts';
import {
  ATC_BYPASS,
  ATC_ERROR,
  ATC_FAULT,
  ATC_HIT,
  ATC_MERGED,
  ATC_MAX_ASID,
  ATC_MISS,
  type AtcConfig,
  atcConfig,
  AtcReq,
  PAGE_BYTES,
  type PreloadWrite,
  type RefreshRequest,
} from './types.ts';

/**
 * Verification probe: what the tag array does, in the order it does it. Every method is optional;
 * a null monitor costs one comparison per event.
 */
export interface AtcMonitor {
  /** an accepted cache-mode lookup of (asid, page) looked up the tags: hit in `way`, or miss (way -1) */
  lookup?(t: number, page: number, hit: boolean, way: number, asid: number): void;
  /** a fill installed (asid, page) in `way`; `evicted` is the page it replaced, or -1 (`evictedAsid` its asid) */
  install?(t: number, page: number, pfn: number, way: number, evicted: number, asid: number, evictedAsid: number): void;
  /** the refresh engine removed (asid, page) from `way` (buffer mode: entry index) */
  invalidate?(t: number, page: number, way: number, asid: number): void;
  refreshStart?(t: number, base: number, top: number, id: number, mode: string, cycles: number): void;
  /** the refresh-done register is written in cycle t (visible from t + 1) */
  refreshDone?(t: number, id: number): void;
  /** a fill for (asid, page) was accepted (not stale): its waiters drain from now on; `fault` when the ATT entry is invalid */
  fill?(t: number, page: number, asid: number, fault: boolean): void;
  /** a fill came back for a stale MSHR: dropped, the read is sent again */
  staleFill?(t: number, page: number): void;
  /**
   * a waiter of a filled MSHR was pushed to `resp` in cycle t (visible from t + 1), with its status
   * already written: where the MSHR's waiters are counted down (it is free from t + 1 after its last)
   */
  drain?(t: number, r: AtcReq): void;
}

/** The host-memory ports the ATC's fill path uses (see rtl/nic/hostmem/hostmem.ts). */
export interface FillPorts {
  readonly req: Channel<AttRead>;
  readonly resp: NumChannel;
}

/**
 * Address translation cache (seed 003, section 2.3): a set-associative cache of the host-memory
 * ATT, or a preloaded flat buffer. One request is accepted per cycle. Per cycle, in this order:
 *
 * 1. Output: a request at the end of the hit pipeline (hit, bypass, buffer hit/fault, error) is
 *    pushed to `resp`; if `resp` is full the whole hit pipeline stalls for the cycle and no
 *    request is accepted. Fairness: when the drain_turn register is set (last cycle a miss waiter
 *    was ready but a hit took the port) and a waiter is ready, the hit pipeline holds for the cycle
 *    instead (no request accepted) and step 7 answers the waiter; so hits and drains alternate
 *    while both are ready, and a fill's waiters cannot be starved by a stream of hits.
 * 2. Refresh start: a refresh request is popped when the engine is idle (stale-marks MSHRs).
 * 3. Lookup stage (the accept cycle a): the head request is looked up in the tags (one set, all
 *    ways). A hit updates the replacement state and enters the hit pipeline; its response is pushed
 *    in a + hitLatency - 1, visible in a + hitLatency. A miss merges into the MSHR of its page or
 *    allocates one; if neither is possible (all MSHRs busy, or the page's MSHR full) the request
 *    stays in the channel (head-of-line stall, counted in mshr_stall_cycles).
 * 4. Preload write port (buffer mode).
 * 5. Fill port: one completion per cycle. A stale MSHR sends its read again; otherwise the page is
 *    installed (invalid way first, else the policy's victim; replacement updated as a touch) unless
 *    the ATT entry is invalid, and the MSHR starts draining.
 * 6. One ATT read is issued per cycle (lowest MSHR needing one), in the allocation cycle if the
 *    channel has room: a miss accepted in cycle a is visible as a response in a + readLatency + 1
 *    at the earliest (fill visible in a + readLatency, first waiter pushed that cycle).
 * 7. Drain: one waiter of the oldest draining MSHR is answered in a cycle the output is not used
 *    by step 1; the MSHR is freed with its last waiter. drain_turn is set for the next cycle when
 *    a waiter is ready and step 1 used the port, else cleared.
 * 8. Refresh step: one probe/sweep unit; the refresh-done register is written with the last one.
 *
 * Arrays are read and written in that order within a cycle, which is the hardware's port
 * priority: the lookup reads before the fill write and the refresh write of the same cycle.
 */
export class Atc extends Component {
  readonly cfg: AtcConfig;
  readonly sets: number;
  /** lookups in (consumer: this) */
  readonly req: Channel<AtcReq>;
  /** responses out (producer: this); the consumer must read the fields when it pops */
  readonly resp: Channel<AtcReq>;
  /** refresh requests from the memory checker */
  readonly refreshIn: Channel<RefreshRequest>;
  /** buffer-mode preload writes from software */
  readonly preloadIn: Channel<PreloadWrite>;
  /** global register: number of refreshes completed (a refresh with id k is done when this is >= k) */
  readonly refreshDone: Reg;
  /** fairness register: 1 when a miss waiter was ready but a hit took the output port last cycle */
  readonly drainTurn: Reg;
  readonly tags: TagArray;
  readonly repl: ReplacementState;
  readonly mshr: MshrFile;
  readonly refresh: RefreshEngine;
  monitor: AtcMonitor | null = null;

  private readonly memReq: Channel<AttRead>;
  private readonly memResp: NumChannel;
  private readonly pipe: Pipeline<AtcReq>;
  private readonly vaLimit: number;
  private readonly buffer: boolean;
  private readonly drainQ: Int32Array;
  private drainHead = 0;
  private drainN = 0;
  private needIssue = 0;
  private stallStart = -1;
  /**
   * Stalled-lookup register: the head request whose lookup stalled (a miss no MSHR could take), and
   * the value of `epoch` when it did. While no tag write and no MSHR state change has happened since
   * (epoch unchanged), the lookup would stall again, so the stage holds the request without probing
   * the tags or the MSHRs again; the cycle behaviour is the same as probing every cycle.
   */
  private stalledReq: AtcReq | null = null;
  private stalledEpoch = -1;
  /** counts tag writes and MSHR state changes (fill, release, refresh, preload) */
  private epoch = 0;

  readonly stats: {
    lookups: Counter;
    hits: Counter;
    misses: Counter;
    merged: Counter;
    evictions: Counter;
    fills: Counter;
    staleFills: Counter;
    bypasses: Counter;
    faults: Counter;
    errors: Counter;
    mshrStallCycles: Counter;
    outputStallCycles: Counter;
    drainTurnCycles: Counter;
    refreshes: Counter;
    refreshCycles: Counter;
    badRefreshes: Counter;
    preloads: Counter;
    badPreloads: Counter;
    latency: Histogram;
  };

  constructor(parent: Scope, name: string, cfg: Partial<AtcConfig>, fill: FillPorts) {
    super(parent, name);
    const c = atcConfig(cfg);
    if (c.mshrs > READ_TAG_LIMIT) throw new RangeError(`ATC config: at most ${READ_TAG_LIMIT} MSHRs (read tag width)`);
    this.cfg = c;
    this.sets = c.entries / c.ways;
    this.buffer = c.mode === 'buffer';
    this.vaLimit = 2 ** c.vaBits;
    this.req = new Channel<AtcReq>(this, 'req', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.resp = new Channel<AtcReq>(this, 'resp', { capacity: c.respCapacity, latency: 1 }).bindProducer(this);
    this.refreshIn = new Channel<RefreshRequest>(this, 'refresh', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.preloadIn = new Channel<PreloadWrite>(this, 'preload', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.memReq = fill.req.bindProducer(this);
    this.memResp = fill.resp.bindConsumer(this);
    this.refreshDone = new Reg(this, 'refresh_done', 32, 0);
    this.drainTurn = new Reg(this, 'drain_turn', 1, 0);
    this.tags = new TagArray(this.sets, c.ways);
    this.repl = makeReplacement(c.replacement, this.sets, c.ways);
    this.mshr = new MshrFile(c.mshrs, c.mshrTargets);
    this.refresh = new RefreshEngine(this.tags, this.mshr, c);
    this.pipe = new Pipeline<AtcReq>(this, 'hitpipe', c.hitLatency - 1);
    this.drainQ = new Int32Array(c.mshrs);
    this.stats = {
      lookups: this.counter('lookups'),
      hits: this.counter('hits'),
      misses: this.counter('misses'),
      merged: this.counter('merged_misses'),
      evictions: this.counter('evictions'),
      fills: this.counter('fills'),
      staleFills: this.counter('stale_fills_dropped'),
      bypasses: this.counter('bypasses'),
      faults: this.counter('faults'),
      errors: this.counter('bad_requests'),
      mshrStallCycles: this.counter('mshr_stall_cycles'),
      outputStallCycles: this.counter('output_stall_cycles'),
      drainTurnCycles: this.counter('drain_turn_cycles'),
      refreshes: this.counter('refreshes'),
      refreshCycles: this.counter('refresh_cycles'),
      badRefreshes: this.counter('bad_refreshes'),
      preloads: this.counter('preloads'),
      badPreloads: this.counter('bad_preloads'),
      latency: this.histogram('latency', { bucketWidth: 1, buckets: c.latencyBuckets }),
    };
    this.signal('mshr_busy', 11, () => this.mshr.busy);
    this.signal('refresh_busy', 1, () => (this.refresh.active ? 1 : 0));
  }

  /** Bytes of the tag/data arrays and replacement state (the modelled SRAM). */
  get storageBytes(): number {
    return this.tags.bytes + this.repl.bytes;
  }

  /** MSHR stall cycles including a stall still in progress (the counter is updated when a stall ends). */
  get mshrStallCycles(): number {
    return this.stats.mshrStallCycles.value + (this.stallStart >= 0 ? this.sim.cycle - this.stallStart : 0);
  }

  /** Requests accepted whose response has not been pushed yet. */
  get inFlight(): number {
    let n = this.pipe.occupancy();
    for (let m = 0; m < this.mshr.count; m++) if (this.mshr.state[m] !== 0) n += this.mshr.nWait[m]! - this.mshr.drainPos[m]!;
    return n;
  }

  /** Hit rate over accepted cache lookups: hits / (hits + misses + merged misses). */
  hitRate(): number {
    const s = this.stats;
    const n = s.hits.value + s.misses.value + s.merged.value;
    return n === 0 ? 0 : s.hits.value / n;
  }

  /**
   * Backdoor preload of one buffer entry (testbench/initialisation only, outside a cycle): the
   * seed's "initialised by writing all physical address items". Throws on a page outside the buffer.
   */
  preloadEntry(page: number, pfn: number, valid = true, asid = 0): void {
    if (!this.buffer) throw new Error(`${this.path}: preloadEntry needs buffer mode`);
    const idx = page - this.cfg.bufferBasePage;
    if (!Number.isInteger(page) || idx < 0 || idx >= this.tags.entries) throw new RangeError(`${this.path}: page ${page} is outside the buffer [${this.cfg.bufferBasePage}, ${this.cfg.bufferBasePage + this.tags.entries})`);
    if (!Number.isInteger(pfn) || pfn < 0 || pfn >= 2 ** (this.cfg.paBits - 12)) throw new RangeError(`${this.path}: frame ${pfn} out of range`);
    if (!Number.isInteger(asid) || asid < 0 || asid > ATC_MAX_ASID) throw new RangeError(`${this.path}: asid ${asid} out of range [0, ${ATC_MAX_ASID}]`);
    this.tags.set(idx, page, asid, pfn, valid);
    this.epoch++;
  }

  override reset(): void {
    this.stalledReq = null;
    this.epoch++;
    this.tags.reset();
    this.repl.reset();
    this.mshr.reset();
    this.refresh.reset();
    this.drainHead = 0;
    this.drainN = 0;
    this.needIssue = 0;
    this.stallStart = -1;
  }

  tick(t: number): number {
    const pipe = this.pipe;
    // 1. hit pipeline output (priority over miss drains)
    // output port arbitration (the fairness rule): the hit pipeline has priority, except in a cycle
    // after one in which a miss waiter was ready and the hit pipeline took the port: then the
    // waiter goes first and the hit pipeline holds for the cycle (drain_turn)
    let outUsed = false;
    let stalled = false;
    let yielded = false;
    if (pipe.valid()) {
      if (!this.resp.canPush()) {
        pipe.stall();
        stalled = true;
        this.stats.outputStallCycles.inc();
      } else if (this.drainTurn.q === 1 && this.drainN > 0) {
        pipe.stall();
        stalled = true;
        yielded = true;
        this.stats.drainTurnCycles.inc();
      } else {
        this.respond(t, pipe.take());
        outUsed = true;
      }
    }
    // 2. refresh start
    const rf = this.refresh;
    if (!rf.active && this.refreshIn.canPop()) this.startRefresh(t, this.refreshIn.pop());
    // 3. lookup stage
    let blocked = false;
    if (!stalled && this.req.canPop()) {
      blocked = !this.lookup(t, this.req.peek());
      if (blocked) {
        if (this.stallStart < 0) this.stallStart = t;
      } else if (this.stallStart >= 0) {
        this.stats.mshrStallCycles.inc(t - this.stallStart);
        this.stallStart = -1;
      }
    }
    // 4. preload write port
    if (this.preloadIn.canPop()) this.preloadWrite(this.preloadIn.pop());
    // 5. fill port
    if (this.memResp.canPop()) this.fill(t, this.memResp.pop());
    // 6. issue one ATT read
    if (this.needIssue > 0 && this.memReq.canPush()) this.issue();
    // 7. drain one waiter
    let freed = false;
    if (!outUsed && (!stalled || yielded) && this.drainN > 0 && this.resp.canPush()) freed = this.drainOne(t);
    // a waiter that was ready but found the port taken by a hit goes first next cycle
    const owed = outUsed && this.drainN > 0 ? 1 : 0;
    if (owed !== this.drainTurn.q) this.drainTurn.d = owed;
    // 8. refresh step
    if (rf.active) this.epoch++; // the refresh port may clear tags this cycle (after the lookup)
    if (rf.active && rf.step(t, this.monitor)) {
      this.refreshDone.d = (this.refreshDone.q + 1) >>> 0;
      this.stats.refreshCycles.inc(rf.total);
      const mon = this.monitor;
      if (mon !== null && mon.refreshDone) mon.refreshDone(t, rf.id);
    }
    // next wake-up
    if (stalled || rf.active || this.drainN > 0 || this.needIssue > 0) return t + 1;
    if (this.memResp.canPop() || this.refreshIn.canPop() || this.preloadIn.canPop()) return t + 1;
    if (this.req.canPop() && (!blocked || freed)) return t + 1;
    const r = pipe.readyCycle();
    return r === Infinity ? NEVER : r;
  }

  private respond(t: number, r: AtcReq): void {
    r.doneCycle = t + 1;
    this.resp.push(r);
    this.stats.latency.record(t + 1 - r.acceptCycle);
  }

  /** The lookup stage; false when the request cannot be accepted this cycle (MSHR stall). */
  private lookup(t: number, r: AtcReq): boolean {
    if (r === this.stalledReq && this.epoch === this.stalledEpoch) return false;
    const va = r.va;
    const asid = r.asid;
    const s = this.stats;
    if (!(va >= 0 && va < this.vaLimit && Number.isInteger(va)) || !(asid >= 0 && asid <= ATC_MAX_ASID && Number.isInteger(asid))) {
      this.accept(t, r, ATC_ERROR, -1, -1);
      s.errors.inc();
      return true;
    }
    if (r.physical) {
      this.accept(t, r, ATC_BYPASS, Math.floor(va / PAGE_BYTES), va);
      s.bypasses.inc();
      return true;
    }
    const page = Math.floor(va / PAGE_BYTES);
    const off = va - page * PAGE_BYTES;
    const tags = this.tags;
    if (this.buffer) {
      s.lookups.inc();
      const idx = page - this.cfg.bufferBasePage;
      if (idx >= 0 && idx < tags.entries && tags.valid[idx] !== 0 && tags.page[idx] === page && tags.asid[idx] === asid) {
        const pfn = tags.pfn[idx]!;
        this.accept(t, r, ATC_HIT, pfn, pfn * PAGE_BYTES + off);
        s.hits.inc();
      } else {
        this.accept(t, r, ATC_FAULT, -1, -1);
        s.faults.inc();
      }
      return true;
    }
    const set = page % this.sets;
    const way = tags.find(set, page, asid);
    const mon = this.monitor;
    if (way >= 0) {
      this.repl.touch(set, way);
      const pfn = tags.pfn[set * tags.ways + way]!;
      this.accept(t, r, ATC_HIT, pfn, pfn * PAGE_BYTES + off);
      s.lookups.inc();
      s.hits.inc();
      if (mon !== null && mon.lookup) mon.lookup(t, page, true, way, asid);
      return true;
    }
    const mshr = this.mshr;
    let m = mshr.findPending(page, asid);
    if (m >= 0) {
      if (!mshr.merge(m, r)) return this.stall(r);
      s.merged.inc();
    } else {
      m = mshr.alloc(page, asid, r);
      if (m < 0) return this.stall(r);
      this.needIssue++;
      s.misses.inc();
    }
    this.stalledReq = null;
    this.req.pop();
    r.acceptCycle = t;
    r.status = -1;
    s.lookups.inc();
    if (mon !== null && mon.lookup) mon.lookup(t, page, false, -1, asid);
    return true;
  }

  /** The head request stays in the lookup stage (MSHR stall); its probe is held until the next tag or MSHR change. */
  private stall(r: AtcReq): false {
    this.stalledReq = r;
    this.stalledEpoch = this.epoch;
    return false;
  }

  /** Pop the head request into the hit pipeline with its result. */
  private accept(t: number, r: AtcReq, status: number, pfn: number, pa: number): void {
    this.stalledReq = null;
    this.req.pop();
    r.acceptCycle = t;
    r.status = status;
    r.pfn = pfn;
    r.pa = pa;
    this.pipe.push(r);
  }

  private preloadWrite(w: PreloadWrite): void {
    const idx = w.page - this.cfg.bufferBasePage;
    const asid = w.asid;
    if (!this.buffer || !Number.isInteger(w.page) || idx < 0 || idx >= this.tags.entries || !Number.isInteger(w.pfn) || w.pfn < 0 || w.pfn >= 2 ** (this.cfg.paBits - 12) || !Number.isInteger(asid) || asid < 0 || asid > ATC_MAX_ASID) {
      w.result = 1;
      this.stats.badPreloads.inc();
      return;
    }
    this.tags.set(idx, w.page, asid, w.pfn, w.valid);
    this.epoch++;
    w.result = 0;
    this.stats.preloads.inc();
  }

  private fill(t: number, v: number): void {
    const m = v % READ_TAG_LIMIT;
    const rest = (v - m) / READ_TAG_LIMIT;
    const valid = rest % 2;
    const pfn = (rest - valid) / 2;
    const mshr = this.mshr;
    this.epoch++;
    if (mshr.state[m] !== MSHR_PENDING || mshr.needIssue[m] !== 0) throw new Error(`${this.path}: fill for MSHR ${m} which has no read in flight (cycle ${t})`);
    const page = mshr.page[m]!;
    const mon = this.monitor;
    if (mshr.stale[m] !== 0) {
      // a refresh covering this page started after the read was sent: the data may predate the
      // software update, so it is neither installed nor returned; the read goes out again
      mshr.stale[m] = 0;
      mshr.needIssue[m] = 1;
      this.needIssue++;
      this.stats.staleFills.inc();
      if (mon !== null && mon.staleFill) mon.staleFill(t, page);
      return;
    }
    this.stats.fills.inc();
    if (mon !== null && mon.fill) mon.fill(t, page, mshr.asid[m]!, valid !== 1);
    if (valid === 1) this.install(t, page, mshr.asid[m]!, pfn);
    mshr.state[m] = MSHR_DRAINING;
    mshr.fillPfn[m] = pfn;
    mshr.fillFault[m] = valid === 1 ? 0 : 1;
    mshr.drainPos[m] = 0;
    let slot = this.drainHead + this.drainN;
    if (slot >= this.drainQ.length) slot -= this.drainQ.length;
    this.drainQ[slot] = m;
    this.drainN++;
  }

  private install(t: number, page: number, asid: number, pfn: number): void {
    const tags = this.tags;
    const set = page % this.sets;
    const ways = tags.ways;
    let evicted = -1;
    let evictedAsid = -1;
    let w = tags.find(set, page, asid);
    if (w < 0) {
      w = tags.firstInvalid(set);
      if (w < 0) {
        w = this.repl.victim(set);
        evicted = tags.page[set * ways + w]!;
        evictedAsid = tags.asid[set * ways + w]!;
        this.stats.evictions.inc();
      }
    }
    tags.set(set * ways + w, page, asid, pfn, true);
    this.repl.touch(set, w);
    const mon = this.monitor;
    if (mon !== null && mon.install) mon.install(t, page, pfn, w, evicted, asid, evictedAsid);
  }

  private issue(): void {
    const mshr = this.mshr;
    for (let m = 0; m < mshr.count; m++) {
      if (mshr.needIssue[m] !== 0) {
        mshr.needIssue[m] = 0;
        this.needIssue--;
        const rd = mshr.reads[m]!;
        rd.page = mshr.page[m]!;
        rd.vp = mshr.asid[m]!;
        this.memReq.push(rd);
        return;
      }
    }
    throw new Error(`${this.path}: needIssue count is ${this.needIssue} but no MSHR needs a read (corrupt state)`);
  }

  /** Answer one waiter of the oldest draining MSHR; true when that freed the MSHR. */
  private drainOne(t: number): boolean {
    const mshr = this.mshr;
    const m = this.drainQ[this.drainHead]!;
    const k = mshr.drainPos[m]!;
    const r = mshr.waiters[m * mshr.targets + k]!;
    if (mshr.state[m] !== MSHR_DRAINING || r === null) throw new Error(`${this.path}: drain of MSHR ${m} waiter ${k} found no request (corrupt state)`);
    if (mshr.fillFault[m] !== 0) {
      r.status = ATC_FAULT;
      r.pfn = -1;
      r.pa = -1;
      this.stats.faults.inc();
    } else {
      const pfn = mshr.fillPfn[m]!;
      r.status = k === 0 ? ATC_MISS : ATC_MERGED;
      r.pfn = pfn;
      r.pa = pfn * PAGE_BYTES + (r.va % PAGE_BYTES);
    }
    this.respond(t, r);
    const mon = this.monitor;
    if (mon !== null && mon.drain) mon.drain(t, r);
    mshr.drainPos[m] = k + 1;
    if (k + 1 < mshr.nWait[m]!) return false;
    mshr.release(m);
    this.epoch++;
    this.drainHead = this.drainHead + 1 === this.drainQ.length ? 0 : this.drainHead + 1;
    this.drainN--;
    return true;
  }

  private startRefresh(t: number, rq: RefreshRequest): void {
    const rf = this.refresh;
    rf.start(t, rq);
    this.stats.refreshes.inc();
    if (rf.mode === REFRESH_BAD) this.stats.badRefreshes.inc();
    const mon = this.monitor;
    if (mon !== null && mon.refreshStart) mon.refreshStart(t, rf.base, rf.top, rf.id, REFRESH_MODE_NAMES[rf.mode]!, rf.total);
  }
}

