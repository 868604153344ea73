/**
 * The soak benchmark's interface to a block (`npm run soak`, docs/long-runs.md). One file per block
 * (or family of blocks) in bench/soak/blocks/, exporting `blocks: SoakBlock[]`; the harness finds
 * the files itself. A block builds its hardware and an endless, seeded stimulus; the harness calls
 * `runTo` in slices, forcing a garbage collection and reading the live heap between slices, and
 * asks `check` whether everything simulated so far was right.
 *
 * Rules for an entry: the stimulus must never run out (it runs 10^8 cycles by default); the driver
 * keeps only what is in flight (operands drawn on demand, results checked against the golden model
 * and dropped as they arrive); `check` is cheap (it is called once per sample) and fails on a wrong
 * result, on a stall (no progress since the previous call) and on anything unbounded it can see.
 */
export interface SoakBlock {
  /** stable name, used on the command line and in out/soak.json, e.g. 'sharp-allreduce-rc' */
  name: string;
  /** one line: what runs */
  what: string;
  /** Build the block and its stimulus (nothing needs to have run yet). Same seed, same run. */
  start(seed: number): SoakRun;
}

export interface SoakRun {
  /** cycles simulated so far */
  readonly cycle: number;
  /** Simulate until `cycle` >= `to` (a block may overshoot by a few cycles). */
  runTo(to: number): void;
  /** Problems found in everything simulated so far (empty: all well). Fails on no progress since the last call. */
  check(): string[];
  /** One line of counts for the table, e.g. '30,517 allreduces, 0 mismatches'. */
  summary(): string;
}

/** A run stepped by one simulator (most blocks): `runTo` steps it; the block supplies its check and summary. */
export function steppedRun(sim: { readonly cycle: number; step(n: number): void }, rest: Pick<SoakRun, 'check' | 'summary'>): SoakRun {
  return {
    get cycle() {
      return sim.cycle;
    },
    runTo(to) {
      sim.step(Math.max(0, to - sim.cycle));
    },
    check: () => rest.check(),
    summary: () => rest.summary(),
  };
}
