import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  readTestFloatFile,
  runTestFloat,
  TESTFLOAT_MODE_NAMES,
  TESTFLOAT_OPS,
  TESTFLOAT_ROUNDINGS,
  TESTFLOAT_BERKELEY_TYPES,
  TestFloatFormatError,
} from '../../../rtl/sharp/alu/testfloat.ts';
import { generateTestFloat } from '../../../vectors/testfloat-gen.ts';
import { SHARED_TESTFLOAT_DIR, TESTFLOAT_DIR } from '../../lib/testfloat-dir.ts';

const DIR = TESTFLOAT_DIR;

function file(type: string, op: string, rounding: keyof typeof TESTFLOAT_MODE_NAMES): string {
  return join(DIR, `${type}_${op}_${TESTFLOAT_MODE_NAMES[rounding]}.txt.gz`);
}

describe('Berkeley TestFloat vectors through the bit-level datapath', () => {
  it('has all 24 vector files', () => {
    for (const type of TESTFLOAT_BERKELEY_TYPES) for (const op of TESTFLOAT_OPS) for (const r of TESTFLOAT_ROUNDINGS) expect(existsSync(file(type, op, r)), file(type, op, r)).toBe(true);
  });

  for (const type of TESTFLOAT_BERKELEY_TYPES) {
    for (const op of TESTFLOAT_OPS) {
      for (const rounding of TESTFLOAT_ROUNDINGS) {
        it(`${type} ${op} ${rounding}: every case matches bits and flags`, () => {
          const res = runTestFloat(readTestFloatFile(file(type, op, rounding)), { op, type, rounding, maxMismatches: 5 });
          expect(res.mismatches).toEqual([]);
          expect(res.failed).toBe(0);
          expect(res.passed).toBe(46464);
        });
      }
    }
  }
});

describe('TestFloat runner', () => {
  it('reports mismatches (vectors replayed in the wrong rounding mode fail)', () => {
    const res = runTestFloat(readTestFloatFile(file('f32', 'add', 'rup')), { op: 'add', type: 'f32', rounding: 'rdn', maxMismatches: 3 });
    expect(res.failed).toBeGreaterThan(1000);
    expect(res.mismatches).toHaveLength(3);
    expect(res.passed + res.failed).toBe(46464);
  });

  it('compares flags as well as bits', () => {
    // 1 + 1 = 2 exactly: flags 00; a line claiming inexact must fail
    expect(runTestFloat('3C00 3C00 4000 00\n', { op: 'add', type: 'f16', rounding: 'rne' })).toMatchObject({ passed: 1, failed: 0 });
    expect(runTestFloat('3C00 3C00 4000 01\n', { op: 'add', type: 'f16', rounding: 'rne' })).toMatchObject({ passed: 0, failed: 1 });
    // an expected NaN matches our canonical NaN (TestFloat's x86 default NaN is negative)
    expect(runTestFloat('7C00 FC00 FE00 10\n', { op: 'add', type: 'f16', rounding: 'rne' })).toMatchObject({ passed: 1 });
  });

  it('names the line of a malformed case', () => {
    const run = (text: string) => () => runTestFloat(text, { op: 'add', type: 'f16', rounding: 'rne' });
    expect(run('3C00 3C00 4000 00\n\n3C00 3C0G 4000 00\n')).toThrow(/line 3: .*not hexadecimal/);
    expect(run('3C00 3C00 4000\n')).toThrow(/line 1: .*missing flags/);
    expect(run('3C00 3C00 4000 00 77\n')).toThrow(/line 1: unexpected text/);
    expect(run('3C00 3C00000 4000 00\n')).toThrow(/line 1: .*4 hex digits/);
    expect(run('3C00 3C00 4000 100\n')).toThrow(TestFloatFormatError);
  });
});

describe('bfloat16 vectors in TestFloat format (golden model, vectors/testfloat-gen.ts)', () => {
  for (const op of TESTFLOAT_OPS) {
    for (const rounding of TESTFLOAT_ROUNDINGS) {
      it(`bf16 ${op} ${rounding}: every case matches bits and flags`, () => {
        const text = generateTestFloat({ type: 'bf16', op, rounding, count: 4000, seed: 21 });
        const res = runTestFloat(text, { op, type: 'bf16', rounding, maxMismatches: 5 });
        expect(res.mismatches).toEqual([]);
        expect(res.cases).toBe(4000);
        expect(res.passed).toBe(4000);
      });
    }
  }

  it('the generated cases reach the edges: overflow, underflow, invalid, inexact and exact cases', () => {
    const flags = new Set<number>();
    for (const op of TESTFLOAT_OPS) for (const line of generateTestFloat({ type: 'bf16', op, rounding: 'rne', count: 4000, seed: 21 }).trim().split('\n')) flags.add(parseInt(line.split(' ')[3]!, 16));
    for (const f of [0x00, 0x01, 0x03, 0x05, 0x10]) expect(flags.has(f), `flags ${f}`).toBe(true);
  });

  it('fails when replayed in another rounding mode (the replay can fail)', () => {
    const text = generateTestFloat({ type: 'bf16', op: 'mul', rounding: 'rup', count: 2000, seed: 3 });
    const res = runTestFloat(text, { op: 'mul', type: 'bf16', rounding: 'rdn' });
    expect(res.failed).toBeGreaterThan(200);
  });

  it('the same seed gives the same file; another seed another', () => {
    const a = generateTestFloat({ type: 'bf16', op: 'add', rounding: 'rne', count: 100, seed: 5 });
    expect(generateTestFloat({ type: 'bf16', op: 'add', rounding: 'rne', count: 100, seed: 5 })).toBe(a);
    expect(generateTestFloat({ type: 'bf16', op: 'add', rounding: 'rne', count: 100, seed: 6 })).not.toBe(a);
  });
});

describe('a file without cases', () => {
  it('counts 0 cases (callers fail on it)', () => {
    for (const text of ['', '\n\n', '   \n\t\n']) expect(runTestFloat(text, { op: 'add', type: 'bf16', rounding: 'rne' })).toEqual({ cases: 0, passed: 0, failed: 0, mismatches: [] });
  });
});

describe('the checked-in TestFloat copy', () => {
  // vectors/testfloat/ is what every test replays; where the reference material is present
  // (../shared/testfloat beside the repository), the copy must be byte-identical to it
  it.runIf(existsSync(SHARED_TESTFLOAT_DIR))('matches ../shared/testfloat byte for byte', () => {
    const names = readdirSync(SHARED_TESTFLOAT_DIR).filter((n) => n.endsWith('.txt.gz')).sort();
    expect(names).toHaveLength(24);
    expect(readdirSync(DIR).filter((n) => n.endsWith('.txt.gz')).sort()).toEqual(names);
    for (const n of names) expect(readFileSync(join(DIR, n)).equals(readFileSync(join(SHARED_TESTFLOAT_DIR, n))), n).toBe(true);
  });
});
