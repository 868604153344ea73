import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAULT_SCENARIOS, runFaultScenario } from '../../experiments/sharp/faults.ts';

describe('SHArP fault handling (no timeouts)', () => {
  for (const scenario of FAULT_SCENARIOS) {
    it(`${scenario}: every affected member completes within the bound, nothing leaks, the other job is unaffected`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0xffffffff }), (seed) => {
          const r = runFaultScenario(scenario, seed);
          expect(r.hung).toBe(0);
          expect(r.leaked_contexts).toBe(0);
          expect(r.other_jobs_ok).toBe(true);
          expect(r.affected_results_ok).toBe(true);
          expect(r.completed_error).toBeGreaterThan(0);
          expect(r.detected_cycle).toBeGreaterThanOrEqual(r.fault_cycle);
          expect(r.max_completion_after_detection_cycles).toBeLessThanOrEqual(r.bound_cycles);
        }),
        { numRuns: 4 },
      );
    });
  }
});
