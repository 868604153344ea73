import { ChannelArray, type ChannelPort, Component, FifoArray, type FifoPort, GeneratedBatch, type InPort, NEVER, NumChannel, NumFifo, type OutPort, type Scope, Simulator, type SimulatorOptions } from '../kernel/index.ts';

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
  declare readonly out: NumChannel | ChannelPort;
  declare in: NumChannel | ChannelPort;
  /** emitted tokens not yet returned: a power-of-two ring, doubled when full */
  private declare sent: Float64Array;
  private declare mask: number;
  private declare sentHead: number;
  private declare sentTail: number;
  declare emitted: number;
  declare received: number;
  declare errors: number;
  declare firstError: string;
  private declare readonly stages: number;

  private declare readonly preload: boolean;

  /** `out`: the channel to stage 1 when the stages are a batch (a port of its channel array); else a NumChannel is made */
  constructor(parent: Scope, name: string, stages: number, capacity: number, preload = false, out?: ChannelPort) {
    super(parent, name);
    this.out = out === undefined ? new NumChannel(this, 'out', { capacity, latency: 1 }).bindProducer(this) : out.bindProducer(this);
    // room for the 2N tokens a running ring holds (it grows if more are in flight)
    let size = 1024;
    while (size < 2 * (stages + capacity)) size *= 2;
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
      if (this.sentTail === this.sentHead) this.grow();
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
      if (this.sentTail === this.sentHead) this.grow();
      this.emitted++;
    }
    return t + 1;
  }

  /** the record is full: double it, oldest entry first */
  private grow(): void {
    const old = this.sent;
    const n = old.length;
    const next = new Float64Array(2 * n);
    for (let i = 0; i < n; i++) next[i] = old[(this.sentHead + i) & this.mask]!;
    this.sent = next;
    this.mask = 2 * n - 1;
    this.sentHead = 0;
    this.sentTail = n;
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

  /** tokens in this stage's FIFO */
  fifoHeld(): number {
    return this.fifo.held();
  }
}

/** The ring stage's step (instance i's cycle) as the batch generator reads it: ports in, the next cycle out. */
interface RingIO {
  inp: InPort;
  out: OutPort;
  fifo: FifoPort;
}

/**
 * One ring stage's clock cycle, register-transfer style: the decisions from the state at the start
 * of the cycle (the FIFO's count, the input channel's head, the output channel's room), then the
 * next state. The same as `RingStage.tick`; the batch's simple path (`evalOne`) runs this function,
 * and the kernel generates the batch's loop from its text (rtl/kernel/batchgen.ts).
 */
function ringStep(io: RingIO, _i: number, t: number): number {
  const n = io.fifo.count();
  const take = n !== RING_FIFO_DEPTH && io.inp.canPop();
  const give = n !== 0 && io.out.canPush();
  if (give) io.out.push((io.fifo.pop() + 1) | 0);
  if (take) io.fifo.push(io.inp.pop());
  return n + (take ? 1 : 0) - (give ? 1 : 0) > 0 ? t + 1 : Infinity;
}

/**
 * The N stages of a ring as one batch (rtl/kernel/batch.ts, batchgen.ts): the same hardware and
 * cycle behaviour as N `RingStage` components, with the state of all stages in typed arrays and one
 * loop over them, generated from `ringStep`. Channel k (0..N) of `ch` is the source's output
 * (k = 0) or stage k's output; stage k (instance k - 1) pops channel k - 1 and pushes channel k.
 * Tokens are 32-bit (as in bench/verilog/ring.sv): the same values as the component ring's for runs
 * of fewer than 2^31 - N cycles.
 */
export class RingStages extends GeneratedBatch {
  declare readonly ch: ChannelArray;
  declare readonly fifo: FifoArray;
  /** 1 for a preloaded ring (its tokens become visible at cycle 1: nothing moves in cycle 0), else 0 */
  private declare readonly from: number;

