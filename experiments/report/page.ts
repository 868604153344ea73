/**
 * The report page: one self-contained HTML file (inline style, SVGs and data; no script runs, no
 * request leaves the page). Sections in page order, a contents list, each plot as a figure with
 * its title, SVG, caption and the command that prints the same numbers.
 */
import type { Plot } from './plot.ts';

export interface RenderedPlot {
  plot: Plot;
  svg: string;
}

export interface ReportData {
  quick: boolean;
  plots: { id: string; section: string; title: string; command: string; kind: string; x_title: string; y_title: string; marks: number; rows: Plot['rows'] }[];
}

export function reportData(plots: readonly Plot[], quick: boolean): ReportData {
  return { quick, plots: plots.map((p) => ({ id: p.id, section: p.section, title: p.title, command: p.command, kind: p.kind, x_title: p.xTitle, y_title: p.yTitle, marks: p.rows.length, rows: p.rows })) };
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Backticked spans of a caption as <code>. */
function captionHtml(s: string): string {
  return escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const STYLE = `
body { font-family: sans-serif; margin: 0 auto; max-width: 1000px; padding: 1em 2em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
figure { margin: 1.5em 0; padding: 0.8em; border: 1px solid #e4e4e4; border-radius: 4px; }
figure h3 { margin: 0 0 0.5em 0; font-size: 1.05em; }
figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.92em; color: #444; }
code { background: #f3f3f3; padding: 0 0.25em; border-radius: 3px; font-size: 0.95em; }
nav ul { columns: 2; font-size: 0.92em; }
`;

export function reportHtml(rendered: readonly RenderedPlot[], data: ReportData): string {
  const sections: string[] = [];
  for (const r of rendered) if (!sections.includes(r.plot.section)) sections.push(r.plot.section);
  const anchor = (s: string): string => `section-${sections.indexOf(s) + 1}`;
  const out: string[] = [];
  out.push('<!DOCTYPE html>', '<html lang="en">', '<head>', '<meta charset="utf-8">', '<meta name="viewport" content="width=device-width, initial-scale=1">', '<title>netoffload report</title>', `<style>${STYLE}</style>`, '</head>', '<body>');
  out.push('<h1>netoffload report</h1>');
  out.push(`<p>Every calibration of the models against the papers (seed value beside the model's), the ATC design sweep, latency distributions and the benchmark history: ${rendered.length} plots${data.quick ? ' (quick mode: smaller runs, named in each caption)' : ''}. Produced by <code>netoffload report${data.quick ? ' --quick' : ''}</code>; the numbers of every plot are in <code>report-data.json</code> next to this file, and each caption names the command that prints them.</p>`);
  out.push('<nav><ul>');
  for (const s of sections) out.push(`<li><a href="#${anchor(s)}">${escapeHtml(s)}</a> (${rendered.filter((r) => r.plot.section === s).length})</li>`);
  out.push('</ul></nav>');
  for (const s of sections) {
    out.push(`<section id="${anchor(s)}">`, `<h2>${escapeHtml(s)}</h2>`);
    for (const { plot: p, svg } of rendered.filter((r) => r.plot.section === s)) {
      out.push(`<figure class="plot" id="plot-${escapeHtml(p.id)}" data-plot="${escapeHtml(p.id)}" data-kind="${p.kind}" data-marks="${p.rows.length}">`);
      out.push(`<h3>${escapeHtml(p.title)}</h3>`);
      out.push(svg);
      out.push(`<figcaption>${captionHtml(p.caption)}<br>Same numbers: <code>${escapeHtml(p.command)}</code></figcaption>`, '</figure>');
    }
    out.push('</section>');
  }
  out.push(`<script type="application/json" id="report-data">${JSON.stringify(data).replace(/</g, '\\u003c')}</script>`);
  out.push('</body>', '</html>', '');
  return out.join('\n');
}
