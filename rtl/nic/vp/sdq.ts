import { Channel, Component, type Counter, NEVER, NumChannel, type Scope } from '../../kernel/index.ts';
import { DmaRead, type ReadChunk } from '../pcie/tlp.ts';
import type { QueuedDesc } from './readout.ts';
import type { VpError } from './regfile.ts';
import { VpScheduler } from './scheduler.ts';
import type { SdqConfig } from './sdqConfig.ts';

/** SDQ refusals on errOut (codes continue the HDQ's 9-11), reported on the VP concerned. */
export const SE_OVERFLOW = 12; // a doorbell would make the descriptors announced and not yet fetched exceed the ring size
export const SE_UNREGISTERED = 13; // a doorbell for a VP with no ring (SDQ_SIZE 0) or that is not a DMA VP
export const SE_FETCH = 14; // the endpoint refused a descriptor read (ring past the top of the address space): the entry is dropped, reported
export const SE_NAMES = ['sdq_overflow', 'sdq_unregistered', 'sdq_fetch_failed'] as const;

/** Where the SDQ reads a VP's ring registration (the register file's SDQ_BASE / SDQ_SIZE). */
export interface SdqRings {
  sdqBase(vp: number): number;
  sdqSize(vp: number): number;
}

/**
 * Buffer-entry states: the per-entry machine behind the SDQ's ordering rule. An entry is
 * reserved (with its place in its VP's list) when the read that fills it is issued, so entries of
 * a VP leave in ring order whatever order their completions return in, and no read is issued
 * without room for all it brings.
 *   FREE --issue--> RESERVED --all bytes--> FILLED --leave--> FREE
 *                   RESERVED --read refused--> FAILED --leave (error reported)--> FREE
 * Only the entry at the head of its VP's list may leave, and only when FILLED or FAILED.
 */
export const SLOT_FREE = 0;
export const SLOT_RESERVED = 1;
export const SLOT_FILLED = 2;
export const SLOT_FAILED = 3;
export const SLOT_STATE_NAMES = ['free', 'reserved', 'filled', 'failed'] as const;
const EV_ISSUE = 0;
const EV_BYTES = 1;
const EV_REFUSED = 2;
const EV_LEAVE = 3;

/**
 * The SDQ of the DMA VPs (docs/nic-frontend.md, "SDQ"): doorbells in, descriptor reads over PCIe,
 * the on-chip SDQ buffer, and one head channel per DMA VP towards the readout.
 *
 * Per cycle, in this program order (each stage reads the state as the earlier stages of the same
 * cycle left it, and every stage only reads what earlier stages cannot have changed in a way it
 * would see: the effect is that each stage sees the state as at the start of the cycle):
 * 1. issue: if fewer than maxReads reads are outstanding, `readIn` has room and a buffer entry is
 *    free, the scheduler picks a DMA VP with announced, unrequested descriptors; one read of
 *    n = min(ready, batch, entries to the ring's end, free entries) ring entries is pushed and n
 *    entries are reserved at the tail of the VP's list;
 * 2. heads: every DMA VP whose list head is FILLED (or FAILED) and whose head channel has room
 *    moves it out (a FAILED one becomes an sdq_fetch_failed error instead, if errOut has room);
 *    the entry is freed (usable by issue from the next cycle);
 * 3. completion: one ReadChunk from `readOut` is copied into the entries it covers; an entry
 *    whose bytes are all in becomes FILLED (it can leave from the next cycle); the read's last
 *    chunk frees its read slot;
 * 4. doorbell: one doorbell from `doorbellIn` (vp * 2^17 + count): a VP with nothing announced
 *    latches its ring (base, size) from the register file; announced-not-fetched + count above
 *    the ring size is refused (sdq_overflow); no ring registered, sdq_unregistered; else the
 *    count is added (candidate for issue from the next cycle).
 */
