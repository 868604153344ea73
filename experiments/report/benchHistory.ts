/**
 * The benchmark history: every committed revision of bench/results.json (`npm run bench` writes
 * it; git keeps its history), plus the working copy when it differs from the last commit. Plots:
 * each figure that has a target as a ratio to its target (latest revision), and per suite the
 * rate figures over the revisions.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../../rtl/kernel/errors.ts';
import type { Plot, PlotRow } from './plot.ts';

export interface BenchFigure {
  key: string;
  label: string;
  value: number;
  unit: string;
  target?: { op: '>=' | '<='; value: number };
}

export interface BenchRevision {
  /** short commit hash, or 'working copy' */
  label: string;
  suites: Record<string, BenchFigure[]>;
}

const FILE = 'bench/results.json';

/** The figures of one results.json text; `where` names it in errors. */
export function parseBenchResults(text: string, where: string): Record<string, BenchFigure[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError(`${where}: not JSON (${(e as Error).message})`);
  }
  const suites = (doc as { suites?: unknown }).suites;
  if (typeof suites !== 'object' || suites === null) throw new InputError(`${where}: no "suites" object`);
  const out: Record<string, BenchFigure[]> = {};
  for (const [name, rows] of Object.entries(suites as Record<string, unknown>)) {
    if (!Array.isArray(rows)) throw new InputError(`${where}: suite ${name} is not a list`);
    out[name] = rows.map((r: Partial<BenchFigure>, i) => {
      if (typeof r.key !== 'string' || typeof r.value !== 'number' || !Number.isFinite(r.value) || typeof r.unit !== 'string') throw new InputError(`${where}: suite ${name} figure ${i} needs a string key, a finite number value and a string unit`);
      return { key: r.key, label: typeof r.label === 'string' ? r.label : r.key, value: r.value, unit: r.unit, ...(r.target && (r.target.op === '>=' || r.target.op === '<=') && typeof r.target.value === 'number' ? { target: r.target } : {}) };
    });
  }
  return out;
}

/** Revisions of bench/results.json under `root`, oldest first (only the working copy if git has no history for it). */
export function readBenchRevisions(root: string): BenchRevision[] {
  const path = join(root, FILE);
  if (!existsSync(path)) throw new InputError(`${path}: missing (npm run bench writes it)`);
  const work = readFileSync(path, 'utf8');
  let commits: string[] = [];
  try {
    commits = execFileSync('git', ['log', '--reverse', '--format=%h', '--', FILE], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter((l) => l !== '');
  } catch {
    commits = [];
  }
  const out: BenchRevision[] = [];
  let last = '';
  for (const c of commits) {
    last = execFileSync('git', ['show', `${c}:${FILE}`], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
    out.push({ label: c, suites: parseBenchResults(last, `${FILE} at ${c}`) });
  }
  if (work !== last) out.push({ label: 'working copy', suites: parseBenchResults(work, path) });
  return out;
}

const isRate = (unit: string): boolean => /\/s$/.test(unit.trim());

/** How far a figure is past its target: value / target for '>=', target / value for '<=' (1 = exactly on target, above 1 = met). */
export function targetRatio(f: BenchFigure): number {
  const t = f.target!;
  return t.op === '>=' ? f.value / t.value : t.value / f.value;
}

export function benchPlots(revisions: readonly BenchRevision[]): Plot[] {
  if (revisions.length === 0) return [];
  const section = 'Benchmarks (bench/results.json)';
  const latest = revisions[revisions.length - 1]!;
  const legend = revisions.map((r, i) => `${i + 1} = ${r.label}`).join(', ');
  const targets = Object.values(latest.suites).flat().filter((f) => f.target !== undefined);
  const plots: Plot[] = [
    {
      id: 'bench-targets',
      section,
      title: 'Benchmark figures against their targets (latest revision)',
      caption: `Each figure that has a target (${targets.length}), as a ratio to it: figure / target for a minimum, target / figure for a maximum, so 1 is on target and above 1 meets it. Revision ${latest.label}.`,
      command: 'npm run bench (writes bench/results.json); netoffload report plot bench-targets',
      kind: 'bars',
      xTitle: 'figure',
      yTitle: 'ratio to target (log scale; >= 1 met)',
      yLog: true,
      seriesTitle: 'verdict',
      xOrder: targets.map((f) => f.key),
      rows: targets.map((f) => ({ x: f.key, y: targetRatio(f), series: targetRatio(f) >= 1 ? 'meets target' : 'misses target' })),
    },
  ];
  for (const suite of Object.keys(latest.suites)) {
    const keys = latest.suites[suite]!.filter((f) => isRate(f.unit));
    if (keys.length === 0) continue;
    const rows: PlotRow[] = [];
    for (const k of keys)
      revisions.forEach((rev, i) => {
        const f = rev.suites[suite]?.find((x) => x.key === k.key);
        if (f !== undefined && f.value > 0) rows.push({ x: i + 1, y: f.value, series: `${k.key.slice(suite.length + 1)} (${k.unit.trim()})` });
      });
    plots.push({
      id: `bench-${suite}`,
      section,
      title: `Benchmark history: suite ${suite} (rates)`,
      caption: `Medians of the suite's rate figures (per wall-clock second; each figure's unit in the legend) at each revision of bench/results.json (revisions: ${legend}).`,
      command: `npm run bench (writes bench/results.json); netoffload report plot bench-${suite}`,
      kind: 'lines',
      xTitle: 'revision of bench/results.json (number)',
      xInteger: true,
      yTitle: 'rate (per second, log scale)',
      yLog: true,
      seriesTitle: 'figure (unit)',
      rows,
    });
  }
  return plots;
}
