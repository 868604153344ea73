/**
 * Progress and cycle caps of the long-running commands beyond `sharp allreduce` / `sim ring`
 * (issue 10 item 13): each reports on stderr through the shared helper (cli/progress.ts) with stdout
 * and --json unchanged; a cap that is hit names its flag, exit 1; a deadlock says so, exit 1.
 */
import { describe, expect, it } from 'vitest';
import { CheckFailed } from '../../cli/args.ts';
import { withProgress } from '../../cli/progress.ts';
import { SimulationLimitError } from '../../rtl/kernel/index.ts';
import { cli } from '../lib/cli.ts';

/** every stderr line is a progress line of `label` counting `unit`, the last one at 100 % */
function expectProgress(err: string, label: string, unit: string, total: number): void {
  const lines = err.trim().split('\n');
  const line = new RegExp(`^${label}: [\\d,]+/${total.toLocaleString('en-US')} ${unit} \\(\\d+\\.\\d%\\), \\d+s elapsed, (about \\d+s left|no estimate yet)$`);
  expect(lines.length).toBeGreaterThanOrEqual(1);
  for (const l of lines) expect(l).toMatch(line);
  expect(lines.at(-1)).toMatch(/\(100\.0%\)/);
}

describe('progress lines of long commands, stdout unchanged', () => {
  it('atc refresh-check: operations done', async () => {
    for (const json of [[], ['--json']]) {
      const argv = ['atc', 'refresh-check', '--ops', '3000', '--seed', '2', ...json];
      const quiet = await cli(argv);
      const r = await cli(argv, { progressIntervalMs: 0 });
      expect(r.code).toBe(0);
      expect(r.out).toBe(quiet.out);
      expect(quiet.err).toBe('');
      expectProgress(r.err, 'atc refresh-check', 'operations', 3000);
    }
  });

  it('atc sweep: requests completed over all configurations', async () => {
    const argv = ['atc', 'sweep', '--ways', '2,4', '--entries', '256', '--requests', '300000', '--trace', 'uniform', '--pages', '64', '--json'];
    const quiet = await cli(argv);
    const r = await cli(argv, { progressIntervalMs: 0 });
    expect(r.code).toBe(0);
    expect(r.out).toBe(quiet.out);
    expectProgress(r.err, 'atc sweep', 'requests', 600_000);
  });

  it('sharp faults: calls completed (a run longer than one report chunk)', async () => {
    const faults = ['sharp', 'faults', '--scenario', 'corrupt-packet', '--iterations', '60', '--json'];
    const fq = await cli(faults);
    const fr = await cli(faults, { progressIntervalMs: 0 });
    expect(fr.code).toBe(fq.code);
    expect(fr.out).toBe(fq.out);
    expect(fr.err).not.toBe('');
    for (const l of fr.err.trim().split('\n')) expect(l).toMatch(/^sharp faults: [\d,]+\/[\d,]+ calls \(\d+\.\d%\), \d+s elapsed, (about \d+s left|no estimate yet)$/);
  });
});

describe('cycle caps and deadlocks', () => {
  it('sharp jobs: a cap that is hit names --max-cycles and how to raise it, exit 1', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli(['sharp', 'jobs', '--jobs', '2', '--max-cycles', '1000', ...json]);
      expect(r.code).toBe(1);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^netoffload: sharp jobs: the run did not finish within the cycle cap --max-cycles 1000 .*raise the cap with --max-cycles N\n$/);
    }
  });

  it('withProgress: a deadlock in a command without a cap flag is a failed check saying so; other errors pass through', () => {
    const io = { out: () => {}, err: () => {}, progressIntervalMs: Infinity };
    const idle = new SimulationLimitError('runUntil: condition not met within 100 cycles (cycles 0 to 100); at cycle 5 every component is idle with no wake-up pending (deadlock or missing stimulus)');
    expect(() => withProgress(io, { label: 'atc sweep', total: 1, unit: 'requests' }, () => { throw idle; })).toThrow(CheckFailed);
    expect(() => withProgress(io, { label: 'atc sweep', total: 1, unit: 'requests' }, () => { throw idle; })).toThrow(/^atc sweep: deadlock: runUntil: .*every component is idle/);
    const capped = new SimulationLimitError('runUntil: condition not met within 100 cycles (cycles 0 to 100)');
    expect(() => withProgress(io, { label: 'x', total: 1, unit: 'u' }, () => { throw capped; })).toThrow(/^x: the run did not finish within its internal cycle cap: runUntil/);
    expect(() => withProgress(io, { label: 'x', total: 1, unit: 'u' }, () => { throw new RangeError('bad'); })).toThrow(RangeError);
  });
});