export class Sdq extends Component {
  readonly doorbellIn: NumChannel;
  readonly readIn: Channel<DmaRead>;
  readonly readOut: Channel<ReadChunk>;
  /** head channel of DMA VP pioVps + j at index j */
  readonly heads: Channel<QueuedDesc>[];
  readonly errOut: Channel<VpError>;
  readonly sched: VpScheduler;
  private readonly n: number;
  private readonly eb: number;
  // per DMA VP (index j)
  private readonly base: Float64Array;
  private readonly size: Int32Array;
  private readonly fetchIdx: Int32Array;
  private readonly ready: Int32Array;
  private readonly pending: Int32Array;
  private readonly listHead: Int32Array;
  private readonly listTail: Int32Array;
  private readonly seq: Float64Array;
  // SDQ buffer
  private readonly data: Uint8Array;
  private readonly got: Int32Array;
  private readonly state: Uint8Array;
  private readonly next: Int32Array;
  private readonly freeList: Int32Array;
  private freeHead = 0;
  private freeCount: number;
  // outstanding reads
  private readonly reads: DmaRead[];
  private readonly readSlots: Int32Array;
  private readonly readIds: Int32Array;
  /** the DMA VP index of each read slot's read */
  private readonly readVp: Int32Array;
  private nReadFree: number;
  private readonly cand = (j: number): boolean => this.ready[j]! > 0;
  private readonly cReads: Counter;
  private readonly cFetched: Counter;
  private readonly cRefused: Counter;
  private readonly cBufferStalls: Counter;

