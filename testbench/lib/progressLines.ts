/**
 * Helpers of the progress tests (issue 10 item 13): run a command quietly and with a progress line
 * on every update, and check the lines.
 */
import { expect } from 'vitest';
import { cli } from './cli.ts';

/** every stderr line is a progress line of `label` counting `unit` of `total`, the last one at 100 %; returns the counts */
export function expectProgressLines(err: string, label: string, unit: string, total: number, minLines = 2): number[] {
  const lines = err.trim().split('\n');
  const esc = (s: string): string => s.replace(/[()+.*?[\]{}|^$\\]/g, '\\$&');
  const line = new RegExp(`^${esc(label)}: ([\\d,]+)/${total.toLocaleString('en-US')} ${esc(unit)} \\(\\d+\\.\\d%\\), \\d+s elapsed, (about \\d+s left|no estimate yet)$`);
  expect(lines.length).toBeGreaterThanOrEqual(minLines);
  const counts = lines.map((l) => {
    expect(l).toMatch(line);
    return Number(line.exec(l)![1]!.replace(/,/g, ''));
  });
  for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!);
  expect(counts.at(-1)).toBe(total);
  return counts;
}

/** runs `argv` without and with progress reports: same exit code 0 and stdout, no stderr without; returns the stdout and the stderr with */
export async function progressOf(argv: string[]): Promise<{ out: string; err: string }> {
  const quiet = await cli(argv);
  const r = await cli(argv, { progressIntervalMs: 0 });
  expect(quiet.code).toBe(0);
  expect(r.code).toBe(0);
  expect(r.out).toBe(quiet.out);
  expect(quiet.err).toBe('');
  return { out: r.out, err: r.err };
}
