import { Component, NEVER, NumChannel, NumFifo, type Scope, Simulator, type SimulatorOptions } from '../kernel/index.ts';

/** entries of each stage's FIFO (bench/verilog/ring.sv is built with the same value) */
export const RING_FIFO_DEPTH = 16;
/** default channel capacity: 2 sustains one token per cycle over a latency-1 channel */
export const RING_CHANNEL_CAPACITY = 2;

/**
 * The kernel benchmark ring: stage 0 emits one token per cycle (data = cycle number) into a chain
 * of N stages; each stage holds a 16-entry FIFO, accepts a token from its input channel when the
 * FIFO has room and forwards one token per cycle with data + 1 over a one-cycle channel. The last
 * stage feeds back into stage 0, which checks that every token comes back as (emitted + N), in order.
 *
 * Timing: a token pushed by stage k in cycle t is popped by stage k + 1 in t + 1 (channel latency 1)
 * and leaves its FIFO in t + 2 at the earliest (the FIFO is a register stage too), so a token needs
 * 2 cycles per stage and the ring holds 2N tokens in steady state, one transfer per channel
 * per cycle.
 *
 * Preloaded ring (`preload: true`): filling a ring from reset takes 2N cycles, each evaluating up to
 * N stages, so for large N the fill costs N^2 stage evaluations (a 100k-stage ring: 2 * 10^10). A
 * preloaded ring starts in its steady state instead: as reset state, stage k holds one token in its
 * FIFO and one in its output channel (both of value -k, put there at cycle 0 and so visible from
 * cycle 1), and stage 0's record says it emitted the 2N tokens -2N, ..., -1 before cycle 0 (the
 * token emitted in cycle e is in stage k's FIFO from e + 2k - 1 and in its channel from e + 2k, with
 * value e + k). From cycle 1 on one token returns per cycle, each checked as (emitted + N), exactly
 * the state and traffic of a filled ring; sim.reset() preloads again.
 *
 * Fields are `declare`d and set in the constructor: a plainly declared field would first be defined
 * as undefined (ES2022 class fields), which costs a type check on every access in V8.
 */
export class RingSource extends Component {
  declare readonly out: NumChannel;
  declare in: NumChannel;
  /** emitted tokens not yet returned: a ring sized for the most tokens that can be in flight */
  private declare readonly sent: Float64Array;
  private declare readonly mask: number;
  private declare sentHead: number;
  private declare sentTail: number;
  declare emitted: number;
  declare received: number;
  declare errors: number;
  declare firstError: string;
  private declare readonly stages: number;

  private declare readonly preload: boolean;

  constructor(parent: Scope, name: string, stages: number, capacity: number, preload = false) {
    super(parent, name);
    this.out = new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    // tokens in flight: at most one channel's capacity plus one FIFO per stage
    let size = 1024;
    while (size < (RING_FIFO_DEPTH + capacity) * (stages + 1)) size *= 2;
    this.sent = new Float64Array(size);
    this.mask = size - 1;
    this.sentHead = 0;
    this.sentTail = 0;
    this.emitted = 0;
    this.received = 0;
    this.errors = 0;
    this.firstError = '';
    this.stages = stages;
    this.preload = preload;
    this.recordPreload();
  }

  /** a preloaded ring's 2N tokens in flight at reset, in the order they come back: emitted at -2N .. -1 */
  private recordPreload(): void {
    if (!this.preload) return;
    for (let e = -2 * this.stages; e < 0; e++) {
      this.sent[this.sentTail] = e;
      this.sentTail = (this.sentTail + 1) & this.mask;
    }
  }

  override reset(): void {
    this.sentHead = this.sentTail = 0;
    this.emitted = this.received = this.errors = 0;
    this.firstError = '';
    this.recordPreload();
  }

  tick(t: number): number {
    const inp = this.in;
    while (inp.canPop()) {
      const v = inp.pop();
      const want = this.sent[this.sentHead]! + this.stages;
      this.sentHead = (this.sentHead + 1) & this.mask;
      if (v !== want) {
        if (this.errors === 0) this.firstError = `cycle ${t}: token ${this.received} came back as ${v}, expected ${want}`;
        this.errors++;
      }
      this.received++;
    }
    if (this.out.canPush()) {
      this.out.push(t);
      this.sent[this.sentTail] = t;
      this.sentTail = (this.sentTail + 1) & this.mask;
      this.emitted++;
    }
    return t + 1;
  }
}

export class RingStage extends Component {
  declare readonly in_: NumChannel;
  declare readonly out: NumChannel;
  private declare readonly fifo: NumFifo;
  /** 0, or this stage's number k (1..N) when the ring is preloaded (see the ring's description) */
  private declare readonly preloadK: number;

  constructor(parent: Scope, name: string, in_: NumChannel, capacity: number, preloadK = 0) {
    super(parent, name);
    this.in_ = in_.bindConsumer(this);
    this.out = new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    this.fifo = new NumFifo(this, RING_FIFO_DEPTH);
    this.preloadK = preloadK;
    this.reset();
  }

  /** a preloaded stage k starts with the token -k in its FIFO and in its output channel (pushed at cycle 0) */
  override reset(): void {
    if (this.preloadK === 0) return;
    this.fifo.push(-this.preloadK);
    this.out.push(-this.preloadK);
  }

  tick(t: number): number {
    const inp = this.in_;
    const fifo = this.fifo;
    const out = this.out;
    if (inp.canPop() && fifo.canPush()) fifo.push(inp.pop());
    if (fifo.canPop() && out.canPush()) out.push(fifo.pop() + 1);
    return fifo.held() > 0 ? t + 1 : NEVER;
  }

  override lineTrace(): string {
    return `${this.fifo.held()}`.padStart(2);
  }
}

export interface Ring {
  sim: Simulator;
  source: RingSource;
  stages: RingStage[];
}

export interface RingOptions extends SimulatorOptions {
  /** channel capacity (default 2, which sustains one token per cycle) */
  channelCapacity?: number;
  /** start in the steady state, one token in every FIFO and channel (default false: empty at reset) */
  preload?: boolean;
}

/** Build a ring of `stages` stages; channel capacity 2 sustains one token per cycle. */
export function buildRing(stages: number, opts: RingOptions = {}): Ring {
  if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`ring needs at least one stage, got ${stages}`);
  const sim = new Simulator(opts);
  const cap = opts.channelCapacity ?? RING_CHANNEL_CAPACITY;
  const preload = opts.preload ?? false;
  const source = new RingSource(sim, 'src', stages, cap, preload);
  const list: RingStage[] = [];
  let prev = source.out;
  for (let i = 0; i < stages; i++) {
    const s = new RingStage(sim, `stage${i + 1}`, prev, cap, preload ? i + 1 : 0);
    list.push(s);
    prev = s.out;
  }
  source.in = prev.bindConsumer(source);
  return { sim, source, stages: list };
}
