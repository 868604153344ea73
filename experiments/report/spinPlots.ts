/**
 * sPIN plots: the runtime's figures next to seed 002's and PsPIN's (one plot per unit), and the
 * seed's "Number of HPUs Needed" plot, from `spinTable` (what `netoffload spin table` calls).
 */
import { spinTable, TABLE_HANDLERS } from '../hpu/spinTable.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

const SECTION = 'sPIN HPUs (seed 002, PsPIN)';
/** packets per stream: `spin table`'s default, and the quick report's */
export const SPIN_PACKETS = { full: 400, quick: 100 };

export function spinPlots(o: ReportOptions): Plot[] {
  const packets = o.quick ? SPIN_PACKETS.quick : SPIN_PACKETS.full;
  const t = spinTable({ packets });
  const command = `netoffload spin table${packets === SPIN_PACKETS.full ? '' : ` --packets ${packets}`}`;
  const units = [...new Set(t.rows.map((r) => r.unit))];
  const plots: Plot[] = units.map((unit) => {
    const sel = t.rows.filter((r) => r.unit === unit);
    const rows: PlotRow[] = [];
    for (const r of sel) rows.push({ x: `${r.figure} (${r.source})`, y: r.paper, series: 'paper' });
    for (const r of sel) rows.push({ x: `${r.figure} (${r.source})`, y: r.model, series: 'model' });
    return {
      id: `spin-table-${unit.replace(/[^a-z]/gi, '').toLowerCase()}`,
      section: SECTION,
      title: `Runtime figures next to the seed and PsPIN (${unit})`,
      caption: `Each figure simulated with the real handler ELFs on the RV32IM HPU pipelines (budgets: the longest busy handler with no drop at line rate), the published value beside it. ${sel.length} figure${sel.length === 1 ? '' : 's'}.`,
      command,
      kind: 'bars' as const,
      xTitle: 'figure (source)',
      yTitle: unit === 'ns' ? 'time (ns)' : `throughput (${unit})`,
      seriesTitle: 'source',
      xOrder: sel.map((r) => `${r.figure} (${r.source})`),
      rows,
    };
  });
  const hpus: PlotRow[] = [];
  for (const r of t.hpusNeeded) hpus.push({ x: r.packet_bytes, y: r.hpus_10_instr, series: '10-instruction handler (seed)' });
  for (const r of t.hpusNeeded) hpus.push({ x: r.packet_bytes, y: r.hpus_500_instr, series: '500-instruction handler (seed)' });
  for (const h of TABLE_HANDLERS) for (const r of t.hpusNeeded) hpus.push({ x: r.packet_bytes, y: r.hpus[h]!, series: `${h} (model)` });
  plots.push({
    id: 'spin-hpus-needed',
    section: SECTION,
    title: 'HPUs needed at 400 Gb/s (the seed\'s plot)',
    caption: "HPUs = ceil(T x A), A = min(1/g, 1/(G s)): the seed's 10- and 500-instruction handlers (analytical) and the pingpong, histogram and accumulate handlers with their simulated handler time T (discrete DMA).",
    command,
    kind: 'lines',
    xTitle: 'packet size (bytes, log scale)',
    xLog: true,
    yTitle: 'HPUs needed (count)',
    yLog: true,
    seriesTitle: 'handler',
    rows: hpus,
  });
  return plots;
}
