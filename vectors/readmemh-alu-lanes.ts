/**
 * The ALU vectors' lane-level $readmemh table (`alu.lanes`, docs/vectors.md): one row per combine
 * step of one integer element, for the SystemVerilog integer/bitwise/min-max lane (hdl/alu/).
 *
 * For every record whose status is OK, whose type is an integer type and whose count is not zero,
 * for every element `e` of the payload, the K operands' values (slots in order) are folded linearly:
 * acc = slot 0; for s = 1 .. K-1 one row {a = acc, b = slot s, r = combine(acc, slot s)}. The
 * expected r of steps 1 .. K-2 comes from the golden model's element operation
 * (models/alu/int-ops.ts); the expected r of the last step is the record's own `out.result`
 * element, so a vector file with a wrong result exports a lane row the lane must reject. (Every
 * integer operation is associative and commutative, so the linear fold ends at the record's result
 * whatever the record's reduction order.) Values and indices are raw bit patterns of their
 * type's width, zero-extended to 64 bits; the index fields are 0 except for minloc/maxloc.
 */
import { goldenIntLoc, goldenIntOp, type IntOp, type IntType } from '../models/alu/int-ops.ts';
import { isSignedIntType, readLE, VALUE_BYTES } from '../models/alu/payload.ts';
import { DATA_TYPES, type DataType, type IndexType, OPS } from '../rtl/sharp/alu/types.ts';
import { InputError } from '../rtl/kernel/errors.ts';
import { parseHexBytes, RecordReader, type VectorFile } from './format.ts';
import type { FieldLayout, MemTable } from './registry.ts';

const INT_TYPES: readonly string[] = DATA_TYPES.slice(0, 8);

export const ALU_LANE_LAYOUT: FieldLayout[] = [
  { name: 'record', width: 32 },
  { name: 'element', width: 8 },
  { name: 'step', width: 8 },
  { name: 'type', width: 4, codes: DATA_TYPES },
  { name: 'op', width: 4, codes: OPS },
  { name: 'index_type', width: 4, codes: DATA_TYPES },
  { name: 'a', width: 64 },
  { name: 'a_index', width: 64 },
  { name: 'b', width: 64 },
  { name: 'b_index', width: 64 },
  { name: 'r', width: 64 },
  { name: 'r_index', width: 64 },
];

function laneRows(file: VectorFile): bigint[][] {
  const rows: bigint[][] = [];
  for (const rec of file.records) {
    const o = new RecordReader(rec, 'out');
    if (o.str('status') !== 'OK') continue;
    const i = new RecordReader(rec, 'in');
    const type = i.str('type', DATA_TYPES) as DataType;
    if (!INT_TYPES.includes(type)) continue;
    const op = i.str('op', OPS);
    const count = i.int('count', 0, 256);
    if (count === 0) continue;
    const loc = op === 'minloc' || op === 'maxloc';
    const indexType = (loc ? i.str('index_type', INT_TYPES) : 'u8') as IndexType;
    const vb = VALUE_BYTES[type];
    const ib = loc ? VALUE_BYTES[indexType] : 0;
    const eb = vb + ib;
    const operands = i.list('operands').map((raw, j) => {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new InputError(`record ${rec.id}: in.operands[${j}] must be an object`);
      const e = new RecordReader({ id: rec.id, in: raw, out: {} }, 'in');
      return { slot: e.int('slot', 0, 255), data: parseHexBytes(raw.data, 256, `record ${rec.id}: in.operands[${j}].data`) };
    });
    operands.sort((x, y) => x.slot - y.slot);
    const result = o.bytes('result', 256);
    if (result.length !== count * eb) throw new InputError(`record ${rec.id}: out.result has ${result.length} bytes, an OK ${type} ${op} of ${count} elements has ${count * eb}`);
    for (const [j, p] of operands.entries()) {
      if (p.data.length !== count * eb) throw new InputError(`record ${rec.id}: in.operands[${j}].data has ${p.data.length} bytes, expected ${count * eb}`);
    }
    const sext = (raw: bigint): bigint => (isSignedIntType(indexType) ? BigInt.asIntN(8 * ib, raw) : raw);
    const pattern = (idx: bigint): bigint => (ib === 0 ? 0n : BigInt.asUintN(8 * ib, idx));
    for (let el = 0; el < count; el++) {
      const at = (bytes: Uint8Array): { value: bigint; index: bigint } => ({ value: readLE(bytes, el * eb, vb), index: loc ? sext(readLE(bytes, el * eb + vb, ib)) : 0n });
      let acc = at(operands[0]!.data);
      for (let s = 1; s < operands.length; s++) {
        const b = at(operands[s]!.data);
        const r = s === operands.length - 1 ? at(result) : loc ? goldenIntLoc(type as IntType, op as 'minloc' | 'maxloc', acc, b) : { value: goldenIntOp(type as IntType, op as IntOp, acc.value, b.value), index: 0n };
        rows.push([BigInt(rec.id), BigInt(el), BigInt(s), BigInt(DATA_TYPES.indexOf(type)), BigInt(OPS.indexOf(op as never)), BigInt(loc ? DATA_TYPES.indexOf(indexType) : 0), acc.value, pattern(acc.index), b.value, pattern(b.index), r.value, pattern(r.index)]);
        acc = r;
      }
    }
  }
  return rows;
}

export const aluLaneTable: MemTable = { name: 'lanes', layout: ALU_LANE_LAYOUT, rows: laneRows };
