/**
 * The browser check of `netoffload report` (CI): opens report.html in headless Chromium (Debian
 * `chromium`, driven over the DevTools protocol by scripts/cdp.ts) and fails on any console error,
 * uncaught exception, browser log error, failed request or request at all beyond the page itself
 * (the page must be self-contained); then checks every plot of report-data.json rendered: one
 * <svg> in its figure with a non-empty box, its x and y axis titles present, as many point/bar marks
 * as the plot has rows, no NaN in any mark's geometry, and no figure on the page that the data does
 * not list. Saves a full-page screenshot.
 *
 *   npx tsx scripts/report-check.ts [--html out/report/report.html] [--data out/report/report-data.json] [--screenshot out/report.png]
 *
 * Exit 0: every check passed; 1: a check failed (each problem on one line); 2: bad usage or a
 * missing/unreadable input file. $CHROMIUM names the browser binary (default `chromium`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Browser } from './cdp.ts';

interface DataPlot {
  id: string;
  x_title: string;
  y_title: string;
  marks: number;
}

interface FigureSeen {
  id: string;
  svgs: number;
  width: number;
  height: number;
  axisTitles: string[];
  marks: number;
  nanMarks: number;
}

export interface CheckResult {
  problems: string[];
  plots: number;
  marks: number;
}

export class CheckUsageError extends Error {}

const SEEN = `(() => [...document.querySelectorAll('figure.plot')].map((f) => {
  const svgs = f.querySelectorAll('svg');
  const box = svgs.length ? svgs[0].getBoundingClientRect() : { width: 0, height: 0 };
  const marks = [...f.querySelectorAll('g.role-mark path[aria-roledescription="point"], g.role-mark path[aria-roledescription="bar"]')];
  return {
    id: f.dataset.plot ?? '',
    svgs: svgs.length,
    width: box.width,
    height: box.height,
    axisTitles: [...f.querySelectorAll('g.role-axis-title text')].map((t) => t.textContent),
    marks: marks.length,
    nanMarks: marks.filter((m) => /NaN|Infinity/.test((m.getAttribute('d') ?? '') + (m.getAttribute('transform') ?? ''))).length,
  };
}))()`;

function readData(path: string): DataPlot[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new CheckUsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: { plots?: unknown };
  try {
    doc = JSON.parse(text) as { plots?: unknown };
  } catch (e) {
    throw new CheckUsageError(`${path}: not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(doc.plots) || doc.plots.length === 0) throw new CheckUsageError(`${path}: no "plots" list`);
  return doc.plots.map((p: Partial<DataPlot>, i: number) => {
    if (typeof p.id !== 'string' || typeof p.x_title !== 'string' || typeof p.y_title !== 'string' || !Number.isInteger(p.marks)) throw new CheckUsageError(`${path}: plot ${i} needs id, x_title, y_title (strings) and marks (integer)`);
    return p as DataPlot;
  });
}

/** Open `html` in `browser`, check it against `data`; a screenshot to `screenshot` if given. */
export async function checkReport(browser: Browser, html: string, data: string, screenshot?: string): Promise<CheckResult> {
  const plots = readData(data);
  try {
    readFileSync(html);
  } catch (e) {
    throw new CheckUsageError(`cannot read ${html}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const url = pathToFileURL(resolve(html)).href;
  const problems: string[] = [];
  const page = await browser.page();
  let loaded!: () => void;
  const load = new Promise<void>((r) => (loaded = r));
  const off = page.on((method, p) => {
    if (method === 'Page.loadEventFired') loaded();
    else if (method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert')) problems.push(`console ${p.type}: ${((p.args as { value?: unknown; description?: string }[]) ?? []).map((a) => String(a.value ?? a.description ?? '')).join(' ')}`);
    else if (method === 'Runtime.exceptionThrown') problems.push(`uncaught exception: ${(p.exceptionDetails as { exception?: { description?: string }; text: string }).exception?.description ?? (p.exceptionDetails as { text: string }).text}`);
    else if (method === 'Log.entryAdded' && (p.entry as { level: string }).level === 'error') problems.push(`browser log error: ${(p.entry as { text: string; url?: string }).text}${(p.entry as { url?: string }).url ? ` (${(p.entry as { url?: string }).url})` : ''}`);
    else if (method === 'Network.requestWillBeSent') {
      const u = (p.request as { url: string }).url;
      if (u !== url && !u.startsWith('data:')) problems.push(`request to ${u}: the page must need nothing beyond itself`);
    } else if (method === 'Network.loadingFailed') problems.push(`failed request: ${p.errorText as string}${p.blockedReason ? ` (${p.blockedReason as string})` : ''}`);
  });
  try {
    await Promise.all([page.send('Page.enable'), page.send('Runtime.enable'), page.send('Log.enable'), page.send('Network.enable')]);
    await page.send('Emulation.setDeviceMetricsOverride', { width: 1100, height: 900, deviceScaleFactor: 1, mobile: false });
    const nav = (await page.send('Page.navigate', { url })) as { errorText?: string };
    if (nav.errorText) problems.push(`cannot open ${url}: ${nav.errorText}`);
    else await load;
    const seen = await page.evaluate<FigureSeen[]>(SEEN);
    const byId = new Map(seen.map((s) => [s.id, s]));
    let marks = 0;
    for (const p of plots) {
      const s = byId.get(p.id);
      if (!s) {
        problems.push(`plot ${p.id}: no figure on the page`);
        continue;
      }
      if (s.svgs !== 1) problems.push(`plot ${p.id}: ${s.svgs} <svg> elements (expected 1)`);
      else if (!(s.width > 50 && s.height > 50)) problems.push(`plot ${p.id}: the svg renders ${s.width} x ${s.height} px`);
      for (const [axis, title] of [['x', p.x_title], ['y', p.y_title]] as const) if (!s.axisTitles.includes(title)) problems.push(`plot ${p.id}: ${axis} axis title '${title}' not rendered (axis titles: ${s.axisTitles.map((t) => `'${t}'`).join(', ') || 'none'})`);
      if (s.marks !== p.marks) problems.push(`plot ${p.id}: ${s.marks} point/bar marks rendered, report-data.json has ${p.marks} rows`);
      if (s.nanMarks > 0) problems.push(`plot ${p.id}: ${s.nanMarks} marks with NaN/Infinity geometry`);
      marks += s.marks;
    }
    const listed = new Set(plots.map((p) => p.id));
    for (const s of seen) if (!listed.has(s.id)) problems.push(`figure ${s.id || '(no id)'} on the page is not in ${data}`);
    if (screenshot) {
      const m = (await page.send('Page.getLayoutMetrics')) as { cssContentSize: { width: number; height: number } };
      const height = Math.min(30000, Math.ceil(m.cssContentSize.height));
      const shot = (await page.send('Page.captureScreenshot', { format: 'png', captureBeyondViewport: true, clip: { x: 0, y: 0, width: 1100, height, scale: 1 } })) as { data: string };
      mkdirSync(dirname(screenshot), { recursive: true });
      writeFileSync(screenshot, Buffer.from(shot.data, 'base64'));
    }
    return { problems, plots: plots.length, marks };
  } finally {
    off();
    await page.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const opts: Record<string, string> = { html: 'out/report/report.html', data: 'out/report/report-data.json', screenshot: 'out/report.png' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--help' || a === '-h') {
      process.stdout.write('usage: npx tsx scripts/report-check.ts [--html FILE] [--data FILE] [--screenshot FILE]\n');
      return 0;
    }
    const k = a.replace(/^--/, '');
    if (!a.startsWith('--') || !(k in opts) || argv[i + 1] === undefined) {
      process.stderr.write(`report-check: unknown or incomplete option '${a}' (--html FILE, --data FILE, --screenshot FILE)\n`);
      return 2;
    }
    opts[k] = argv[++i]!;
  }
  let browser: Browser | undefined;
  try {
    browser = await Browser.launch();
    const r = await checkReport(browser, opts.html!, opts.data!, opts.screenshot);
    for (const p of r.problems) process.stderr.write(`report-check: ${p}\n`);
    if (r.problems.length > 0) {
      process.stderr.write(`report-check: FAIL (${r.problems.length} problems)\n`);
      return 1;
    }
    process.stdout.write(`report-check: ${r.plots} plots rendered, ${r.marks} marks counted against ${opts.data}, no console error, no request; screenshot ${opts.screenshot}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`report-check: ${(e as Error).message}\n`);
    return e instanceof CheckUsageError ? 2 : 1;
  } finally {
    await browser?.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
