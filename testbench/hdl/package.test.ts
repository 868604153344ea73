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
import { CODES_BEGIN, CODES_END, codeTablesMarkdown, withCodeTables } from '../../vectors/readmemh-codes.ts';
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

  it('docs/vectors.md has the generated field and code tables (regenerate: hdl/run.sh --package)', async () => {
    const blocks = [...(await loadBlocks()).values()];
    const doc = readFileSync(new URL('../../docs/vectors.md', import.meta.url), 'utf8');
    expect(doc).toBe(withCodeTables(doc, blocks));
    const section = doc.slice(doc.indexOf(CODES_BEGIN), doc.indexOf(CODES_END));
    for (const row of ['| `op` | 8 | 467:460 | 0 `ADD`, 1 `AND`, 2 `OR`, 3 `XOR`, 4 `FADD`, 5 `FAND`, 6 `FXOR`, 7 `FCSWAP`, 8 `AX`, 9 `FAX` |', '| `status` | 3 | 180:178 | 0 `ok`, 1 `misaligned`, 2 `bad_size`, 3 `bad_op`, 4 `out_of_range` |'])
      expect(section).toContain(row);
    expect(section).toMatch(/`atc` table `ops`[\s\S]*\| `status` \| 3 \| [0-9:]+ \| 0 `hit`, 1 `miss`, 2 `merged`/);
    expect(section).toMatch(/`alu` table `results`[\s\S]*\| `status` \| 8 \| [0-9:]+ \| 0 `OK`, 1 `TYPE_OP`/);
  });

  it('gives the ALU, ATC and AMO op and status fields their codes in the package and the docs, from the TypeScript tables', async () => {
    const blocks = [...(await loadBlocks()).values()];
    const pkg = svPackage(blocks);
    for (const line of ['ALU_OPERANDS_OP_LXOR = 11;', 'ALU_LANES_TYPE_U64 = 7;', 'ALU_RESULTS_STATUS_BAD_LENGTH = 9;', 'ALU_OPERANDS_ROUNDING_SR = 4;', 'AMO_OPS_OP_FAX = 9;', 'AMO_OPS_STATUS_OUT_OF_RANGE = 4;', 'ATC_OPS_OP_PRELOAD = 3;', 'ATC_OPS_STATUS_ERROR = 5;'])
      expect(pkg).toContain(`localparam int ${line}`);
    // a changed code table reaches both: rename one code and both outputs change
    const amo = blocks.find((b) => b.name === 'amo')!;
    const renamed = { ...amo, tables: amo.tables.map((t) => ({ ...t, layout: t.layout.map((f) => (f.name === 'op' ? { ...f, codes: ['SUM', ...f.codes!.slice(1)] } : f)) })) };
    expect(svPackage([renamed])).toContain('AMO_OPS_OP_SUM = 0;');
    expect(codeTablesMarkdown([renamed])).toContain('0 `SUM`');
  });
});
