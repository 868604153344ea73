/**
 * Fit of the three latency parameters (GEMINI_FITTED) on the seed's latency rows only: coordinate
 * descent over whole cycles, minimising the sum of squared relative errors, from the defaults,
 * with steps 32, 16, ..., 1. Deterministic. FITTED_PARAMS holds the result of `netoffload gemini
 * fit` (a test checks that the fit reproduces it).
 */
import { GEMINI_DEFAULTS, GEMINI_FITTED, type GeminiParams } from '../../rtl/gemini/params.ts';
import { runCalls } from './calls.ts';
import { SEED_ROWS } from './seedFigures.ts';

export const FITTED_PARAMS: Partial<GeminiParams> = { swCycles: 152, netlinkCycles: 44, routerCycles: 104 };

export function latencyCost(p: Partial<GeminiParams>): number {
  const rows = SEED_ROWS.filter((r) => r.fit);
  const res = runCalls(p, rows.map((r) => r.spec));
  let s = 0;
  rows.forEach((r, i) => {
    const e = (res[i]!.latency_us - r.seed) / r.seed;
    s += e * e;
  });
  return s;
}

/** Step sizes of the coordinate descent: 32, 16, ..., 1. */
export const FIT_STEPS = [32, 16, 8, 4, 2, 1] as const;

/** `onStep(done, total)` (optional) is called as each step size is finished (total = FIT_STEPS.length). */
export function fitLatencies(start: Partial<GeminiParams> = {}, onStep?: (done: number, total: number) => void): { params: Partial<GeminiParams>; rmsErrorPct: number; evaluations: number } {
  const p: Partial<GeminiParams> = {};
  for (const k of GEMINI_FITTED) p[k] = (start[k] ?? GEMINI_DEFAULTS[k]) as number;
  let best = latencyCost(p);
  let evaluations = 1;
  for (const [i, step] of FIT_STEPS.entries()) {
    let improved = true;
    while (improved) {
      improved = false;
      for (const k of GEMINI_FITTED) {
        for (const d of [step, -step]) {
          const v = (p[k] as number) + d;
          if (v < 1) continue;
          const q = { ...p, [k]: v };
          const c = latencyCost(q);
          evaluations++;
          if (c < best - 1e-15) {
            best = c;
            p[k] = v;
            improved = true;
          }
        }
      }
    }
    onStep?.(i + 1, FIT_STEPS.length);
  }
  const n = SEED_ROWS.filter((r) => r.fit).length;
  return { params: p, rmsErrorPct: Math.sqrt(best / n) * 100, evaluations };
}
