import { Channel, Component, type Counter, NEVER, Pipeline, RoundRobinArbiter, type Scope, Sram } from '../../kernel/index.ts';
import { AtcReq, PAGE_BYTES, type RefreshRequest } from '../atc/types.ts';
import {
  type ItemWrite,
  MC_ADDR_MODE,
  MC_BAD_REQUEST,
  MC_INVALID_ITEM,
  MC_KEY_MISMATCH,
  MC_OK,
  MC_OUT_OF_RANGE,
  MC_PERMISSION,
  MC_REASON_NAMES,
  MC_VP_MISMATCH,
  MC_WRITE_BAD_FIELD,
  MC_WRITE_BAD_INDEX,
  MC_WRITE_OK,
  type MemCheckConfig,
  memCheckConfig,
  type MemCheckReq,
} from './types.ts';

/** The ATC ports the checker drives when it is connected to one. */
export interface AtcPorts {
  readonly req: Channel<AtcReq>;
  readonly refreshIn: Channel<RefreshRequest>;
}

const F_VALID = 0;
const F_KEY = 1;
const F_READ = 2;
const F_WRITE = 3;
const F_BASE = 4;
const F_TOP = 5;
const F_VP = 6;
const F_PHYS = 7;

/**
 * The refresh message the checker sends to the ATC: a copy of the written item's range and VP
 * taken when the write is applied (items are values: software may reuse or rewrite its ItemWrite
 * at once, and a refresh already queued keeps the range it was sent with).
 */
class RefreshMsg implements RefreshRequest {
  basePage = 0;
  topPage = 0;
  vp = 0;
  refreshId = 0;
}
/** refresh messages in the ring: the channel's capacity (2) + the one the ATC is taking + spare */
const REFRESH_RING = 4;

/**
 * Memory checker (seed 003, section 2.3): a table of items (valid, key, read/write permission,
 * base and top page, owning virtual port) that every virtual-address request is checked against
 * before translation. Requests come from `sources` request channels; one is granted per cycle by a
 * round-robin arbiter.
 *
 * Timing: a request granted (popped) in cycle g has its verdict pushed to its source's response
 * channel in g + latency - 1, visible in g + latency. The check reads the item as it was at the
 * start of cycle g (the table is an SRAM read in the grant cycle; the compare happens in the next
 * stage; an item write applied in cycle g is seen from g + 1). Stages: grant + table read, compare,
 * then latency - 2 register stages to the response (pipeline of latency - 1 stages after the grant).
 * The pipeline is in order, so each source gets its verdicts in its request order.
 *
 * Credits: a source is only granted while (its verdicts in the pipeline + its response channel's
 * occupancy) is below that channel's capacity (latency + 2, enough for one verdict per cycle when
 * the source pops every cycle), so the pipeline never blocks on a slow source.
 * When connected to an ATC, a passing request is also sent to the ATC in the cycle its verdict is
 * pushed; if the ATC's request channel is full the whole pipeline stalls that cycle (no grant),
 * counted in atc_stall_cycles.
 *
 * Item writes come on `writeIn`, at most one per cycle, applied in the cycle they are popped.
 * A write with `refresh` set also sends the item's base and top page to the ATC (seed refresh
 * step 1 -> 2); if that channel is full the write waits.
 */
export class MemChecker extends Component {
  readonly cfg: MemCheckConfig;
  readonly reqIn: Channel<MemCheckReq>[] = [];
  readonly respOut: Channel<MemCheckReq>[] = [];
  readonly writeIn: Channel<ItemWrite>;
  readonly table: Sram;
  private readonly atcOut: Channel<AtcReq> | null;
  private readonly refreshOut: Channel<RefreshRequest> | null;
  private readonly arb: RoundRobinArbiter;
  private readonly pipe: Pipeline<MemCheckReq>;
  private readonly inflight: Int32Array;
  private readonly vaLimit: number;
  private refreshSeq = 0;
  private readonly refreshRing: RefreshMsg[] = Array.from({ length: REFRESH_RING }, () => new RefreshMsg());
  /** page of the pipeline's output request sent to the ATC next (multi-page requests) */
  private fwdPart = 0;
  private readonly canGrant: (i: number) => boolean;
  readonly stats: {
    checks: Counter;
    reasons: Counter[];
    writes: Counter;
    rejectedWrites: Counter;
    refreshes: Counter;
    refreshWithoutAtc: Counter;
    atcStallCycles: Counter;
    atcPages: Counter;
    grants: Counter[];
  };

