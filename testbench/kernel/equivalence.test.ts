import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runGraph } from './graph.ts';

describe('kernel determinism on random component graphs', () => {
  it('evaluation order does not change results, statistics or traces (shuffled every cycle)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 1000 }), (seed, shuffle) => {
        const base = runGraph(seed, 300, { skipping: false });
        const shuffledOff = runGraph(seed, 300, { skipping: false, shuffleSeed: shuffle });
        const shuffledOn = runGraph(seed, 300, { skipping: true, shuffleSeed: shuffle + 1 });
        for (const r of [shuffledOff, shuffledOn]) {
          expect(r.digests).toEqual(base.digests);
          expect(r.stats).toBe(base.stats);
          expect(r.vcd).toBe(base.vcd);
          expect(r.lines).toBe(base.lines);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('activity skipping on and off give identical results, statistics, VCD and line traces', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 50, max: 600 }), (seed, cycles) => {
        const off = runGraph(seed, cycles, { skipping: false });
        const on = runGraph(seed, cycles, { skipping: true });
        expect(on.digests).toEqual(off.digests);
        expect(on.stats).toBe(off.stats);
        expect(on.vcd).toBe(off.vcd);
        expect(on.lines).toBe(off.lines);
        expect(on.cycle).toBe(off.cycle);
        expect(on.evaluations).toBeLessThanOrEqual(off.evaluations);
      }),
      { numRuns: 80 },
    );
  });

  it('skipping without tracing matches too, and actually skips', () => {
    let skippedSomething = false;
    for (let seed = 1; seed <= 30; seed++) {
      const off = runGraph(seed, 2000, { skipping: false }, false);
      const on = runGraph(seed, 2000, { skipping: true }, false);
      expect(on.digests).toEqual(off.digests);
      expect(on.stats).toBe(off.stats);
      if (on.evaluations < off.evaluations / 2) skippedSomething = true;
    }
    expect(skippedSomething).toBe(true);
  });

  it('two runs with one seed give byte-identical VCD', () => {
    const a = runGraph(1234, 500, {});
    const b = runGraph(1234, 500, {});
    expect(a.vcd.length).toBeGreaterThan(1000);
    expect(a.vcd).toBe(b.vcd);
  });
});
