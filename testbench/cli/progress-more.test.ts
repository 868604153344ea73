/**
 * Progress of the long runs of coredirect barrier, gemini amo-scale and hpu qemu-diff (issue 10
 * item 13): lines on stderr through the shared helper (cli/progress.ts), stdout and --json unchanged.
 */
import { describe, expect, it } from 'vitest';
import { qemuVersion } from '../../experiments/hpu/qemuDiff.ts';
import { cli } from '../lib/cli.ts';

/** every stderr line is a progress line of `label` counting `unit` of `total`, the last one at 100 % */
function expectProgress(err: string, label: string, unit: string, total: number): void {
  const lines = err.trim().split('\n');
  const esc = unit.replace(/[()]/g, '\\$&');
  const line = new RegExp(`^${label}: [\\d,]+/${total.toLocaleString('en-US')} ${esc} \\(\\d+\\.\\d%\\), \\d+s elapsed, (about \\d+s left|no estimate yet)$`);
  expect(lines.length).toBeGreaterThanOrEqual(2);
  for (const l of lines) expect(l).toMatch(line);
  expect(lines.at(-1)).toMatch(/\(100\.0%\)/);
}

async function quietAndLoud(argv: string[]): Promise<string> {
  const quiet = await cli(argv);
  const r = await cli(argv, { progressIntervalMs: 0 });
  expect(r.code).toBe(0);
  expect(quiet.code).toBe(0);
  expect(r.out).toBe(quiet.out);
  expect(quiet.err).toBe('');
  return r.err;
}

describe('progress lines of coredirect, gemini and hpu runs', () => {
  it('coredirect barrier: processes summed over --procs', async () => {
    for (const json of [[], ['--json']]) {
      const err = await quietAndLoud(['coredirect', 'barrier', '--procs', '4,8', '--iterations', '4', ...json]);
      expectProgress(err, 'coredirect barrier', 'processes (summed over --procs)', 12);
    }
  });

  it('gemini amo-scale: FADDs over all process counts', async () => {
    const err = await quietAndLoud(['gemini', 'amo-scale', '--procs', '2,4', '--ops', '3', '--json']);
    expectProgress(err, 'gemini amo-scale', 'FADDs', 18);
  });

  it.runIf(qemuVersion() !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('hpu qemu-diff: programs compared', async () => {
    const err = await quietAndLoud(['hpu', 'qemu-diff', '--programs', '3', '--max-items', '10', '--json']);
    expectProgress(err, 'hpu qemu-diff', 'programs', 3);
  });
});