  constructor(parent: Scope, name: string, cfg: Partial<MemCheckConfig> = {}, atc?: AtcPorts) {
    super(parent, name);
    const c = memCheckConfig(cfg);
    this.cfg = c;
    this.vaLimit = 2 ** c.vaBits;
    for (let s = 0; s < c.sources; s++) {
      this.reqIn.push(new Channel<MemCheckReq>(this, `req${s}`, { capacity: c.reqCapacity, latency: 1 }).bindConsumer(this));
      this.respOut.push(new Channel<MemCheckReq>(this, `resp${s}`, { capacity: c.latency + 2, latency: 1 }).bindProducer(this));
    }
    this.writeIn = new Channel<ItemWrite>(this, 'write', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.atcOut = atc ? atc.req.bindProducer(this) : null;
    this.refreshOut = atc ? atc.refreshIn.bindProducer(this) : null;
    this.table = new Sram(this, 'items', {
      depth: c.items,
      fields: { valid: 'u8', key: 'u32', read: 'u8', write: 'u8', base: 'f64', top: 'f64', vp: 'u16', phys: 'u8' },
    });
    this.arb = new RoundRobinArbiter(this, 'arb', c.sources);
    this.pipe = new Pipeline<MemCheckReq>(this, 'pipe', c.latency - 1);
    this.inflight = new Int32Array(c.sources);
    this.canGrant = (i: number): boolean => {
      const out = this.respOut[i]!;
      return this.reqIn[i]!.canPop() && this.inflight[i]! + out.occupancy() < out.capacity;
    };
    this.stats = {
      checks: this.counter('checks'),
      reasons: MC_REASON_NAMES.map((n) => this.counter(`verdict_${n}`)),
      writes: this.counter('item_writes'),
      rejectedWrites: this.counter('rejected_writes'),
      refreshes: this.counter('refreshes'),
      refreshWithoutAtc: this.counter('refresh_without_atc'),
      atcStallCycles: this.counter('atc_stall_cycles'),
      atcPages: this.counter('atc_pages'),
      grants: Array.from({ length: c.sources }, (_, s) => this.counter(`grants_src${s}`)),
    };
  }

  /** Refreshes sent so far (the id of the latest). */
  get refreshesSent(): number {
    return this.refreshSeq;
  }

  /** Backdoor load of an item (initialisation, outside a cycle); throws on bad fields. */
  loadItem(w: ItemWrite): void {
    const err = this.validateWrite(w);
    if (err !== null) throw new RangeError(`${this.path}: ${err.msg}`);
    this.setItem(w, true);
  }

  override reset(): void {
    this.inflight.fill(0);
    this.refreshSeq = 0;
    this.fwdPart = 0;
  }

  tick(t: number): number {
    const pipe = this.pipe;
    // pipeline output: verdict to the source, passing requests on to the ATC
    let stalled = false;
    if (pipe.valid()) {
      const r = pipe.out();
      const fwd = r.reason === MC_OK && this.atcOut !== null;
      if (fwd && !this.atcOut!.canPush()) {
        pipe.stall();
        stalled = true;
        this.stats.atcStallCycles.inc();
      } else if (fwd && this.fwdPart + 1 < r.pages) {
        // a multi-page request: one page to the ATC per cycle, the pipeline holds until the last
        this.forward(r, this.fwdPart++);
        pipe.stall();
        stalled = true;
      } else {
        pipe.take();
        if (fwd) this.forward(r, this.fwdPart);
        this.fwdPart = 0;
        r.doneCycle = t + 1;
        this.respOut[r.source]!.push(r);
        this.inflight[r.source]!--;
      }
    }
    // item write port
    let writeWait = false;
    if (this.writeIn.canPop()) writeWait = !this.itemWrite(t, this.writeIn.peek());
    // grant and check
    if (!stalled) {
      const s = this.arb.grant(this.canGrant);
      if (s >= 0) {
        const r = this.reqIn[s]!.pop();
        r.source = s;
        r.grantCycle = t;
        r.reason = this.evaluate(r);
        this.inflight[s]!++;
        this.stats.checks.inc();
        this.stats.grants[s]!.inc();
        this.stats.reasons[r.reason]!.inc();
        pipe.push(r);
      }
    }
    if (stalled || writeWait || this.writeIn.canPop()) return t + 1;
    for (let s = 0; s < this.reqIn.length; s++) if (this.reqIn[s]!.canPop()) return t + 1;
    const w = pipe.readyCycle();
    return w === Infinity ? NEVER : w;
  }

  /** Send page `k` of a passing request to the ATC. */
  private forward(r: MemCheckReq, k: number): void {
    const x = r.xlates[k]!;
    const first = Math.floor(r.va / PAGE_BYTES);
    x.va = k === 0 ? r.va : (first + k) * PAGE_BYTES;
    x.asid = r.vp;
    x.physical = r.physical;
    x.tag = r.tag;
    x.source = r.source;
    x.part = k;
    x.status = -1;
    this.atcOut!.push(x);
    this.stats.atcPages.inc();
  }

  /** The check, against the table as of the start of this cycle. */
  private evaluate(r: MemCheckReq): number {
    const reason = this.verdict(r);
    if (reason !== MC_OK) {
      r.pages = 0;
      return reason;
    }
    const pages = Math.floor((r.va + r.len - 1) / PAGE_BYTES) - Math.floor(r.va / PAGE_BYTES) + 1;
    r.pages = pages;
    // descriptor storage: grown only when this request object first needs more pages
    if (this.atcOut !== null) while (r.xlates.length < pages) r.xlates.push(new AtcReq());
    return MC_OK;
  }

  private verdict(r: MemCheckReq): number {
    const item = r.item;
    const va = r.va;
    const len = r.len;
    const key = r.key;
    const reqVp = r.reqVp;
    r.vp = -1;
    if (!(Number.isInteger(item) && item >= 0 && item < this.cfg.items)) return MC_BAD_REQUEST;
    if (!(Number.isInteger(key) && key >= 0 && key <= 0xffffffff)) return MC_BAD_REQUEST;
    if (!(Number.isInteger(va) && va >= 0 && va < this.vaLimit)) return MC_BAD_REQUEST;
    if (!(Number.isInteger(len) && len >= 1 && len <= this.cfg.maxLen)) return MC_BAD_REQUEST;
    if (va + len > this.vaLimit) return MC_BAD_REQUEST;
    if (!(reqVp === -1 || (Number.isInteger(reqVp) && reqVp >= 0 && reqVp <= 0xffff))) return MC_BAD_REQUEST;
    const tb = this.table;
    r.vp = tb.peek(item, F_VP);
    if (tb.peek(item, F_VALID) === 0) return MC_INVALID_ITEM;
    if (reqVp >= 0 && reqVp !== r.vp) return MC_VP_MISMATCH;
    if (tb.peek(item, F_KEY) !== key) return MC_KEY_MISMATCH;
    if (tb.peek(item, r.write ? F_WRITE : F_READ) === 0) return MC_PERMISSION;
    if ((tb.peek(item, F_PHYS) !== 0) !== r.physical) return MC_ADDR_MODE;
    const first = Math.floor(va / PAGE_BYTES);
    const last = Math.floor((va + len - 1) / PAGE_BYTES);
    if (first < tb.peek(item, F_BASE) || last > tb.peek(item, F_TOP)) return MC_OUT_OF_RANGE;
    return MC_OK;
  }

  private validateWrite(w: ItemWrite): { code: number; msg: string } | null {
    if (!(Number.isInteger(w.index) && w.index >= 0 && w.index < this.cfg.items)) return { code: MC_WRITE_BAD_INDEX, msg: `item index ${w.index} out of range [0, ${this.cfg.items})` };
    if (!(Number.isInteger(w.key) && w.key >= 0 && w.key <= 0xffffffff)) return { code: MC_WRITE_BAD_FIELD, msg: `item ${w.index}: key ${w.key} is not a 32-bit unsigned integer` };
    const pages = this.vaLimit / PAGE_BYTES;
    if (!(Number.isInteger(w.basePage) && w.basePage >= 0 && w.basePage < pages)) return { code: MC_WRITE_BAD_FIELD, msg: `item ${w.index}: base page ${w.basePage} is not an integer in [0, 2^${this.cfg.vaBits - 12})` };
    if (!(Number.isInteger(w.topPage) && w.topPage >= w.basePage && w.topPage < pages)) return { code: MC_WRITE_BAD_FIELD, msg: `item ${w.index}: top page ${w.topPage} must be an integer in [base page ${w.basePage}, 2^${this.cfg.vaBits - 12})` };
    if (!(Number.isInteger(w.vp) && w.vp >= 0 && w.vp <= 0xffff)) return { code: MC_WRITE_BAD_FIELD, msg: `item ${w.index}: virtual port ${w.vp} is not an integer in [0, 65535]` };
    return null;
  }

  private setItem(w: ItemWrite, backdoor: boolean): void {
    const i = w.index;
    this.setField(i, F_VALID, w.valid ? 1 : 0, backdoor);
    this.setField(i, F_KEY, w.key, backdoor);
    this.setField(i, F_READ, w.read ? 1 : 0, backdoor);
    this.setField(i, F_WRITE, w.write ? 1 : 0, backdoor);
    this.setField(i, F_BASE, w.basePage, backdoor);
    this.setField(i, F_TOP, w.topPage, backdoor);
    this.setField(i, F_VP, w.vp, backdoor);
    this.setField(i, F_PHYS, w.physical ? 1 : 0, backdoor);
  }

  private setField(i: number, f: number, v: number, backdoor: boolean): void {
    if (backdoor) this.table.load(i, f, v);
    else this.table.write(0, i, f, v);
  }

  /** The write port; false when the write has to wait (its refresh cannot be sent this cycle). */
  private itemWrite(t: number, w: ItemWrite): boolean {
    const err = this.validateWrite(w);
    if (err !== null) {
      this.writeIn.pop();
      w.result = err.code;
      w.error = err.msg;
      w.appliedCycle = t;
      w.refreshId = 0;
      this.stats.rejectedWrites.inc();
      return true;
    }
    if (w.refresh && this.refreshOut !== null && !this.refreshOut.canPush()) return false;
    this.writeIn.pop();
    this.setItem(w, false);
    w.result = MC_WRITE_OK;
    w.error = '';
    w.appliedCycle = t;
    w.refreshId = 0;
    this.stats.writes.inc();
    if (w.refresh) {
      if (this.refreshOut !== null) {
        this.refreshSeq++;
        w.refreshId = this.refreshSeq;
        // copy on write: the message holds the range as written, not a reference to the write
        const msg = this.refreshRing[this.refreshSeq % REFRESH_RING]!;
        msg.basePage = w.basePage;
        msg.topPage = w.topPage;
        msg.vp = w.vp;
        msg.refreshId = this.refreshSeq;
        this.refreshOut.push(msg);
        this.stats.refreshes.inc();
      } else this.stats.refreshWithoutAtc.inc();
    }
    return true;
  }
}

