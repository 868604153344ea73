/**
 * scripts/report-check.ts in headless Chromium (runs where `chromium` is installed; CI sets
 * NETOFFLOAD_REQUIRE_CHROMIUM=1 so that a missing browser fails instead of skipping): a good page
 * passes and writes its screenshot; each way of breaking a page is reported by name: a console
 * error, a request the page makes, a mark more in the data than on the page, a missing axis title,
 * a missing svg, a figure the data does not list, a NaN coordinate.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../../scripts/cdp.ts';
import { checkReport, CheckUsageError } from '../../scripts/report-check.ts';
import { fixturePage } from './fixture.ts';

const binary = process.env.CHROMIUM ?? 'chromium';
const present = spawnSync(binary, ['--version'], { encoding: 'utf8' }).status === 0;
const run = present || process.env.NETOFFLOAD_REQUIRE_CHROMIUM === '1';

describe.runIf(run)('report-check in headless Chromium', () => {
  let browser: Browser;
  let dir: string;
  let good: { html: string; data: ReturnType<typeof JSON.parse> };
  beforeAll(async () => {
    browser = await Browser.launch(binary);
    dir = mkdtempSync(join(tmpdir(), 'report-check-'));
    const page = await fixturePage();
    good = { html: page.html, data: page.data };
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  async function check(html: string, data: unknown, screenshot?: string): Promise<string[]> {
    const base = join(dir, `page${++n}`);
    writeFileSync(`${base}.html`, html);
    writeFileSync(`${base}.json`, JSON.stringify(data));
    return (await checkReport(browser, `${base}.html`, `${base}.json`, screenshot)).problems;
  }

  it('passes a good page and writes a PNG screenshot', async () => {
    const shot = join(dir, 'shot.png');
    expect(await check(good.html, good.data, shot)).toEqual([]);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
    expect(statSync(shot).size).toBeGreaterThan(10_000);
  }, 60_000);

  it('fails on a console error and on an exception', async () => {
    const p = await check(good.html.replace('</body>', '<script>console.error("broken plot"); null.x;</script></body>'), good.data);
    expect(p.some((x) => x.startsWith('console error: broken plot'))).toBe(true);
    expect(p.some((x) => x.startsWith('uncaught exception'))).toBe(true);
  }, 60_000);

  it('fails on a request beyond the page (a failed one too)', async () => {
    const p = await check(good.html.replace('</body>', '<img src="http://127.0.0.1:9/missing.png" alt=""></body>'), good.data);
    expect(p.some((x) => x.startsWith('request to http://127.0.0.1:9/missing.png'))).toBe(true);
    expect(p.some((x) => x.startsWith('failed request'))).toBe(true);
  }, 60_000);

  it('fails when the marks on the page are not the rows of the data', async () => {
    const data = structuredClone(good.data);
    data.plots[1].marks += 1;
    expect(await check(good.html, data)).toEqual([`plot bars-b: 4 point/bar marks rendered, report-data.json has 5 rows`]);
  }, 60_000);

  it('fails on a missing axis title, a missing svg, a figure the data lacks, a NaN coordinate', async () => {
    const noTitle = good.html.replace('>bandwidth (MB/s)</text>', '></text>');
    expect((await check(noTitle, good.data))[0]).toMatch(/^plot bars-b: y axis title 'bandwidth \(MB\/s\)' not rendered/);
    const start = good.html.indexOf('<svg', good.html.indexOf('data-plot="hist-c"'));
    const noSvg = good.html.slice(0, start) + good.html.slice(good.html.indexOf('</svg>', start) + 6);
    expect(await check(noSvg, good.data)).toEqual(['plot hist-c: 0 <svg> elements (expected 1)', "plot hist-c: x axis title 'latency (ns)' not rendered (axis titles: none)", "plot hist-c: y axis title 'samples (count)' not rendered (axis titles: none)", 'plot hist-c: 0 point/bar marks rendered, report-data.json has 3 rows']);
    const data = structuredClone(good.data);
    data.plots.pop();
    expect(await check(good.html, data)).toEqual([`figure hist-c on the page is not in ${join(dir, `page${n}.json`)}`]);
    const nan = good.html.replace(/(aria-roledescription="point" transform="translate\()[^,]+/, '$1NaN');
    const pn = await check(nan, good.data);
    expect(pn).toContain('plot lines-a: 1 marks with NaN/Infinity geometry');
    expect(pn.some((x) => x.startsWith('browser log error: Error: <path> attribute transform'))).toBe(true);
  }, 60_000);

  it('names a missing or malformed data file (a usage error, exit 2 from the script)', async () => {
    await expect(checkReport(browser, join(dir, 'none.html'), join(dir, 'none.json'))).rejects.toThrow(CheckUsageError);
    writeFileSync(join(dir, 'bad.json'), '{"plots": [{"id": 3}]}');
    await expect(checkReport(browser, join(dir, 'none.html'), join(dir, 'bad.json'))).rejects.toThrow(/plot 0 needs id, x_title, y_title/);
  }, 60_000);
});
