/**
 * `npm run mutate -- [options] [PATH ...]`: mutation testing with StrykerJS (issue 19, see
 * docs/verification.md). Mutates the named files or folders (default: every .ts file of rtl/ and
 * models/), one block (source folder) at a time, each against the tests mapped to it
 * (scripts/mutate-map.ts) with per-test coverage; writes out/mutation/<block>/mutation.html,
 * mutation.json and survivors.txt (one line per surviving mutant), out/mutation/summary.json,
 * and prints one score line per file.
 *
 * Options:
 *   --min PCT            fail (exit 1) if any file scores below PCT (default 85)
 *   --incremental        reuse the committed results in stryker/incremental/<block>.json for
 *                        mutants and tests that did not change (and update the file)
 *   --changed            only the files of rtl/ and models/ changed since the last commit
 *                        that changed stryker/measured.json (nothing to do: exit 0)
 *   --measured-only      with --changed: only files that have a score in stryker/measured.json
 *                        (the others are listed as not yet measured; CI uses this, since a
 *                        first full run of a large block takes far longer than a CI step)
 *   --record             (implies --incremental) store the scores, the date and HEAD in stryker/measured.json (commit
 *                        it with the tests it measured: that commit is the new baseline)
 *   --plan               print the blocks, files and test globs, run nothing
 * Exit: 0 all at or above --min, 1 a file below it or a Stryker run failed, 2 bad usage.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type FileScore, groupFiles, type MutationGroup, scoreLine, scoresOf, survivorLines } from './mutate-map.ts';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = 'out/mutation';
const MEASURED = 'stryker/measured.json';

class Usage extends Error {}

interface Options {
  min: number;
  incremental: boolean;
  changed: boolean;
  record: boolean;
  measuredOnly: boolean;
  plan: boolean;
  paths: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { min: 85, incremental: false, changed: false, record: false, measuredOnly: false, plan: false, paths: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--min') {
      const v = argv[++i];
      if (v === undefined || !/^\d+(\.\d+)?$/.test(v) || Number(v) > 100) throw new Usage(`--min: '${v ?? ''}' is not a percentage in [0, 100]`);
      o.min = Number(v);
    } else if (a === '--incremental') o.incremental = true;
    else if (a === '--changed') o.changed = true;
    else if (a === '--record') o.record = o.incremental = true;
    else if (a === '--measured-only') o.measuredOnly = true;
    else if (a === '--plan') o.plan = true;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]!.replace(/^\/\*\*\n/, '').replace(/^ \* ?/gm, '') + '\n');
      process.exit(0);
    } else if (a.startsWith('-')) throw new Usage(`unknown option '${a}' (options: --min PCT, --incremental, --changed, --measured-only, --record, --plan)`);
    else o.paths.push(a);
  }
  if (o.changed && o.paths.length > 0) throw new Usage('--changed picks the files itself: give no PATH with it');
  if (o.measuredOnly && !o.changed) throw new Usage('--measured-only goes with --changed');
  return o;
}

/** every .ts file under `dir` (repository-relative), sorted */
function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir)).sort()) {
    const p = `${dir}/${name}`;
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function sourceFiles(paths: readonly string[]): string[] {
  const files = new Set<string>();
  for (const raw of paths.length > 0 ? paths : ['rtl', 'models']) {
    const p = relative(ROOT, resolve(raw)).replace(/\\/g, '/');
    if (!existsSync(join(ROOT, p))) throw new Usage(`${raw}: no such file or folder`);
    if (!(p === 'rtl' || p === 'models' || p.startsWith('rtl/') || p.startsWith('models/'))) throw new Usage(`${raw}: mutation testing covers rtl/ and models/ only`);
    if (statSync(join(ROOT, p)).isDirectory()) for (const f of tsFiles(p)) files.add(f);
    else if (p.endsWith('.ts')) files.add(p);
    else throw new Usage(`${raw}: not a TypeScript file`);
  }
  return [...files];
}

function git(args: string[]): string {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

interface Measured {
  commit: string;
  date: string;
  files: Record<string, FileScore>;
}

function readMeasured(): Measured | null {
  if (!existsSync(join(ROOT, MEASURED))) return null;
  return JSON.parse(readFileSync(join(ROOT, MEASURED), 'utf8')) as Measured;
}

/**
 * rtl/ and models/ .ts files added or modified (working tree included) since the last measured
 * commit: the last commit that changed stryker/measured.json (robust to rebases, unlike a hash
 * stored in the file).
 */
function changedFiles(): string[] {
  if (!existsSync(join(ROOT, MEASURED))) throw new Usage(`--changed: ${MEASURED} does not exist yet (run npm run mutate -- --record once)`);
  const base = git(['log', '-1', '--format=%H', '--', MEASURED]);
  if (base === '') throw new Usage(`--changed: ${MEASURED} is not committed yet, so there is no measured commit`);
  process.stdout.write(`mutate: files changed since ${base.slice(0, 10)} (the last commit of ${MEASURED})\n`);
  const names = git(['diff', '--name-only', '--diff-filter=AMR', base, '--', 'rtl', 'models']).split('\n');
  return names.filter((n) => n.endsWith('.ts') && existsSync(join(ROOT, n)));
}

/** the files with a score in stryker/measured.json; the others are named on stdout */
function onlyMeasured(files: string[]): string[] {
  const m = readMeasured();
  const known = files.filter((f) => m !== null && f in m.files);
  const other = files.filter((f) => !known.includes(f));
  if (other.length > 0) process.stdout.write(`mutate: changed but not yet measured (run npm run mutate -- PATH --record): ${other.join(', ')}\n`);
  return known;
}

function runGroup(g: MutationGroup, o: Options): FileScore[] {
  const dir = `${OUT}/${g.name}`;
  mkdirSync(join(ROOT, dir), { recursive: true });
  mkdirSync(join(ROOT, 'stryker/incremental'), { recursive: true });
  const config = {
    mutate: g.files,
    htmlReporter: { fileName: `${dir}/mutation.html` },
    jsonReporter: { fileName: `${dir}/mutation.json` },
    incremental: o.incremental,
    incrementalFile: `stryker/incremental/${g.name}.json`,
  };
  // the base configuration plus this block's files and report paths
  const cfgFile = join(ROOT, dir, 'stryker.config.mjs');
  writeFileSync(cfgFile, `import base from '../../../stryker.config.mjs';\nexport default { ...base, ...${JSON.stringify(config, null, 2)} };\n`);
  const t0 = Date.now();
  process.stdout.write(`== ${g.folder}: ${g.files.length} file(s) against ${g.tests.join(', ')}\n`);
  const r = spawnSync(join(ROOT, 'node_modules/.bin/stryker'), ['run', cfgFile], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, MUTATE_TESTS: g.tests.join(',') } });
  if (r.status !== 0) throw new Error(`stryker failed on ${g.folder} (exit ${r.status ?? r.signal}); see the log above`);
  const report = JSON.parse(readFileSync(join(ROOT, dir, 'mutation.json'), 'utf8')) as Parameters<typeof scoresOf>[0];
  // with --incremental the report also holds the earlier results of the block's other files
  // (Stryker keeps mutants outside the mutated files untested): score only the files of this run
  const scores = scoresOf(report).filter((s) => g.files.includes(s.path));
  const survivors = survivorLines(report as Parameters<typeof survivorLines>[0]);
  writeFileSync(join(ROOT, dir, 'survivors.txt'), survivors.map((l) => `${l}\n`).join(''));
  process.stdout.write(`   ${g.folder}: ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  return scores;
}

function main(): number {
  let o: Options;
  let groups: MutationGroup[];
  try {
    o = parseArgs(process.argv.slice(2));
    const files = o.changed ? (o.measuredOnly ? onlyMeasured(changedFiles()) : changedFiles()) : sourceFiles(o.paths);
    groups = groupFiles(files);
  } catch (e) {
    if (e instanceof Usage || (e instanceof Error && /no test folder is mapped/.test(e.message))) {
      process.stderr.write(`mutate: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (groups.length === 0) {
    process.stdout.write('mutate: no rtl/ or models/ file to mutate\n');
    return 0;
  }
  if (o.plan) {
    for (const g of groups) process.stdout.write(`${g.folder} (${g.tests.join(', ')}):\n${g.files.map((f) => `  ${f}\n`).join('')}`);
    return 0;
  }
  const t0 = Date.now();
  const all: FileScore[] = [];
  for (const g of groups) all.push(...runGroup(g, o));
  const summaryPath = join(ROOT, OUT, 'summary.json');
  const summary: Record<string, FileScore> = existsSync(summaryPath) ? (JSON.parse(readFileSync(summaryPath, 'utf8')) as Record<string, FileScore>) : {};
  for (const s of all) summary[s.path] = s;
  writeFileSync(summaryPath, JSON.stringify(summary, null, 2) + '\n');
  const width = Math.max(...all.map((s) => s.path.length));
  process.stdout.write('\nmutation score per file (killed or timed out / valid mutants):\n');
  for (const s of all) process.stdout.write(`${scoreLine(s, width)}${s.score !== null && s.score < o.min ? `  BELOW ${o.min} %` : ''}\n`);
  process.stdout.write(`total time ${((Date.now() - t0) / 1000).toFixed(0)} s; reports in ${OUT}/<block>/mutation.html\n`);
  if (o.record) {
    const prev = readMeasured();
    const m: Measured = { commit: git(['rev-parse', 'HEAD']), date: new Date().toISOString().slice(0, 10), files: { ...(prev?.files ?? {}) } };
    for (const s of all) m.files[s.path] = s;
    writeFileSync(join(ROOT, MEASURED), JSON.stringify(m, null, 2) + '\n');
    process.stdout.write(`recorded in ${MEASURED} (commit ${m.commit.slice(0, 10)})\n`);
  }
  const below = all.filter((s) => s.score !== null && s.score < o.min);
  if (below.length > 0) {
    process.stdout.write(`${below.length} file(s) below ${o.min} %: ${below.map((s) => s.path).join(', ')}\n`);
    return 1;
  }
  return 0;
}

try {
  process.exitCode = main();
} catch (e) {
  process.stderr.write(`mutate: ${(e as Error).message}\n`);
  process.exitCode = 1;
}
