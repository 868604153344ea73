/**
 * `netoffload report`: build every plot (experiments/report/sections.ts), render each to SVG with
 * Vega-Lite (experiments/report/render.ts) and assemble the page and its data.
 */
import type { ReportOptions } from './options.ts';
import { reportData, reportHtml, type RenderedPlot, type ReportData } from './page.ts';
import { chartSpec } from './plot.ts';
import { renderSvg } from './render.ts';
import { buildPlots } from './sections.ts';

export interface Report {
  html: string;
  data: ReportData;
}

export async function buildReport(o: ReportOptions): Promise<Report> {
  const plots = buildPlots(o);
  const rendered: RenderedPlot[] = [];
  for (const plot of plots) rendered.push({ plot, svg: await renderSvg(chartSpec(plot)) });
  const data = reportData(plots, o.quick);
  return { html: reportHtml(rendered, data), data };
}
