/**
 * Test harness around one PCIe attachment: pushes DMA requests and CPU stores between cycles, pops
 * every chunk and PIO TLP the moment it is visible (or holds PIO back to create back-pressure), and
 * records what it saw.
 */
import { Rng, Simulator, type SimulatorOptions } from '../../rtl/kernel/index.ts';
import { buildPcie, DmaRead, DmaWrite, type Pcie, type PcieConfig, PioWrite, type ReadChunk, type Tlp } from '../../rtl/nic/pcie/index.ts';

export interface SeenChunk {
  offset: number;
  len: number;
  last: boolean;
  cycle: number;
}

export class PcieWorld {
  readonly sim: Simulator;
  readonly pcie: Pcie;
  readonly chunks = new Map<DmaRead, SeenChunk[]>();
  readonly pio: { tlp: Tlp; cycle: number }[] = [];
  readonly landed: { tlp: Tlp; cycle: number }[] = [];
  /** PIO TLPs are not popped before this cycle (a slow consumer; a consumer that never drains posted
   * writes would block the completions behind them forever, as PCIe ordering requires) */
  pioHoldUntil = 0;
  maxTags = 0;
  maxCredits: [number, number, number] = [0, 0, 0];
  minCredits: [number, number, number] = [Infinity, Infinity, Infinity];

  constructor(cfg: Partial<PcieConfig>, sim?: SimulatorOptions) {
    this.sim = new Simulator(sim ?? {});
    this.pcie = buildPcie(this.sim, 'pcie', cfg);
    this.pcie.host.onWrite = (tlp, cycle) => this.landed.push({ tlp, cycle });
  }

  /** The jitter draws the root complex will make, in order (same seeded generator and rule). */
  static jitterSource(cfg: PcieConfig, jitterCycles: number): () => number {
    const rng = new Rng(cfg.seed);
    return () => (jitterCycles > 0 ? rng.int(jitterCycles + 1) : 0);
  }

  private waitPush(can: () => boolean): void {
    for (let i = 0; i < 100000 && !can(); i++) this.step();
    if (!can()) throw new Error(`cycle ${this.sim.cycle}: input channel stays full`);
  }

  write(addr: number, data: Uint8Array, tag = 0): DmaWrite {
    this.waitPush(() => this.pcie.ep.writeIn.canPush());
    const w = new DmaWrite();
    w.tag = tag;
    w.addr = addr;
    w.data = data;
    this.pcie.ep.writeIn.push(w);
    return w;
  }

  read(addr: number, len: number, tag = 0): DmaRead {
    this.waitPush(() => this.pcie.ep.readIn.canPush());
    const r = new DmaRead();
    r.tag = tag;
    r.addr = addr;
    r.len = len;
    this.chunks.set(r, []);
    this.pcie.ep.readIn.push(r);
    return r;
  }

  store(addr: number, data: Uint8Array, tag = 0): PioWrite {
    this.waitPush(() => this.pcie.host.pioIn.canPush());
    const w = new PioWrite();
    w.tag = tag;
    w.addr = addr;
    w.data = data;
    this.pcie.host.pioIn.push(w);
    return w;
  }

  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.sim.step(1);
      this.collect();
    }
  }

  private collect(): void {
    const t = this.sim.cycle;
    const ep = this.pcie.ep;
    while (ep.readOut.canPop()) {
      const c: ReadChunk = ep.readOut.pop();
      const list = this.chunks.get(c.req);
      if (!list) throw new Error(`cycle ${t}: chunk for a read nobody issued`);
      list.push({ offset: c.offset, len: c.len, last: c.last, cycle: t });
    }
    while (t >= this.pioHoldUntil && ep.pioOut.canPop()) this.pio.push({ tlp: ep.pioOut.pop(), cycle: t });
    this.maxTags = Math.max(this.maxTags, ep.tagsInUse);
    for (const [i, v] of [...this.pcie.up.credits(), ...this.pcie.down.credits()].entries()) {
      const k = i % 3;
      if (i < 3) {
        this.maxCredits[k] = Math.max(this.maxCredits[k]!, v);
        this.minCredits[k] = Math.min(this.minCredits[k]!, v);
      }
    }
  }

  /** Run until every issued read finished and nothing is in flight anywhere. */
  drain(limit = 1_000_000): void {
    const busy = (): boolean =>
      [...this.chunks.entries()].some(([r, cs]) => !cs.some((c) => c.last) || r.doneCycle < 0) ||
      this.pcie.up.inFlight > 0 ||
      this.pcie.down.inFlight > 0 ||
      this.pcie.host.readsInService > 0 ||
      this.pcie.host.pioPending > 0 ||
      this.pcie.ep.pioOut.held() + this.pcie.down.outA.held() + this.pcie.down.outB.held() + this.pcie.up.outA.held() + this.pcie.up.outB.held() > 0 ||
      this.pcie.ep.splitting ||
      this.pcie.ep.writeIn.held() > 0 ||
      this.pcie.host.pioIn.held() > 0 ||
      this.pcie.up.inA.held() + this.pcie.up.inB.held() + this.pcie.down.inA.held() + this.pcie.down.inB.held() > 0;
    for (let i = 0; i < limit && busy(); i++) this.step();
    if (busy()) throw new Error(`cycle ${this.sim.cycle}: not drained after ${limit} cycles`);
    this.step(this.pcie.cfg.creditReturnCycles + 2);
  }
}
