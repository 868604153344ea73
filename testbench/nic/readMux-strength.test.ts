/**
 * PCIe read mux (rtl/nic/pcie/readMux.ts), the cases mutation testing (docs/verification.md) found
 * unchecked, driven directly on its four sides (the testbench is the requesters and the endpoint):
 * the requester-count bounds; port names, capacities and statistic names; a completion for a port
 * no requester has; no grant while the endpoint's request channel is full, and the round-robin
 * order and pointer once it has room; head-of-line blocking of completions behind a requester that
 * does not take its own; an idle mux not evaluated.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Component, NEVER, Simulator } from '../../rtl/kernel/index.ts';
import { DmaRead, ReadChunk, ReadMux } from '../../rtl/nic/pcie/index.ts';

/** the endpoint's side of the two channels (it owns them; the testbench pushes and pops) */
class Ep extends Component {
  readonly readIn: Channel<DmaRead>;
  readonly readOut: Channel<ReadChunk>;
  constructor(sim: Simulator, cap: number) {
    super(sim, 'ep');
    this.readIn = new Channel<DmaRead>(this, 'readIn', { capacity: cap, latency: 1 }).bindConsumer(this);
    this.readOut = new Channel<ReadChunk>(this, 'readOut', { capacity: 8, latency: 1 }).bindProducer(this);
  }
  tick(): number {
    return NEVER;
  }
}

function bench(names: string[], epCap = 2) {
  const sim = new Simulator();
  const ep = new Ep(sim, epCap);
  const mux = new ReadMux(sim, 'mux', names, ep.readIn, ep.readOut);
  const read = (tag: number): DmaRead => Object.assign(new DmaRead(), { tag, addr: 64 * tag, len: 8 });
  return { sim, ep, mux, read };
}

describe('read mux: structure', () => {
  it('1 to 64 requesters; channels <name>In / <name>Out of capacity 4, latency 1; a reads_<name> counter each', () => {
    const names = Array.from({ length: 64 }, (_, i) => `q${i}`);
    expect(bench(names).mux.ins.length).toBe(64);
    expect(bench(['only']).mux.outs.length).toBe(1);
    expect(() => bench([...names, 'q64'])).toThrow(/^mux: needs 1 to 64 requesters, got 65$/);
    expect(() => bench([])).toThrow(/^mux: needs 1 to 64 requesters, got 0$/);
    const { sim, mux } = bench(['sdq', 'tx']);
    expect(mux.ins.map((c) => [c.path, c.capacity, c.latency])).toEqual([
      ['mux.sdqIn', 4, 1],
      ['mux.txIn', 4, 1],
    ]);
    expect(mux.outs.map((c) => [c.path, c.capacity, c.latency])).toEqual([
      ['mux.sdqOut', 4, 1],
      ['mux.txOut', 4, 1],
    ]);
    expect(Object.keys(sim.stats.toJSON()).filter((k) => k.startsWith('mux.'))).toEqual(['mux.reads_sdq', 'mux.reads_tx']);
    // the arbiter's pointer register is the mux's one signal
    expect(mux._signals.map((x) => [x.name, x.width])).toEqual([['arb', 2]]);
  });
});

describe('read mux: request side', () => {
  it('no grant while the endpoint channel is full; then one read per cycle in round-robin order, stamped with its port', () => {
    const { sim, ep, mux, read } = bench(['a', 'b', 'c'], 2);
    const rs = [0, 1, 2].map((i) => [read(10 * i), read(10 * i + 1)]);
    // two reads of a fill the endpoint channel; then b and c push theirs
    mux.ins[0]!.push(rs[0]![0]!);
    sim.step(1);
    mux.ins[0]!.push(rs[0]![1]!);
    sim.step(2);
    expect(ep.readIn.held()).toBe(2);
    expect(mux.pointer).toBe(1);
    mux.ins[2]!.push(rs[2]![0]!);
    mux.ins[1]!.push(rs[1]![0]!);
    sim.step(5);
    const grants = (): number[] => ['a', 'b', 'c'].map((n) => (sim.stats.get(`mux.reads_${n}`) as { value: number }).value);
    expect(grants()).toEqual([2, 0, 0]);
    expect([mux.ins[1]!.held(), mux.ins[2]!.held(), mux.pointer]).toEqual([1, 1, 1]);
    const taken: DmaRead[] = [];
    const pop = (): void => {
      while (ep.readIn.canPop()) taken.push(ep.readIn.pop());
    };
    pop();
    mux.ins[2]!.push(rs[2]![1]!);
    mux.ins[1]!.push(rs[1]![1]!);
    for (let i = 0; i < 12; i++) {
      sim.step(1);
      pop();
    }
    // pointer at b: b, c, then b (a has nothing), c
    expect(taken.map((r) => [r.tag, r.port])).toEqual([
      [0, 0],
      [1, 0],
      [10, 1],
      [20, 2],
      [11, 1],
      [21, 2],
    ]);
    expect(grants()).toEqual([2, 2, 2]);
    expect(mux.pointer).toBe(0);
  });
});

describe('read mux: completion side', () => {
  it('a completion goes to its port when that channel has room; a full one holds the completions behind it', () => {
    const { sim, ep, mux, read } = bench(['a', 'b']);
    const ra = read(1);
    ra.port = 0;
    const rb = read(2);
    rb.port = 1;
    for (let k = 0; k < 5; k++) ep.readOut.push(new ReadChunk(ra, 8 * k, 8, k === 4));
    sim.step(1);
    for (let k = 0; k < 2; k++) ep.readOut.push(new ReadChunk(rb, 8 * k, 8, k === 1));
    sim.step(20);
    // a's output holds 4 (its capacity): a's fifth chunk waits at the head, b's two behind it
    expect([mux.outs[0]!.held(), mux.outs[1]!.held(), ep.readOut.held()]).toEqual([4, 0, 3]);
    const got: [string, number, boolean][] = [];
    for (let i = 0; i < 10; i++) {
      while (mux.outs[0]!.canPop()) {
        const c = mux.outs[0]!.pop();
        got.push(['a', c.offset, c.last]);
      }
      sim.step(1);
    }
    expect(got).toEqual([0, 8, 16, 24, 32].map((o) => ['a', o, o === 32] as [string, number, boolean]));
    expect([mux.outs[1]!.held(), ep.readOut.held()]).toEqual([2, 0]);
    expect(mux.outs[1]!.pop().req).toBe(rb);
  });

  it('a completion for a port no requester has is an error naming the port', () => {
    for (const p of [2, -1, 0.5]) {
      const { sim, ep, read } = bench(['a', 'b']);
      const r = read(1);
      r.port = p;
      ep.readOut.push(new ReadChunk(r, 0, 8, true));
      expect(() => sim.step(2)).toThrow(new RegExp(`^mux: completion for port ${String(p).replace('.', '\\.')}, which no requester has$`));
    }
  });

  it('an idle mux is not evaluated; work keeps it running until it is done', () => {
    const { sim, ep, mux, read } = bench(['a', 'b']);
    sim.step(200);
    const e0 = sim.evaluations;
    expect(e0).toBeLessThan(6);
    mux.ins[1]!.push(read(3));
    sim.step(3);
    expect(ep.readIn.held()).toBe(1);
    sim.step(200);
    expect(sim.evaluations - e0).toBeLessThan(8);
  });
});
