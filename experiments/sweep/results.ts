/**
 * The results of a sweep: a JSON Lines file, one line per finished point, keyed by the point's
 * id; and a CSV beside it with one row per point and one column per flattened field. While a sweep
 * runs, lines are appended as points finish (so an interrupted sweep keeps what it finished);
 * when it ends, the file is rewritten in point order, so that the bytes depend on the spec and
 * the results only, never on the number of workers, shards or reruns.
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { InputError } from '../../rtl/kernel/errors.ts';
import type { Params } from './spec.ts';

/** One finished point. */
export interface ResultLine {
  id: string;
  index: number;
  command: string;
  params: Params;
  /** the command's exit code (0 ok, 1 a failed check, 2 bad input, 3 internal error) */
  exit: number;
  /** the command's --json output, or null if it printed none that parses */
  result: unknown;
  /** the command's message on stderr when it did not exit 0 */
  error?: string;
}

/** A line as written: fixed key order, so that equal results are equal bytes. */
export function formatLine(r: ResultLine): string {
  const o: Record<string, unknown> = { id: r.id, index: r.index, command: r.command, params: r.params, exit: r.exit, result: r.result };
  if (r.error !== undefined) o.error = r.error;
  return JSON.stringify(o);
}

function checkLine(v: unknown, where: string): ResultLine {
  const bad = (why: string): never => {
    throw new InputError(`${where}: ${why}`);
  };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad('not a JSON object');
  const o = v as Record<string, unknown>;
  if (typeof o.id !== 'string' || !/^[0-9a-f]{16}$/.test(o.id)) bad('"id" must be 16 hex digits');
  if (typeof o.index !== 'number' || !Number.isSafeInteger(o.index) || o.index < 0) bad('"index" must be a non-negative integer');
  if (typeof o.command !== 'string') bad('"command" must be a string');
  if (o.params === null || typeof o.params !== 'object' || Array.isArray(o.params)) bad('"params" must be an object');
  if (typeof o.exit !== 'number' || !Number.isInteger(o.exit)) bad('"exit" must be an integer');
  if (!('result' in o)) bad('"result" is missing');
  if (o.error !== undefined && typeof o.error !== 'string') bad('"error" must be a string');
  return o as unknown as ResultLine;
}

/**
 * Reads a results file. A last line without its newline is a line the writer was interrupted in
 * (it is dropped and that point runs again); any other malformed line is an InputError naming the
 * file and line. A missing file is an empty result set.
 */
export function readResults(path: string): { lines: ResultLine[]; truncated: boolean } {
  if (!existsSync(path)) return { lines: [], truncated: false };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read results file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const rows = text.split('\n');
  const last = rows.pop()!;
  const truncated = last !== '';
  const lines: ResultLine[] = [];
  rows.forEach((row, i) => {
    if (row.trim() === '') return;
    let v: unknown;
    try {
      v = JSON.parse(row);
    } catch (e) {
      throw new InputError(`results file ${path} line ${i + 1}: not valid JSON (${(e as Error).message})`);
    }
    lines.push(checkLine(v, `results file ${path} line ${i + 1}`));
  });
  return { lines, truncated };
}

/** Appends one line (used as each point finishes). */
export function appendResult(path: string, r: ResultLine): void {
  appendFileSync(path, formatLine(r) + '\n');
}

/** Writes `text` to `path` through a temporary file and a rename, so that a reader never sees half a file. */
export function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  const fd = openSync(tmp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(tmp, path);
}

/** The CSV beside a results file: FILE.jsonl -> FILE.csv, anything else FILE.csv appended. */
export function csvPathFor(path: string): string {
  return path.endsWith('.jsonl') ? path.slice(0, -'.jsonl'.length) + '.csv' : `${path}.csv`;
}

/** Leaf fields of a JSON value as dotted paths (array items by position); null and empty containers give ''. */
function flatten(prefix: string, v: unknown, out: Map<string, string>): void {
  if (v === null || v === undefined) out.set(prefix, '');
  else if (Array.isArray(v)) {
    if (v.length === 0) out.set(prefix, '');
    v.forEach((x, i) => flatten(`${prefix}.${i}`, x, out));
  } else if (typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) out.set(prefix, '');
    for (const k of keys) flatten(`${prefix}.${k}`, (v as Record<string, unknown>)[k], out);
  } else out.set(prefix, String(v));
}

function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The CSV of result lines (already in point order): columns id, index, command, the params
 * (`params.NAME`), exit, error, then every leaf of the results (`result.a.b`, `result.rows.0.x`) in
 * the order first met; a point without a column's field has an empty cell.
 */
export function toCsv(lines: readonly ResultLine[]): string {
  const cols: string[] = ['id', 'index', 'command'];
  const known = new Set(cols);
  const rows: Map<string, string>[] = [];
  const add = (c: string): void => {
    if (!known.has(c)) {
      known.add(c);
      cols.push(c);
    }
  };
  const flat = lines.map((r) => {
    const m = new Map<string, string>([
      ['id', r.id],
      ['index', String(r.index)],
      ['command', r.command],
    ]);
    for (const [k, v] of Object.entries(r.params)) m.set(`params.${k}`, Array.isArray(v) ? v.join(',') : String(v));
    m.set('exit', String(r.exit));
    m.set('error', r.error ?? '');
    flatten('result', r.result, m);
    return m;
  });
  for (const m of flat) for (const c of m.keys()) if (c.startsWith('params.')) add(c);
  add('exit');
  add('error');
  for (const m of flat) for (const c of m.keys()) add(c);
  for (const m of flat) rows.push(m);
  return [cols.map(csvCell).join(','), ...rows.map((m) => cols.map((c) => csvCell(m.get(c) ?? '')).join(','))].join('\n') + '\n';
}

/** Writes the results in point order (JSON Lines) and the CSV beside them. */
export function writeResults(path: string, lines: readonly ResultLine[]): { jsonl: string; csv: string } {
  const sorted = [...lines].sort((a, b) => a.index - b.index);
  writeAtomic(path, sorted.map((r) => formatLine(r) + '\n').join(''));
  const csv = csvPathFor(path);
  writeAtomic(csv, toCsv(sorted));
  return { jsonl: path, csv };
}
