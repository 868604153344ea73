import { Channel, Component, type Counter, NEVER, type Scope } from '../../kernel/index.ts';
import type { PcieConfig } from './config.ts';
import type { PcieDirection } from './direction.ts';
import { type DmaRead, type DmaWrite, ReadChunk, TLP_MRD, TLP_MWR, Tlp } from './tlp.ts';

/** Longest DMA request the endpoint takes, in bytes. */
export const DMA_MAX_LEN = 2 ** 32;

/**
 * The NIC side of the link (the endpoint's transaction layer).
 *
 * Per cycle (each at most once):
 * - DMA write (`writeIn`): split at multiples of MPS into MWr TLPs, one per cycle into `up.inA`;
 * - DMA read (`readIn`): split at multiples of MRRS into MRd TLPs, one per cycle into `up.inB`,
 *   each holding one of `tags` PCIe tags until its last completion has arrived (no free tag: the
 *   read waits, head of line);
 * - completion (`down.outB`, infinite completion credits as PCIe requires of an endpoint): its
 *   bytes are copied into the read's buffer and a ReadChunk is pushed on `readOut` (visible the
 *   next cycle); the chunk that completes the read has `last` set. Completions of different
 *   requests may arrive out of order; the requester sees them as they come;
 * - PIO write (`down.outA`): handed on `pioOut` when it has room (else it waits and its credits
 *   stay taken: back-pressure reaches the CPU); its credits return on `down.creditA`.
 * Upstream TLPs are stamped in emission order (a write's TLP before a read's in the same cycle).
 * A malformed request (address or length not integers, length outside [1, 2^32], range past the
 * top of the address space, or a write with no data) is refused: `error` says why, nothing goes
 * on the link; a refused read still gets one empty `last` chunk so its requester sees it finish.
 */
export class PcieEndpoint extends Component {
  readonly writeIn: Channel<DmaWrite>;
  readonly readIn: Channel<DmaRead>;
  readonly readOut: Channel<ReadChunk>;
  readonly pioOut: Channel<Tlp>;
  private wr: DmaWrite | null = null;
  private wrOff = 0;
  private rd: DmaRead | null = null;
  private rdOff = 0;
  private readonly freeTags: Int32Array;
  private nFree: number;
  private readonly tagLeft: Float64Array;
  private seq = 0;
  private readonly space: number;
  private readonly cBad: Counter;
  private readonly cTagStalls: Counter;
  private tagStalled = false;

