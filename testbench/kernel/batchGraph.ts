/**
 * Random graphs for the batched-component equivalence tests (batch.test.ts): the same nodes built
 * three ways, every node a component (NumChannels of latency 1, a NumFifo), every node an instance of
 * one batch (a ChannelArray, a FifoArray), and mixed (a random half components, talking to the
 * batch's instances through ChannelArray ports). One function, `nodeCycle`, is every node's logic in
 * all three, so any difference between the builds is the kernel's. Nodes: sources on a schedule,
 * random fan-in/fan-out, a 3-entry FIFO, busy periods (sleeping until a known cycle), back-pressure,
 * and nodes that sleep while every output is full (only a producer wake-up brings them back).
 */
import { Batch, ChannelArray, type ChannelPort, Component, FifoArray, type FifoPort, GeneratedBatch, type InPort, NEVER, NumChannel, NumFifo, type OutPort, Rng, type Scope, Simulator, type SimulatorOptions } from '../../rtl/kernel/index.ts';

function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x7f4a7c15, 0xc2b2ae35);
  h ^= h >>> 15;
  return h >>> 0;
}

const DEPTH = 3;

interface NodeParams {
  seed: number;
  period: number;
  emitLimit: number;
  work: number;
  sleepBlocked: boolean;
}

/** A node's own state (plain fields: only the node reads and writes them, in program order). */
interface NodeState {
  acc: number;
  busyUntil: number;
  nextEmit: number;
  emitted: number;
  outIdx: number;
}

interface NodeIO {
  nIn: number;
  nOut: number;
  canPop(j: number): boolean;
  held(j: number): number;
  pop(j: number): number;
  canPush(j: number): boolean;
  push(j: number, v: number): void;
  fifoCount(): number;
  fifoPush(v: number): void;
  fifoPop(): number;
}

function initState(p: NodeParams): NodeState {
  return { acc: p.seed >>> 0, busyUntil: 0, nextEmit: p.period > 0 ? p.seed % p.period : 0, emitted: 0, outIdx: 0 };
}

/** One cycle of a node: decisions from the state at the start of the cycle (the FIFO's count first), then the updates. */
function nodeCycle(p: NodeParams, s: NodeState, io: NodeIO, t: number): number {
  const n0 = io.fifoCount();
  let pushed = 0;
  let wake = NEVER;
  if (p.period > 0 && s.emitted < p.emitLimit) {
    if (t >= s.nextEmit) {
      if (n0 + pushed < DEPTH) {
        io.fifoPush(mix(p.seed, s.emitted) & 0xffff);
        pushed++;
        s.emitted++;
        s.nextEmit = t + p.period;
        wake = Math.min(wake, t + p.period);
      } else wake = t + 1;
    } else wake = Math.min(wake, s.nextEmit);
  }
  if (t >= s.busyUntil) {
    const n = io.nIn;
    for (let k = 0; k < n; k++) {
      const j = (s.acc + k) % n;
      if (io.canPop(j) && n0 + pushed < DEPTH) {
        const v = io.pop(j);
        s.acc = mix(s.acc, v);
        s.busyUntil = t + 1 + p.work;
        if (io.nOut > 0) {
          io.fifoPush((v + p.seed) & 0xffff);
          pushed++;
        }
        if (p.work > 0) wake = Math.min(wake, t + 1 + p.work);
        break;
      }
    }
  } else wake = Math.min(wake, s.busyUntil);
  let blocked = false;
  let popped = 0;
  if (n0 > 0) {
    const m = io.nOut;
    if (m === 0) {
      s.acc = mix(s.acc, io.fifoPop());
      popped = 1;
    } else {
      blocked = true;
      for (let k = 0; k < m; k++) {
        const j = (s.outIdx + k) % m;
        if (io.canPush(j)) {
          io.push(j, io.fifoPop());
          popped = 1;
          s.outIdx = (j + 1) % m;
          blocked = false;
          break;
        }
      }
    }
  }
  const held = n0 + pushed - popped;
  const asleep = p.sleepBlocked && blocked;
  if (held > 0 && !asleep) return t + 1;
  for (let j = 0; j < io.nIn; j++) if (io.held(j) > 0 && t + 1 >= s.busyUntil && (!asleep || held < DEPTH)) return Math.min(wake, t + 1);
  return wake;
}

