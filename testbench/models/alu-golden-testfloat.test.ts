/**
 * The golden ALU model's outside reference: every Berkeley TestFloat 3e add/mul vector in
 * vectors/testfloat/ (a copy of ../shared/testfloat: f16, f32 and f64, the four IEEE rounding
 * modes, 46,464 cases per file, 1,115,136 in all) replayed through the scalar goldenBinary. Expected NaN results match any NaN
 * of ours (we always give the canonical NaN); every other result bit and all flags must match.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { goldenBinary } from '../../models/alu/golden.ts';
import { FORMATS, isNaNBits } from '../../models/alu/formats.ts';
import type { Rounding } from '../../rtl/sharp/alu/types.ts';
import { TESTFLOAT_DIR } from '../lib/testfloat-dir.ts';

const DIR = TESTFLOAT_DIR;
const MODES: ReadonlyArray<[string, Rounding]> = [
  ['near_even', 'rne'],
  ['minMag', 'rtz'],
  ['min', 'rdn'],
  ['max', 'rup'],
];
const CASES_PER_FILE = 46_464;

describe('golden ALU scalar add/mul vs Berkeley TestFloat', () => {
  it('finds the vector directory', () => {
    expect(existsSync(DIR), `TestFloat vectors expected at ${DIR}`).toBe(true);
  });

  for (const type of ['f16', 'f32', 'f64'] as const) {
    for (const op of ['add', 'mul'] as const) {
      for (const [mode, rounding] of MODES) {
        const file = `${type}_${op}_${mode}.txt.gz`;
        it(`${file}: all ${CASES_PER_FILE} cases`, () => {
          const fmt = FORMATS[type];
          const lines = gunzipSync(readFileSync(join(DIR, file))).toString('latin1').split('\n');
          let checked = 0;
          let nanCases = 0;
          let flagged = 0;
          const failures: string[] = [];
          for (const line of lines) {
            if (line === '') continue;
            const [a, b, r, f] = line.split(' ');
            if (a === undefined || b === undefined || r === undefined || f === undefined) throw new Error(`${file}: malformed line '${line}'`);
            const want = BigInt(`0x${r}`);
            const wantFlags = parseInt(f, 16);
            const got = goldenBinary(type, op, BigInt(`0x${a}`), BigInt(`0x${b}`), rounding);
            const wantNaN = isNaNBits(fmt, want);
            if (wantNaN) nanCases++;
            if (wantFlags !== 0) flagged++;
            const bitsOk = wantNaN ? got.bits === fmt.canonicalNaN : got.bits === want;
            if (!bitsOk || got.flags !== wantFlags) {
              if (failures.length < 5) failures.push(`${line} -> got ${got.bits.toString(16)} flags ${got.flags.toString(16)}`);
            }
            checked++;
          }
          expect(failures).toEqual([]);
          expect(checked).toBe(CASES_PER_FILE);
          // the vectors exercise NaNs and exceptions (guards against an empty or trivial file)
          expect(nanCases).toBeGreaterThan(0);
          expect(flagged).toBeGreaterThan(1000);
        });
      }
    }
  }
});
