/**
 * Gemini plots: seed 004's latencies and bandwidths beside the model's, and put bandwidth across
 * the PIO/DMA switch, from `geminiTable` (what `netoffload gemini table` calls).
 */
import { geminiTable } from '../gemini/table.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

const SECTION = 'Gemini (seed 004)';
const COMMAND = 'netoffload gemini table';

export function geminiPlots(o: ReportOptions): Plot[] {
  const t = geminiTable({});
  const compare = (unit: 'us' | 'MB/s', id: string, title: string, yTitle: string, caption: string): Plot => {
    const sel = t.rows.filter((r) => r.unit === unit);
    const label = (r: (typeof sel)[number]): string => `${r.label}${r.fitted ? ' (fitted)' : ''}`;
    const rows: PlotRow[] = [...sel.map((r) => ({ x: label(r), y: r.seed, series: 'seed' })), ...sel.map((r) => ({ x: label(r), y: r.model, series: 'model' }))];
    return { id, section: SECTION, title, caption: `${caption} ${sel.length} figures.`, command: COMMAND, kind: 'bars', xTitle: 'figure', yTitle, seriesTitle: 'source', xOrder: sel.map(label), rows };
  };
  return [
    compare('us', 'gemini-latency', 'Put, get and AMO latency (8-byte calls)', 'latency (us)', 'The latencies the Gemini fit uses (three parameters, netoffload gemini fit), seed beside model.'),
    compare('MB/s', 'gemini-bandwidth', 'Put and get bandwidth (peak over sizes), strided transfers', 'bandwidth (MB/s)', 'Predicted, not fitted: the peak over 4 KiB-256 KiB with one call in flight; strided rows the best over element sizes at a 128-byte stride.'),
    {
      id: 'gemini-pio-switch',
      section: SECTION,
      title: 'Put bandwidth across the PIO/DMA switch (inter-NIC)',
      caption: 'Below the threshold a put goes through the FMA (PIO), at and above it through the BTE (DMA); the seed reports a slight drop at 2 KB but gives no figure, so only the model is plotted.',
      command: COMMAND,
      kind: 'lines',
      xTitle: 'put size (bytes, log scale)',
      xLog: true,
      yTitle: 'bandwidth (MB/s)',
      seriesTitle: 'path',
      rows: t.pioSwitch.map((s) => ({ x: s.bytes, y: s.bandwidth_mb_s, series: s.pio ? 'PIO (FMA)' : 'DMA (BTE)' })),
    },
  ];
}
