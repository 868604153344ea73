/**
 * Runs one `netoffload` command line in-process and collects its exit code, stdout and stderr.
 * Progress reports are off unless `io` asks for them (a slow machine would otherwise add progress
 * lines to stderr at random); testbench/cli/progress.test.ts turns them on.
 */
import type { CommandIO } from '../../cli/args.ts';
import { runCli } from '../../cli/main.ts';

export async function cli(argv: string[], io: Partial<CommandIO> = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), progressIntervalMs: Infinity, ...io });
  return { code, out, err };
}
