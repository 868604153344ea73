import { Channel, Component, type Counter, NEVER, Rng, type Scope } from '../../kernel/index.ts';
import type { PcieConfig, PcieTiming } from './config.ts';
import type { PcieDirection } from './direction.ts';
import type { HostBytes } from './memory.ts';
import { type PioWrite, TLP_CPLD, TLP_MWR, Tlp } from './tlp.ts';

/** A read request the root complex is serving: its data was sampled when it arrived. */
interface ServingRead {
  mrd: Tlp;
  data: Uint8Array;
  ready: number;
  order: number;
}

/**
 * The host side of the link: root complex, host memory and the CPU's PIO store path.
 *
 * Per cycle (each port at most one TLP):
 * - posted write from the NIC (`up.outA`): applied to host memory in the cycle it is popped; its
 *   credits go back on `up.creditA`;
 * - read request (`up.outB`): host memory is sampled in the cycle it is popped (so it sees every
 *   write that arrived before it); its first completion is ready hostReadCycles + qpiCycles + j
 *   later, j drawn uniformly from [0, jitterCycles] (one draw per request, in arrival order:
 *   completions of different requests may return out of order); its credit goes back on `up.creditB`;
 * - completion engine: the ready request with the earliest ready cycle (ties: arrival order) is
 *   split at multiples of cplBytes and its completions pushed into `down.inB`, one per cycle, all
 *   of one request before the next (completions of one request stay in address order);
 * - PIO: a CPU store taken from `pioIn` in cycle i leaves the write-combining buffer in
 *   i + pioCycles + qpiCycles, split at multiples of wcBytes, one TLP per cycle into `down.inA`,
 *   stores in program order.
 */
export class RootComplex extends Component {
  readonly pioIn: Channel<PioWrite>;
  private readonly serving: ServingRead[] = [];
  private cur: ServingRead | null = null;
  private curOff = 0;
  private readonly pioQ: { w: PioWrite; due: number }[] = [];
  private pioHead = 0;
  private pioOff = 0;
  private order = 0;
  private seq = 0;
  private readonly rng: Rng;
  private readonly cWrites: Counter;
  private readonly cReads: Counter;
  private readonly cCpls: Counter;
  private readonly cPio: Counter;
  /** testbench hook: called when a posted write lands in host memory */
  onWrite: ((tlp: Tlp, cycle: number) => void) | null = null;

  constructor(
    parent: Scope,
    name: string,
    private readonly cfg: PcieConfig,
    private readonly timing: PcieTiming,
    readonly mem: HostBytes,
    private readonly up: PcieDirection,
    private readonly down: PcieDirection,
  ) {
    super(parent, name);
    up.outA.bindConsumer(this);
    up.outB.bindConsumer(this);
    up.creditA.bindProducer(this);
    up.creditB.bindProducer(this);
    down.inA.bindProducer(this);
    down.inB.bindProducer(this);
    this.pioIn = new Channel<PioWrite>(this, 'pioIn', { capacity: 16, latency: 1 }).bindConsumer(this);
    this.rng = new Rng(cfg.seed);
    this.cWrites = this.counter('posted_writes');
    this.cReads = this.counter('read_requests');
    this.cCpls = this.counter('completions');
    this.cPio = this.counter('pio_tlps');
  }

  override reset(): void {
    this.serving.length = 0;
    this.cur = null;
    this.curOff = 0;
    this.pioQ.length = 0;
    this.pioHead = 0;
    this.pioOff = 0;
    this.order = 0;
    this.seq = 0;
    this.rng.reseed(this.cfg.seed);
  }

  /** Read requests accepted and not yet fully answered. */
  get readsInService(): number {
    return this.serving.length + (this.cur === null ? 0 : 1);
  }

  /** CPU stores taken and not yet fully sent. */
  get pioPending(): number {
    return this.pioQ.length - this.pioHead;
  }

