/**
 * Berkeley TestFloat replay for the ALU's floating-point datapath (fp/). A TestFloat file
 * (`testfloat_gen ... <type>_<op>`, format in vectors/testfloat/README.md) has one case per line,
 * `A B RESULT FLAGS` in upper-case hex. Each case runs through fpAdd / fpMul with the given
 * rounding mode; an expected NaN matches any NaN of ours (ours is always the canonical NaN), every
 * other bit of the result and the flags must match exactly.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fpAdd } from './fp/add.ts';
import { type FpFormat, formatOf, modeWord } from './fp/format.ts';
import { fpMul } from './fp/mul.ts';
import { isNaNBits } from './fp/special.ts';

export type TestFloatOp = 'add' | 'mul';
export type TestFloatType = 'f16' | 'bf16' | 'f32' | 'f64';
export type TestFloatRounding = 'rne' | 'rtz' | 'rdn' | 'rup';

export const TESTFLOAT_OPS: readonly TestFloatOp[] = ['add', 'mul'];
/** Every float width of the ALU: a file of any of them can be replayed. */
export const TESTFLOAT_TYPES: readonly TestFloatType[] = ['f16', 'bf16', 'f32', 'f64'];
/** The widths Berkeley TestFloat generates (it has no bfloat16; bf16 files come from `alu testfloat-gen`). */
export const TESTFLOAT_BERKELEY_TYPES: readonly TestFloatType[] = ['f16', 'f32', 'f64'];
export const TESTFLOAT_ROUNDINGS: readonly TestFloatRounding[] = ['rne', 'rtz', 'rdn', 'rup'];
/** TestFloat's names for the rounding modes (file name part). */
export const TESTFLOAT_MODE_NAMES: Readonly<Record<TestFloatRounding, string>> = { rne: 'near_even', rtz: 'minMag', rdn: 'min', rup: 'max' };

export interface TestFloatOptions {
  op: TestFloatOp;
  type: TestFloatType;
  rounding: TestFloatRounding;
  /** how many mismatches to keep (default 10) */
  maxMismatches?: number;
}

export interface TestFloatMismatch {
  line: number;
  a: string;
  b: string;
  expected: string;
  expectedFlags: string;
  got: string;
  gotFlags: string;
}

export interface TestFloatResult {
  /** cases read (passed + failed); 0 means the file held no case, which a caller must treat as a failure */
  cases: number;
  passed: number;
  failed: number;
  mismatches: TestFloatMismatch[];
}

/** A malformed TestFloat line; `line` is 1-based. */
export class TestFloatFormatError extends Error {
  readonly line: number;
  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = 'TestFloatFormatError';
    this.line = line;
  }
}

/** Reads a TestFloat file, gunzipping it when it starts with the gzip magic bytes. */
export function readTestFloatFile(path: string): string {
  const buf = readFileSync(path);
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return gunzipSync(buf).toString('latin1');
  return buf.toString('latin1');
}

/** Value of hex digits text[start, end) (at most 8), or -1 when a character is not a hex digit. */
function hexWord(text: string, start: number, end: number): number {
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 65 && c <= 70) d = c - 55;
    else if (c >= 97 && c <= 102) d = c - 87;
    else return -1;
    v = (v << 4) | d;
  }
  return v >>> 0;
}

function hex(hi: number, lo: number, fmt: FpFormat): string {
  if (fmt.W > 32) return (hi >>> 0).toString(16).toUpperCase().padStart(8, '0') + (lo >>> 0).toString(16).toUpperCase().padStart(8, '0');
  return (lo >>> 0).toString(16).toUpperCase().padStart(fmt.W / 4, '0');
}

/**
 * Replays every case of `text` (the decompressed file) and counts passes and failures.
 * Throws TestFloatFormatError naming the line of the first malformed case.
 */
