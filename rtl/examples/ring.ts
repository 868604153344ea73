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
 * 2 cycles per stage and the ring holds about 2N tokens in steady state, one transfer per channel
 * per cycle.
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

  constructor(parent: Scope, name: string, stages: number, capacity: number) {
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
  }

  override reset(): void {
    this.sentHead = this.sentTail = 0;
    this.emitted = this.received = this.errors = 0;
    this.firstError = '';
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

  constructor(parent: Scope, name: string, in_: NumChannel, capacity: number) {
    super(parent, name);
    this.in_ = in_.bindConsumer(this);
    this.out = new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    this.fifo = new NumFifo(this, RING_FIFO_DEPTH);
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

/** Build a ring of `stages` stages; channel capacity 2 sustains one token per cycle. */
export function buildRing(stages: number, opts: SimulatorOptions & { channelCapacity?: number } = {}): Ring {
  if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`ring needs at least one stage, got ${stages}`);
  const sim = new Simulator(opts);
  const cap = opts.channelCapacity ?? RING_CHANNEL_CAPACITY;
  const source = new RingSource(sim, 'src', stages, cap);
  const list: RingStage[] = [];
  let prev = source.out;
  for (let i = 0; i < stages; i++) {
    const s = new RingStage(sim, `stage${i + 1}`, prev, cap);
    list.push(s);
    prev = s.out;
  }
  source.in = prev.bindConsumer(source);
  return { sim, source, stages: list };
}
