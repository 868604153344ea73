/**
 * SHArP calibration plots: Tables I, V and VI of seed 000, each paper latency beside the model's,
 * from `buildTable` (experiments/sharp/calibration.ts), the function `netoffload sharp table` calls.
 */
import { buildTable, type TableRow } from '../sharp/calibration.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

const COMMAND = 'netoffload sharp table';

function pairRows(rows: TableRow[], seriesOf: (r: TableRow) => string): PlotRow[] {
  const out: PlotRow[] = [];
  for (const r of rows) out.push({ x: r.bytes, y: r.paper_us, series: `${seriesOf(r)}paper` });
  for (const r of rows) out.push({ x: r.bytes, y: r.sim_us, series: `${seriesOf(r)}model` });
  return out;
}

export function sharpPlots(o: ReportOptions): Plot[] {
  const rows = buildTable();
  const section = 'SHArP (seed 000)';
  const t1 = rows.filter((r) => r.table === 'I');
  const t5 = rows.filter((r) => r.table === 'V');
  const t6 = rows.filter((r) => r.table === 'VI');
  return [
    {
      id: 'sharp-table-1',
      section,
      title: 'Table I: native SHArP allreduce latency, 32/64/128 hosts (RC distribution)',
      caption: `Allreduce (f32 sum) latency per call against message size, the paper's cells beside the model's. Only the 32-host column was fitted (netoffload sharp fit); 64 and 128 hosts are predictions. ${t1.length} cells.`,
      command: COMMAND,
      kind: 'lines',
      xTitle: 'message size (bytes)',
      yTitle: 'latency (us)',
      seriesTitle: 'hosts, source',
      rows: pairRows(t1, (r) => `${r.hosts} hosts, `),
    },
    {
      id: 'sharp-table-5',
      section,
      title: 'Table V: pipelined allreduce, 128 hosts (RC distribution)',
      caption: `Latency per call of messages fragmented into 256-byte SHArP operations, paper beside model (predicted, not fitted). ${t5.length} cells.`,
      command: COMMAND,
      kind: 'lines',
      xTitle: 'message size (bytes, log scale)',
      xLog: true,
      yTitle: 'latency (us)',
      seriesTitle: 'source',
      rows: pairRows(t5, () => ''),
    },
    {
      id: 'sharp-table-6',
      section,
      title: 'Table VI: result distribution (RC, RC+UD, UD), 128 hosts',
      caption: `Latency per call for the three result-distribution modes, paper beside model (predicted). ${t6.length} cells.`,
      command: COMMAND,
      kind: 'lines',
      xTitle: 'message size (bytes, log scale)',
      xLog: true,
      yTitle: 'latency (us)',
      seriesTitle: 'distribution, source',
      rows: pairRows(t6, (r) => `${r.dist}, `),
    },
  ];
}
