/**
 * Long runs (issue 10 item 13): progress on stderr with an estimate (lines when stderr is not a
 * terminal, a cli-progress bar when it is), stdout untouched, the simulation unchanged by it; a
 * cycle cap that is hit names the limit and how to raise it and exits 1 (not 3).
 */
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../cli/progress.ts';
import { runUntilReporting } from '../../experiments/run-reporting.ts';
import { Component, Simulator, SimulationLimitError } from '../../rtl/kernel/index.ts';

/** A component that runs every cycle. */
class Busy extends Component {
  tick(t: number): number {
    return t + 1;
  }
}
import { cli } from '../lib/cli.ts';


const LINE = /^(sim ring|sharp allreduce): [\d,]+\/[\d,]+ (cycles|calls) \(\d+\.\d%\), \d+s elapsed, (about \d+s left|no estimate yet)$/;

describe('progress on stderr', () => {
  it('sim ring: periodic lines with an estimate when stderr is not a terminal; stdout and the result unchanged', async () => {
    const argv = ['sim', 'ring', '--stages', '4', '--cycles', '300000', '--json'];
    const quiet = await cli(argv, { progressIntervalMs: 60_000 });
    expect(quiet.err).toBe(''); // a run shorter than the interval prints nothing
    const r = await cli(argv, { progressIntervalMs: 0 });
    expect(r.code).toBe(0);
    expect(r.out).toBe(quiet.out);
    const lines = r.err.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    for (const l of lines) expect(l).toMatch(LINE);
    expect(lines.at(-1)).toMatch(/300,000\/300,000 cycles \(100\.0%\)/);
  });

  it('sharp allreduce: calls completed, and the same result with and without progress', async () => {
    const argv = ['sharp', 'allreduce', '--hosts', '4', '--iterations', '3', '--bytes', '64', '--json'];
    const quiet = await cli(argv);
    const r = await cli(argv, { progressIntervalMs: 0 });
    expect(r.code).toBe(0);
    expect(r.out).toBe(quiet.out);
    const lines = r.err.trim().split('\n');
    for (const l of lines) expect(l).toMatch(LINE);
    expect(lines.at(-1)).toMatch(/^sharp allreduce: 20\/20 calls \(100\.0%\)/);
  });

  it('a bar from cli-progress when stderr is a terminal', async () => {
    let drawn = '';
    const tty = {
      isTTY: true,
      columns: 120,
      write: (t: string) => {
        drawn += t;
        return true;
      },
      cursorTo: () => true,
      clearLine: () => true,
      clearScreenDown: () => true,
      moveCursor: () => true,
      on: () => tty,
      removeListener: () => tty,
    };
    const r = await cli(['sim', 'ring', '--stages', '4', '--cycles', '300000'], { progressIntervalMs: 0, errTTY: tty as unknown as NodeJS.WriteStream });
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(drawn).toMatch(/sim ring \[[=\- ]*\] \d+% \| [\d]+\/300000 cycles \| \S+ elapsed, ETA \S+/);
  });

  it('formats durations', () => {
    expect([formatDuration(0), formatDuration(59_400), formatDuration(61_000), formatDuration(3_725_000), formatDuration(NaN)]).toEqual(['0s', '59s', '1m01s', '1h02m', '?']);
  });
});

describe('the cycle cap', () => {
  it('sharp allreduce: a cap that is hit names --max-cycles and how to raise it, exit 1', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli(['sharp', 'allreduce', '--hosts', '2', '--iterations', '5', '--max-cycles', '100', ...json]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^netoffload: sharp allreduce: the run did not finish within the cycle cap --max-cycles 100 .*raise the cap with --max-cycles N\n$/);
    }
    // with progress on, the same cap is hit at the same place
    const p = await cli(['sharp', 'allreduce', '--hosts', '2', '--iterations', '5', '--max-cycles', '100'], { progressIntervalMs: 0 });
    expect(p.code).toBe(1);
    expect(p.err).toMatch(/within 100 cycles/);
  });

  it('runUntilReporting: the cap of the whole run, a deadlock said as such at once', () => {
    const sim = new Simulator();
    let reports = 0;
    expect(() => runUntilReporting(sim, () => false, 1e12, () => reports++)).toThrow(SimulationLimitError);
    expect(() => runUntilReporting(new Simulator(), () => false, 1e12, () => reports++)).toThrow(/within 1000000000000 cycles .*idle/);
    expect(reports).toBe(0);
    // a busy design: reports between chunks, the cap counts from the start of the whole run
    const busy = (): Simulator => {
      const sim = new Simulator();
      new Busy(sim, 'busy');
      return sim;
    };
    const s1 = busy();
    let n = 0;
    expect(runUntilReporting(s1, () => s1.cycle >= 600_000, 1e6, () => n++)).toBe(600_000);
    expect(n).toBe(2);
    n = 0;
    const s2 = busy();
    expect(() => runUntilReporting(s2, () => false, 600_000, () => n++)).toThrow(/^runUntil: condition not met within 600000 cycles \(cycles 0 to 600000\)$/);
    expect(n).toBe(2);
  });
});
