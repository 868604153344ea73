import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildRing, RingSource, RingStage } from '../../rtl/examples/ring.ts';
import { type NumChannel, Simulator } from '../../rtl/kernel/index.ts';

/**
 * The benchmark ring (rtl/examples/ring.ts), observed between cycles. Expected behaviour, derived
 * from the ring's description: stage 0 emits one token per cycle (its value is the cycle number);
 * a token spends one cycle in each channel and one in each FIFO (a register stage), so the token
 * emitted in cycle 0 is pushed back to stage 0 by the last of N stages in cycle 2N and popped there
 * in cycle 2N + 1; from then on one token returns per cycle. Stage 0 checks every returning token
 * against emitted value + N, in emission order (the values are distinct, so order is checked too).
 */
function trace(stages: number, cycles: number, skipping: boolean, preload = false): { received: number[]; emitted: number[]; errors: number; firstError: string } {
  const ring = buildRing(stages, { skipping, preload });
  const received: number[] = [];
  const emitted: number[] = [];
  for (let c = 0; c < cycles; c++) {
    ring.sim.step(1);
    received.push(ring.source.received);
    emitted.push(ring.source.emitted);
  }
  return { received, emitted, errors: ring.source.errors, firstError: ring.source.firstError };
}

describe('benchmark ring', () => {
  it('returns every token as emitted + N, in order, one per cycle from cycle 2N + 1 on', () => {
    for (const n of [1, 2, 7, 50]) {
      const cycles = 2 * n + 100;
      const r = trace(n, cycles, true);
      expect(r.errors, r.firstError).toBe(0);
      for (let c = 0; c < cycles; c++) {
        // after cycle c: c + 1 tokens emitted, and those popped back in cycles 2N + 1 .. c
        expect(r.emitted[c]).toBe(c + 1);
        expect(r.received[c]).toBe(Math.max(0, c - 2 * n));
      }
    }
  });

  it('behaves identically with activity skipping on and off', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 200 }), (n, cycles) => {
        const on = trace(n, cycles, true);
        const off = trace(n, cycles, false);
        expect(on).toEqual(off);
        expect(on.errors).toBe(0);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps one token per cycle with deeper channels and after a reset', () => {
    const ring = buildRing(10, { channelCapacity: 5 });
    ring.sim.step(500);
    expect([ring.source.errors, ring.source.emitted, ring.source.received]).toEqual([0, 500, 500 - 21]);
    ring.sim.reset();
    ring.sim.step(30);
    expect([ring.source.errors, ring.source.emitted, ring.source.received]).toEqual([0, 30, 30 - 21]);
  });

  it('reports a wrong token', () => {
    // stage 0 believes the ring has 3 stages but it has 4: every token comes back one too high
    const sim = new Simulator();
    const src = new RingSource(sim, 'src', 3, 2);
    let prev = src.out as NumChannel;
    for (let i = 0; i < 4; i++) prev = new RingStage(sim, `stage${i + 1}`, prev, 2).out;
    src.in = prev.bindConsumer(src);
    sim.step(50);
    expect(src.received).toBe(50 - 1 - 2 * 4); // the first token is back in cycle 2N + 1
    expect(src.errors).toBe(src.received);
    expect(src.firstError).toBe('cycle 9: token 0 came back as 4, expected 3');
  });

  it('preloaded: starts in the steady state, one correct token back per cycle from cycle 1, skipping on or off, again after a reset', () => {
    for (const n of [1, 2, 7, 50]) {
      const cycles = 3 * n + 20;
      const r = trace(n, cycles, true, true);
      expect(r.errors, r.firstError).toBe(0);
      // after cycle c: c tokens back (cycles 1 .. c), c + 1 emitted
      for (let c = 0; c < cycles; c++) expect([r.emitted[c], r.received[c]]).toEqual([c + 1, c]);
      expect(trace(n, cycles, false, true)).toEqual(r);
    }
    const ring = buildRing(20, { preload: true });
    ring.sim.step(100);
    ring.sim.reset();
    ring.sim.step(60);
    expect([ring.source.errors, ring.source.emitted, ring.source.received]).toEqual([0, 60, 59]);
  });

  it('preloaded: each stage holds the steady state of a filled ring (one token in its FIFO, one in its channel, 2N in flight)', () => {
    const n = 30;
    const full = buildRing(n);
    full.sim.step(5 * n);
    const pre = buildRing(n, { preload: true });
    pre.sim.step(5 * n);
    const held = (r: typeof full): number[][] => Array.from({ length: n }, (_, i) => [r.channelHeld(i + 1), r.fifoHeld(i + 1)]);
    expect(held(pre)).toEqual(held(full));
    expect(held(pre).every(([c, f]) => c === 1 && f === 1)).toBe(true);
    expect(pre.source.emitted - pre.source.received + 2 * n).toBe(full.source.emitted - full.source.received);
  });
});

