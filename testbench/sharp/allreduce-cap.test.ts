import { describe, expect, it } from 'vitest';
import { allreduceDefaultCap, runAllreduce } from '../../experiments/sharp/scenario.ts';

// The default cycle cap guards against a run that stopped making progress; it must never stop a
// long run that is progressing (issue 20: `sharp allreduce --iterations 30000` hit a fixed cap).
describe('sharp allreduce default cycle cap', () => {
  for (const bytes of [8, 2048]) {
    it(`grows with the run: at ${bytes} B it is at least twice the cycles a progressing loop needs, up to 10^6 iterations`, () => {
      const iterations = 6;
      const r = runAllreduce({ hosts: 32, bytes, iterations });
      const perIteration = r.cycles / iterations;
      expect(perIteration).toBeGreaterThan(0);
      for (const n of [1, 10, 30_000, 1_000_000]) expect(allreduceDefaultCap(n, bytes)).toBeGreaterThan(2 * perIteration * (n + 2));
    });
  }
});
