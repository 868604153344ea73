/**
 * The checked-in SystemVerilog package of $readmemh field positions and codes
 * (hdl/generated/vectors_pkg.sv) must equal what vectors/svpackage.ts generates from the
 * exporter's table layouts, so HDL testbenches and the exporter cannot drift.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadBlocks } from '../../vectors/registry.ts';
import { svPackage } from '../../vectors/svpackage.ts';
import { exportTable } from '../../vectors/readmemh.ts';
import type { VectorFile } from '../../vectors/format.ts';

describe('hdl vectors package', () => {
  it('hdl/generated/vectors_pkg.sv is up to date (regenerate: hdl/run.sh --package)', async () => {
    const want = svPackage([...(await loadBlocks()).values()]);
    const have = readFileSync(new URL('../../hdl/generated/vectors_pkg.sv', import.meta.url), 'utf8');
    expect(have).toBe(want);
  });

  it('places every field where the exporter packs it (most-significant field first)', async () => {
    const blocks = await loadBlocks();
    const mc = blocks.get('memcheck')!;
    const text = svPackage([mc]);
    const lsb = (t: string, f: string): number => Number(new RegExp(`MEMCHECK_${t}_${f}_LSB = (\\d+);`).exec(text)![1]);
    // a one-row table with distinct values per field: each value must be found at its package LSB
    for (const t of mc.tables) {
      const row = t.layout.map((f, i) => BigInt(i + 1) & ((1n << BigInt(f.width)) - 1n));
      const ex = exportTable({ ...t, rows: () => [row] }, { header: { block: 'memcheck' } } as unknown as VectorFile);
      const word = BigInt('0x' + ex.memText.split('\n')[1]!);
      t.layout.forEach((f, i) => {
        const at = lsb(t.name.toUpperCase(), f.name.toUpperCase());
        expect((word >> BigInt(at)) & ((1n << BigInt(f.width)) - 1n), `${t.name}.${f.name}`).toBe(row[i]);
      });
    }
  });

  it('gives enumerated fields their codes', async () => {
    const text = svPackage([(await loadBlocks()).get('memcheck')!]);
    expect(text).toContain('localparam int MEMCHECK_CHECKS_REASON_BAD_REQUEST = 5;');
    expect(text).toContain('localparam int MEMCHECK_WRITES_RESULT_BAD_FIELD = 2;');
  });
});
