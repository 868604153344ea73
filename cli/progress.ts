/**
 * Progress of long runs, on stderr (stdout stays the result, --json included): a bar from the
 * cli-progress library when stderr is a terminal, otherwise a line every few seconds; both with
 * the elapsed time and an estimate of the time left (from the rate so far). Nothing is printed for
 * a run that ends within the first interval, so short commands stay silent.
 *
 * Commands call `startProgress(io, {...})` once and `update(done)` as work completes (cheap: the
 * wall clock is read at most every 64 updates plus once per update call from a simulation chunk).
 * Wall-clock time is used here, in the CLI, never inside models or RTL.
 */
import { SingleBar } from 'cli-progress';
import { CheckFailed, type CommandIO } from './args.ts';
import { SimulationLimitError } from '../rtl/kernel/simulator.ts';

export interface ProgressOptions {
  /** what is running, e.g. "sharp allreduce" */
  label: string;
  /** units of work in the whole run */
  total: number;
  /** name of a unit, e.g. "calls", "cycles" */
  unit: string;
}

export interface Progress {
  /** `done` units of `total` are finished (monotonic) */
  update(done: number): void;
  /** the run ended (bar removed; no further lines) */
  stop(): void;
}

/** Default seconds between progress lines when stderr is not a terminal. */
export const PROGRESS_LINE_INTERVAL_MS = 5000;

/** "1h02m", "3m05s", "12s" */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export function startProgress(io: CommandIO, o: ProgressOptions): Progress {
  const t0 = performance.now();
  const interval = io.progressIntervalMs ?? PROGRESS_LINE_INTERVAL_MS;
  const total = Math.max(1, o.total);
  const tty = io.errTTY;
  let bar: SingleBar | null = null;
  let last = 0;
  let stopped = false;
  const estimate = (done: number, elapsed: number): string => (done > 0 ? `about ${formatDuration((elapsed * Math.max(0, total - done)) / done)} left` : 'no estimate yet');
  return {
    update(done: number): void {
      if (stopped) return;
      const now = performance.now();
      const elapsed = now - t0;
      if (elapsed < interval && done < total) return;
      if (done >= total && !bar && last === 0) return; // finished before the first report was due
      if (tty) {
        if (!bar) {
          bar = new SingleBar({ stream: tty, format: `${o.label} [{bar}] {percentage}% | {value}/{total} ${o.unit} | {duration_formatted} elapsed, ETA {eta_formatted}`, hideCursor: true, clearOnComplete: true, etaBuffer: 50 });
          bar.start(total, 0);
        }
        bar.update(Math.min(done, total));
        return;
      }
      if (now - last < interval && done < total) return;
      last = now;
      const pct = ((100 * Math.min(done, total)) / total).toFixed(1);
      io.err(`${o.label}: ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${o.unit} (${pct}%), ${formatDuration(elapsed)} elapsed, ${estimate(done, elapsed)}\n`);
    },
    stop(): void {
      if (stopped) return;
      stopped = true;
      if (bar) (bar as SingleBar).stop();
    },
  };
}

export interface RunOptions extends ProgressOptions {
  /** the flag that sets the run's simulated-cycle cap, and its value (for the message when it is hit) */
  capFlag?: string;
  cap?: number;
}

/**
 * Runs `run` with progress on stderr (`update(done, total?)` as work completes) and turns a hit
 * cycle cap (SimulationLimitError) into a failed check (exit 1) that names the limit and how to
 * raise it. The one call a command makes around its long computation.
 */
export function withProgress<T>(io: CommandIO, o: RunOptions, run: (update: (done: number, total?: number) => void) => T): T {
  let total = o.total;
  let p = startProgress(io, o);
  const update = (done: number, t?: number): void => {
    if (t !== undefined && t !== total) {
      total = t;
      p.stop();
      p = startProgress(io, { ...o, total });
    }
    p.update(done);
  };
  try {
    return run(update);
  } catch (e) {
    if (e instanceof SimulationLimitError) {
      const deadlock = /idle/.test(e.message);
      if (o.capFlag) {
        throw new CheckFailed(
          `${o.label}: the run did not finish within the cycle cap ${o.capFlag} ${o.cap ?? ''} (${e.message})` +
            (deadlock ? `; every component was idle: a deadlock, which raising ${o.capFlag} will not cure` : `; raise the cap with ${o.capFlag} N`),
        );
      }
      // a command without a cap flag: its internal cap is far beyond any finishing run
      throw new CheckFailed(`${o.label}: ${deadlock ? 'deadlock: ' : 'the run did not finish within its internal cycle cap: '}${e.message}`);
    }
    throw e;
  } finally {
    p.stop();
  }
}
