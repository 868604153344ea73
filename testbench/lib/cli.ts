/** Runs one `netoffload` command line in-process and collects its exit code, stdout and stderr. */
import { runCli } from '../../cli/main.ts';

export async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}
