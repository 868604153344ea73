import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRing, type Ring, type RingOptions } from '../../rtl/examples/ring.ts';
import { Batch, ChannelArray, FifoArray, type FifoPort, GeneratedBatch, type InPort, LineTracer, MemorySink, NEVER, type OutPort, type Scope, Simulator, VcdTracer, WaveDromTracer } from '../../rtl/kernel/index.ts';
import { runBatchGraph } from './batchGraph.ts';

/** Everything observable of a ring after every cycle: the source's counts and every stage's FIFO and channel. */
function ringTrace(stages: number, cycles: number, opts: RingOptions, vcd = false): { states: string[]; vcd: string; wavedrom: string; lines: string } {
  const r: Ring = buildRing(stages, opts);
  const sink = new MemorySink();
  const wd = new MemorySink();
  const lines = new MemorySink();
  if (vcd) {
    new VcdTracer(r.sim, sink);
    new WaveDromTracer(r.sim, wd, { from: 0, to: Math.min(cycles, 64) });
    new LineTracer(r.sim, lines);
  }
  const states: string[] = [];
  for (let c = 0; c < cycles; c++) {
    r.sim.step(1);
    const s = r.source;
    const per: number[] = [];
    for (let k = 1; k <= stages; k++) per.push(r.fifoHeld(k), r.channelHeld(k));
    states.push(`${s.emitted} ${s.received} ${s.errors} ${s.firstError} | ${per.join(',')}`);
  }
  r.sim.closeTraces();
  return { states, vcd: sink.text(), wavedrom: wd.text(), lines: lines.text() };
}

describe('batched components (rtl/kernel/batch.ts) against the same designs built from components', () => {
  it('the ring as one batch equals the ring of N components after every cycle, with the same VCD, WaveDrom and line trace', () => {
    for (const n of [1, 2, 3, 7, 40]) {
      for (const preload of [false, true]) {
        for (const skipping of [true, false]) {
          const cycles = 3 * n + 30;
          const want = ringTrace(n, cycles, { components: true, preload, skipping }, true);
          const got = ringTrace(n, cycles, { preload, skipping }, true);
          expect(got.states, `n ${n} preload ${preload} skipping ${skipping}`).toEqual(want.states);
          expect(got.vcd).toBe(want.vcd);
          expect(got.wavedrom).toBe(want.wavedrom);
          expect(got.lines).toBe(want.lines);
          expect(got.vcd.length).toBeGreaterThan(200);
        }
      }
    }
  });

  it('the ring runs its generated loop: one stamp test per channel where the order allows (the source\'s two channels excepted)', () => {
    const r = buildRing(6);
    const b = r.batch!;
    expect(b.generated).toBeNull();
    const text = b.generatedText;
    // last stage first; canPop tests the push stamp only on the source's channel (stage 1), canPush
    // the pop stamp only on the source's (stage 6): the others carry the next stage's pop
    expect(text).toMatch(/for \(let _i = \$p\.size - 1; _i >= 0; _i--\)/);
    expect(text.match(/\$a0u\[\$v\d+\] === t/g)).toHaveLength(1);
    expect(text.match(/\$a0o\[\$v\d+\] === t/g)).toHaveLength(1);
    expect(text).toContain('_i === 0 ?');
    expect(text).toContain('_i === 5 ?');
    expect(text).toContain('$cp_inp');
    // traced, every stamp is written
    expect(b.generatedTracedText.match(/\$a0[uo]\[\$v\d+\] = t/g)).toHaveLength(2);
    expect(text.match(/\(_i === (0|5)\) && \(\$a0[uo]\[\$v\d+\] = t\)/g)).toHaveLength(2);
  });

  it('the ring: channel capacities 1 to 5, in order (the ring\'s specialised loop) and shuffled (evalOne), reset', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 1000 }), fc.boolean(), (n, cap, seed, preload) => {
        const cycles = 2 * n + 40;
        const want = ringTrace(n, cycles, { components: true, channelCapacity: cap, preload });
        expect(ringTrace(n, cycles, { channelCapacity: cap, preload }).states).toEqual(want.states);
        expect(ringTrace(n, cycles, { channelCapacity: cap, preload, shuffleSeed: seed }).states).toEqual(want.states);
        expect(ringTrace(n, cycles, { channelCapacity: cap, preload, shuffleSeed: seed, skipping: false }).states).toEqual(want.states);
      }),
      { numRuns: 30 },
    );
    const a = buildRing(5);
    const b = buildRing(5, { components: true });
    for (const r of [a, b]) {
      r.sim.step(37);
      r.sim.reset();
      r.sim.step(23);
    }
    expect([a.source.emitted, a.source.received, a.source.errors]).toEqual([b.source.emitted, b.source.received, b.source.errors]);
  });
});

describe('batched components on random graphs', () => {
  it('all nodes batched (a Batch, or a generated batch), or a random half components through ports, equal all components after every cycle', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 1000 }), (seed, shuffle) => {
        const want = runBatchGraph(seed, 250, 'components', { skipping: false });
        for (const build of ['batch', 'mixed', 'gen', 'genmixed'] as const) {
          for (const opts of [{ skipping: true }, { skipping: false }, { skipping: true, shuffleSeed: shuffle }]) {
            const got = runBatchGraph(seed, 250, build, opts);
            expect(got.states, `${build} ${JSON.stringify(opts)}`).toEqual(want.states);
            // the generated loop ran (the generator did not fall back to evalOne)
            if (build === 'gen') expect(got.generated).toBeNull();
          }
        }
        expect(runBatchGraph(seed, 250, 'components', { skipping: true, shuffleSeed: shuffle }).states).toEqual(want.states);
      }),
      { numRuns: 40 },
    );
  });
});

