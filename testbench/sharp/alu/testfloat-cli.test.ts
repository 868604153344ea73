/**
 * `netoffload alu testfloat` / `testfloat-all` / `testfloat-gen`: zero cases is a failure (exit 1),
 * bf16 files in TestFloat format replay (exit 0), a wrong expectation fails (exit 1), and output
 * paths are checked before any work (exit 2).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../lib/cli.ts';


const dir = mkdtempSync(join(tmpdir(), 'netoffload-testfloat-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ARGS = ['--op', 'mul', '--type', 'bf16', '--rounding', 'rne'];

describe('netoffload alu testfloat', () => {
  it('an empty file, or one of blank lines only, is a failure (exit 1), not a pass', async () => {
    for (const [name, text] of [['empty.txt', ''], ['blank.txt', '\n  \n\n']] as const) {
      const path = join(dir, name);
      writeFileSync(path, text);
      const r = await cli(['alu', 'testfloat', '--file', path, ...ARGS]);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/holds no test case/);
      const j = await cli(['alu', 'testfloat', '--file', path, ...ARGS, '--json']);
      expect(j.code).toBe(1);
      expect(JSON.parse(j.out)).toMatchObject({ cases: 0, passed: 0, failed: 0, ok: false });
    }
  });

  it('bf16: generated vectors replay (exit 0); one wrong expectation fails (exit 1)', async () => {
    const path = join(dir, 'bf16_mul_near_even.txt');
    const g = await cli(['alu', 'testfloat-gen', ...ARGS, '--count', '3000', '--seed', '9', '--out', path, '--json']);
    expect(g.code).toBe(0);
    expect(JSON.parse(g.out)).toMatchObject({ out: path, cases: 3000 });
    const ok = await cli(['alu', 'testfloat', '--file', path, ...ARGS, '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ cases: 3000, passed: 3000, failed: 0, ok: true });
    // flip the inexact flag of the first case (flags are compared on every case, NaN or not)
    const lines = readFileSync(path, 'utf8').split('\n');
    const f = lines[0]!.split(' ');
    f[3] = (parseInt(f[3]!, 16) ^ 1).toString(16).toUpperCase().padStart(2, '0');
    lines[0] = f.join(' ');
    writeFileSync(path, lines.join('\n'));
    const bad = await cli(['alu', 'testfloat', '--file', path, ...ARGS]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/^2999 passed, 1 failed\n  line 1: /);
  });

  it('a bf16 file read as f16 is malformed (exit 2 naming the line)', async () => {
    const path = join(dir, 'bf16_add.txt');
    expect((await cli(['alu', 'testfloat-gen', '--op', 'add', '--type', 'bf16', '--rounding', 'rtz', '--count', '10', '--out', path])).code).toBe(0);
    const r = await cli(['alu', 'testfloat', '--file', path, '--op', 'add', '--type', 'f64', '--rounding', 'rtz']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/line 1: .*16 hex digits for f64/);
  });
});

describe('netoffload alu testfloat-gen', () => {
  it('checks --out before generating: empty, missing directory, a directory (exit 2 naming the path)', async () => {
    for (const [out, why] of [['', /empty path/], [join(dir, 'no', 'such', 'x.txt'), /does not exist/], [dir, /is a directory/]] as const) {
      const r = await cli(['alu', 'testfloat-gen', ...ARGS, '--out', out]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(why);
      expect(r.err).toContain(`--out '${out}'`);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});
