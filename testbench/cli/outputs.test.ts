/**
 * Output paths (issue 10 item 14): checked before any simulation, exit 2 with the path in a
 * one-line message; '' is rejected; nothing is written. And every flag that names an output file
 * in any command declares itself as one (FlagSpec.output), so new commands get the check too.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkOutputPath } from '../../cli/args.ts';
import { loadCommands } from '../../cli/main.ts';
import { cli } from '../lib/cli.ts';


const dir = mkdtempSync(join(tmpdir(), 'netoffload-outputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'a-file');
writeFileSync(file, 'x');

/** [command line without the output flag, the output flag] of commands that would run long. */
const COMMANDS: [string[], string][] = [
  [['sharp', 'allreduce', '--hosts', '128', '--bytes', '1048576'], '--vcd'],
  [['sharp', 'table'], '--out'],
  [['sharp', 'fit'], '--out'],
  [['sim', 'ring', '--cycles', '1000000000'], '--vcd'],
  [['vectors', 'gen', '--block', 'alu', '--count', '1000000'], '--out'],
];

const BAD: [string, RegExp][] = [
  ['', /empty path/],
  [dir, /is a directory/],
  [join(file, 'x.out'), /is not a directory/],
];

describe('output paths are checked before simulating', () => {
  for (const [argv, flag] of COMMANDS) {
    it(`${argv.slice(0, 2).join(' ')} ${flag}: bad paths exit 2 at once, naming the path`, async () => {
      for (const [path, why] of BAD) {
        const t0 = performance.now();
        const r = await cli([...argv, flag, path]);
        expect(r.code).toBe(2);
        expect(r.err).toMatch(why);
        expect(r.err).toContain(`${flag} '${path}'`);
        expect(r.err.trim().split('\n')).toHaveLength(1);
        expect(r.out).toBe('');
        // nothing was simulated: these command lines run for minutes (a generous bound, not a timing test of speed)
        expect(performance.now() - t0).toBeLessThan(20_000);
      }
    });
  }

  it('a missing directory is an error unless the command creates directories', async () => {
    const r = await cli(['sim', 'ring', '--vcd', join(dir, 'none', 'x.vcd')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/directory '.*none' does not exist/);
    expect(() => checkOutputPath('--out', join(dir, 'made', 'deep', 'x.json'), 'mkdir')).not.toThrow();
    expect(existsSync(join(dir, 'made'))).toBe(false);
  });

  it('a good path passes and the probe leaves nothing behind', async () => {
    const r = await cli(['sim', 'ring', '--cycles', '10', '--vcd', join(dir, 'ok.vcd')]);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'ok.vcd'))).toBe(true);
    checkOutputPath('--out', join(dir, 'probe.json'));
    expect(existsSync(join(dir, 'probe.json'))).toBe(false);
  });

  it('vectors export checks its output base (given or derived from the input) first', async () => {
    const r = await cli(['vectors', 'export', join(dir, 'nowhere', 'v.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/output base .*does not exist/);
  });
});

describe('every output flag declares itself', async () => {
  const cmds = await loadCommands();
  it('flags named out, vcd, *-out, *-file-out, gtkw, wavedrom are output flags', () => {
    const looksLikeOutput = /^(out|vcd|gtkw|wavedrom|.*-out)$/;
    const missing: string[] = [];
    for (const c of cmds) for (const f of c.flags) if (looksLikeOutput.test(f.name) && !f.output) missing.push(`${c.path.join(' ')} --${f.name}`);
    expect(missing).toEqual([]);
  });
});