/** A node as a component, over NumChannels or ChannelPorts. */
class GraphComp extends Component {
  readonly st: NodeState;
  readonly ins: (NumChannel | ChannelPort)[] = [];
  readonly outs: (NumChannel | ChannelPort)[] = [];
  readonly fifo: NumFifo;
  private readonly io: NodeIO;
  constructor(parent: Scope, name: string, readonly p: NodeParams) {
    super(parent, name);
    this.st = initState(p);
    this.fifo = new NumFifo(this, DEPTH);
    const self = this;
    this.io = {
      get nIn() {
        return self.ins.length;
      },
      get nOut() {
        return self.outs.length;
      },
      canPop: (j) => this.ins[j]!.canPop(),
      held: (j) => this.ins[j]!.held(),
      pop: (j) => this.ins[j]!.pop(),
      canPush: (j) => this.outs[j]!.canPush(),
      push: (j, v) => this.outs[j]!.push(v),
      fifoCount: () => this.fifo.held(),
      fifoPush: (v) => this.fifo.push(v),
      fifoPop: () => this.fifo.pop(),
    };
  }
  tick(t: number): number {
    return nodeCycle(this.p, this.st, this.io, t);
  }
  override reset(): void {
    Object.assign(this.st, initState(this.p));
  }
}

/** The batched nodes: instance i is node ids[i]; channels are indices into one ChannelArray. */
class GraphBatch extends Batch {
  readonly st: NodeState[];
  readonly ins: number[][];
  readonly outs: number[][];
  readonly fifo: FifoArray;
  private cur = 0;
  private now = 0;
  private readonly io: NodeIO;
  constructor(
    parent: Scope,
    name: string,
    readonly ids: number[],
    readonly ps: NodeParams[],
    readonly ch: ChannelArray,
  ) {
    super(parent, name, ids.length);
    this.st = ps.map(initState);
    this.ins = ids.map(() => []);
    this.outs = ids.map(() => []);
    this.fifo = new FifoArray(this, DEPTH, (i) => `n${ids[i]}.fifo0`);
    ch.bindConsumer(this).bindProducer(this);
    const self = this;
    this.io = {
      get nIn() {
        return self.ins[self.cur]!.length;
      },
      get nOut() {
        return self.outs[self.cur]!.length;
      },
      canPop: (j) => ch.canPop(this.ins[this.cur]![j]!, this.now),
      held: (j) => ch.held(this.ins[this.cur]![j]!),
      pop: (j) => ch.pop(this.ins[this.cur]![j]!, this.now),
      canPush: (j) => ch.canPush(this.outs[this.cur]![j]!, this.now),
      push: (j, v) => ch.push(this.outs[this.cur]![j]!, v, this.now),
      fifoCount: () => this.fifo.count(this.cur),
      fifoPush: (v) => this.fifo.push(this.cur, v),
      fifoPop: () => this.fifo.pop(this.cur),
    };
  }
  evalOne(i: number, t: number): number {
    this.cur = i;
    this.now = t;
    return nodeCycle(this.ps[i]!, this.st[i]!, this.io, t);
  }
  override reset(): void {
    for (let i = 0; i < this.st.length; i++) Object.assign(this.st[i]!, initState(this.ps[i]!));
  }
}

/** The registers and ports of a generated node (GraphGen): its parameters and state by instance. */
interface GenIO {
  ins: InPort;
  outs: OutPort;
  fifo: FifoPort;
  nIn: Int32Array;
  nOut: Int32Array;
  seed: Float64Array;
  period: Int32Array;
  emitLimit: Int32Array;
  work: Int32Array;
  sleepBlocked: Uint8Array;
  acc: Float64Array;
  busyUntil: Float64Array;
  nextEmit: Float64Array;
  emitted: Int32Array;
  outIdx: Int32Array;
}

/**
 * `nodeCycle` rewritten as a batch step function (the generator's subset: ports and registers of
 * `io`, no calls to module functions, so `mix` is written out): a second, independent text of the
 * same node, which the kernel turns into a generated loop (GraphGen).
 */
