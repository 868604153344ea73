import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRing, type Ring, type RingOptions } from '../../rtl/examples/ring.ts';
import { Batch, ChannelArray, LineTracer, MemorySink, NEVER, type Scope, Simulator, VcdTracer, WaveDromTracer } from '../../rtl/kernel/index.ts';
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
  it('all nodes batched, or a random half components through ports, equal all components after every cycle', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 1000 }), (seed, shuffle) => {
        const want = runBatchGraph(seed, 250, 'components', { skipping: false });
        for (const build of ['batch', 'mixed'] as const) {
          for (const opts of [{ skipping: true }, { skipping: false }, { skipping: true, shuffleSeed: shuffle }]) {
            const got = runBatchGraph(seed, 250, build, opts);
            expect(got.states, `${build} ${JSON.stringify(opts)}`).toEqual(want.states);
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
