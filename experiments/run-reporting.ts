/**
 * `sim.runUntil` for long runs that report progress: the same cap and the same error
 * (SimulationLimitError naming the cap), but run in chunks of simulated cycles so that a caller's
 * report() is called between chunks (a CLI shows a progress bar from it). Without report() it is
 * exactly sim.runUntil. Deterministic: the chunking never changes what is simulated.
 */
import { type Simulator, SimulationLimitError } from '../rtl/kernel/index.ts';

/** Simulated cycles between two progress reports. */
export const REPORT_CHUNK_CYCLES = 1 << 18;

export function runUntilReporting(sim: Simulator, done: () => boolean, maxCycles: number, report?: () => void): number {
  if (!report) return sim.runUntil(done, maxCycles);
  const start = sim.cycle;
  const end = start + maxCycles;
  for (;;) {
    const left = end - sim.cycle;
    try {
      return sim.runUntil(done, Math.min(left, REPORT_CHUNK_CYCLES));
    } catch (e) {
      if (!(e instanceof SimulationLimitError)) throw e;
      const idle = /idle/.test(e.message);
      if (idle || left <= REPORT_CHUNK_CYCLES) {
        throw new SimulationLimitError(
          `runUntil: condition not met within ${maxCycles} cycles (cycles ${start} to ${end})` +
            (idle ? `; at cycle ${sim.cycle} every component is idle with no wake-up pending (deadlock or missing stimulus)` : ''),
        );
      }
      report();
    }
  }
}
