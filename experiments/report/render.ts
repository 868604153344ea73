/**
 * Vega-Lite specification -> SVG text, in Node (no browser, no canvas: Vega's headless view
 * estimates text widths, so the same specification gives the same bytes on every machine).
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