export function runTestFloat(text: string, opts: TestFloatOptions): TestFloatResult {
  if (!TESTFLOAT_OPS.includes(opts.op)) throw new RangeError(`unknown TestFloat op '${String(opts.op)}' (add or mul)`);
  if (!TESTFLOAT_TYPES.includes(opts.type)) throw new RangeError(`unknown TestFloat type '${String(opts.type)}' (${TESTFLOAT_TYPES.join(', ')})`);
  if (!TESTFLOAT_ROUNDINGS.includes(opts.rounding)) throw new RangeError(`unknown TestFloat rounding '${String(opts.rounding)}' (rne, rtz, rdn or rup)`);
  const fmt = formatOf(opts.type);
  const mode = modeWord(opts.rounding, false);
  const digits = fmt.W / 4;
  const keep = opts.maxMismatches ?? 10;
  const isMul = opts.op === 'mul';
  const out = new Uint32Array(3);
  const words = new Uint32Array(6); // aHi aLo bHi bLo rHi rLo of the current line
  const res: TestFloatResult = { cases: 0, passed: 0, failed: 0, mismatches: [] };
  let pos = 0;
  let lineNo = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    lineNo++;
    let lineEnd = end;
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    const lineStart = pos;
    pos = end + 1;
    // fields
    let p = lineStart;
    while (p < lineEnd && (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9)) p++;
    if (p === lineEnd) continue; // blank line
    let flags = -1;
    for (let f = 0; f < 4; f++) {
      let q = p;
      while (q < lineEnd && text.charCodeAt(q) !== 32 && text.charCodeAt(q) !== 9) q++;
      const len = q - p;
      const what = f === 0 ? 'operand A' : f === 1 ? 'operand B' : f === 2 ? 'result' : 'flags';
      if (len === 0) throw new TestFloatFormatError(lineNo, `expected 4 fields 'A B RESULT FLAGS', missing ${what}`);
      if (f < 3) {
        if (len !== digits) throw new TestFloatFormatError(lineNo, `${what} '${text.slice(p, q)}' should be ${digits} hex digits for ${fmt.name}`);
        let hi = 0;
        let lo: number;
        if (digits > 8) {
          hi = hexWord(text, p, p + 8);
          lo = hexWord(text, p + 8, q);
        } else lo = hexWord(text, p, q);
        if (hi < 0 || lo < 0) throw new TestFloatFormatError(lineNo, `${what} '${text.slice(p, q)}' is not hexadecimal`);
        words[2 * f] = hi;
        words[2 * f + 1] = lo;
      } else {
        flags = len <= 2 ? hexWord(text, p, q) : -1;
        if (flags < 0) throw new TestFloatFormatError(lineNo, `flags '${text.slice(p, q)}' is not a hex byte`);
      }
      p = q;
      while (p < lineEnd && (text.charCodeAt(p) === 32 || text.charCodeAt(p) === 9)) p++;
    }
    if (p !== lineEnd) throw new TestFloatFormatError(lineNo, `unexpected text after the flags: '${text.slice(p, lineEnd)}'`);
    const aHi = words[0]!, aLo = words[1]!, bHi = words[2]!, bLo = words[3]!, rHi = words[4]!, rLo = words[5]!;
    const got = isMul ? fpMul(fmt, aHi, aLo, bHi, bLo, mode, 0, out) : fpAdd(fmt, aHi, aLo, bHi, bLo, mode, 0, out);
    const gHi = out[0]!;
    const gLo = out[1]!;
    res.cases++;
    const valueOk = isNaNBits(fmt, rHi, rLo) ? isNaNBits(fmt, gHi, gLo) : gHi === rHi && gLo === rLo;
    if (valueOk && got === flags) res.passed++;
    else {
      res.failed++;
      if (res.mismatches.length < keep) {
        res.mismatches.push({
          line: lineNo,
          a: hex(aHi, aLo, fmt),
          b: hex(bHi, bLo, fmt),
          expected: hex(rHi, rLo, fmt),
          expectedFlags: flags.toString(16).padStart(2, '0'),
          got: hex(gHi, gLo, fmt),
          gotFlags: got.toString(16).padStart(2, '0'),
        });
      }
    }
  }
  return res;
}
