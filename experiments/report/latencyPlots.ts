/** The latency distributions of experiments/report/latency.ts as histogram plots. */
import { distribution, type Distribution, type DistributionName } from './latency.ts';
import type { ReportOptions } from './options.ts';
import type { Plot } from './plot.ts';

export function distributionPlot(d: Distribution, quick: boolean): Plot {
  const f = (v: number): string => (d.unit === 'us' ? v.toFixed(3) : v.toFixed(1));
  return {
    id: `latency-${d.name}`,
    section: 'Latency distributions',
    title: d.what,
    caption: `${d.samples} samples: min ${f(d.min)}, mean ${f(d.mean)}, max ${f(d.max)} ${d.unit}, in ${d.bins.length} equal bins. The run is \`${d.command}\` (its mean${d.unit === 'ns' ? ', min and max' : ''} as printed there).`,
    command: `netoffload report plot latency-${d.name}${quick ? ' --quick' : ''}`,
    kind: 'histogram',
    xTitle: `latency (${d.unit})`,
    yTitle: 'samples (count)',
    rows: d.bins.map((b) => ({ x: b.lo, x2: b.hi, y: b.count, series: 'samples' })),
  };
}

export function latencyPlots(o: ReportOptions, names: readonly DistributionName[]): Plot[] {
  return names.map((n) => distributionPlot(distribution(n, o.quick), o.quick));
}
