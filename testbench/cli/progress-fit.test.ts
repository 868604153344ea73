/**
 * Progress of `coredirect fit` (issue 10 item 13). The real fit runs 28 cluster simulations (about
 * 20 s), too long for a test; here barrierLatency is replaced by a fast monotonic stand-in (the fit
 * itself is checked against the defaults in testbench/coredirect/), so the test covers the wiring:
 * one count per simulation, up to FIT_RUNS, on stderr, stdout unchanged.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ClusterConfig } from '../../rtl/coredirect/cluster.ts';
import { bisectRuns, FIT_RUNS } from '../../experiments/coredirect/calibrate.ts';
import { expectProgressLines, progressOf } from '../lib/progressLines.ts';

vi.mock('../../experiments/coredirect/run.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../experiments/coredirect/run.ts')>()),
  // microseconds, increasing in both fitted parameters
  barrierLatency: (c: Partial<ClusterConfig>) => (c.hca?.taskNs ?? 0) * 0.2 + (c.hca?.ctxMissNs ?? 0) * 0.15 + 4,
}));

describe('coredirect fit: progress per simulation', () => {
  it('counts simulations up to the bound FIT_RUNS, stdout unchanged', async () => {
    expect(FIT_RUNS).toBe(bisectRuns(1, 1000) + bisectRuns(0, 5000) + 2);
    const { out, err } = await progressOf(['coredirect', 'fit', '--json']);
    const r = JSON.parse(out) as { taskNs: number; ctxMissNs: number; runs: number };
    expect(r.taskNs).toBe(140); // 140 x 0.2 + 4 = 32 us
    expect(r.runs).toBeLessThanOrEqual(FIT_RUNS);
    const counts = expectProgressLines(err, 'coredirect fit', 'simulations (at most)', FIT_RUNS);
    expect(counts.length).toBe(r.runs);
  });

  it('bisectRuns is the most simulations a bisection can take', () => {
    expect(bisectRuns(0, 1)).toBe(2);
    expect(bisectRuns(0, 2)).toBe(3);
    expect(bisectRuns(1, 1000)).toBe(12); // 999 -> 500 -> 250 -> 125 -> 63 -> 32 -> 16 -> 8 -> 4 -> 2 -> 1
    expect(bisectRuns(0, 5000)).toBe(15);
  });
});
