/**
 * The ALU vectors' lane table (vectors/readmemh-alu-lanes.ts), which hdl/alu/alu_int_lane_tb.sv
 * replays: one row per combine step, chained (each step's `a` is the previous step's `r`), the
 * last step of every element ending at the record's own result, and a vector file with a wrong
 * result exporting a last row that says so.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, type VectorFile } from '../../vectors/format.ts';
import { aluLaneTable, ALU_LANE_LAYOUT } from '../../vectors/readmemh-alu-lanes.ts';
import { exportTable } from '../../vectors/readmemh.ts';

const golden = (): VectorFile => parse(readFileSync(new URL('../../vectors/golden/alu.jsonl', import.meta.url), 'utf8'));
const col = (name: string): number => ALU_LANE_LAYOUT.findIndex((f) => f.name === name);

function resultElement(hex: string, el: number, bytes: number): bigint {
  const b = hex.slice(2 + 2 * el * bytes, 2 + 2 * (el + 1) * bytes);
  let v = 0n;
  for (let k = b.length - 2; k >= 0; k -= 2) v = (v << 8n) | BigInt(parseInt(b.slice(k, k + 2), 16));
  return v;
}

describe('alu lane table', () => {
  it('chains the steps of every integer element and ends each at the record result', () => {
    const f = golden();
    const rows = aluLaneTable.rows(f);
    expect(rows.length).toBeGreaterThan(1000);
    const ops = new Set(rows.map((r) => Number(r[col('op')])));
    expect(ops.size).toBe(12); // every integer operation appears
    let chains = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      const last = i + 1 === rows.length || rows[i + 1]![col('step')] === 1n;
      if (r[col('step')] !== 1n) expect(r[col('a')], `row ${i} a`).toBe(rows[i - 1]![col('r')]);
      if (last) {
        const rec = f.records[Number(r[col('record')])]!;
        const type = String(rec.in.type);
        const bytes = Number(type.slice(1)) / 8;
        const loc = rec.in.op === 'minloc' || rec.in.op === 'maxloc';
        const eb = bytes + (loc ? Number(String(rec.in.index_type).slice(1)) / 8 : 0);
        const res = String(rec.out.result);
        expect(r[col('r')], `record ${rec.id}`).toBe(resultElement('0x' + res.slice(2 + 2 * Number(r[col('element')]) * eb), 0, bytes));
        chains++;
      }
    }
    expect(chains).toBeGreaterThan(100);
  });

  it('exports the record result as the last step, so a wrong result reaches the lane', () => {
    const f = golden();
    const rows = aluLaneTable.rows(f);
    const lastRow = rows[rows.length - 1]!;
    const rec = f.records[Number(lastRow[col('record')])]!;
    const res = String(rec.out.result);
    const flipped = res.slice(0, 3) + ((parseInt(res[3]!, 16) ^ 1).toString(16)) + res.slice(4);
    const bad: VectorFile = { ...f, records: f.records.map((r) => (r === rec ? { ...r, out: { ...r.out, result: flipped } } : r)) };
    const badRows = aluLaneTable.rows(bad);
    const firstOfRec = rows.findIndex((r) => r[col('record')] === BigInt(rec.id) && r[col('element')] === 0n);
    const lastOfElement0 = rows.findIndex((r, i) => i >= firstOfRec && r[col('record')] === BigInt(rec.id) && r[col('element')] === 0n && (rows[i + 1]?.[col('step')] ?? 1n) === 1n);
    expect(badRows[lastOfElement0]![col('r')]).not.toBe(rows[lastOfElement0]![col('r')]);
    expect(badRows.filter((r, i) => r.some((v, j) => v !== rows[i]![j])).length).toBe(1);
  });

  it('writes 444-bit rows with the type and op codes of the ALU tables', () => {
    const ex = exportTable(aluLaneTable, golden());
    expect(ex.width).toBe(444);
    expect(ex.memText.split('\n')[0]).toContain('table lanes');
    expect(ALU_LANE_LAYOUT[col('op')]!.codes![11]).toBe('lxor');
    expect(ALU_LANE_LAYOUT[col('type')]!.codes![7]).toBe('u64');
  });
});
