/**
 * `netoffload gemini table`: every seed row next to the model's figure (latencies fitted,
 * bandwidths predicted), and the PIO/DMA switch.
 */
import type { GeminiParams } from '../../rtl/gemini/params.ts';
import { runCall } from './calls.ts';
import { SEED_ROWS, type SeedRow, STRIDED_COUNT, SWITCH_SIZES } from './seedFigures.ts';

export interface TableRow {
  key: string;
  label: string;
  unit: string;
  seed: number;
  model: number;
  error_pct: number;
  fitted: boolean;
  /** bandwidth rows: the size (strided: element size) where the peak was reached */
  at_bytes?: number;
}

export function modelValue(params: Partial<GeminiParams>, row: SeedRow): { value: number; at?: number } {
  if (row.unit === 'us') return { value: runCall(params, row.spec).latency_us };
  let best = 0;
  let at = 0;
  for (const s of row.sizes!) {
    const strided = row.spec.stride !== undefined;
    const spec = strided ? { ...row.spec, elemBytes: s, bytes: s * STRIDED_COUNT } : { ...row.spec, bytes: s };
    const bw = runCall(params, spec).bandwidth_mb_s;
    if (bw > best) {
      best = bw;
      at = s;
    }
  }
  return { value: best, at };
}

/** Figures geminiTable computes: one per seed row, one per PIO/DMA switch size. */
export const TABLE_FIGURES = SEED_ROWS.length + SWITCH_SIZES.length;

/** `onFigure(done, total)` (optional) is called as each figure is finished (total = TABLE_FIGURES). */
export function geminiTable(params: Partial<GeminiParams>, onFigure?: (done: number, total: number) => void): { rows: TableRow[]; pioSwitch: { bytes: number; pio: boolean; bandwidth_mb_s: number }[] } {
  let done = 0;
  const rows = SEED_ROWS.map((r) => {
    const m = modelValue(params, r);
    const row: TableRow = { key: r.key, label: r.label, unit: r.unit, seed: r.seed, model: m.value, error_pct: ((m.value - r.seed) / r.seed) * 100, fitted: r.fit };
    if (m.at !== undefined) row.at_bytes = m.at;
    onFigure?.(++done, TABLE_FIGURES);
    return row;
  });
  const pioSwitch = SWITCH_SIZES.map((bytes) => {
    const c = runCall(params, { kind: 'put', placement: 'inter-nic', bytes });
    onFigure?.(++done, TABLE_FIGURES);
    return { bytes, pio: c.pio, bandwidth_mb_s: c.bandwidth_mb_s };
  });
  return { rows, pioSwitch };
}