/** A batch of counters, each pushing 1, 2, ... up to `limit` into its channel when there is room (one every `gap` cycles). */
class Emitters extends Batch {
  readonly next: Int32Array;
  constructor(parent: Scope, name: string, readonly ch: ChannelArray, readonly limit: number, readonly gap: number) {
    super(parent, name, ch.size);
    this.next = new Int32Array(ch.size).fill(1);
    ch.bindProducer(this);
  }
  evalOne(i: number, t: number): number {
    const v = this.next[i]!;
    if (v > this.limit) return NEVER;
    if (t % this.gap !== 0) return t + this.gap - (t % this.gap);
    if (!this.ch.canPush(i, t)) return NEVER; // sleeps while full: the consumer's pop wakes the batch
    this.ch.push(i, v, t);
    this.next[i] = v + 1;
    return t + 1;
  }
}

/** A batch of slow accumulators: each takes one entry every `every` cycles and sleeps in between when idle. */
class Sinks extends Batch {
  readonly sum: Float64Array;
  readonly last: Float64Array;
  constructor(parent: Scope, name: string, readonly ch: ChannelArray, readonly every: number) {
    super(parent, name, ch.size);
    this.sum = new Float64Array(ch.size);
    this.last = new Float64Array(ch.size).fill(-1e9);
    ch.bindConsumer(this);
  }
  evalOne(i: number, t: number): number {
    if (t - this.last[i]! < this.every) return this.last[i]! + this.every;
    if (!this.ch.canPop(i, t)) return NEVER; // waits for input: the producer's push wakes the batch
    this.sum[i] = this.sum[i]! * 3 + this.ch.pop(i, t) + t;
    this.last[i] = t;
    return t + this.every;
  }
}

describe('two batches on one channel array', () => {
  it('wake each other across sleeps (a push wakes the consumer batch, a pop the producer batch), skipping on and off alike', () => {
    const run = (skipping: boolean, shuffleSeed?: number): number[] => {
      const sim = new Simulator({ skipping, shuffleSeed });
      const ch = new ChannelArray(sim, 3, (k) => `ch${k}`, { capacity: 1 });
      new Emitters(sim, 'emit', ch, 20, 5);
      const sinks = new Sinks(sim, 'sink', ch, 7);
      sim.step(400);
      return [...sinks.sum, sim.cycle];
    };
    const want = run(false);
    expect(want[0]).toBeGreaterThan(0);
    expect(run(true)).toEqual(want);
    expect(run(true, 7)).toEqual(want);
  });

  it('refuse a second push or pop in a cycle, and a push while full', () => {
    const sim = new Simulator();
    const ch = new ChannelArray(sim, 2, (k) => `c${k}`, { capacity: 2 });
    ch.push(0, 1, 0);
    expect(() => ch.push(0, 2, 0)).toThrow('c0: second push in cycle 0');
    ch.push(0, 2, 1);
    expect(() => ch.push(0, 3, 2)).toThrow('c0: push while full');
    expect(() => ch.pop(1, 2)).toThrow('c1: pop while empty');
    expect(ch.pop(0, 2)).toBe(1);
    expect(() => ch.pop(0, 2)).toThrow('c0: second pop in cycle 2');
    expect(() => new ChannelArray(sim, 0, String)).toThrow(/size must be an integer >= 1/);
  });
});

interface PusherIO {
  out: OutPort;
  inp: InPort;
  fifo: FifoPort;
}
const outside = (v: number): number => v + 1;

/** A generated batch of instances that push every cycle whether or not there is room (a design error), or that call a module function. */
class Pushers extends GeneratedBatch {
  constructor(parent: Scope, name: string, ch: ChannelArray, careless: boolean) {
    super(parent, name, ch.size);
    const back = new ChannelArray(parent, ch.size, (k) => `${name}.back${k}`);
    const fifo = new FifoArray(this, 2, (i) => `${name}.f${i}`);
    const design = { outputs: { out: { array: ch, channel: 0 } }, inputs: { inp: { array: back, channel: 0 } }, fifos: { fifo } };
    if (careless)
      this.define(design, (io: PusherIO, _i: number, t: number) => {
        io.out.push(t);
        return t + 1;
      });
    else
      this.define(design, (io: PusherIO, _i: number, t: number) => {
        if (io.out.canPush()) io.out.push(outside(t));
        return t + 1;
      });
  }
}

describe('generated batches (rtl/kernel/batchgen.ts)', () => {
  it('a push to a full channel throws the simple path\'s error in the generated loop, naming the channel', () => {
    const sim = new Simulator();
    const ch = new ChannelArray(sim, 2, (k) => `c${k}`, { capacity: 2 });
    const p = new Pushers(sim, 'p', ch, true);
    expect(p.generated).toBeNull();
    sim.step(2);
    expect(() => sim.step(1)).toThrow('c1: push while full (check canPush first)');
  });

  it('a step function naming a module function is not generated (it says why) and runs evalOne, with the same results', () => {
    const sim = new Simulator();
    const ch = new ChannelArray(sim, 3, (k) => `c${k}`, { capacity: 2 });
    const p = new Pushers(sim, 'p', ch, false);
    expect(p.generated).toMatch(/names outside/);
    expect(p.generatedText).toBe('');
    sim.step(5);
    expect([ch.held(0), ch.peek(0)]).toEqual([2, 1]);
  });
});