  constructor(parent: Scope, name: string, ch: ChannelArray, preload: boolean) {
    super(parent, name, ch.size - 1);
    this.ch = ch;
    this.fifo = new FifoArray(this, RING_FIFO_DEPTH, stagePath('fifo0'), { width: 32 });
    this.define({ inputs: { inp: { array: ch, channel: 0 } }, outputs: { out: { array: ch, channel: 1 } }, fifos: { fifo: this.fifo }, consts: { RING_FIFO_DEPTH } }, ringStep);
    this.from = preload ? 1 : 0;
    this.reset();
  }

  /** a preloaded stage k starts with the token -k in its FIFO and in its output channel (pushed at cycle 0) */
  override reset(): void {
    if (this.from === 0) return;
    for (let i = 0; i < this.size; i++) {
      this.fifo.push(i, -(i + 1));
      this.ch.push(i + 1, -(i + 1), 0);
    }
  }

  override tick(t: number): number {
    return t < this.from ? this.from : super.tick(t);
  }

  override lineTrace(): string {
    const parts: string[] = [];
    for (let i = 0; i < this.size; i++) parts.push(`${this.fifo.count(i)}`.padStart(2));
    return parts.join(' | ');
  }
}

/** stage k's unit `name` (k from 0: stage k + 1), as in the component ring */
const stagePath =
  (name: string) =>
  (i: number): string =>
    `stage${i + 1}.${name}`;

export interface Ring {
  sim: Simulator;
  source: RingSource;
  /** the stages as components (`components: true`), else empty */
  stages: RingStage[];
  /** the stages as a batch (the default), else null */
  batch: RingStages | null;
  /** tokens held by stage k (1..N): in its FIFO and in its output channel */
  fifoHeld(k: number): number;
  channelHeld(k: number): number;
}

export interface RingOptions extends SimulatorOptions {
  /** channel capacity (default 2, which sustains one token per cycle) */
  channelCapacity?: number;
  /** start in the steady state, one token in every FIFO and channel (default false: empty at reset) */
  preload?: boolean;
  /** build every stage as a component (the simple path) instead of one batch of N stages (default false) */
  components?: boolean;
}

/**
 * Build a ring of `stages` stages; channel capacity 2 sustains one token per cycle. By default the
 * stages are one batch (`RingStages`); `components: true` builds N `RingStage` components, the
 * same hardware cycle for cycle (testbench/kernel/batch.test.ts compares them).
 */
export function buildRing(stages: number, opts: RingOptions = {}): Ring {
  if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`ring needs at least one stage, got ${stages}`);
  const sim = new Simulator(opts);
  const cap = opts.channelCapacity ?? RING_CHANNEL_CAPACITY;
  const preload = opts.preload ?? false;
  if (!opts.components) {
    const ch = new ChannelArray(sim, stages + 1, (k) => (k === 0 ? 'src.out' : `stage${k}.out`), { capacity: cap, width: 32 });
    const source = new RingSource(sim, 'src', stages, cap, preload, ch.port(0));
    const batch = new RingStages(sim, 'stages', ch, preload);
    source.in = ch.port(stages).bindConsumer(source);
    return { sim, source, stages: [], batch, fifoHeld: (k) => batch.fifo.count(k - 1), channelHeld: (k) => ch.held(k) };
  }
  const source = new RingSource(sim, 'src', stages, cap, preload);
  const list: RingStage[] = [];
  let prev = source.out as NumChannel;
  for (let i = 0; i < stages; i++) {
    const s = new RingStage(sim, `stage${i + 1}`, prev, cap, preload ? i + 1 : 0);
    list.push(s);
    prev = s.out;
  }
  source.in = prev.bindConsumer(source);
  return { sim, source, stages: list, batch: null, fifoHeld: (k) => list[k - 1]!.fifoHeld(), channelHeld: (k) => list[k - 1]!.out.held() };
}
