/**
 * The report's sections in page order, each with the ids of the plots it makes (so one plot can be
 * rebuilt alone: `netoffload report plot ID`). The bench section's ids follow the suites in
 * bench/results.json.
 */
import { atcPlots } from './atcPlots.ts';
import { benchPlots } from './benchHistory.ts';
import { coredirectPlot } from './coredirectPlots.ts';
import { geminiPlots } from './geminiPlots.ts';
import { DISTRIBUTIONS } from './latency.ts';
import { latencyPlots } from './latencyPlots.ts';
import { nicDescPlot, nicRdmaPlot } from './nicPlots.ts';
import type { ReportOptions } from './options.ts';
import type { Plot } from './plot.ts';
import { sharpPlots } from './sharpPlots.ts';
import { spinPlots } from './spinPlots.ts';

export interface Section {
  name: string;
  /** the ids of the plots `build` returns, in order */
  ids(o: ReportOptions): string[];
  build(o: ReportOptions): Plot[];
}

const fixed = (ids: string[]): ((o: ReportOptions) => string[]) => () => ids;

export const SECTIONS: Section[] = [
  { name: 'SHArP calibration', ids: fixed(['sharp-table-1', 'sharp-table-5', 'sharp-table-6']), build: sharpPlots },
  { name: 'NIC descriptor front end', ids: fixed(['nic-desc']), build: (o) => [nicDescPlot(o)] },
  { name: 'NIC RDMA', ids: fixed(['nic-rdma']), build: (o) => [nicRdmaPlot(o)] },
  { name: 'sPIN calibration', ids: fixed(['spin-table-ns', 'spin-table-gbits', 'spin-hpus-needed']), build: spinPlots },
  { name: 'CORE-Direct calibration', ids: fixed(['coredirect-barrier']), build: (o) => [coredirectPlot(o)] },
  { name: 'Gemini calibration', ids: fixed(['gemini-latency', 'gemini-bandwidth', 'gemini-pio-switch']), build: geminiPlots },
  { name: 'ATC sweep', ids: fixed(['atc-hit-rate', 'atc-latency']), build: atcPlots },
  { name: 'latency distributions', ids: fixed(DISTRIBUTIONS.map((d) => `latency-${d}`)), build: (o) => latencyPlots(o, DISTRIBUTIONS) },
  { name: 'benchmarks', ids: (o) => benchPlots(o.bench).map((p) => p.id), build: (o) => benchPlots(o.bench) },
];

/** Every plot id of the report, in page order. */
export function plotIds(o: ReportOptions): string[] {
  return SECTIONS.flatMap((s) => s.ids(o));
}

/** Build every section (or only the one holding `only`); each section's plots must be the ids it declares. */
export function buildPlots(o: ReportOptions, only?: string): Plot[] {
  const out: Plot[] = [];
  const run = SECTIONS.filter((s) => only === undefined || s.ids(o).includes(only));
  for (const s of run) {
    const ids = s.ids(o);
    const plots = s.build(o);
    const got = plots.map((p) => p.id);
    if (got.join(',') !== ids.join(',')) throw new Error(`report section ${s.name}: built plots ${got.join(', ')}, declared ${ids.join(', ')}`);
    out.push(...(only === undefined ? plots : plots.filter((p) => p.id === only)));
    o.onSection?.(run.indexOf(s) + 1, run.length);
  }
  return out;
}
