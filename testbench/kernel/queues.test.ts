import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Channel, Component, Fifo, NEVER, NumChannel, NumFifo, Simulator } from '../../rtl/kernel/index.ts';

/**
 * Deep queues against a plain queue model. The kernel's queues start with a few slots and grow up
 * to their capacity as their occupancy requires (rtl/kernel/queues.ts, growRing); growth must be
 * invisible: same canPush/canPop/occupancy as a queue allocated at full capacity, values in order,
 * also across a reset and for several queues growing in the same simulator. The timing rules are
 * those of docs/kernel.md (value pushed in t poppable from t + latency; the producer sees pops one
 * cycle late). Operation mixes are biased towards bursts of pushes so the queues fill up.
 */

interface Model {
  latency: number;
  capacity: number;
  q: { v: number; pushed: number }[];
  popsNow: number;
}

const canPushM = (m: Model): boolean => m.q.length + m.popsNow < m.capacity;
const canPopM = (m: Model, t: number): boolean => m.q.length > 0 && m.q[0]!.pushed + m.latency <= t;

class Holder extends Component {
  tick(): number {
    return NEVER;
  }
}

/** The operations every queue under test offers (numbers are wrapped for the object queues). */
interface Q {
  canPush(): boolean;
  canPop(): boolean;
  push(v: number): void;
  pop(): number;
  peek(): number;
  held(): number;
}

type Make = (sim: Simulator, name: string, capacity: number, latency: number) => Q;

const makers: Record<string, { make: Make; fixedLatency: boolean }> = {
  NumChannel: { make: (sim, name, capacity, latency) => new NumChannel(sim, name, { capacity, latency }), fixedLatency: false },
  'Channel<T>': {
    make: (sim, name, capacity, latency) => {
      const ch = new Channel<{ v: number }>(sim, name, { capacity, latency });
      return { canPush: () => ch.canPush(), canPop: () => ch.canPop(), push: (v) => ch.push({ v }), pop: () => ch.pop().v, peek: () => ch.peek().v, held: () => ch.held() };
    },
    fixedLatency: false,
  },
  NumFifo: { make: (sim, name, capacity) => new NumFifo(new Holder(sim, name), capacity), fixedLatency: true },
  'Fifo<T>': {
    make: (sim, name, capacity) => {
      const f = new Fifo<{ v: number }>(new Holder(sim, name), capacity);
      return { canPush: () => f.canPush(), canPop: () => f.canPop(), push: (v) => f.push({ v }), pop: () => f.pop().v, peek: () => f.peek().v, held: () => f.held() };
    },
    fixedLatency: true,
  },
};

/** op: 0..5 push a burst of (op + 1) values, 6..8 pop a burst of up to 8, 9..11 step one cycle, 12 reset (rare) */
const opArb = fc.oneof({ weight: 60, arbitrary: fc.integer({ min: 0, max: 11 }) }, { weight: 1, arbitrary: fc.constant(12) });

function runOps(kind: string, queues: number, capacity: number, latency: number, ops: number[], skipping: boolean): void {
  const { make } = makers[kind]!;
  const sim = new Simulator({ skipping });
  const real = Array.from({ length: queues }, (_, i) => make(sim, `q${i}`, capacity, latency));
  const models: Model[] = real.map(() => ({ latency, capacity, q: [], popsNow: 0 }));
  let v = 0;
  let which = 0;
  for (const op of ops) {
    const r = real[which]!;
    const m = models[which]!;
    which = (which + 1) % queues;
    if (op <= 5) {
      for (let k = 0; k <= op; k++) {
        expect(r.canPush()).toBe(canPushM(m));
        if (!canPushM(m)) {
          expect(() => r.push(0)).toThrow(/full/);
          break;
        }
        r.push(++v);
        m.q.push({ v, pushed: sim.cycle });
      }
    } else if (op <= 8) {
      for (let k = 0; k < 8; k++) {
        expect(r.canPop()).toBe(canPopM(m, sim.cycle));
        if (!canPopM(m, sim.cycle)) {
          expect(() => r.pop()).toThrow(/empty/);
          break;
        }
        expect(r.peek()).toBe(m.q[0]!.v);
        expect(r.pop()).toBe(m.q.shift()!.v);
        m.popsNow++;
      }
    } else if (op <= 11) {
      sim.step();
      for (const mm of models) mm.popsNow = 0;
    } else {
      sim.reset();
      for (const mm of models) {
        mm.q = [];
        mm.popsNow = 0;
      }
    }
    expect(r.held()).toBe(m.q.length);
  }
  // drain everything in order
  for (let c = 0; c < latency + 1; c++) sim.step();
  for (let i = 0; i < queues; i++) {
    const r = real[i]!;
    const got: number[] = [];
    for (let c = 0; c <= capacity && r.held() > 0; c++) {
      while (r.canPop()) got.push(r.pop());
      sim.step();
    }
    expect(got).toEqual(models[i]!.q.map((e) => e.v));
  }
}

describe('deep queues grow invisibly', () => {
  for (const kind of Object.keys(makers)) {
    it(`${kind} matches the queue model at capacities up to 70`, () => {
      fc.assert(
        fc.property(
          fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 17, max: 70 }), fc.integer({ min: 17, max: 70 })),
          fc.integer({ min: 1, max: 4 }),
          fc.integer({ min: 1, max: 3 }),
          fc.boolean(),
          fc.array(opArb, { minLength: 50, maxLength: 400 }),
          (capacity, latency, queues, skipping, ops) => runOps(kind, queues, capacity, makers[kind]!.fixedLatency ? 1 : latency, ops, skipping),
        ),
        { numRuns: 200 },
      );
    });
  }

  it('fills a 4096-entry channel in one cycle and hands the entries over in order', () => {
    const sim = new Simulator();
    const ch = new NumChannel(sim, 'deep', { capacity: 4096, latency: 2 });
    for (let i = 0; i < 4096; i++) ch.push(i * 3);
    expect([ch.canPush(), ch.held(), ch.occupancy()]).toEqual([false, 4096, 4096]);
    sim.step(2);
    expect(ch.visible()).toBe(4096);
    for (let i = 0; i < 4096; i++) expect(ch.pop()).toBe(i * 3);
    expect(ch.canPush()).toBe(false); // the credits come back next cycle
    sim.step();
    expect(ch.canPush()).toBe(true);
  });
});