  constructor(
    parent: Scope,
    name: string,
    readonly cfg: SdqConfig,
    private readonly rings: SdqRings,
    ports: { doorbellIn?: NumChannel; readIn?: Channel<DmaRead>; readOut?: Channel<ReadChunk> } = {},
  ) {
    super(parent, name);
    const n = (this.n = cfg.dmaVps);
    this.eb = cfg.entryBytes;
    this.doorbellIn = (ports.doorbellIn ?? new NumChannel(this, 'doorbellIn', { capacity: 4, latency: 1 })).bindConsumer(this);
    this.readIn = (ports.readIn ?? new Channel<DmaRead>(this, 'readIn', { capacity: 4, latency: 1 })).bindProducer(this);
    this.readOut = (ports.readOut ?? new Channel<ReadChunk>(this, 'readOut', { capacity: 64, latency: 1 })).bindConsumer(this);
    this.heads = Array.from({ length: n }, (_, j) => new Channel<QueuedDesc>(this, `head${cfg.pioVps + j}`, { capacity: 2, latency: 1 }).bindProducer(this));
    this.errOut = new Channel<VpError>(this, 'errOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.sched = new VpScheduler(this, 'sched', n, cfg.policy);
    this.base = new Float64Array(n);
    this.size = new Int32Array(n);
    this.fetchIdx = new Int32Array(n);
    this.ready = new Int32Array(n);
    this.pending = new Int32Array(n);
    this.listHead = new Int32Array(n).fill(-1);
    this.listTail = new Int32Array(n).fill(-1);
    this.seq = new Float64Array(n);
    const d = cfg.depth;
    this.data = new Uint8Array(d * this.eb);
    this.got = new Int32Array(d);
    this.state = new Uint8Array(d);
    this.next = new Int32Array(d).fill(-1);
    this.freeList = new Int32Array(d);
    this.freeCount = d;
    this.reads = Array.from({ length: cfg.maxReads }, (_, i) => {
      const r = new DmaRead();
      r.tag = i;
      return r;
    });
    this.readSlots = new Int32Array(cfg.maxReads * cfg.batch);
    this.readIds = new Int32Array(cfg.maxReads);
    this.readVp = new Int32Array(cfg.maxReads);
    this.nReadFree = cfg.maxReads;
    this.initFree();
    this.cReads = this.counter('descriptor_reads');
    this.cFetched = this.counter('descriptors_fetched');
    this.cRefused = this.counter('refused_doorbells');
    this.cBufferStalls = this.counter('buffer_full_cycles');
    this.signal('free_entries', 17, () => this.freeCount);
    this.signal('outstanding_reads', 11, () => this.cfg.maxReads - this.nReadFree);
  }

  private initFree(): void {
    for (let i = 0; i < this.cfg.depth; i++) this.freeList[i] = i;
    this.freeHead = 0;
    this.freeCount = this.cfg.depth;
    for (let i = 0; i < this.cfg.maxReads; i++) this.readIds[i] = this.cfg.maxReads - 1 - i;
    this.nReadFree = this.cfg.maxReads;
  }

  override reset(): void {
    for (const a of [this.base, this.seq]) a.fill(0);
    for (const a of [this.size, this.fetchIdx, this.ready, this.pending, this.got]) a.fill(0);
    for (const a of [this.listHead, this.listTail, this.next]) a.fill(-1);
    this.state.fill(SLOT_FREE);
    this.sched.reset();
    this.initFree();
  }

  /** SDQ buffer entries free now. */
  get freeEntries(): number {
    return this.freeCount;
  }

  /** Descriptor reads outstanding on PCIe. */
  get outstandingReads(): number {
    return this.cfg.maxReads - this.nReadFree;
  }

  /** Descriptors announced by doorbells and not yet fetched into the buffer, of VP `vp`. */
  pendingOf(vp: number): number {
    return this.pending[vp - this.cfg.pioVps]!;
  }

  /** The state of buffer entry `e` (SLOT_*). */
  entryState(e: number): number {
    return this.state[e]!;
  }

  /** The ordering rule's state machine: the one place an entry changes state. */
  private advance(e: number, ev: number): void {
    const s = this.state[e]!;
    let to = -1;
    switch (s) {
      case SLOT_FREE:
        if (ev === EV_ISSUE) to = SLOT_RESERVED;
        break;
      case SLOT_RESERVED:
        if (ev === EV_BYTES) to = SLOT_FILLED;
        else if (ev === EV_REFUSED) to = SLOT_FAILED;
        break;
      case SLOT_FILLED:
      case SLOT_FAILED:
        if (ev === EV_LEAVE) to = SLOT_FREE;
        break;
    }
    if (to < 0) throw new Error(`${this.path}: buffer entry ${e} in state ${SLOT_STATE_NAMES[s]} cannot take event ${ev}`);
    this.state[e] = to;
  }

  private issue(t: number): void {
    if (this.nReadFree === 0 || this.freeCount === 0) return;
    if (!this.readIn.canPush()) return;
    const j = this.sched.pick(this.cand);
    if (j < 0) return;
    const idx = this.fetchIdx[j]!;
    const size = this.size[j]!;
    const n = Math.min(this.ready[j]!, this.cfg.batch, size - idx, this.freeCount);
    const id = this.readIds[--this.nReadFree]!;
    const r = this.reads[id]!;
    r.addr = this.base[j]! + idx * this.eb;
    r.len = n * this.eb;
    this.readVp[id] = j;
    const d = this.cfg.depth;
    for (let k = 0; k < n; k++) {
      const e = this.freeList[this.freeHead]!;
      this.freeHead = this.freeHead + 1 === d ? 0 : this.freeHead + 1;
      this.advance(e, EV_ISSUE);
      this.got[e] = 0;
      this.next[e] = -1;
      if (this.listTail[j]! < 0) this.listHead[j] = e;
      else this.next[this.listTail[j]!] = e;
      this.listTail[j] = e;
      this.readSlots[id * this.cfg.batch + k] = e;
    }
    this.freeCount -= n;
    this.readIn.push(r);
    this.cReads.inc();
    this.fetchIdx[j] = idx + n === size ? 0 : idx + n;
    this.ready[j] = this.ready[j]! - n;
    if (this.ready[j]! > 0) this.sched.served(j, t);
    if (this.freeCount === 0) this.cBufferStalls.inc();
  }

  /** Stage 2; returns true if some VP can move another entry out next cycle. */
  private moveHeads(t: number): boolean {
    let more = false;
    const d = this.cfg.depth;
    for (let j = 0; j < this.n; j++) {
      const e = this.listHead[j]!;
      if (e < 0) continue;
      const s = this.state[e]!;
      if (s !== SLOT_FILLED && s !== SLOT_FAILED) continue;
      const h = this.heads[j]!;
      if (!h.canPush()) continue;
      const vp = this.cfg.pioVps + j;
      if (s === SLOT_FILLED) {
        const at = e * this.eb;
        const code = (this.data[at]! >> 4) & 3;
        const len = code === 0 ? 64 : this.eb;
        h.push({ vp, bytes: this.data.slice(at, at + len), seq: this.seq[j]! });
        this.seq[j] = this.seq[j]! + 1;
      } else {
        if (!this.errOut.canPush()) continue;
        this.errOut.push({ vp, kind: SE_FETCH, addr: -1, cycle: t });
      }
      this.advance(e, EV_LEAVE);
      const nx = this.next[e]!;
      this.listHead[j] = nx;
      if (nx < 0) this.listTail[j] = -1;
      let tail = this.freeHead + this.freeCount;
      if (tail >= d) tail -= d;
      this.freeList[tail] = e;
      this.freeCount++;
      if (nx >= 0 && this.state[nx]! >= SLOT_FILLED && h.canPush()) more = true;
    }
    return more;
  }

  private complete(): void {
    const c = this.readOut.pop();
    const r = c.req;
    const id = r.tag;
    const b = this.cfg.batch;
    if (r.error !== '') {
      for (let k = 0; k * this.eb < r.len; k++) this.advance(this.readSlots[id * b + k]!, EV_REFUSED);
    } else {
      const src = r.data!;
      let off = c.offset;
      const end = c.offset + c.len;
      while (off < end) {
        const k = Math.floor(off / this.eb);
        const e = this.readSlots[id * b + k]!;
        const inEntry = off - k * this.eb;
        const m = Math.min(this.eb - inEntry, end - off);
        this.data.set(src.subarray(off, off + m), e * this.eb + inEntry);
        this.got[e] = this.got[e]! + m;
        if (this.got[e] === this.eb) {
          this.advance(e, EV_BYTES);
          this.cFetched.inc();
          this.pending[this.readVp[id]!]!--;
        }
        off += m;
      }
    }
    if (c.last) {
      if (r.error !== '') this.pending[this.readVp[id]!] = this.pending[this.readVp[id]!]! - r.len / this.eb;
      this.readIds[this.nReadFree++] = id;
    }
  }

  private doorbell(t: number): void {
    const x = this.doorbellIn.pop();
    const vp = Math.floor(x / 2 ** 17);
    const count = x - vp * 2 ** 17;
    const j = vp - this.cfg.pioVps;
    if (j < 0 || j >= this.n) return this.refuse(t, vp, SE_UNREGISTERED);
    if (this.pending[j] === 0) {
      const base = this.rings.sdqBase(vp);
      const size = this.rings.sdqSize(vp);
      if (base !== this.base[j] || size !== this.size[j]) {
        this.base[j] = base;
        this.size[j] = size;
        this.fetchIdx[j] = 0;
      }
    }
    if (this.size[j] === 0) return this.refuse(t, vp, SE_UNREGISTERED);
    if (this.pending[j]! + count > this.size[j]!) return this.refuse(t, vp, SE_OVERFLOW);
    if (this.ready[j] === 0) this.sched.arm(j, t);
    this.ready[j] = this.ready[j]! + count;
    this.pending[j] = this.pending[j]! + count;
  }

  private refuse(t: number, vp: number, kind: number): void {
    this.errOut.push({ vp, kind, addr: -1, cycle: t });
    this.cRefused.inc();
  }

  tick(t: number): number {
    this.issue(t);
    let more = this.moveHeads(t);
    if (this.readOut.canPop()) {
      this.complete();
      more = true; // an entry it filled may leave next cycle
    }
    if (this.doorbellIn.canPop() && this.errOut.canPush()) this.doorbell(t);
    if (more || this.doorbellIn.canPop() || this.readOut.canPop()) return t + 1;
    if (this.nReadFree > 0 && this.freeCount > 0 && this.readIn.canPush()) for (let j = 0; j < this.n; j++) if (this.ready[j]! > 0) return t + 1;
    return NEVER;
  }
}
