/**
 * `netoffload report`: one self-contained HTML page with Vega-Lite plots of every calibration
 * against the papers, the ATC sweep, latency distributions and the benchmark history, and the
 * data of every plot next to it (experiments/report/). `netoffload report plot ID`: the numbers of
 * one plot.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bool, type CommandIO, type CommandSpec, type FlagValues, str, UsageError } from '../args.ts';
import { startProgress } from '../progress.ts';
import { readBenchRevisions } from '../../experiments/report/benchHistory.ts';
import { buildReport } from '../../experiments/report/build.ts';
import type { ReportOptions } from '../../experiments/report/options.ts';
import { buildPlots, plotIds, SECTIONS } from '../../experiments/report/sections.ts';

/** the repository (bench/results.json and its git history), wherever the command is run from */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const QUICK = { name: 'quick', type: 'bool' as const, help: 'smaller runs (fewer requests, packets and sizes; each caption names its exact command): about a minute' };

/** Options of a report run, with a progress display over its sections. */
function reportOptions(f: FlagValues, io: CommandIO, label: string, sections: number): { o: ReportOptions; stop: () => void } {
  const p = startProgress(io, { label, total: sections, unit: 'sections' });
  return { o: { quick: bool(f, 'quick'), bench: readBenchRevisions(ROOT), onSection: (done) => p.update(done) }, stop: () => p.stop() };
}

/** Create the output directory (--out was checked before the run: a directory, or creatable). */
function outDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`--out ${dir}: cannot create it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

export const commands: CommandSpec[] = [
  {
    path: ['report'],
    summary: 'a self-contained HTML report: calibrations against the papers, ATC sweep, latency histograms, benchmark history',
    details: `
Runs the experiments behind sharp table, nic desc, nic rdma, spin table, coredirect barrier,
gemini table and atc sweep (the same functions those commands call), two latency distributions
(SHArP allreduce calls, sPIN packets) and reads the history of bench/results.json (git), then
renders every plot to SVG with Vega-Lite in Node and writes DIR/report.html (one file: inline
style, SVGs and data; opens offline in any browser) and DIR/report-data.json (every plot's rows:
one point or bar per row). Each caption names the command that prints the same numbers. The same
tree and flags give a byte-identical page. scripts/report-check.ts checks it in headless Chromium.`,
    flags: [{ name: 'out', type: 'string', default: 'out/report', output: 'dir', help: 'directory to write report.html and report-data.json into' }, QUICK],
    async run(f, io) {
      const dir = str(f, 'out');
      outDir(dir);
      const { o, stop } = reportOptions(f, io, 'report', SECTIONS.length);
      let r;
      try {
        r = await buildReport(o);
      } finally {
        stop();
      }
      const html = join(dir, 'report.html');
      const data = join(dir, 'report-data.json');
      writeFileSync(html, r.html);
      writeFileSync(data, JSON.stringify(r.data, null, 1) + '\n');
      if (bool(f, 'json')) io.out(JSON.stringify({ html, data, quick: r.data.quick, plots: r.data.plots.map((p) => ({ id: p.id, marks: p.marks })) }) + '\n');
      else io.out(`wrote ${html} (${r.data.plots.length} plots, ${Math.round(r.html.length / 1024)} KiB) and ${data}\nopen it in a browser: ${pathToFileURL(resolve(html)).href}\n`);
      return 0;
    },
  },
  {
    path: ['report', 'plot'],
    summary: 'the numbers of one plot of the report (its rows: x, y, series)',
    details: `
Builds only the section of the report that holds plot ID and prints that plot's rows. The ids
are listed by --id list (and in docs/report.md).`,
    positional: 'id',
    flags: [{ name: 'id', type: 'string', required: true, help: "plot id (e.g. latency-sharp-allreduce, bench-targets; 'list' lists them)" }, QUICK],
    run(f, io) {
      const id = str(f, 'id');
      const probe: ReportOptions = { quick: bool(f, 'quick'), bench: readBenchRevisions(ROOT) };
      const ids = plotIds(probe);
      if (id === 'list') {
        io.out(bool(f, 'json') ? JSON.stringify(ids) + '\n' : ids.join('\n') + '\n');
        return 0;
      }
      if (!ids.includes(id)) throw new UsageError(`--id: no plot '${id}' (one of ${ids.join(', ')})`);
      const { o, stop } = reportOptions(f, io, `report plot ${id}`, 1);
      let plot;
      try {
        plot = buildPlots(o, id)[0]!;
      } finally {
        stop();
      }
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ id: plot.id, title: plot.title, x_title: plot.xTitle, y_title: plot.yTitle, caption: plot.caption, rows: plot.rows }) + '\n');
        return 0;
      }
      io.out(`${plot.title}\n${plot.caption}\n\n`);
      const hasX2 = plot.rows.some((r) => r.x2 !== undefined);
      const head = [plot.xTitle, ...(hasX2 ? ['to'] : []), plot.yTitle, 'series'];
      const cells = plot.rows.map((r) => [String(r.x), ...(hasX2 ? [String(r.x2)] : []), String(r.y), r.series]);
      const w = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
      for (const row of [head, ...cells]) io.out(row.map((c, i) => c.padEnd(w[i]!)).join('  ').trimEnd() + '\n');
      return 0;
    },
  },
];
