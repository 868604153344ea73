/**
 * Random component graphs for the kernel's equivalence properties: sources, sinks and
 * processing nodes with random fan-in/fan-out, channel latencies and capacities, internal FIFOs,
 * registers, multi-cycle busy periods (sleeping until a known cycle) and back-pressure. Every node
 * follows the component contract, so evaluation order and activity skipping must not matter.
 */
import { Component, MemorySink, NEVER, NumChannel, NumFifo, Reg, Rng, type Scope, Simulator, type SimulatorOptions, VcdTracer, LineTracer } from '../../rtl/kernel/index.ts';

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 15;
  return h >>> 0;
}

export class GraphNode extends Component {
  readonly inputs: NumChannel[] = [];
  readonly outputs: NumChannel[] = [];
  private readonly fifo: NumFifo;
  private readonly acc: Reg;
  private readonly busyUntil: Reg;
  private readonly nextEmit: Reg;
  private readonly emitted: Reg;
  private readonly consumed;
  private readonly sent;
  private readonly latency;
  outIdx = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly seed: number,
    private readonly period: number, // > 0: source that emits every `period` cycles
    private readonly emitLimit: number,
    private readonly work: number, // busy cycles per consumed item (0..3)
    // sleep (return no t + 1) while every output is full: only the kernel's producer wake-up on a pop brings it back
    private readonly sleepBlocked = false,
  ) {
    super(parent, name);
    this.fifo = new NumFifo(this, 3);
    this.acc = new Reg(this, 'acc', 32, seed >>> 0);
    this.busyUntil = new Reg(this, 'busy_until', 32, 0);
    this.nextEmit = new Reg(this, 'next_emit', 32, period > 0 ? seed % period : 0);
    this.emitted = new Reg(this, 'emitted', 16, 0);
    this.consumed = this.counter('consumed');
    this.sent = this.counter('sent');
    this.latency = this.histogram('item_latency', { bucketWidth: 2, buckets: 32 });
  }

  get digest(): number {
    return this.acc.q;
  }

  tick(t: number): number {
    let wake = NEVER;
    // source behaviour: emit on a schedule into the FIFO
    if (this.period > 0 && this.emitted.q < this.emitLimit) {
      if (t >= this.nextEmit.q) {
        if (this.fifo.canPush()) {
          this.fifo.push(mix(this.seed, this.emitted.q) & 0xffff);
          this.emitted.d = this.emitted.q + 1;
          this.nextEmit.d = t + this.period;
          wake = Math.min(wake, t + this.period);
        } else wake = t + 1;
      } else wake = Math.min(wake, this.nextEmit.q);
    }
    // consume one input item when not busy, round-robin over inputs by digest parity
    if (t >= this.busyUntil.q) {
      const n = this.inputs.length;
      for (let k = 0; k < n; k++) {
        const ch = this.inputs[(this.acc.q + k) % n]!;
        if (ch.canPop() && this.fifo.canPush()) {
          const v = ch.pop();
          this.consumed.inc();
          this.latency.record(v % 64);
          this.acc.d = mix(this.acc.q, v);
          this.busyUntil.d = t + 1 + this.work;
          if (this.outputs.length > 0) this.fifo.push((v + this.seed) & 0xffff);
          if (this.work > 0) wake = Math.min(wake, t + 1 + this.work);
          break;
        }
      }
    } else wake = Math.min(wake, this.busyUntil.q);
    // forward one FIFO item per cycle to the next output with room
    let blocked = false;
    if (this.fifo.canPop()) {
      const m = this.outputs.length;
      if (m === 0) {
        this.acc.d = mix(this.acc.next, this.fifo.pop());
      } else {
        const sentBefore = this.sent.value;
        for (let k = 0; k < m; k++) {
          const i = (this.outIdx + k) % m;
          const ch = this.outputs[i]!;
          if (ch.canPush()) {
            ch.push(this.fifo.pop());
            this.sent.inc();
            this.outIdx = (i + 1) % m;
            break;
          }
        }
        blocked = this.sent.value === sentBefore;
      }
    }
    // anything left in the FIFO needs another look next cycle, unless every output is full and the
    // node relies on being woken when one frees; more input wakes us by itself
    const asleep = this.sleepBlocked && blocked;
    if (this.fifo.held() > 0 && !asleep) wake = t + 1;
    else if (this.inputs.some((c) => c.held() > 0) && t + 1 >= this.busyUntil.next && (!asleep || this.fifo.held() < 3)) wake = Math.min(wake, t + 1);
    return wake;
  }

  override reset(): void {
    this.outIdx = 0;
  }

  override lineTrace(): string {
    return `${this.path}:${this.fifo.held()}/${this.acc.q.toString(16)}`;
  }
}

export interface GraphRun {
  digests: number[];
  stats: string;
  vcd: string;
  lines: string;
  cycle: number;
  evaluations: number;
}

/** Build the graph for `seed` and run it for `cycles`; everything observable is returned. */
export function runGraph(seed: number, cycles: number, opts: SimulatorOptions, trace = true): GraphRun {
  const rng = new Rng(seed);
  const sim = new Simulator(opts);
  const n = rng.range(2, 9);
  const nodes: GraphNode[] = [];
  for (let i = 0; i < n; i++) {
    const isSource = i === 0 || rng.bool(0.3);
    nodes.push(new GraphNode(sim, `n${i}`, rng.u32(), isSource ? rng.range(1, 7) : 0, rng.range(3, 30), rng.range(0, 3), rng.bool(0.5)));
  }
  const edges = rng.range(n - 1, 2 * n);
  for (let e = 0; e < edges; e++) {
    const a = e < n - 1 ? e : rng.int(n);
    const b = e < n - 1 ? e + 1 : rng.int(n);
    const ch = new NumChannel(nodes[a]!, `o${nodes[a]!.outputs.length}`, { capacity: rng.range(1, 4), latency: rng.range(1, 5) });
    ch.bindProducer(nodes[a]!).bindConsumer(nodes[b]!);
    nodes[a]!.outputs.push(ch);
    nodes[b]!.inputs.push(ch);
  }
  const vcd = new MemorySink();
  const lines = new MemorySink();
  if (trace) {
    new VcdTracer(sim, vcd);
    new LineTracer(sim, lines);
  }
  sim.step(cycles);
  sim.closeTraces();
  return {
    digests: nodes.map((x) => x.digest),
    stats: JSON.stringify(sim.stats.toJSON()),
    vcd: vcd.text(),
    lines: lines.text(),
    cycle: sim.cycle,
    evaluations: sim.evaluations,
  };
}
