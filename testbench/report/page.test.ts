/**
 * The report page and its plots (experiments/report/page.ts, plot.ts, render.ts): Vega-Lite
 * renders one point or bar per row, axis titles as given, the same bytes every time; the page is
 * self-contained (no script to run, nothing fetched) and its data lists every plot with its row
 * count.
 */
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../experiments/report/page.ts';
import { chartSpec } from '../../experiments/report/plot.ts';
import { renderSvg } from '../../experiments/report/render.ts';
import { FIXTURE_PLOTS, fixturePage } from './fixture.ts';

const marksIn = (svg: string): number => (svg.match(/aria-roledescription="(point|bar)"/g) ?? []).length;

describe('report page', () => {
  it('every kind of plot renders one mark per row and both axis titles', async () => {
    for (const p of FIXTURE_PLOTS) {
      const svg = await renderSvg(chartSpec(p));
      expect(svg.startsWith('<svg'), p.id).toBe(true);
      expect(marksIn(svg), p.id).toBe(p.rows.length);
      expect(svg, p.id).toContain(`>${escapeHtml(p.xTitle)}</text>`);
      expect(svg, p.id).toContain(`>${escapeHtml(p.yTitle)}</text>`);
      expect(svg, p.id).not.toMatch(/NaN/);
    }
  });

  it('a row more or less changes the mark count (the count the browser check compares)', async () => {
    const p = FIXTURE_PLOTS[0]!;
    const svg = await renderSvg(chartSpec({ ...p, rows: p.rows.slice(1) }));
    expect(marksIn(svg)).toBe(p.rows.length - 1);
  });

  it('is byte-identical when built twice, self-contained, and its data counts each plot\'s rows', async () => {
    const a = await fixturePage();
    const b = await fixturePage();
    expect(a.html).toBe(b.html);
    expect(a.data.plots.map((p) => [p.id, p.marks])).toEqual(FIXTURE_PLOTS.map((p) => [p.id, p.rows.length]));
    // nothing fetched or run: no src/link/url(), the only script is inline JSON data; links are in-page anchors
    expect(a.html).not.toMatch(/\ssrc=|<link|url\(|@import/);
    expect(a.html.match(/<script[^>]*>/g)).toEqual(['<script type="application/json" id="report-data">']);
    for (const m of a.html.matchAll(/href="([^"]*)"/g)) expect(m[1]!.startsWith('#'), m[1]).toBe(true);
    // one figure per plot, each with one svg, the title escaped, the command named
    for (const p of FIXTURE_PLOTS) {
      const fig = a.html.slice(a.html.indexOf(`data-plot="${p.id}"`), a.html.indexOf('</figure>', a.html.indexOf(`data-plot="${p.id}"`)));
      expect(fig.match(/<svg/g), p.id).toHaveLength(1);
      expect(fig).toContain(`data-marks="${p.rows.length}"`);
      expect(fig).toContain(`<code>${escapeHtml(p.command)}</code>`);
    }
    expect(a.html).toContain('A bar plot &lt;with&gt; &quot;markup&quot; &amp; such');
    expect(a.html).toContain('<code>a command</code>');
    // the embedded data is the data
    const embedded = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(a.html)![1]!;
    expect(JSON.parse(embedded)).toEqual(a.data);
  });
});
