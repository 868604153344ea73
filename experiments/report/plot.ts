/**
 * One plot of the report: what it shows, the command that prints the same numbers, its axis
 * titles (with units) and its data rows, one mark (point or bar) per row. `chartSpec` turns it
 * into a Vega-Lite specification; experiments/report/render.ts renders that to SVG.
 */
import type { TopLevelSpec } from 'vega-lite';

/** One data row: x (number or category), y, the series it belongs to, and a bar's right edge (histograms). */
export interface PlotRow {
  x: number | string;
  y: number;
  series: string;
  x2?: number;
}

export type PlotKind =
  /** lines through points, one line per series; x quantitative */
  | 'lines'
  /** grouped bars, drawn horizontally: each row's x is a category (down the vertical axis, titled xTitle), one bar per series inside the group, its length y (along the horizontal axis, titled yTitle) */
  | 'bars'
  /** histogram: one bar per bin from x to x2, y the count */
  | 'histogram';

export interface Plot {
  id: string;
  section: string;
  title: string;
  /** what the plot shows and where the figures come from */
  caption: string;
  /** the netoffload command that prints the same numbers */
  command: string;
  kind: PlotKind;
  xTitle: string;
  yTitle: string;
  /** legend title (lines, bars) */
  seriesTitle?: string;
  xLog?: boolean;
  /** x takes whole numbers only (ticks on integers) */
  xInteger?: boolean;
  yLog?: boolean;
  /** x categories in this order (bars) */
  xOrder?: string[];
  rows: PlotRow[];
}

const WIDTH = 560;
const HEIGHT = 260;

/** The Vega-Lite specification of a plot (no network: data inline, no schema URL fetched). */
export function chartSpec(p: Plot): TopLevelSpec {
  const values = p.rows.map((r) => ({ ...r }));
  const legend = { labelLimit: 360 };
  const color = { field: 'series', type: 'nominal' as const, title: p.seriesTitle ?? 'series', sort: null, legend };
  const yScale = p.yLog ? { type: 'log' as const } : { zero: false };
  const base = { width: WIDTH, height: HEIGHT, data: { values }, config: { font: 'sans-serif', axis: { labelFontSize: 11, titleFontSize: 12 } } };
  if (p.kind === 'histogram') {
    return {
      ...base,
      mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
      encoding: {
        x: { field: 'x', type: 'quantitative', title: p.xTitle, scale: { zero: false } },
        x2: { field: 'x2' },
        y: { field: 'y', type: 'quantitative', title: p.yTitle },
        tooltip: [{ field: 'x', title: 'from' }, { field: 'x2', title: 'to' }, { field: 'y', title: 'count' }],
      },
    };
  }
  if (p.kind === 'bars') {
    // horizontal bars: the categories (often long figure names) down the y axis, the values along x
    return {
      ...base,
      height: { step: 9 },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'x', type: 'nominal', title: p.xTitle, sort: p.xOrder ?? null, axis: { labelLimit: 420, titleAngle: 0, titleAlign: 'right', titleBaseline: 'bottom', titleX: -4, titleY: -6 } },
        yOffset: { field: 'series', type: 'nominal', sort: null },
        x: { field: 'y', type: 'quantitative', title: p.yTitle, scale: p.yLog ? { type: 'log' as const } : { zero: true } },
        color,
        tooltip: [{ field: 'x', title: 'figure' }, { field: 'series' }, { field: 'y', title: p.yTitle }],
      },
    };
  }
  const x = { field: 'x', type: 'quantitative' as const, title: p.xTitle, scale: p.xLog ? { type: 'log' as const, nice: false, padding: 12 } : { zero: false }, ...(p.xInteger ? { axis: { tickMinStep: 1, format: 'd' } } : {}) };
  const y = { field: 'y', type: 'quantitative' as const, title: p.yTitle, scale: yScale };
  return {
    ...base,
    layer: [
      { mark: { type: 'line' }, encoding: { x, y, color } },
      { mark: { type: 'point', filled: true, size: 40 }, encoding: { x, y, color, shape: { field: 'series', type: 'nominal', sort: null, title: p.seriesTitle ?? 'series', legend }, tooltip: [{ field: 'series' }, { field: 'x', title: p.xTitle }, { field: 'y', title: p.yTitle }] } },
    ],
  };
}
