import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bool, type CommandSpec, num, str } from '../args.ts';
import { withProgress } from '../progress.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import {
  readTestFloatFile,
  runTestFloat,
  TESTFLOAT_BERKELEY_TYPES,
  TESTFLOAT_MODE_NAMES,
  TESTFLOAT_OPS,
  TESTFLOAT_ROUNDINGS,
  TESTFLOAT_TYPES,
  TestFloatFormatError,
  type TestFloatOp,
  type TestFloatRounding,
  type TestFloatType,
} from '../../rtl/sharp/alu/testfloat.ts';
import { generateTestFloat } from '../../vectors/testfloat-gen.ts';

const SHOW = 10;

export const commands: CommandSpec[] = [
  {
    path: ['alu', 'testfloat'],
    summary: 'replay a Berkeley TestFloat vector file through the ALU floating-point datapath',
    details: `Reads a testfloat_gen output file (plain text or .gz; one case per line: A B RESULT FLAGS in hex),
runs every case through the bit-level adder or multiplier and compares result bits and flags
(an expected NaN matches any NaN). Prints "N passed, N failed" and the first ${SHOW} mismatches;
exits 1 on any failure and on a file that holds no case (empty, or blank lines only), 2 on a
malformed file. Every float width of the ALU can be replayed: f16, f32 and f64 files come from
Berkeley TestFloat (vectors/testfloat); TestFloat has no bfloat16, so bf16 files (same format)
come from 'netoffload alu testfloat-gen' (the golden model).`,
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
      const empty = res.cases === 0;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ file: path, op: f.op, type: f.type, rounding: f.rounding, cases: res.cases, passed: res.passed, failed: res.failed, mismatches: res.mismatches, ok: !empty && res.failed === 0 }) + '\n');
      } else {
        io.out(`${res.passed} passed, ${res.failed} failed\n`);
        if (empty) io.out(`FAIL: ${path} holds no test case (0 cases is a failure)\n`);
        for (const m of res.mismatches) {
          io.out(`  line ${m.line}: ${m.a} ${m.b} expected ${m.expected} flags ${m.expectedFlags}, got ${m.got} flags ${m.gotFlags}\n`);
        }
      }
      return res.failed > 0 || empty ? 1 : 0;
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
      const rows: { file: string; cases: number; passed: number; failed: number }[] = [];
      const jobs: { path: string; op: TestFloatOp; type: TestFloatType; rounding: TestFloatRounding }[] = [];
      for (const type of TESTFLOAT_BERKELEY_TYPES)
        for (const op of TESTFLOAT_OPS)
          for (const rounding of TESTFLOAT_ROUNDINGS) {
            const path = join(dir, `${type}_${op}_${TESTFLOAT_MODE_NAMES[rounding]}.txt.gz`);
            if (!existsSync(path)) throw new InputError(`${dir}: missing TestFloat file ${path}`);
            jobs.push({ path, op, type, rounding });
          }
      withProgress(io, { label: 'alu testfloat-all', total: jobs.length, unit: 'files' }, (update) => {
        for (const j of jobs) {
          let res;
          try {
            res = runTestFloat(readTestFloatFile(j.path), { op: j.op, type: j.type, rounding: j.rounding, maxMismatches: 0 });
          } catch (e) {
            if (e instanceof TestFloatFormatError) throw new InputError(`${j.path}: ${e.message}`);
            throw e;
          }
          rows.push({ file: j.path, cases: res.cases, passed: res.passed, failed: res.failed });
          if (!bool(f, 'json')) io.out(`${j.type} ${j.op} ${j.rounding}: ${res.passed} passed, ${res.failed} failed${res.cases === 0 ? ' (FAIL: no case in the file)' : ''}\n`);
          update(rows.length);
        }
      });
      const passed = rows.reduce((a, r) => a + r.passed, 0);
      const failed = rows.reduce((a, r) => a + r.failed, 0);
      const empty = rows.filter((r) => r.cases === 0).length;
      if (bool(f, 'json')) io.out(JSON.stringify({ files: rows, passed, failed, empty_files: empty }) + '\n');
      else io.out(`total: ${rows.length} files, ${passed} passed, ${failed} failed${empty ? `, ${empty} files without a case (FAIL)` : ''}\n`);
      return failed > 0 || empty > 0 ? 1 : 0;
    },
  },
  {
    path: ['alu', 'testfloat-gen'],
    summary: 'write TestFloat-format vectors from the golden model (any ALU float width, bf16 included)',
    details: `Berkeley TestFloat has no bfloat16. This writes --count cases in its line format
(A B RESULT FLAGS, upper-case hex) for any ALU float width, the expectation computed by the golden
model alone (models/alu: exact BigInt result, one independent rounding), so that
'netoffload alu testfloat --type bf16 --file FILE' replays bf16 through the datapath. Operands are
drawn from --seed: random encodings, edge exponents and fractions, close exponents (add) and
products near the overflow and underflow thresholds (mul).`,
    flags: [
      { name: 'type', type: 'string', required: true, choices: TESTFLOAT_TYPES, help: 'floating-point type' },
      { name: 'op', type: 'string', required: true, choices: TESTFLOAT_OPS, help: 'operation' },
      { name: 'rounding', type: 'string', required: true, choices: TESTFLOAT_ROUNDINGS, help: 'rounding mode' },
      { name: 'count', type: 'int', default: 10000, min: 1, max: 10_000_000, help: 'number of cases' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'operand generator seed' },
      { name: 'out', type: 'string', required: true, output: true, help: 'output file (plain text)' },
    ],
    run(f, io) {
      const text = generateTestFloat({ type: str(f, 'type') as TestFloatType, op: str(f, 'op') as TestFloatOp, rounding: str(f, 'rounding') as TestFloatRounding, count: num(f, 'count'), seed: num(f, 'seed') });
      const path = str(f, 'out');
      writeFileSync(path, text);
      if (bool(f, 'json')) io.out(JSON.stringify({ out: path, type: f.type, op: f.op, rounding: f.rounding, cases: num(f, 'count'), seed: num(f, 'seed') }) + '\n');
      else io.out(`wrote ${num(f, 'count')} ${String(f.type)} ${String(f.op)} ${String(f.rounding)} cases to ${path}\n`);
      return 0;
    },
  },
];
