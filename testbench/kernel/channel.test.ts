import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Arrivals, Channel, Component, NEVER, NumChannel, NumFifo, Simulator } from '../../rtl/kernel/index.ts';

/**
 * Model-based tests of the registered channel and the component-internal FIFO against a plain
 * queue model that spells out the timing rules of docs/kernel.md:
 * - a value pushed in cycle t is poppable from t + latency;
 * - the producer sees its own pushes at once and the consumer's pops one cycle late.
 */

interface Model {
  t: number;
  latency: number;
  capacity: number;
  q: { v: number; pushed: number }[];
  popsNow: number; // pops in cycle t
}

const canPushM = (m: Model): boolean => m.q.length + m.popsNow < m.capacity;
const canPopM = (m: Model): boolean => m.q.length > 0 && m.q[0]!.pushed + m.latency <= m.t;

class Holder extends Component {
  tick(): number {
    return NEVER;
  }
}

type Real = { sim: Simulator; ch: NumChannel };

class PushCmd implements fc.Command<Model, Real> {
  constructor(readonly v: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    expect(r.ch.canPush()).toBe(canPushM(m));
    expect(r.ch.occupancy()).toBe(m.q.length + m.popsNow);
    if (canPushM(m)) {
      r.ch.push(this.v);
      m.q.push({ v: this.v, pushed: m.t });
    } else {
      expect(() => r.ch.push(this.v)).toThrow(/push while full/);
    }
  }
  toString(): string {
    return `push(${this.v})`;
  }
}

class PopCmd implements fc.Command<Model, Real> {
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    expect(r.ch.canPop()).toBe(canPopM(m));
    if (canPopM(m)) {
      expect(r.ch.peek()).toBe(m.q[0]!.v);
      expect(r.ch.pop()).toBe(m.q.shift()!.v);
      m.popsNow++;
    } else {
      expect(() => r.ch.pop()).toThrow(/pop while empty/);
    }
  }
  toString(): string {
    return 'pop';
  }
}

class StepCmd implements fc.Command<Model, Real> {
  constructor(readonly n: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.sim.step(this.n);
    m.t += this.n;
    m.popsNow = 0;
    expect(r.sim.cycle).toBe(m.t);
    // the consumer's view: visible entries are those pushed at least `latency` cycles ago
    expect(r.ch.visible()).toBe(m.q.filter((e) => e.pushed + m.latency <= m.t).length);
    expect(r.ch.held()).toBe(m.q.length);
  }
  toString(): string {
    return `step(${this.n})`;
  }
}

describe('NumChannel against a queue model', () => {
  it('matches push/pop/backpressure timing for random latency, capacity and command sequences', () => {
    const cmds = [
      fc.integer({ min: -1e6, max: 1e6 }).map((v) => new PushCmd(v)),
      fc.constant(new PopCmd()),
      fc.integer({ min: 1, max: 3 }).map((n) => new StepCmd(n)),
    ];
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 5 }), fc.boolean(), fc.commands(cmds, { size: '+1' }), (latency, capacity, skipping, commands) => {
        const sim = new Simulator({ skipping });
        const ch = new NumChannel(sim, 'ch', { capacity, latency });
        fc.modelRun(() => ({ model: { t: 0, latency, capacity, q: [], popsNow: 0 }, real: { sim, ch } }), commands);
      }),
      { numRuns: 300 },
    );
  });

  it('counts pushes and pops and resets', () => {
    const sim = new Simulator();
    const ch = new NumChannel(sim, 'c', { capacity: 3 });
    ch.push(1);
    ch.push(2);
    sim.step();
    ch.pop();
    expect([ch.pushes, ch.pops]).toEqual([2, 1]);
    sim.reset();
    expect([ch.pushes, ch.pops, ch.held(), sim.cycle]).toEqual([0, 0, 0, 0]);
  });

  it('rejects bad options and second producers/consumers', () => {
    const sim = new Simulator();
    expect(() => new NumChannel(sim, 'a', { capacity: 0 })).toThrow(/capacity/);
    expect(() => new NumChannel(sim, 'b', { latency: 0 })).toThrow(/latency/);
    const ch = new NumChannel(sim, 'c');
    const a = new Holder(sim, 'ha');
    const b = new Holder(sim, 'hb');
    ch.bindProducer(a);
    expect(() => ch.bindProducer(b)).toThrow(/already has producer/);
    ch.bindConsumer(b);
    expect(() => ch.bindConsumer(a)).toThrow(/already has consumer/);
  });

  it('wakes a sleeping consumer when data becomes visible and a blocked producer when space frees', () => {
    const sim = new Simulator();
    const seen: number[] = [];
    class Sink extends Component {
      constructor(readonly inp: NumChannel) {
        super(sim, 'sink');
        inp.bindConsumer(this);
      }
      tick(t: number): number {
        if (this.inp.canPop()) seen.push(t, this.inp.pop());
        return NEVER;
      }
    }
    const ch = new NumChannel(sim, 'link', { capacity: 1, latency: 5 });
    const sink = new Sink(ch);
    sim.step(2); // cycles 0, 1
    ch.push(42); // pushed "in cycle 2"
    sim.step(10);
    expect(seen).toEqual([7, 42]);
    expect(sim.evaluations).toBe(2); // once at cycle 0 (start) and once at the wake-up
    void sink;
  });
});