  tick(t: number): number {
    const T = this.timing;
    // posted write lands in memory
    if (this.up.outA.canPop() && this.up.creditA.canPush()) {
      const w = this.up.outA.pop();
      this.mem.write(w.addr, w.data!);
      this.up.creditA.push(Math.ceil(w.len / 16));
      this.cWrites.inc();
      this.onWrite?.(w, t);
    }
    // read request: sample memory now, schedule the completions
    if (this.up.outB.canPop() && this.up.creditB.canPush()) {
      const r = this.up.outB.pop();
      const data = this.mem.read(r.addr, r.len);
      const j = T.jitterCycles > 0 ? this.rng.int(T.jitterCycles + 1) : 0;
      this.serving.push({ mrd: r, data, ready: t + T.hostReadCycles + T.qpiCycles + j, order: this.order++ });
      this.up.creditB.push(1);
      this.cReads.inc();
    }
    // PIO store path: take a store, then split the one at the head once it is due
    if (this.pioIn.canPop()) {
      const w = this.pioIn.pop();
      w.tlps = 0;
      this.pioQ.push({ w, due: t + T.pioCycles + T.qpiCycles });
    }
    if (this.pioHead < this.pioQ.length && this.pioQ[this.pioHead]!.due <= t && this.down.inA.canPush()) {
      const { w } = this.pioQ[this.pioHead]!;
      const a = w.addr + this.pioOff;
      const n = Math.min(this.cfg.wcBytes - (a % this.cfg.wcBytes), w.data.length - this.pioOff);
      const p = new Tlp();
      p.kind = TLP_MWR;
      p.addr = a;
      p.len = n;
      p.data = w.data.subarray(this.pioOff, this.pioOff + n);
      p.pio = w;
      p.seq = this.seq++;
      this.pioOff += n;
      w.tlps++;
      p.last = this.pioOff === w.data.length;
      this.down.inA.push(p);
      this.cPio.inc();
      if (p.last) {
        this.pioQ[this.pioHead] = undefined as unknown as { w: PioWrite; due: number };
        this.pioHead++;
        this.pioOff = 0;
        if (this.pioHead === this.pioQ.length) {
          this.pioQ.length = 0;
          this.pioHead = 0;
        } else if (this.pioHead > 256) {
          // under continuous stores the queue never empties: drop the sent entries now and then
          // (without this it grew by one slot per store, 1 MB per 10^6 cycles with 8 busy VPs)
          this.pioQ.copyWithin(0, this.pioHead);
          this.pioQ.length -= this.pioHead;
          this.pioHead = 0;
        }
      }
    }
    // completion engine
    if (this.cur === null) {
      let best = -1;
      for (let i = 0; i < this.serving.length; i++) {
        const s = this.serving[i]!;
        if (s.ready <= t && (best < 0 || s.ready < this.serving[best]!.ready || (s.ready === this.serving[best]!.ready && s.order < this.serving[best]!.order))) best = i;
      }
      if (best >= 0) {
        this.cur = this.serving[best]!;
        this.serving.splice(best, 1);
        this.curOff = 0;
      }
    }
    if (this.cur !== null && this.down.inB.canPush()) {
      const s = this.cur;
      const a = s.mrd.addr + this.curOff;
      const n = Math.min(this.cfg.cplBytes - (a % this.cfg.cplBytes), s.mrd.len - this.curOff);
      const c = new Tlp();
      c.kind = TLP_CPLD;
      c.addr = a;
      c.len = n;
      c.tag = s.mrd.tag;
      c.data = s.data.subarray(this.curOff, this.curOff + n);
      c.req = s.mrd.req;
      c.offset = s.mrd.offset + this.curOff;
      c.seq = this.seq++;
      this.curOff += n;
      c.last = this.curOff === s.mrd.len;
      this.down.inB.push(c);
      this.cCpls.inc();
      if (c.last) this.cur = null;
    }
    // wake-up
    if (this.up.outA.canPop() || this.up.outB.canPop() || this.pioIn.canPop()) return t + 1;
    let next = NEVER;
    if (this.cur !== null) next = t + 1;
    for (let i = 0; i < this.serving.length; i++) next = Math.min(next, Math.max(t + 1, this.serving[i]!.ready));
    if (this.pioHead < this.pioQ.length) next = Math.min(next, Math.max(t + 1, this.pioQ[this.pioHead]!.due));
    return next;
  }
}
