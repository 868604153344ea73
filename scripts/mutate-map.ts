/**
 * Mutation testing (issue 19), the pure part: which test files check which source files, how the
 * files of a run are grouped into blocks, and the score of a file from Stryker's JSON report.
 */

/**
 * Source folder (or file) prefix -> the test files that check it. The longest matching prefix wins.
 * A run over one block runs only its tests; per-test coverage then narrows each mutant to the
 * tests that execute it.
 */
const tests = (...dirs: string[]): readonly string[] => dirs.map((d) => `testbench/${d}/**/*.test.ts`);
const KERNEL = tests('kernel');
const NIC = tests('nic');
const NICFE = tests('nicfe');
const ALU = tests('sharp/alu', 'models');
/**
 * The ATC's own tests (unit, strength, concurrency, race and golden vectors): its code is also run
 * by every NIC test that builds a memory path (RDMA, queues, memory checker), which would make each
 * of its ~1,000 mutants cost minutes; those tests check the ATC only through other blocks.
 */
const ATC = ['testbench/nic/**/atc*.test.ts', 'testbench/nic/**/vectors.test.ts'] as const;

/** Gemini's tests without its CLI tests (experiment tables, 22 s, which check the block only through whole runs). */
const GEMINI = ['amo', 'call-memory', 'fabric', 'linearizability', 'transfer-input', 'vectors'].map((n) => `testbench/gemini/**/${n}*.test.ts`);
/** CORE-Direct's own tests (see TEST_MAP). */
const CORE_DIRECT = ['mwr', 'tables', 'vectors', 'host-cost', 'coredirect-'].map((n) => `testbench/coredirect/**/${n}*.test.ts`);
const CORE_DIRECT_PARTS = ['coredirect-parts', 'mwr', 'tables'].map((n) => `testbench/coredirect/**/${n}*.test.ts`);

export const TEST_MAP: readonly (readonly [string, readonly string[]])[] = [
  ['rtl/kernel/', KERNEL],
  ['rtl/examples/', KERNEL],
  ...['rtl/nic/atc/', 'models/nic/atcModel.ts', 'models/nic/atcCycleModel.ts', 'models/nic/cacheModel.ts', 'models/nic/missModel.ts'].map((p) => [p, ATC] as const),
  ...['rtl/nic/memcheck/', 'models/nic/memcheckModel.ts'].map((p) => [p, NIC] as const),
  // NIC blocks whose tests live in testbench/nic/ (the front end's are in testbench/nicfe/)
  ['rtl/nic/pcie/readMux.ts', ['testbench/nic/**/readMux*.test.ts']],
  ['rtl/nic/coll/', ['testbench/nic/**/coll*.test.ts']],
  // the reliable end-to-end layer against its direct tests (E2eTx/E2eRx alone on a link, e2e-*.test.ts);
  // the two-NIC model-based test (e2e.test.ts) also covers nearly every mutant, about 8 s each
  ['rtl/nic/e2e/', ['testbench/nic/**/e2e-*.test.ts']],
  ['rtl/nic/link/', ['testbench/nic/**/link*.test.ts']],
  // the descriptor codec's own tests (golden decoder, vectors); the rest of testbench/nicfe/ (PCIe,
  // HDQ, VP registers, CLI) runs its code only to build descriptors for other blocks
  ['rtl/nic/desc/', ['testbench/nicfe/**/desc*.test.ts']],
  ['rtl/nic/queues/', ['testbench/nic/**/queue*.test.ts']],
  ['rtl/nic/', NICFE],
  ['models/nic/', NICFE],
  ['rtl/sharp/alu/', ALU],
  ['models/alu/', ALU],
  // the RI5CY core against the tests that run it directly, and its waveform (the sPIN tests also run it, minutes per mutant)
  ['rtl/hpu/core/ri5cy.ts', ['testbench/hpu/**/ri5cy*.test.ts', 'testbench/hpu/**/core.test.ts', 'testbench/hpu/**/random.test.ts', 'testbench/hpu/**/riscv-tests.test.ts', 'testbench/hpu/**/waveform.test.ts']],
  ['models/spin/', tests('hpu')],
  // CORE-Direct against the tests that drive its task machine, posting rule and host directly; the
  // CLI tests (experiments, seconds a run) and the random cluster properties (up to 1,024 ranks, 9 s)
  // check it only through whole-cluster runs
  ...['rtl/coredirect/', 'models/coredirect/'].map((p) => [p, CORE_DIRECT] as const),
  // the driver, barrier generator, work queue and pending arbiter against their unit tests (the
  // strength test's golden schedule, goldenReject and list/round-robin models, the posting rule
  // against goldenPost, the seed's tables): the vectors and host tests cost ~11 s a mutant
  ...['driver', 'barrier', 'workQueue', 'pendingArbiter'].map((f) => [`rtl/coredirect/${f}.ts`, CORE_DIRECT_PARTS] as const),
  ...['rtl/gemini/', 'models/gemini/'].map((p) => [p, GEMINI] as const),
  ...['sharp', 'hpu'].flatMap((b) => [[`rtl/${b}/`, tests(b)] as const, [`models/${b}/`, tests(b)] as const]),
];

