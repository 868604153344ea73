/**
 * The mutation-testing map (scripts/mutate-map.ts, issue 19): every rtl/ and models/ file has test
 * files mapped to it and they exist, blocks are source folders, and scores count as Stryker does.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupFiles, scoreLine, scoresOf, survivorLines, TEST_MAP, testsFor } from '../../scripts/mutate-map.ts';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((n) => {
    const p = `${dir}/${n}`;
    return statSync(join(ROOT, p)).isDirectory() ? tsFiles(p) : n.endsWith('.ts') ? [p] : [];
  });
}

describe('mutation map', () => {
  it('every rtl/ and models/ file is mapped to a test folder that holds tests', () => {
    const files = [...tsFiles('rtl'), ...tsFiles('models')];
    expect(files.length).toBeGreaterThan(50);
    for (const f of files) {
      const globs = testsFor(f);
      expect(globs, f).toBeDefined();
      for (const g of globs!) {
        const dir = g.slice(0, g.indexOf('/**'));
        expect(tsFiles(dir).some((t) => t.endsWith('.test.ts')), `${f} -> ${g}`).toBe(true);
      }
    }
    for (const [prefix] of TEST_MAP) expect(files.some((f) => f.startsWith(prefix)), `${prefix} maps no file`).toBe(true);
  });

  it('the longest prefix wins and blocks are source folders', () => {
    expect(testsFor('rtl/nic/atc/atc.ts')).toEqual(['testbench/nic/**/atc*.test.ts', 'testbench/nic/**/vectors.test.ts']);
    expect(testsFor('rtl/nic/memcheck/memchecker.ts')).toEqual(['testbench/nic/**/*.test.ts']);
    expect(testsFor('rtl/nic/pcie/link.ts')).toEqual(['testbench/nicfe/**/*.test.ts']);
    expect(testsFor('models/nic/memcheckModel.ts')).toEqual(['testbench/nic/**/*.test.ts']);
    expect(testsFor('models/nic/pcieModel.ts')).toEqual(['testbench/nicfe/**/*.test.ts']);
    expect(testsFor('rtl/nic/link/link.ts')).toEqual(['testbench/nic/**/link*.test.ts']);
    // the end-to-end layer against its direct tests only (not the two-NIC model-based e2e.test.ts)
    expect(testsFor('rtl/nic/e2e/e2eTx.ts')).toEqual(['testbench/nic/**/e2e-*.test.ts']);
    expect(testsFor('rtl/nic/desc/decode.ts')).toEqual(['testbench/nicfe/**/desc*.test.ts']);
    expect(testsFor('rtl/sharp/alu/x.ts')).toContain('testbench/models/**/*.test.ts');
    // CORE-Direct: its own direct tests, not the CLI's experiments or the whole-cluster properties
    const cd = ['mwr', 'tables', 'vectors', 'host-cost', 'coredirect-'].map((n) => `testbench/coredirect/**/${n}*.test.ts`);
    expect(testsFor('rtl/coredirect/hca.ts')).toEqual(cd);
    expect(testsFor('models/coredirect/golden.ts')).toEqual(cd);
    expect(testsFor('rtl/coredirect/workQueue.ts')).toEqual(['coredirect-parts', 'mwr', 'tables'].map((n) => `testbench/coredirect/**/${n}*.test.ts`));
    expect(groupFiles(['rtl/coredirect/driver.ts', 'rtl/coredirect/hca.ts']).map((x) => x.name)).toEqual(['rtl-coredirect-driver', 'rtl-coredirect']);
    // Gemini: every test file but the CLI's
    expect(testsFor('rtl/gemini/nic.ts')).toEqual(['amo', 'call-memory', 'fabric', 'linearizability', 'transfer-input', 'vectors'].map((n) => `testbench/gemini/**/${n}*.test.ts`));
    expect(testsFor('models/gemini/amoModel.ts')).toEqual(testsFor('rtl/gemini/amo/alu.ts'));
    expect(testsFor('cli/main.ts')).toBeUndefined();
    const g = groupFiles(['rtl/nic/atc/mshr.ts', 'rtl/kernel/reg.ts', 'rtl/nic/atc/atc.ts']);
    expect(g.map((x) => [x.name, x.files])).toEqual([
      ['rtl-kernel', ['rtl/kernel/reg.ts']],
      ['rtl-nic-atc', ['rtl/nic/atc/atc.ts', 'rtl/nic/atc/mshr.ts']],
    ]);
    // a file with its own tests is its own block (own report and incremental file), apart from its folder's
    const h = groupFiles(['rtl/nic/pcie/link.ts', 'rtl/nic/pcie/readMux.ts']);
    expect(h.map((x) => [x.name, x.folder, x.files, x.tests])).toEqual([
      ['rtl-nic-pcie', 'rtl/nic/pcie', ['rtl/nic/pcie/link.ts'], ['testbench/nicfe/**/*.test.ts']],
      ['rtl-nic-pcie-readMux', 'rtl/nic/pcie', ['rtl/nic/pcie/readMux.ts'], ['testbench/nic/**/readMux*.test.ts']],
    ]);
    expect(() => groupFiles(['cli/main.ts'])).toThrow(/cli\/main.ts: no test folder is mapped/);
  });

  it('score = killed or timed out over killed, timed out, survived and not covered', () => {
    const st = (...s: string[]) => ({ mutants: s.map((status) => ({ status })) });
    const [a, b] = scoresOf({ files: { 'b.ts': st('Ignored', 'CompileError'), 'a.ts': st('Killed', 'Timeout', 'Survived', 'NoCoverage', 'Ignored', 'RuntimeError', 'Killed') } });
    expect(a).toEqual({ path: 'a.ts', mutants: 7, detected: 3, survived: 1, noCoverage: 1, excluded: 2, score: 60 });
    expect(b!.score).toBeNull();
    expect(scoreLine(a!)).toBe('a.ts   60.0 %  (3 of 5 killed or timed out; 1 survived, 1 no coverage, 2 excluded)');
    expect(scoreLine(b!)).toBe('b.ts  no mutants (2 excluded)');
  });

  it('survivor lines name the place, the mutator and the change, for survived and uncovered mutants only', () => {
    const loc = (line: number, c0: number, c1: number) => ({ start: { line, column: c0 }, end: { line, column: c1 } });
    const report = {
      files: {
        'x.ts': {
          source: 'const a = 1;\nif (x < a) y++;\n',
          mutants: [
            { status: 'Survived', mutatorName: 'EqualityOperator', replacement: 'x <= a', location: loc(2, 5, 10) },
            { status: 'Killed', mutatorName: 'EqualityOperator', replacement: 'x > a', location: loc(2, 5, 10) },
            { status: 'NoCoverage', mutatorName: 'UpdateOperator', replacement: 'y--', location: loc(2, 12, 15) },
          ],
        },
      },
    };
    expect(survivorLines(report)).toEqual(['x.ts:2:5 EqualityOperator: x < a -> x <= a (Survived)', 'x.ts:2:12 UpdateOperator: y++ -> y-- (NoCoverage)']);
  });
});
