/**
 * ATC design sweep: hit rate and mean latency against associativity for several sizes on the
 * default zipf trace, from `runAtcTrace` (what `netoffload atc sweep` calls, here with that
 * command's default flags: LRU, 16 MSHRs x 8 targets, 4-cycle hits, PCIe read 500 + U[0, 100]
 * cycles, 32 lookups outstanding, seed 1).
 */
import { runAtcTrace } from '../nic/atcDriver.ts';
import { generateTrace, TRACE_DEFAULT_PAGES, TRACE_DEFAULT_ZIPF_S } from '../nic/traces.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

export const ATC_WAYS = [1, 2, 4, 8, 16];
export const ATC_ENTRIES = { full: [1024, 4096, 16384, 65536], quick: [1024, 4096, 16384] };
export const ATC_REQUESTS = { full: 100000, quick: 20000 };
const SEED = 1;
/** `atc sweep`'s defaults for the flags the report does not set */
const ATC = { replacement: 'lru' as const, mshrs: 16, mshrTargets: 8, hitLatency: 4 };
const HOST = { readLatency: 500, jitter: 100, seed: SEED };
const WINDOW = 32;

export function atcPlots(o: ReportOptions): Plot[] {
  const entries = o.quick ? ATC_ENTRIES.quick : ATC_ENTRIES.full;
  const requests = o.quick ? ATC_REQUESTS.quick : ATC_REQUESTS.full;
  const trace = generateTrace({ kind: 'zipf', requests, seed: SEED, pages: TRACE_DEFAULT_PAGES, zipfS: TRACE_DEFAULT_ZIPF_S });
  const hit: PlotRow[] = [];
  const lat: PlotRow[] = [];
  for (const e of entries) {
    for (const w of ATC_WAYS) {
      const r = runAtcTrace({ atc: { ...ATC, entries: e, ways: w }, host: HOST, trace, requests, window: WINDOW });
      hit.push({ x: w, y: r.hit_rate, series: `${e} entries` });
      lat.push({ x: w, y: r.avg_latency_cycles, series: `${e} entries` });
    }
  }
  const command = `netoffload atc sweep --ways ${ATC_WAYS.join(',')} --entries ${entries.join(',')} --trace zipf --requests ${requests} --seed ${SEED}`;
  const base = { section: 'Design sweeps: TH Express-2 ATC', command, kind: 'lines' as const, xTitle: 'associativity (ways, log scale)', xLog: true, seriesTitle: 'ATC size' };
  const trace0 = `${requests.toLocaleString('en-US')} lookups of a zipf trace (${TRACE_DEFAULT_PAGES.toLocaleString('en-US')} pages, s = ${TRACE_DEFAULT_ZIPF_S})`;
  return [
    { ...base, id: 'atc-hit-rate', title: 'ATC hit rate against associativity and size', caption: `hit rate = hits / (hits + misses + merged misses) over ${trace0}.`, yTitle: 'hit rate (fraction of lookups)', rows: hit },
    { ...base, id: 'atc-latency', title: 'ATC mean lookup latency against associativity and size', caption: `From the ATC accepting a lookup to its response (a hit: the hit latency; a miss: the PCIe read plus one), ${trace0}.`, yTitle: 'mean latency (cycles)', rows: lat },
  ];
}
