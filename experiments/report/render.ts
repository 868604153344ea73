/**
 * Vega-Lite specification -> SVG text, in Node (no browser, no canvas: Vega's headless view
 * estimates text widths, so the same specification gives the same bytes on every machine).
 *
 * Vega's own estimate without a canvas (0.8 x font size per character) is far wider than a
 * browser's sans-serif (about 0.55-0.6), which cuts long axis labels short and leaves wide margins;
 * the report's estimate is 0.66 x font size per character (a user-defined width function, the
 * hook vl-convert uses), still a pure function of the text.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export const CHAR_WIDTH_EM = 0.66;

/** vega re-exports vega-scenegraph's textMetrics (its typings do not declare it) */
const metrics = (vega as unknown as { textMetrics: { width: (item: { fontSize?: number | string }, text?: unknown) => number } }).textMetrics;
metrics.width = (item, text) => {
  const t = text == null ? '' : String(text).trim();
  const size = item.fontSize != null ? Number(item.fontSize) || 0 : 11;
  return Math.floor(CHAR_WIDTH_EM * t.length * size);
};

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
