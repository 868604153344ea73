import { Component, NEVER, NumChannel, NumFifo, type Scope, Simulator, type SimulatorOptions } from '../kernel/index.ts';

/**
 * The kernel benchmark ring: stage 0 emits one token per cycle (data = cycle number) into a chain
 * of N stages; each stage holds a 16-entry FIFO, accepts a token from its input channel when the
 * FIFO has room and forwards one token per cycle with data + 1 over a one-cycle channel. The last
 * stage feeds back into stage 0, which checks that every token comes back as (emitted + N), in order.
 */
export class RingSource extends Component {
  readonly out: NumChannel;
  in!: NumChannel;
  private readonly sent: Float64Array;
  private sentHead = 0;
  private sentTail = 0;
  emitted = 0;
  received = 0;
  errors = 0;
  firstError = '';

  constructor(parent: Scope, name: string, private readonly stages: number, capacity: number) {
    super(parent, name);
    this.out = new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    this.sent = new Float64Array(1 << 16);
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
      this.sentHead = (this.sentHead + 1) & 0xffff;
      if (v !== want) {
        if (this.errors === 0) this.firstError = `cycle ${t}: token ${this.received} came back as ${v}, expected ${want}`;
        this.errors++;
      }
      this.received++;
    }
    if (this.out.canPush()) {
      this.out.push(t);
      this.sent[this.sentTail] = t;
      this.sentTail = (this.sentTail + 1) & 0xffff;
      this.emitted++;
    }
    return t + 1;
  }
}

export class RingStage extends Component {
  readonly out: NumChannel;
  private readonly fifo: NumFifo;

  constructor(parent: Scope, name: string, readonly in_: NumChannel, capacity: number) {
    super(parent, name);
    in_.bindConsumer(this);
    this.fifo = new NumFifo(this, 16);
    this.out = new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this);
  }

  tick(t: number): number {
    const fifo = this.fifo;
    if (this.in_.canPop() && fifo.canPush()) fifo.push(this.in_.pop());
    if (fifo.canPop() && this.out.canPush()) this.out.push(fifo.pop() + 1);
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
  const cap = opts.channelCapacity ?? 2;
  const source = new RingSource(sim, 'src', stages, cap);
  const list: RingStage[] = [];
  let prev = source.out;
  for (let i = 0; i < stages; i++) {
    const s = new RingStage(sim, `stage${i + 1}`, prev, cap);
    list.push(s);
    prev = s.out;
  }
  prev.bindConsumer(source);
  source.in = prev;
  return { sim, source, stages: list };
}