/** The TEST_MAP entry of a repository-relative source path (longest prefix), or undefined. */
function entryFor(path: string): readonly [string, readonly string[]] | undefined {
  let best: readonly [string, readonly string[]] | undefined;
  for (const e of TEST_MAP) if (path.startsWith(e[0]) && (best === undefined || e[0].length > best[0].length)) best = e;
  return best;
}

/** The test globs of a repository-relative source path, or undefined when no prefix maps it. */
export function testsFor(path: string): readonly string[] | undefined {
  return entryFor(path)?.[1];
}

/** A block: the files of one source folder, mutated in one Stryker run against one set of tests. */
export interface MutationGroup {
  /** the source folder, e.g. "rtl/nic/atc" */
  folder: string;
  /** file-system-safe name, e.g. "rtl-nic-atc" (report folder and incremental file); a file mapped on its own: e.g. "rtl-nic-pcie-readMux" */
  name: string;
  files: string[];
  tests: readonly string[];
}

/** Groups source files by folder, in sorted order; throws naming a file no prefix maps. */
export function groupFiles(paths: readonly string[]): MutationGroup[] {
  const groups = new Map<string, MutationGroup>();
  for (const p of [...paths].sort()) {
    const e = entryFor(p);
    if (e === undefined) throw new Error(`${p}: no test folder is mapped to this file (add its folder to TEST_MAP in scripts/mutate-map.ts)`);
    const tests = e[1];
    const folder = p.slice(0, Math.max(0, p.lastIndexOf('/')));
    // a file mapped on its own (its own tests) is its own block, with its own report and incremental file
    const name = (e[0].endsWith('.ts') ? e[0].slice(0, -3) : folder).replace(/\//g, '-');
    const key = `${name}|${tests.join(',')}`;
    let g = groups.get(key);
    if (!g) {
      g = { folder, name, files: [], tests };
      groups.set(key, g);
    }
    g.files.push(p);
  }
  return [...groups.values()];
}

/** Stryker's mutant statuses (mutation-testing-report-schema). */
export type MutantStatus = 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';

export interface FileScore {
  path: string;
  mutants: number;
  /** killed or timed out */
  detected: number;
  survived: number;
  noCoverage: number;
  /** ignored (a documented equivalent mutant) or not valid (compile or runtime error) */
  excluded: number;
  /** detected / (detected + survived + no coverage), in percent; null for a file without valid mutants */
  score: number | null;
}

/** The score of each file of a Stryker JSON report (`files: { path: { mutants: [{ status }] } }`). */
export function scoresOf(report: { files: Record<string, { mutants: readonly { status: string }[] }> }): FileScore[] {
  return Object.entries(report.files)
    .map(([path, f]) => {
      let detected = 0;
      let survived = 0;
      let noCoverage = 0;
      let excluded = 0;
      for (const m of f.mutants) {
        if (m.status === 'Killed' || m.status === 'Timeout') detected++;
        else if (m.status === 'Survived') survived++;
        else if (m.status === 'NoCoverage') noCoverage++;
        else excluded++;
      }
      const valid = detected + survived + noCoverage;
      return { path, mutants: f.mutants.length, detected, survived, noCoverage, excluded, score: valid === 0 ? null : (100 * detected) / valid };
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}

/** "rtl/nic/atc/atc.ts  84.3 %  (301 of 357 killed or timed out; 50 survived, 6 no coverage, 2 excluded)" */
export function scoreLine(s: FileScore, width = 0): string {
  const head = s.path.padEnd(width);
  if (s.score === null) return `${head}  no mutants${s.excluded > 0 ? ` (${s.excluded} excluded)` : ''}`;
  return `${head}  ${s.score.toFixed(1).padStart(5)} %  (${s.detected} of ${s.detected + s.survived + s.noCoverage} killed or timed out; ${s.survived} survived, ${s.noCoverage} no coverage, ${s.excluded} excluded)`;
}

interface ReportMutant {
  status: string;
  mutatorName?: string;
  replacement?: string;
  location?: { start: { line: number; column: number }; end: { line: number; column: number } };
}

/** "path:line:column Mutator: original -> replacement (Status)" for every surviving or uncovered mutant */
export function survivorLines(report: { files: Record<string, { source?: string; mutants: readonly ReportMutant[] }> }): string[] {
  const out: string[] = [];
  for (const [path, f] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const lines = (f.source ?? '').split('\n');
    for (const m of f.mutants) {
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue;
      const l = m.location;
      let original = '';
      if (l && l.start.line === l.end.line) original = (lines[l.start.line - 1] ?? '').slice(l.start.column - 1, l.end.column - 1);
      else if (l) original = `${(lines[l.start.line - 1] ?? '').slice(l.start.column - 1).trim()} ...`;
      const oneLine = (x: string): string => x.replace(/\s+/g, ' ').slice(0, 100);
      out.push(`${path}:${l?.start.line ?? '?'}:${l?.start.column ?? '?'} ${m.mutatorName ?? '?'}: ${oneLine(original)} -> ${oneLine(m.replacement ?? '')} (${m.status})`);
    }
  }
  return out;
}
