import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FAULT_SCENARIOS, faultReportProblems, OTHER_JOB_PLACEMENTS, runFaultScenario } from '../../experiments/sharp/faults.ts';

describe('SHArP fault handling (no timeouts)', () => {
  for (const placement of OTHER_JOB_PLACEMENTS) {
    for (const scenario of FAULT_SCENARIOS) {
      it(`${scenario}, other job on ${placement}: affected members complete within the bound, nothing leaks, the other job behaves as it must, a new job completes or is refused`, () => {
        fc.assert(
          fc.property(fc.integer({ min: 0, max: 0xffffffff }), (seed) => {
            const r = runFaultScenario(scenario, seed, placement);
            expect(r.hung).toBe(0);
            expect(r.leaked_contexts).toBe(0);
            expect(r.leaked_grants).toBe(0);
            expect(r.other_jobs_ok).toBe(true);
            expect(r.affected_results_ok).toBe(true);
            expect(r.completed_error).toBeGreaterThan(0);
            expect(r.detected_cycle).toBeGreaterThanOrEqual(r.fault_cycle);
            expect(r.max_completion_after_detection_cycles).toBeLessThanOrEqual(r.bound_cycles);
            // the new job uses job 1's hosts: refused only when one of them died, with the reason
            if (scenario === 'host-failure') {
              expect(r.new_job).toBe('refused');
              expect(r.new_job_detail).toMatch(/process on host\d+ died/);
            } else expect(r.new_job).toBe('completed');
            // a spine AN failure on the same spine takes the other job down too
            if (scenario === 'an-failure') expect(r.other_job_shares_fault).toBe(placement === 'same-spine');
            if (scenario === 'host-failure' || scenario === 'corrupt-packet') expect(r.other_job_shares_fault).toBe(false);
            expect(faultReportProblems(r)).toEqual([]);
          }),
          { numRuns: 3 },
        );
      });
    }
  }
});
