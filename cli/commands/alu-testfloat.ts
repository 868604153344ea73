import { bool, type CommandSpec, str } from '../args.ts';
import { InputError } from '../errors.ts';
import {
  readTestFloatFile,
  runTestFloat,
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
];