  constructor(
    parent: Scope,
    name: string,
    private readonly cfg: PcieConfig,
    private readonly up: PcieDirection,
    private readonly down: PcieDirection,
    addrBits = 48,
  ) {
    super(parent, name);
    this.space = 2 ** addrBits;
    this.writeIn = new Channel<DmaWrite>(this, 'writeIn', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.readIn = new Channel<DmaRead>(this, 'readIn', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.readOut = new Channel<ReadChunk>(this, 'readOut', { capacity: 64, latency: 1 }).bindProducer(this);
    this.pioOut = new Channel<Tlp>(this, 'pioOut', { capacity: 4, latency: 1 }).bindProducer(this);
    up.inA.bindProducer(this);
    up.inB.bindProducer(this);
    down.outA.bindConsumer(this);
    down.outB.bindConsumer(this);
    down.creditA.bindProducer(this);
    this.freeTags = new Int32Array(cfg.tags);
    this.tagLeft = new Float64Array(cfg.tags);
    this.nFree = cfg.tags;
    this.initTags();
    this.cBad = this.counter('bad_requests');
    this.cTagStalls = this.counter('tag_stalls');
  }

  private initTags(): void {
    // tag 0 is handed out first
    for (let i = 0; i < this.cfg.tags; i++) this.freeTags[i] = this.cfg.tags - 1 - i;
    this.nFree = this.cfg.tags;
  }

  override reset(): void {
    this.wr = null;
    this.wrOff = 0;
    this.rd = null;
    this.rdOff = 0;
    this.seq = 0;
    this.tagStalled = false;
    this.initTags();
  }

  /** PCIe tags held by reads in flight. */
  get tagsInUse(): number {
    return this.cfg.tags - this.nFree;
  }

  /** A DMA request is being split into TLPs. */
  get splitting(): boolean {
    return this.wr !== null || this.rd !== null;
  }

  private malformed(addr: number, len: number): string {
    if (!Number.isInteger(addr) || addr < 0) return `address ${addr} is not a non-negative integer`;
    if (!Number.isInteger(len) || len < 1 || len > DMA_MAX_LEN) return `length ${len} is not an integer in [1, 2^32]`;
    if (addr + len > this.space) return `range [${addr}, +${len}) runs past the top of the address space`;
    return '';
  }

  tick(t: number): number {
    // take a DMA write
    if (this.wr === null && this.writeIn.canPop()) {
      const w = this.writeIn.pop();
      w.acceptCycle = t;
      w.error = this.malformed(w.addr, w.data.length);
      if (w.error !== '') {
        this.cBad.inc();
        w.emittedCycle = t;
      } else {
        this.wr = w;
        this.wrOff = 0;
      }
    }
    // take a DMA read
    if (this.rd === null && this.readIn.canPop() && this.readOut.canPush()) {
      const r = this.readIn.pop();
      r.acceptCycle = t;
      r.received = 0;
      r.error = this.malformed(r.addr, r.len);
      if (r.error !== '') {
        this.cBad.inc();
        r.data = null;
        r.doneCycle = t + 1;
        this.readOut.push(new ReadChunk(r, 0, 0, true));
      } else {
        r.data = new Uint8Array(r.len);
        this.rd = r;
        this.rdOff = 0;
      }
    }
    // emit one MWr
    if (this.wr !== null && this.up.inA.canPush()) {
      const w = this.wr;
      const a = w.addr + this.wrOff;
      const n = Math.min(this.cfg.mps - (a % this.cfg.mps), w.data.length - this.wrOff);
      const p = new Tlp();
      p.kind = TLP_MWR;
      p.addr = a;
      p.len = n;
      p.data = w.data.subarray(this.wrOff, this.wrOff + n);
      p.seq = this.seq++;
      this.wrOff += n;
      p.last = this.wrOff === w.data.length;
      this.up.inA.push(p);
      if (p.last) {
        w.emittedCycle = t;
        this.wr = null;
      }
    }
    // emit one MRd (needs a tag)
    if (this.rd !== null && this.up.inB.canPush()) {
      if (this.nFree > 0) {
        this.tagStalled = false;
        const r = this.rd;
        const a = r.addr + this.rdOff;
        const n = Math.min(this.cfg.mrrs - (a % this.cfg.mrrs), r.len - this.rdOff);
        const p = new Tlp();
        p.kind = TLP_MRD;
        p.addr = a;
        p.len = n;
        p.tag = this.freeTags[--this.nFree]!;
        this.tagLeft[p.tag] = n;
        p.req = r;
        p.offset = this.rdOff;
        p.seq = this.seq++;
        this.rdOff += n;
        p.last = this.rdOff === r.len;
        this.up.inB.push(p);
        if (p.last) this.rd = null;
      } else if (!this.tagStalled) {
        this.tagStalled = true;
        this.cTagStalls.inc();
      }
    }
    // a completion arrives
    if (this.down.outB.canPop() && this.readOut.canPush()) {
      const c = this.down.outB.pop();
      const r = c.req!;
      r.data!.set(c.data!, c.offset);
      r.received += c.len;
      const left = (this.tagLeft[c.tag] = this.tagLeft[c.tag]! - c.len);
      if (left === 0) this.freeTags[this.nFree++] = c.tag;
      const last = r.received === r.len;
      if (last) r.doneCycle = t + 1;
      this.readOut.push(new ReadChunk(r, c.offset, c.len, last));
    }
    // a PIO write arrives
    if (this.down.outA.canPop() && this.pioOut.canPush() && this.down.creditA.canPush()) {
      const p = this.down.outA.pop();
      this.pioOut.push(p);
      this.down.creditA.push(Math.ceil(p.len / 16));
    }
    if (this.wr !== null || this.rd !== null || this.writeIn.canPop() || this.readIn.canPop() || this.down.outA.canPop() || this.down.outB.canPop()) {
      // a read waiting for a tag sleeps until a completion (which frees tags) wakes it
      if (this.rd !== null && this.nFree === 0 && this.wr === null && !this.writeIn.canPop() && !this.down.outA.canPop() && !this.down.outB.canPop()) return NEVER;
      return t + 1;
    }
    return NEVER;
  }
}
