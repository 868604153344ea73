/**
 * `netoffload atc sweep`: design exploration of the ATC over associativity and size on a trace.
 * `netoffload atc refresh-check`: the refresh safety check through the whole memory path.
 */
import { readFileSync } from 'node:fs';
import { bool, type CommandSpec, list, num, optNum, str, UsageError } from '../args.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { atcConfig, type AtcConfig } from '../../rtl/nic/atc/index.ts';
import { withProgress } from '../progress.ts';
import { type AtcRunResult, runAtcTrace } from '../../experiments/nic/atcDriver.ts';
import { passed, runRefreshCheck } from '../../experiments/nic/refreshCheck.ts';
import { fitTrace, generateTrace, parseTraceText, TRACE_DEFAULT_PAGES, TRACE_DEFAULT_ZIPF_S, type TraceKind } from '../../experiments/nic/traces.ts';

function intList(flag: string, items: string[]): number[] {
  return items.map((x) => {
    if (!/^\d+$/.test(x) || Number(x) < 1 || !Number.isSafeInteger(Number(x))) throw new UsageError(`--${flag}: '${x}' is not a positive integer`);
    return Number(x);
  });
}

function loadTrace(spec: string, asked: number | undefined, seed: number, pages: number, zipfS: number): { trace: Float64Array; label: string; requests: number } {
  if (spec.startsWith('file:')) {
    const path = spec.slice(5);
    if (path === '') throw new UsageError('--trace file: needs a path (file:PATH)');
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new InputError(`cannot read trace ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const t = parseTraceText(text, path);
    const requests = asked ?? t.length;
    return { trace: fitTrace(t, requests), label: `trace file ${path} (${t.length} addresses${t.length < requests ? ', repeated' : ''})`, requests };
  }
  if (spec !== 'uniform' && spec !== 'zipf' && spec !== 'stream') throw new UsageError(`--trace: expected uniform, zipf, stream or file:PATH, got '${spec}'`);
  const kind = spec as TraceKind;
  const requests = asked ?? 100000;
  const label =
    kind === 'zipf' ? `zipf trace (${pages.toLocaleString('en-US')} pages, s = ${zipfS})` : kind === 'uniform' ? `uniform trace (${pages.toLocaleString('en-US')} pages)` : `stream trace (64-byte lines through ${pages.toLocaleString('en-US')} pages)`;
  return { trace: generateTrace({ kind, requests, seed, pages, zipfS }), label, requests };
}

const COLS: { key: keyof AtcRunResult; head: string; fmt: (v: number) => string }[] = [
  { key: 'ways', head: 'ways', fmt: String },
  { key: 'sets', head: 'sets', fmt: String },
  { key: 'entries', head: 'entries', fmt: String },
  { key: 'hit_rate', head: 'hit_rate', fmt: (v) => v.toFixed(4) },
  { key: 'avg_latency_cycles', head: 'avg_latency_cycles', fmt: (v) => v.toFixed(1) },
  { key: 'p99_latency_cycles', head: 'p99_latency_cycles', fmt: String },
  { key: 'mshr_stall_cycles', head: 'mshr_stall_cycles', fmt: String },
];

function table(rows: AtcRunResult[]): string {
  const cells = rows.map((r) => COLS.map((c) => c.fmt(r[c.key] as number)));
  const widths = COLS.map((c, i) => Math.max(c.head.length, ...cells.map((row) => row[i]!.length)));
  const line = (xs: string[]): string => xs.map((x, i) => x.padStart(widths[i]!)).join('  ');
  return [line(COLS.map((c) => c.head)), ...cells.map(line)].join('\n') + '\n';
}

export const commands: CommandSpec[] = [
  {
    path: ['atc', 'sweep'],
    summary: 'ATC hit rate and latency over associativity and size on a trace',
    details: `
Runs the trace through one ATC (with its host-memory ATT behind the PCIe read latency) per
combination of --ways and --entries and prints one row per configuration. hit_rate is
hits / (hits + misses + merged misses); latencies are cycles from the ATC accepting a lookup to
its response being visible (a hit takes the hit latency; a miss the PCIe read plus one);
mshr_stall_cycles counts cycles the lookup stage waited for a free MSHR. The requester keeps at
most --window lookups outstanding and issues at most one per cycle. A trace file holds one
hexadecimal virtual address per line (0x optional, '#' starts a comment).`,
    flags: [
      { name: 'ways', type: 'list', default: ['8'], help: 'comma-separated associativities' },
      { name: 'entries', type: 'list', default: ['1048576'], help: 'comma-separated cache sizes in translations' },
      { name: 'replacement', type: 'string', default: 'lru', choices: ['lru', 'plru'], help: 'replacement policy' },
      { name: 'trace', type: 'string', default: 'zipf', help: 'uniform | zipf | stream | file:PATH' },
      { name: 'requests', type: 'int', min: 1, max: 100_000_000, help: 'lookups to run (default 100000; a trace file: its length)' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of the trace and the PCIe latency variation' },
      { name: 'pages', type: 'int', default: TRACE_DEFAULT_PAGES, min: 1, max: 2 ** 26, help: 'pages the synthetic traces draw from' },
      { name: 'zipf-s', type: 'number', default: TRACE_DEFAULT_ZIPF_S, min: 0.01, max: 5, help: 'zipf exponent' },
      { name: 'mshrs', type: 'int', default: 16, min: 1, max: 1024, help: 'miss-status registers' },
      { name: 'mshr-targets', type: 'int', default: 8, min: 1, max: 64, help: 'requests per MSHR (primary + merged)' },
      { name: 'hit-latency', type: 'int', default: 4, min: 2, max: 64, help: 'hit latency in cycles' },
      { name: 'pcie-latency', type: 'int', default: 500, min: 2, max: 1_000_000, help: 'ATT read latency in cycles' },
      { name: 'jitter', type: 'int', default: 100, min: 0, max: 1_000_000, help: 'extra read latency drawn from [0, jitter]' },
      { name: 'window', type: 'int', default: 32, min: 1, max: 4096, help: 'lookups the requester keeps outstanding' },
    ],
    run(f, io) {
      const ways = intList('ways', list(f, 'ways'));
      const entries = intList('entries', list(f, 'entries'));
      const replacement = str(f, 'replacement') as 'lru' | 'plru';
      const seed = num(f, 'seed');
      const configs: Partial<AtcConfig>[] = [];
      for (const e of entries) {
        for (const w of ways) {
          const c: Partial<AtcConfig> = { entries: e, ways: w, replacement, mshrs: num(f, 'mshrs'), mshrTargets: num(f, 'mshr-targets'), hitLatency: num(f, 'hit-latency') };
          try {
            atcConfig(c);
          } catch (err) {
            throw new UsageError(`--ways ${w} with --entries ${e}: ${(err as Error).message}`);
          }
          configs.push(c);
        }
      }
      const { trace, label, requests } = loadTrace(str(f, 'trace'), optNum(f, 'requests'), seed, num(f, 'pages'), num(f, 'zipf-s'));
      const host = { readLatency: num(f, 'pcie-latency'), jitter: num(f, 'jitter'), seed };
      const rows = withProgress(io, { label: 'atc sweep', total: configs.length * requests, unit: 'requests' }, (update) => configs.map((atc, i) => runAtcTrace({ atc, host, trace, requests, window: num(f, 'window'), onProgress: (c) => update(i * requests + c) })));
      if (bool(f, 'json')) {
        io.out(
          JSON.stringify({
            trace: str(f, 'trace'),
            requests,
            seed,
            replacement,
            mshrs: num(f, 'mshrs'),
            mshr_targets: num(f, 'mshr-targets'),
            hit_latency: num(f, 'hit-latency'),
            pcie_latency: num(f, 'pcie-latency'),
            jitter: num(f, 'jitter'),
            window: num(f, 'window'),
            rows,
          }) + '\n',
        );
        return 0;
      }
      io.out(`ATC sweep: ${label}, ${requests.toLocaleString('en-US')} requests, seed ${seed}, ${replacement} replacement\n`);
      io.out(`hit latency ${num(f, 'hit-latency')} cycles, ${num(f, 'mshrs')} MSHRs x ${num(f, 'mshr-targets')} targets, PCIe read ${num(f, 'pcie-latency')} + U[0, ${num(f, 'jitter')}] cycles, ${num(f, 'window')} lookups outstanding\n\n`);
      io.out(table(rows));
      return 0;
    },
  },
  {
    path: ['atc', 'refresh-check'],
    summary: 'random lookups, updates and refreshes through checker + ATC; counts stale translations (must be 0)',
    details: `
Drives the memory path (memory checker -> ATC -> host memory) with a random mix of lookups
(through the checker, some spanning several pages, for three virtual ports), ATT updates each
followed by the seed's refresh procedure (rewrite the checker item, with a new range, with
refresh; the ATC removes the range and sets its refresh-done register), PCIe latency changes
(random fill latencies) and idle gaps. The check observes what it certifies: every refresh
requested must be sent by the checker, started by the ATC with the range and VP software wrote,
and completed in the refresh-done register; after each done, software looks up a page the update
changed and must get the new translation; a lookup accepted once a covering refresh's done
register was visible must return a translation at least as new as the update; a fill must never
install a translation older than a refresh that had started. Exits 1 if any of that fails, any
request is lost or duplicated, or the path deadlocks (the report says where).`,
    flags: [
      { name: 'ops', type: 'int', default: 10000, min: 1, max: 10_000_000, help: 'operations to run' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed' },
    ],
    run(f, io) {
      const r = withProgress(io, { label: 'atc refresh-check', total: num(f, 'ops'), unit: 'operations' }, (update) => runRefreshCheck({ ops: num(f, 'ops'), seed: num(f, 'seed'), onProgress: update }));
      const ok = passed(r);
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ ...r, pass: ok }) + '\n');
        return ok ? 0 : 1;
      }
      io.out(`ATC refresh check: ${r.ops.toLocaleString('en-US')} operations, seed ${num(f, 'seed')}, ${r.cycles.toLocaleString('en-US')} cycles\n\n`);
      const lines: [string, number][] = [
        ['lookups', r.lookups],
        ['  multi_page', r.multi_page_requests],
        ['translations', r.translations],
        ['refreshes', r.refreshes],
        ['  sent', r.refreshes_sent],
        ['  started', r.refreshes_started],
        ['  done', r.refreshes_done],
        ['  probe', r.probe_refreshes],
        ['  sweep', r.sweep_refreshes],
        ['wrong_refresh_ranges', r.wrong_refresh_ranges],
        ['verified_after_done', r.verified_after_done],
        ['updates', r.updates],
        ['stale_translations', r.stale_translations],
        ['stale_installs', r.stale_installs],
        ['stale_fills_dropped', r.stale_fills_dropped],
        ['lost', r.lost],
        ['duplicated', r.duplicated],
        ['hits', r.hits],
        ['misses', r.misses],
        ['merged_misses', r.merged_misses],
        ['faults', r.faults],
      ];
      for (const [k, v] of lines) io.out(`${k.padEnd(22)}${String(v).padStart(10)}\n`);
      if (r.deadlock !== null) io.out(`\nDEADLOCK: ${r.deadlock}\n`);
      io.out(ok ? '\nPASS: every refresh sent, started with the written range and done; no stale translation after refresh-done, no stale fill installed, nothing lost\n' : `\nFAIL: ${r.first_problem ?? 'counts disagree'}\n`);
      return ok ? 0 : 1;
    },
  },
];