describe('Channel<T> carries objects with the same timing', () => {
  it('delivers payload objects in order', () => {
    const sim = new Simulator();
    const ch = new Channel<{ id: number }>(sim, 'p', { capacity: 4, latency: 2 });
    ch.push({ id: 1 });
    ch.push({ id: 2 });
    sim.step();
    expect(ch.canPop()).toBe(false);
    sim.step();
    expect(ch.pop().id).toBe(1);
    expect(ch.peek().id).toBe(2);
    expect(ch.pop().id).toBe(2);
    expect(() => ch.peek()).toThrow(/empty/);
  });
});

describe('NumFifo (component-internal, two-phase)', () => {
  it('matches a latency-1 queue model', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.oneof(fc.constant('push'), fc.constant('pop'), fc.constant('step')), { maxLength: 80 }), (cap, ops) => {
        const sim = new Simulator();
        const owner = new Holder(sim, 'o');
        const f = new NumFifo(owner, cap);
        const m: Model = { t: 0, latency: 1, capacity: cap, q: [], popsNow: 0 };
        let v = 0;
        for (const op of ops) {
          if (op === 'push') {
            expect(f.canPush()).toBe(canPushM(m));
            if (canPushM(m)) {
              f.push(++v);
              m.q.push({ v, pushed: m.t });
            } else expect(() => f.push(0)).toThrow(/full/);
          } else if (op === 'pop') {
            expect(f.canPop()).toBe(canPopM(m));
            if (canPopM(m)) {
              expect(f.pop()).toBe(m.q.shift()!.v);
              m.popsNow++;
            } else expect(() => f.pop()).toThrow(/empty/);
          } else {
            sim.step();
            m.t++;
            m.popsNow = 0;
          }
          expect(f.held()).toBe(m.q.length);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('everyPush consumers and polling producers (bindConsumer / bindProducer options)', () => {
  interface Plan {
    /** per channel: latency, capacity, everyPush, polls, and the cycles its producer wants to push at */
    chans: { latency: number; capacity: number; everyPush: boolean; polls: boolean; at: number[] }[];
    /** cycles the consumer stays busy after each pop (a rate limit that backs the channels up) */
    gap: number;
  }

  /**
   * Runs the plan; returns every pop as [cycle, channel, value], then the same again after a reset.
   * The consumer pops at most one entry per cycle (busy `gap` cycles after it), or with `drain`
   * every poppable entry of every channel each cycle, in channel order: with `useArrivals` only of
   * the channels its Arrivals name.
   */
  function run(plan: Plan, skipping: boolean, useOptions: boolean, drain = false, useArrivals = false): number[][] {
    const sim = new Simulator({ skipping });
    const log: number[][] = [];
    const chans = plan.chans.map((c, i) => new NumChannel(sim, `c${i}`, { capacity: c.capacity, latency: c.latency }));
    class Producer extends Component {
      next = 0;
      constructor(
        readonly k: number,
        readonly polls: boolean,
      ) {
        super(sim, `p${k}`);
        chans[k]!.bindProducer(this, { polls: useOptions && polls });
      }
      override reset(): void {
        this.next = 0;
      }
      tick(t: number): number {
        const at = plan.chans[this.k]!.at;
        const ch = chans[this.k]!;
        while (this.next < at.length && at[this.next]! <= t && ch.canPush()) ch.push(1000 * this.k + this.next++);
        if (this.next === at.length) return NEVER;
        if (at[this.next]! > t) return at[this.next]!;
        return this.polls && useOptions ? t + 1 : NEVER; // blocked: poll, or sleep until a pop frees a slot
      }
    }
    class Consumer extends Component {
      busyUntil = 0;
      readonly arrivals = new Arrivals(sim);
      constructor() {
        super(sim, 'consumer');
        chans.forEach((ch, k) => ch.bindConsumer(this, { everyPush: useOptions && plan.chans[k]!.everyPush, ...(useArrivals ? { arrivals: this.arrivals, key: k } : {}) }));
      }
      override reset(): void {
        this.busyUntil = 0;
      }
      tick(t: number): number {
        if (drain) {
          const ks = useArrivals ? this.arrivals.take(t) : chans.map((_, k) => k);
          for (const k of ks) while (chans[k]!.canPop()) log.push([t, k, chans[k]!.pop()]);
          expect(chans.some((ch) => ch.canPop())).toBe(false); // arrivals named every channel with an entry due
          return NEVER;
        }
        if (t >= this.busyUntil) {
          for (let k = 0; k < chans.length; k++) {
            if (!chans[k]!.canPop()) continue;
            log.push([t, k, chans[k]!.pop()]);
            this.busyUntil = t + plan.gap;
            break;
          }
        }
        // entries already visible need a timed wake-up; entries in flight must wake it by themselves
        return chans.some((ch) => ch.canPop()) ? Math.max(t + 1, this.busyUntil) : NEVER;
      }
    }
    plan.chans.forEach((c, k) => new Producer(k, c.polls));
    new Consumer();
    const total = plan.chans.reduce((s, c) => s + c.at.length, 0);
    const horizon = 200 + total * (plan.gap + 1);
    sim.step(horizon);
    log.push([-1]);
    sim.reset();
    sim.step(horizon);
    return log;
  }

  const planArb: fc.Arbitrary<Plan> = fc.record({
    chans: fc.array(
      fc.record({
        latency: fc.integer({ min: 1, max: 6 }),
        capacity: fc.integer({ min: 1, max: 4 }),
        everyPush: fc.boolean(),
        polls: fc.boolean(),
        at: fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 8 }).map((a) => a.sort((x, y) => x - y)),
      }),
      { minLength: 1, maxLength: 6 },
    ),
    gap: fc.integer({ min: 1, max: 4 }),
  });

  it('every entry is popped in the same cycle as with the default binding and without activity skipping', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const reference = run(plan, false, false);
        expect(reference.length).toBe(2 * plan.chans.reduce((s, c) => s + c.at.length, 0) + 1);
        expect(run(plan, true, false)).toEqual(reference);
        expect(run(plan, true, true)).toEqual(reference);
      }),
      { numRuns: 300 },
    );
  });

  it('a consumer that drains only the channels its Arrivals name pops every entry in the same cycle as one that tests every channel', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const reference = run(plan, false, false, true, false);
        expect(reference.length).toBe(2 * plan.chans.reduce((s, c) => s + c.at.length, 0) + 1);
        expect(run(plan, false, false, true, true)).toEqual(reference);
        expect(run(plan, true, false, true, true)).toEqual(reference);
        expect(run(plan, true, true, true, true)).toEqual(reference);
      }),
      { numRuns: 100 },
    );
  });

  it('an everyPush consumer asleep with nothing in flight is woken by a push; going to sleep does not subscribe it', () => {
    const sim = new Simulator();
    const seen: number[] = [];
    const ch = new NumChannel(sim, 'link', { capacity: 2, latency: 3 });
    class Sink extends Component {
      tick(t: number): number {
        while (ch.canPop()) seen.push(t, ch.pop());
        return NEVER;
      }
    }
    const sink = new Sink(sim, 'sink');
    ch.bindConsumer(sink, { everyPush: true });
    sim.step(2);
    ch.push(7); // in cycle 2: poppable from 5
    sim.step(10);
    ch.push(8); // in cycle 12: poppable from 15
    sim.step(10);
    expect(seen).toEqual([5, 7, 15, 8]);
    expect(sim.evaluations).toBe(3); // cycle 0 (start) and the two arrivals
  });
});
