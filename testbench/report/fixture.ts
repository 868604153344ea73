/** A small report page (three synthetic plots, one of each kind) for the page and browser-check tests. */
import { reportData, reportHtml, type ReportData } from '../../experiments/report/page.ts';
import { chartSpec, type Plot } from '../../experiments/report/plot.ts';
import { renderSvg } from '../../experiments/report/render.ts';

export const FIXTURE_PLOTS: Plot[] = [
  {
    id: 'lines-a',
    section: 'Section one',
    title: 'A line plot',
    caption: 'Two series on a log x axis; `a command` in backticks.',
    command: 'netoffload example lines',
    kind: 'lines',
    xTitle: 'size (bytes, log scale)',
    xLog: true,
    yTitle: 'latency (us)',
    rows: [
      { x: 8, y: 2.5, series: 'paper' },
      { x: 64, y: 2.9, series: 'paper' },
      { x: 512, y: 4.1, series: 'paper' },
      { x: 8, y: 2.6, series: 'model' },
      { x: 64, y: 3.0, series: 'model' },
      { x: 512, y: 4.0, series: 'model' },
    ],
  },
  {
    id: 'bars-b',
    section: 'Section one',
    title: 'A bar plot <with> "markup" & such',
    caption: 'Seed beside model.',
    command: 'netoffload example bars',
    kind: 'bars',
    xTitle: 'figure',
    yTitle: 'bandwidth (MB/s)',
    xOrder: ['put', 'get'],
    rows: [
      { x: 'put', y: 6681, series: 'seed' },
      { x: 'get', y: 6893, series: 'seed' },
      { x: 'put', y: 6700, series: 'model' },
      { x: 'get', y: 6800, series: 'model' },
    ],
  },
  {
    id: 'hist-c',
    section: 'Section two',
    title: 'A histogram',
    caption: 'Three bins, one empty.',
    command: 'netoffload example hist',
    kind: 'histogram',
    xTitle: 'latency (ns)',
    yTitle: 'samples (count)',
    rows: [
      { x: 100, x2: 110, y: 4, series: 'samples' },
      { x: 110, x2: 120, y: 0, series: 'samples' },
      { x: 120, x2: 130, y: 7, series: 'samples' },
    ],
  },
];

export async function fixturePage(plots: Plot[] = FIXTURE_PLOTS): Promise<{ html: string; data: ReportData }> {
  const rendered = [];
  for (const plot of plots) rendered.push({ plot, svg: await renderSvg(chartSpec(plot)) });
  const data = reportData(plots, true);
  return { html: reportHtml(rendered, data), data };
}
