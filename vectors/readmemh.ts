/**
 * Export to Verilog $readmemh: per table, `<base>.<table>.mem` (one row per line, fields packed
 * most-significant first in layout order, as big-endian hex of the full row width) and
 * `<base>.<table>.layout` (one line per field: `name msb lsb`), so a SystemVerilog testbench can
 * declare `logic [W-1:0] mem [N]` and slice fields by the layout (or by the generated package
 * hdl/generated/vectors_pkg.sv, see vectors/svpackage.ts). docs/vectors.md documents every table.
 */
import { InputError } from '../rtl/kernel/errors.ts';
import type { VectorFile } from './format.ts';
import type { MemTable } from './registry.ts';

export interface MemExport {
  table: string;
  width: number;
  memText: string;
  layoutText: string;
  rows: number;
}

/** `layoutFile`: the name of the layout file written beside the .mem, named in the .mem's header comment. */
export function exportTable(table: MemTable, file: VectorFile, layoutFile = `<base>.${table.name}.layout`): MemExport {
  const width = table.layout.reduce((a, f) => a + f.width, 0);
  const rows = table.rows(file);
  const digits = Math.ceil(width / 4);
  const lines: string[] = [];
  lines.push(`// ${file.header.block} vectors, table ${table.name}: ${rows.length} rows of ${width} bits; fields in ${layoutFile}`);
  for (const [ri, row] of rows.entries()) {
    if (row.length !== table.layout.length) throw new Error(`table ${table.name} row ${ri} has ${row.length} fields, layout has ${table.layout.length}`);
    let word = 0n;
    for (let i = 0; i < row.length; i++) {
      const f = table.layout[i]!;
      const v = row[i]!;
      if (v < 0n || v >> BigInt(f.width) !== 0n) throw new Error(`table ${table.name} row ${ri}: field ${f.name} = ${v} does not fit in ${f.width} bits`);
      word = (word << BigInt(f.width)) | v;
    }
    lines.push(word.toString(16).padStart(digits, '0'));
  }
  const layoutLines = [`# ${table.name}: ${width} bits per row, ${rows.length} rows; name msb lsb`];
  let msb = width - 1;
  for (const f of table.layout) {
    layoutLines.push(`${f.name} ${msb} ${msb - f.width + 1}`);
    msb -= f.width;
  }
  return { table: table.name, width, memText: lines.join('\n') + '\n', layoutText: layoutLines.join('\n') + '\n', rows: rows.length };
}

/** The code of an enumerated field's value (its position in `codes`); InputError naming the field if unknown. */
export function codeOf(codes: readonly string[], field: string, name: string): bigint {
  const i = codes.indexOf(name);
  if (i < 0) throw new InputError(`${field}: unknown value ${JSON.stringify(name)} (one of ${codes.join(', ')})`);
  return BigInt(i);
}
