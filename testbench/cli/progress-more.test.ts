/**
 * Progress of the long runs of coredirect barrier, gemini amo-scale and hpu qemu-diff (issue 10
 * item 13): lines on stderr through the shared helper (cli/progress.ts), stdout and --json unchanged.
 */
import { describe, it } from 'vitest';
import { qemuVersion } from '../../experiments/hpu/qemuDiff.ts';
import { expectProgressLines, progressOf } from '../lib/progressLines.ts';

describe('progress lines of coredirect, gemini and hpu runs', () => {
  it('coredirect barrier: processes summed over --procs', async () => {
    for (const json of [[], ['--json']]) {
      const { err } = await progressOf(['coredirect', 'barrier', '--procs', '4,8', '--iterations', '4', ...json]);
      expectProgressLines(err, 'coredirect barrier', 'processes (summed over --procs)', 12);
    }
  });

  it('gemini amo-scale: FADDs over all process counts', async () => {
    const { err } = await progressOf(['gemini', 'amo-scale', '--procs', '2,4', '--ops', '3', '--json']);
    expectProgressLines(err, 'gemini amo-scale', 'FADDs', 18);
  });

  it.runIf(qemuVersion() !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('hpu qemu-diff: programs compared', async () => {
    const { err } = await progressOf(['hpu', 'qemu-diff', '--programs', '3', '--max-items', '10', '--json']);
    expectProgressLines(err, 'hpu qemu-diff', 'programs', 3);
  });
});
