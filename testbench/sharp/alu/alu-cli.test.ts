/**
 * `netoffload alu reduce`: the golden model agrees, the arrival seed changes the cycles but never
 * the result bits or flags, the JSON shape is {"result_hex","flags","cycles","ok"}, and bad flag
 * values are usage errors (exit 2).
 */
import { mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../lib/cli.ts';
import { TESTFLOAT_DIR } from '../../lib/testfloat-dir.ts';


interface Reduced {
  result_hex: string;
  flags: number;
  cycles: number;
  ok: boolean;
}

const CASES: string[][] = [
  ['--type', 'f32', '--op', 'sum', '--children', '16', '--count', '8', '--order', 'linear', '--rounding', 'rne'],
  ['--type', 'f16', '--op', 'sum', '--children', '9', '--count', '5', '--order', 'tree', '--rounding', 'sr', '--special', '0.3'],
  ['--type', 'bf16', '--op', 'prod', '--children', '7', '--count', '4', '--order', 'tree', '--rounding', 'rdn', '--wide', '--ftz'],
  ['--type', 'f64', '--op', 'maxloc', '--children', '33', '--count', '3', '--order', 'tree', '--index-type', 'u16'],
  ['--type', 'i64', '--op', 'prod', '--children', '64', '--count', '2', '--order', 'linear', '--width', '8', '--write-bw', '4', '--depth-int', '3'],
];

describe('netoffload alu reduce', () => {
  for (const args of CASES) {
    it(`${args.join(' ')}: same result and flags for every arrival seed`, async () => {
      const runs: Reduced[] = [];
      for (const a of [1, 2, 3, 4, 5]) {
        const r = await cli(['alu', 'reduce', ...args, '--seed', '11', '--arrival-seed', String(a), '--json']);
        expect(r.err).toBe('');
        expect(r.code).toBe(0);
        const j = JSON.parse(r.out) as Reduced;
        expect(Object.keys(j).sort()).toEqual(['cycles', 'flags', 'ok', 'result_hex']);
        expect(j.ok).toBe(true);
        runs.push(j);
      }
      for (const j of runs) {
        expect(j.result_hex).toBe(runs[0]!.result_hex);
        expect(j.flags).toBe(runs[0]!.flags);
      }
      // the arrival seed does move the cycles
      expect(new Set(runs.map((j) => j.cycles)).size).toBeGreaterThan(1);
      // and the operand seed does change the data
      const other = JSON.parse((await cli(['alu', 'reduce', ...args, '--seed', '12', '--json'])).out) as Reduced;
      // (64 random i64 factors wrap to 0 whatever the seed)
      if (!args.includes('i64')) expect(other.result_hex).not.toBe(runs[0]!.result_hex);
    });
  }

  it('text output names the result, flags, cycles and verdict', async () => {
    const r = await cli(['alu', 'reduce', '--type', 'f32', '--op', 'sum', '--children', '4', '--count', '2']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^result: {2}0x[0-9a-f]{16}$/m);
    expect(r.out).toMatch(/^flags: {3}0x[0-9a-f]{2} \(/m);
    expect(r.out).toMatch(/result left at \d+ \(\d+ after the last operand\)/);
    expect(r.out).toMatch(/golden model: agrees/);
  });

  it('bad flag values are usage errors (exit 2)', async () => {
    const base = ['alu', 'reduce', '--type', 'f32', '--op', 'sum', '--children', '4', '--count', '2'];
    const bad: [string[], RegExp][] = [
      [['alu', 'reduce', '--type', 'f8', '--op', 'sum', '--children', '4', '--count', '2'], /--type/],
      [['alu', 'reduce', '--type', 'f32', '--op', 'band', '--children', '4', '--count', '2'], /not defined for --type f32/],
      [['alu', 'reduce', '--type', 'f64', '--op', 'sum', '--children', '4', '--count', '33'], /exceeds the 256-byte payload/],
      [['alu', 'reduce', '--type', 'i32', '--op', 'minloc', '--children', '4', '--count', '40', '--index-type', 'i64'], /at most 21 elements/],
      [[...base.slice(0, 6), '--children', '0', '--count', '2'], /--children/],
      [[...base.slice(0, 6), '--children', '65', '--count', '2'], /--children/],
      [[...base, '--order', 'random'], /--order/],
      [[...base, '--rounding', 'up'], /--rounding/],
      [[...base, '--width', '0'], /--width/],
      [[...base, '--depth-fadd', '65'], /--depth-fadd/],
      [[...base, '--seed', '-1'], /--seed/],
      [[...base, '--arrival-seed', 'x'], /--arrival-seed/],
      [['alu', 'reduce', '--type', 'f32', '--op', 'sum', '--count', '2'], /--children/],
    ];
    for (const [argv, msg] of bad) {
      const r = await cli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n').length).toBe(1);
    }
  });
});

describe('netoffload alu testfloat-all', () => {
  const dir = TESTFLOAT_DIR;

  it('passes all 24 TestFloat files (1,115,136 cases)', async () => {
    const r = await cli(['alu', 'testfloat-all', '--dir', dir, '--json']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { files: unknown[]; passed: number; failed: number };
    expect([j.files.length, j.passed, j.failed]).toEqual([24, 24 * 46464, 0]);
  });

  it('exits 1 when a file does not match (a round-up file in the round-down slot) and 2 when one is missing', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'netoffload-tf-'));
    try {
      for (const f of readdirSync(dir).filter((n) => n.endsWith('.txt.gz'))) {
        const src = f === 'f32_add_min.txt.gz' ? 'f32_add_max.txt.gz' : f;
        symlinkSync(join(dir, src), join(tmp, f));
      }
      const bad = await cli(['alu', 'testfloat-all', '--dir', tmp]);
      expect(bad.code).toBe(1);
      expect(bad.out).toMatch(/^f32 add rdn: \d+ passed, [1-9]\d* failed$/m);
      expect(bad.out).toMatch(/^f32 add rup: 46464 passed, 0 failed$/m);
      rmSync(join(tmp, 'f64_mul_max.txt.gz'));
      const missing = await cli(['alu', 'testfloat-all', '--dir', tmp]);
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/missing TestFloat file .*f64_mul_max\.txt\.gz/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
