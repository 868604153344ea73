/**
 * Record-shape checks for replayers: every field a record of a given kind must have, and no other.
 * Problems are InputErrors naming the line of the vector file (line 1 is the header, record id k
 * is on line k + 2) and the field.
 */
import { InputError } from '../rtl/kernel/errors.ts';
import type { VectorRecord } from './format.ts';

export interface RecordShape {
  in: readonly string[];
  out: readonly string[];
  cycles: readonly string[];
}

export function lineOf(rec: VectorRecord): number {
  return rec.id + 2;
}

/** Throws an InputError naming the line when `rec` has a field not in `shape` or lacks one of it. */
export function checkShape(rec: VectorRecord, kind: string, shape: RecordShape): void {
  for (const part of ['in', 'out', 'cycles'] as const) {
    const obj = (part === 'cycles' ? rec.cycles : rec[part]) ?? {};
    const want = shape[part];
    for (const k of Object.keys(obj)) if (!want.includes(k)) throw new InputError(`line ${lineOf(rec)}: unknown field ${part}.${k} in a ${kind} record (fields: ${want.join(', ') || 'none'})`);
    for (const k of want) if (obj[k] === undefined) throw new InputError(`line ${lineOf(rec)}: missing field ${part}.${k} in a ${kind} record`);
  }
}
