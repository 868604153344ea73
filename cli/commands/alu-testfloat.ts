import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bool, type CommandSpec, str } from '../args.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import {
  readTestFloatFile,
  runTestFloat,
  TESTFLOAT_MODE_NAMES,
  TESTFLOAT_OPS,
  TESTFLOAT_ROUNDINGS,
  TESTFLOAT_TYPES,
  TestFloatFormatError,
  type TestFloatOp,
  type TestFloatRounding,
  type TestFloatType,
} from '../../rtl/sharp/alu/testfloat.ts';

const SHOW = 10;

export const commands: CommandSpec[] = [
  {
    path: ['alu', 'testfloat'],
    summary: 'replay a Berkeley TestFloat vector file through the ALU floating-point datapath',
    details: `Reads a testfloat_gen output file (plain text or .gz; one case per line: A B RESULT FLAGS in hex),
runs every case through the bit-level adder or multiplier and compares result bits and flags
(an expected NaN matches any NaN). Prints "N passed, N failed" and the first ${SHOW} mismatches;
exits 1 on any failure, 2 on a malformed file.`,
    flags: [
      { name: 'file', type: 'string', required: true, help: 'TestFloat vector file (.txt or .txt.gz)' },
      { name: 'op', type: 'string', required: true, choices: TESTFLOAT_OPS, help: 'operation of the vectors' },
      { name: 'type', type: 'string', required: true, choices: TESTFLOAT_TYPES, help: 'floating-point type of the vectors' },
      { name: 'rounding', type: 'string', required: true, choices: TESTFLOAT_ROUNDINGS, help: 'rounding mode the vectors were generated with' },
    ],
    run(f, io) {
      const path = str(f, 'file');
      let text: string;
      try {
        text = readTestFloatFile(path);
      } catch (e) {
        throw new InputError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      let res;
      try {
        res = runTestFloat(text, { op: str(f, 'op') as TestFloatOp, type: str(f, 'type') as TestFloatType, rounding: str(f, 'rounding') as TestFloatRounding, maxMismatches: SHOW });
      } catch (e) {
        if (e instanceof TestFloatFormatError) throw new InputError(`${path}: ${e.message}`);
        throw e;
      }
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ file: path, op: f.op, type: f.type, rounding: f.rounding, passed: res.passed, failed: res.failed, mismatches: res.mismatches }) + '\n');
      } else {
        io.out(`${res.passed} passed, ${res.failed} failed\n`);
        for (const m of res.mismatches) {
          io.out(`  line ${m.line}: ${m.a} ${m.b} expected ${m.expected} flags ${m.expectedFlags}, got ${m.got} flags ${m.gotFlags}\n`);
        }
      }
      return res.failed > 0 ? 1 : 0;
    },
  },
  {
    path: ['alu', 'testfloat-all'],
    summary: 'replay every Berkeley TestFloat file of a directory (f16/f32/f64 x add/mul x 4 roundings)',
    details: `Expects the 24 files <type>_<op>_<mode>.txt.gz (mode near_even, minMag, min, max: rne, rtz,
rdn, rup) in --dir, as in vectors/testfloat (a copy of ../shared/testfloat). Prints one line per
file and the total; exits 1 on any mismatch, 2 when a file is missing or malformed.`,
    flags: [{ name: 'dir', type: 'string', required: true, help: 'directory holding the TestFloat files (e.g. vectors/testfloat)' }],
    run(f, io) {
      const dir = str(f, 'dir');
      const rows: { file: string; passed: number; failed: number }[] = [];
      const jobs: { path: string; op: TestFloatOp; type: TestFloatType; rounding: TestFloatRounding }[] = [];
      for (const type of TESTFLOAT_TYPES)
        for (const op of TESTFLOAT_OPS)
          for (const rounding of TESTFLOAT_ROUNDINGS) {
            const path = join(dir, `${type}_${op}_${TESTFLOAT_MODE_NAMES[rounding]}.txt.gz`);
            if (!existsSync(path)) throw new InputError(`${dir}: missing TestFloat file ${path}`);
            jobs.push({ path, op, type, rounding });
          }
      for (const j of jobs) {
        let res;
        try {
          res = runTestFloat(readTestFloatFile(j.path), { op: j.op, type: j.type, rounding: j.rounding, maxMismatches: 0 });
        } catch (e) {
          if (e instanceof TestFloatFormatError) throw new InputError(`${j.path}: ${e.message}`);
          throw e;
        }
        rows.push({ file: j.path, passed: res.passed, failed: res.failed });
        if (!bool(f, 'json')) io.out(`${j.type} ${j.op} ${j.rounding}: ${res.passed} passed, ${res.failed} failed\n`);
      }
      const passed = rows.reduce((a, r) => a + r.passed, 0);
      const failed = rows.reduce((a, r) => a + r.failed, 0);
      if (bool(f, 'json')) io.out(JSON.stringify({ files: rows, passed, failed }) + '\n');
      else io.out(`total: ${rows.length} files, ${passed} passed, ${failed} failed\n`);
      return failed > 0 ? 1 : 0;
    },
  },
];
