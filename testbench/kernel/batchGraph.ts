/**
 * Random graphs for the batched-component equivalence tests (batch.test.ts): the same nodes built
 * three ways, every node a component (NumChannels of latency 1, a NumFifo), every node an instance of
 * one batch (a ChannelArray, a FifoArray), and mixed (a random half components, talking to the
 * batch's instances through ChannelArray ports). One function, `nodeCycle`, is every node's logic in
 * all three, so any difference between the builds is the kernel's. Nodes: sources on a schedule,
 * random fan-in/fan-out, a 3-entry FIFO, busy periods (sleeping until a known cycle), back-pressure,
 * and nodes that sleep while every output is full (only a producer wake-up brings them back).
 */
import { Batch, ChannelArray, type ChannelPort, Component, FifoArray, NEVER, NumChannel, NumFifo, Rng, type Scope, Simulator, type SimulatorOptions } from '../../rtl/kernel/index.ts';

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

export type GraphBuild = 'components' | 'batch' | 'mixed';

export interface BatchGraphRun {
  /** after every cycle: every node's digest, FIFO count, and every channel's held / occupancy / head */
  states: string[];
  cycle: number;
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
  const plain = ps.map((_, i) => build === 'components' || (build === 'mixed' && (i === 0 || rng.bool(0.5))));
  const outCount = new Array<number>(n).fill(0);
  const names = edges.map(([a]) => `n${a}.o${outCount[a]!++}`);

  const digests: (() => string)[] = [];
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
    const batch = ids.length > 0 ? new GraphBatch(sim, 'nodes', ids, ids.map((i) => ps[i]!), ch) : null;
    const slot = new Map(ids.map((id, i) => [id, i]));
    edges.forEach(([a, b], e) => {
      const ca = comps.get(a);
      const cb = comps.get(b);
      if (ca) ca.outs.push(ch.port(e).bindProducer(ca));
      else batch!.outs[slot.get(a)!]!.push(e);
      if (cb) cb.ins.push(ch.port(e).bindConsumer(cb));
      else batch!.ins[slot.get(b)!]!.push(e);
    });
    for (let i = 0; i < n; i++) {
      const c = comps.get(i);
      if (c) digests.push(() => `${c.st.acc}/${c.fifo.held()}`);
      else {
        const k = slot.get(i)!;
        digests.push(() => `${batch!.st[k]!.acc}/${batch!.fifo.count(k)}`);
      }
    }
    for (let e = 0; e < edges.length; e++) digests.push(() => `${ch.held(e)}/${ch.occupancy(e, sim.cycle)}/${ch.held(e) > 0 ? ch.peek(e) : '-'}`);
  }
  const states: string[] = [];
  for (let c = 0; c < cycles; c++) {
    sim.step(1);
    states.push(digests.map((d) => d()).join(' '));
  }
  return { states, cycle: sim.cycle };
}
