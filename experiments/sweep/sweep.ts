/**
 * Running a sweep (docs/sweep.md): the points of a spec (or of one shard of it) not yet in the
 * results file run on a pool of worker threads, each through the command's own implementation;
 * every finished point is appended to the results file at once, and when all are done the file is
 * rewritten in point order with its CSV beside it. Merging shards' result files gives the same
 * bytes as one local run.
 */
import { existsSync } from 'node:fs';
import { InputError } from '../../rtl/kernel/errors.ts';
import { runPool, type Lost } from './pool.ts';
import type { DoneMessage } from './protocol.ts';
import { appendResult, readResults, type ResultLine, writeAtomic, writeResults, formatLine } from './results.ts';
import { type Shard, shardPoints, type SweepPoint, type SweepSpec } from './spec.ts';

export interface SweepOptions {
  spec: SweepSpec;
  /** the results file (JSON Lines); the CSV goes beside it */
  out: string;
  jobs: number;
  shard?: Shard;
  /** the worker entry module (it calls serveSweepWorker with the CLI's in-process runner) */
  entry: URL;
  /** `done` of `total` points to run have finished */
  onProgress?(done: number, total: number): void;
}

export interface SweepSummary {
  command: string;
  /** points in the whole spec */
  points: number;
  /** points of this run (the shard's, or all) */
  selected: number;
  /** of those, already in the results file and not run again */
  skipped: number;
  /** run now */
  ran: number;
  /** selected points whose command did not exit 0 (their lines are kept: the failure is a result) */
  failed: { index: number; id: string; exit: number; error: string }[];
  /** points whose worker died: not recorded, a rerun tries them again */
  lost: Lost[];
  /** a partly written last line was found in the results file and dropped (that point ran again) */
  dropped_partial_line: boolean;
  jsonl: string;
  csv: string;
}

/** The command's --json document from its stdout: the whole output, or else its last line; null if neither parses. */
export function jsonOf(out: string): unknown {
  const text = out.trim();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    const last = text.slice(text.lastIndexOf('\n') + 1);
    try {
      return JSON.parse(last);
    } catch {
      return null;
    }
  }
}

function lineOf(spec: SweepSpec, p: SweepPoint, m: DoneMessage): ResultLine {
  const r: ResultLine = { id: p.id, index: p.index, command: spec.command.join(' '), params: p.params, exit: m.code, result: jsonOf(m.out) };
  if (m.code !== 0) r.error = m.err.trim().replace(/^netoffload: /, '');
  return r;
}

/**
 * The lines of a results file that belong to `spec`, re-indexed by the spec (a line of another
 * spec is an InputError: the file is not this sweep's). Lines of one point met twice keep the first.
 */
function adopt(spec: SweepSpec, byId: Map<string, SweepPoint>, lines: readonly ResultLine[], file: string): Map<string, ResultLine> {
  const out = new Map<string, ResultLine>();
  const command = spec.command.join(' ');
  for (const l of lines) {
    const p = byId.get(l.id);
    if (!p || l.command !== command) {
      throw new InputError(
        `results file ${file} holds point ${l.id} (${l.command} ${JSON.stringify(l.params)}), which is not a point of this spec: the spec changed or the file belongs to another sweep (give another --out, or delete the file to start again)`,
      );
    }
    if (!out.has(l.id)) out.set(l.id, { ...l, index: p.index });
  }
  return out;
}

export async function runSweep(o: SweepOptions): Promise<SweepSummary> {
  const { spec } = o;
  const byId = new Map(spec.points.map((p) => [p.id, p]));
  const selected = o.shard ? shardPoints(spec.points, o.shard) : spec.points;
  const { lines, truncated } = readResults(o.out);
  const have = adopt(spec, byId, lines, o.out);
  // the file as it stands, in order and without a partial last line, before anything is appended
  writeAtomic(o.out, [...have.values()].sort((a, b) => a.index - b.index).map((l) => formatLine(l) + '\n').join(''));
  const todo = selected.filter((p) => !have.has(p.id));
  const skipped = selected.length - todo.length;
  let done = 0;
  o.onProgress?.(0, todo.length);
  const lost = await runPool({
    tasks: todo.map((p) => ({ index: p.index, argv: [...spec.command, ...p.argv] })),
    jobs: o.jobs,
    entry: o.entry,
    onDone(m) {
      const p = spec.points[m.index]!;
      const line = lineOf(spec, p, m);
      appendResult(o.out, line);
      have.set(p.id, line);
      o.onProgress?.(++done, todo.length);
    },
  });
  const { jsonl, csv } = writeResults(o.out, [...have.values()]);
  const failed = selected
    .map((p) => have.get(p.id))
    .filter((l): l is ResultLine => l !== undefined && l.exit !== 0)
    .map((l) => ({ index: l.index, id: l.id, exit: l.exit, error: l.error ?? '' }));
  return { command: spec.command.join(' '), points: spec.points.length, selected: selected.length, skipped, ran: todo.length - lost.length, failed, lost, dropped_partial_line: truncated, jsonl, csv };
}

export interface MergeSummary {
  command: string;
  shards: number;
  points: number;
  jsonl: string;
  csv: string;
}

/**
 * Combines shards' results files into `out` (and its CSV). With `spec`, every point of the spec
 * must be present and nothing else; without it, the shards must agree on the command and no two
 * lines may share an index. The same point in two files must have the same bytes.
 */
export function mergeResults(out: string, files: readonly string[], spec?: SweepSpec): MergeSummary {
  if (files.length === 0) throw new InputError('sweep merge: name the output file and at least one shard file (sweep merge OUT SHARD...)');
  const byId = new Map<string, { line: ResultLine; file: string }>();
  const byIndex = new Map<number, string>();
  let command: string | undefined;
  for (const f of files) {
    if (!existsSync(f)) throw new InputError(`sweep merge: shard file ${f} does not exist`);
    const { lines, truncated } = readResults(f);
    if (truncated) throw new InputError(`sweep merge: shard file ${f} ends in a partly written line: that shard did not finish (rerun it; finished points are kept)`);
    for (const l of lines) {
      command ??= l.command;
      if (l.command !== command) throw new InputError(`sweep merge: ${f} holds results of '${l.command}', other files of '${command}'`);
      const prev = byId.get(l.id);
      if (prev) {
        if (formatLine(prev.line) !== formatLine(l)) throw new InputError(`sweep merge: point ${l.id} (index ${l.index}) differs between ${prev.file} and ${f}`);
        continue;
      }
      const twin = byIndex.get(l.index);
      if (twin !== undefined && !spec) throw new InputError(`sweep merge: index ${l.index} is point ${twin} in one file and ${l.id} in ${f}: the shards are of different sweeps`);
      byId.set(l.id, { line: l, file: f });
      byIndex.set(l.index, l.id);
    }
  }
  let merged = [...byId.values()].map((x) => x.line);
  if (spec) {
    const ids = new Map(spec.points.map((p) => [p.id, p]));
    merged = [...adopt(spec, ids, merged, files.join(', ')).values()];
    const missing = spec.points.filter((p) => !byId.has(p.id)).map((p) => p.index);
    if (missing.length > 0) {
      const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ', ...' : '');
      throw new InputError(`sweep merge: ${missing.length} of ${spec.points.length} points have no result in the shard files (indices ${shown}): a shard did not run or did not finish`);
    }
  }
  if (command === undefined) throw new InputError(`sweep merge: the shard files hold no results (${files.join(', ')})`);
  const { jsonl, csv } = writeResults(out, merged);
  return { command, shards: files.length, points: merged.length, jsonl, csv };
}
