import { describe, expect, it } from 'vitest';
import { buildRing } from '../../rtl/examples/ring.ts';
import { type BareRing, buildClassRing, buildFlatRing } from '../../bench/ring-bare.ts';

/** tokens back at stage 0 after every cycle, and the errors at the end */
function bareTrace(ring: BareRing, cycles: number): { received: number[]; errors: number } {
  const received: number[] = [];
  for (let c = 0; c < cycles; c++) {
    ring.step(1);
    received.push(ring.counts().received);
  }
  return { received, errors: ring.counts().errors };
}

function kernelTrace(stages: number, cycles: number): { received: number[]; errors: number } {
  const ring = buildRing(stages);
  const received: number[] = [];
  for (let c = 0; c < cycles; c++) {
    ring.sim.step(1);
    received.push(ring.source.received);
  }
  return { received, errors: ring.source.errors };
}

describe('bare JavaScript rings (goal 1 baselines)', () => {
  it('return the same tokens in the same cycles as the kernel ring, all correct', () => {
    for (const n of [1, 2, 3, 17, 100]) {
      const cycles = 2 * n + 60;
      const want = kernelTrace(n, cycles);
      expect(want.errors).toBe(0);
      expect(bareTrace(buildClassRing(n), cycles)).toEqual(want);
      expect(bareTrace(buildFlatRing(n), cycles)).toEqual(want);
    }
  });

  it('stay correct over long runs stepped in chunks', () => {
    for (const build of [buildClassRing, buildFlatRing]) {
      const r = build(50);
      r.step(1000);
      r.step(2345);
      expect(r.counts()).toEqual({ cycle: 3345, errors: 0, received: 3345 - 1 - 2 * 50 });
    }
  });

  it('refuse a ring without stages', () => {
    expect(() => buildFlatRing(0)).toThrow(/at least one stage/);
    expect(() => buildClassRing(1.5)).toThrow(/at least one stage/);
  });
});