function nodeStep(io: GenIO, i: number, t: number): number {
  const n0 = io.fifo.count();
  let pushed = 0;
  let wake = Infinity;
  if (io.period[i]! > 0 && io.emitted[i]! < io.emitLimit[i]!) {
    if (t >= io.nextEmit[i]!) {
      if (n0 + pushed < DEPTH) {
        let h = Math.imul(io.seed[i]! ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(io.emitted[i]! + 0x7f4a7c15, 0xc2b2ae35);
        h ^= h >>> 15;
        io.fifo.push((h >>> 0) & 0xffff);
        pushed++;
        io.emitted[i] = io.emitted[i]! + 1;
        io.nextEmit[i] = t + io.period[i]!;
        wake = Math.min(wake, t + io.period[i]!);
      } else wake = t + 1;
    } else wake = Math.min(wake, io.nextEmit[i]!);
  }
  if (t >= io.busyUntil[i]!) {
    const n = io.nIn[i]!;
    for (let k = 0; k < n; k++) {
      const j = (io.acc[i]! + k) % n;
      if (io.ins.canPop(j) && n0 + pushed < DEPTH) {
        const v = io.ins.pop(j);
        let h = Math.imul(io.acc[i]! ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(v + 0x7f4a7c15, 0xc2b2ae35);
        h ^= h >>> 15;
        io.acc[i] = h >>> 0;
        io.busyUntil[i] = t + 1 + io.work[i]!;
        if (io.nOut[i]! > 0) {
          io.fifo.push((v + io.seed[i]!) & 0xffff);
          pushed++;
        }
        if (io.work[i]! > 0) wake = Math.min(wake, t + 1 + io.work[i]!);
        break;
      }
    }
  } else wake = Math.min(wake, io.busyUntil[i]!);
  let blocked = false;
  let popped = 0;
  if (n0 > 0) {
    const m = io.nOut[i]!;
    if (m === 0) {
      let h = Math.imul(io.acc[i]! ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(io.fifo.pop() + 0x7f4a7c15, 0xc2b2ae35);
      h ^= h >>> 15;
      io.acc[i] = h >>> 0;
      popped = 1;
    } else {
      blocked = true;
      for (let k = 0; k < m; k++) {
        const j = (io.outIdx[i]! + k) % m;
        if (io.outs.canPush(j)) {
          io.outs.push(io.fifo.pop(), j);
          popped = 1;
          io.outIdx[i] = (j + 1) % m;
          blocked = false;
          break;
        }
      }
    }
  }
  const held = n0 + pushed - popped;
  const asleep = io.sleepBlocked[i] !== 0 && blocked;
  if (held > 0 && !asleep) return t + 1;
  for (let j = 0; j < io.nIn[i]!; j++) if (io.ins.held(j) > 0 && t + 1 >= io.busyUntil[i]! && (!asleep || held < DEPTH)) return Math.min(wake, t + 1);
  return wake;
}

/** The batched nodes as a generated batch: vector ports `ins` / `outs` (channel maps, -1 for none), registers by instance. */
class GraphGen extends GeneratedBatch {
  readonly fifo: FifoArray;
  readonly regs: Omit<GenIO, 'ins' | 'outs' | 'fifo'>;
  constructor(parent: Scope, name: string, ids: number[], readonly ps: NodeParams[], ch: ChannelArray, ins: number[][], outs: number[][]) {
    super(parent, name, ids.length);
    const n = ids.length;
    this.fifo = new FifoArray(this, DEPTH, (i) => `n${ids[i]}.fifo0`);
    const wIn = Math.max(1, ...ins.map((x) => x.length));
    const wOut = Math.max(1, ...outs.map((x) => x.length));
    const inMap = new Int32Array(n * wIn).fill(-1);
    const outMap = new Int32Array(n * wOut).fill(-1);
    ins.forEach((l, i) => l.forEach((e, j) => (inMap[i * wIn + j] = e)));
    outs.forEach((l, i) => l.forEach((e, j) => (outMap[i * wOut + j] = e)));
    this.regs = {
      nIn: Int32Array.from(ins, (l) => l.length),
      nOut: Int32Array.from(outs, (l) => l.length),
      seed: Float64Array.from(ps, (p) => p.seed),
      period: Int32Array.from(ps, (p) => p.period),
      emitLimit: Int32Array.from(ps, (p) => p.emitLimit),
      work: Int32Array.from(ps, (p) => p.work),
      sleepBlocked: Uint8Array.from(ps, (p) => (p.sleepBlocked ? 1 : 0)),
      acc: new Float64Array(n),
      busyUntil: new Float64Array(n),
      nextEmit: new Float64Array(n),
      emitted: new Int32Array(n),
      outIdx: new Int32Array(n),
    };
    this.reset();
    this.define(
      { inputs: { ins: { array: ch, channel: inMap, width: wIn } }, outputs: { outs: { array: ch, channel: outMap, width: wOut } }, fifos: { fifo: this.fifo }, regs: this.regs, consts: { DEPTH } },
      nodeStep,
    );
  }
  override reset(): void {
    this.ps.forEach((p, i) => {
      const s = initState(p);
      this.regs.acc[i] = s.acc;
      this.regs.busyUntil[i] = s.busyUntil;
      this.regs.nextEmit[i] = s.nextEmit;
      this.regs.emitted[i] = s.emitted;
      this.regs.outIdx[i] = s.outIdx;
    });
  }
}

/** components: every node a component; batch / mixed: a Batch running nodeCycle; gen / genmixed: a GeneratedBatch running nodeStep */
export type GraphBuild = 'components' | 'batch' | 'mixed' | 'gen' | 'genmixed';

export interface BatchGraphRun {
  /** after every cycle: every node's digest, FIFO count, and every channel's held / occupancy / head */
  states: string[];
  cycle: number;
  /** a generated batch's `generated` (null: its generated loop ran) */
  generated?: string | null;
}

/** Build graph `seed` the given way and run it `cycles` cycles, sampling after each. */
export function runBatchGraph(seed: number, cycles: number, build: GraphBuild, opts: SimulatorOptions): BatchGraphRun {
  const rng = new Rng(seed);
  const sim = new Simulator(opts);
  const n = rng.range(2, 9);
  const ps: NodeParams[] = [];
  for (let i = 0; i < n; i++) {
    const isSource = i === 0 || rng.bool(0.3);
    ps.push({ seed: rng.u32(), period: isSource ? rng.range(1, 7) : 0, emitLimit: rng.range(3, 30), work: rng.range(0, 3), sleepBlocked: rng.bool(0.5) });
  }
  const edges: [number, number][] = [];
  const ne = rng.range(n - 1, 2 * n);
  for (let e = 0; e < ne; e++) edges.push(e < n - 1 ? [e, e + 1] : [rng.int(n), rng.int(n)]);
  const cap = rng.range(1, 4);
  // which nodes are components in the mixed build (node 0 always, so both kinds appear)
  const plain = ps.map((_, i) => build === 'components' || ((build === 'mixed' || build === 'genmixed') && (i === 0 || rng.bool(0.5))));
  const outCount = new Array<number>(n).fill(0);
  const names = edges.map(([a]) => `n${a}.o${outCount[a]!++}`);

  const digests: (() => string)[] = [];
  let genState: string | null | undefined;
  if (build === 'components') {
    const nodes = ps.map((p, i) => new GraphComp(sim, `n${i}`, p));
    const chans = edges.map(([a, b], e) => {
      const c = new NumChannel(nodes[a]!, names[e]!.split('.')[1]!, { capacity: cap, latency: 1 }).bindProducer(nodes[a]!).bindConsumer(nodes[b]!);
      nodes[a]!.outs.push(c);
      nodes[b]!.ins.push(c);
      return c;
    });
    for (const x of nodes) digests.push(() => `${x.st.acc}/${x.fifo.held()}`);
    for (const c of chans) digests.push(() => `${c.held()}/${c.occupancy()}/${c.held() > 0 ? c.peek() : '-'}`);
  } else {
    const ch = new ChannelArray(sim, edges.length, (k) => names[k]!, { capacity: cap });
    const ids = ps.map((_, i) => i).filter((i) => !plain[i]);
    const comps = new Map<number, GraphComp>();
    for (let i = 0; i < n; i++) if (plain[i]) comps.set(i, new GraphComp(sim, `n${i}`, ps[i]!));
    const slot = new Map(ids.map((id, i) => [id, i]));
    const ins = ids.map(() => [] as number[]);
    const outs = ids.map(() => [] as number[]);
    edges.forEach(([a, b], e) => {
      const ca = comps.get(a);
      const cb = comps.get(b);
      if (ca) ca.outs.push(ch.port(e).bindProducer(ca));
      else outs[slot.get(a)!]!.push(e);
      if (cb) cb.ins.push(ch.port(e).bindConsumer(cb));
      else ins[slot.get(b)!]!.push(e);
    });
    const generated = build === 'gen' || build === 'genmixed';
    const batch = ids.length === 0 ? null : generated ? new GraphGen(sim, 'nodes', ids, ids.map((i) => ps[i]!), ch, ins, outs) : new GraphBatch(sim, 'nodes', ids, ids.map((i) => ps[i]!), ch);
    if (batch instanceof GraphBatch) {
      batch.ins.splice(0, ins.length, ...ins);
      batch.outs.splice(0, outs.length, ...outs);
    }
    if (batch instanceof GraphGen) genState = batch.generated;
    for (let i = 0; i < n; i++) {
      const c = comps.get(i);
      if (c) digests.push(() => `${c.st.acc}/${c.fifo.held()}`);
      else {
        const k = slot.get(i)!;
        digests.push(batch instanceof GraphGen ? () => `${batch.regs.acc[k]}/${batch.fifo.count(k)}` : () => `${(batch as GraphBatch).st[k]!.acc}/${batch!.fifo.count(k)}`);
      }
    }
    for (let e = 0; e < edges.length; e++) digests.push(() => `${ch.held(e)}/${ch.occupancy(e, sim.cycle)}/${ch.held(e) > 0 ? ch.peek(e) : '-'}`);
  }
  const states: string[] = [];
  for (let c = 0; c < cycles; c++) {
    sim.step(1);
    states.push(digests.map((d) => d()).join(' '));
  }
  return { states, cycle: sim.cycle, generated: genState };
}
