/**
 * Vector registry: each hardware block provides a generator (seeded, property-driven) and a
 * replayer (drives the RTL and compares) in vectors/blocks/<block>.ts, exporting `block`.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { InputError } from '../rtl/kernel/errors.ts';
import { FORMAT_NAME, FORMAT_VERSION, type Json, type VectorFile, type VectorRecord } from './format.ts';

/** One field of a $readmemh table row. */
export interface FieldLayout {
  name: string;
  /** width in bits */
  width: number;
  /** for an enumerated field: the name of each code, indexed by code (code = position) */
  codes?: readonly string[];
}

/** A $readmemh table: fixed-width rows, one per item (a record may produce several rows). */
export interface MemTable {
  name: string;
  layout: FieldLayout[];
  /** rows of field values in layout order */
  rows(file: VectorFile): bigint[][];
}

export interface ReplayOutcome {
  id: number;
  ok: boolean;
  /** human-readable differences ("out.result: expected 0x1, got 0x2") */
  mismatches: string[];
}

export interface VectorBlock<Cfg = unknown> {
  name: string;
  description: string;
  /** bumped whenever the generator's output for a seed changes */
  generatorVersion: string;
  defaultConfig(): Cfg;
  /** validate a header.config (InputError naming the field on bad values) */
  parseConfig(raw: { [k: string]: Json }): Cfg;
  configToJson(cfg: Cfg): { [k: string]: Json };
  /**
   * deterministic in (cfg, seed, count); calls `produced(n)` each time the n-th record has been
   * produced (n = 1, 2, ... count, in order; a record's expectations may still be filled in later
   * cycles), so a caller can report progress while generating. The callback never changes the output.
   */
  generate(cfg: Cfg, seed: number, count: number, produced?: RecordProduced): VectorRecord[];
  /** run the records through the RTL; one outcome per record, in order */
  replay(cfg: Cfg, records: VectorRecord[]): ReplayOutcome[];
  tables: MemTable[];
}

/** Called with the number of records produced so far (1, 2, ... count). */
export type RecordProduced = (n: number) => void;

/** Records between two progress reports of generateFile (the last record is always reported). */
export const GENERATE_REPORT_CHUNK = 64;

let cache: Map<string, VectorBlock> | null = null;

export async function loadBlocks(): Promise<Map<string, VectorBlock>> {
  if (cache) return cache;
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'blocks');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const m = new Map<string, VectorBlock>();
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { block?: VectorBlock };
    if (!mod.block) throw new Error(`vectors/blocks/${f} does not export 'block'`);
    if (m.has(mod.block.name)) throw new Error(`vector block ${mod.block.name} registered twice`);
    m.set(mod.block.name, mod.block);
  }
  cache = m;
  return m;
}

export async function getBlock(name: string): Promise<VectorBlock> {
  const blocks = await loadBlocks();
  const b = blocks.get(name);
  if (!b) throw new InputError(`unknown block '${name}' (blocks with vectors: ${[...blocks.keys()].join(', ')})`);
  return b;
}

/**
 * Generates a vector file; `onProgress(done)` (optional) is called every GENERATE_REPORT_CHUNK
 * records and once with `count` when the last record is produced. The records, and so the file,
 * are the same with or without it.
 */
export function generateFile<Cfg>(block: VectorBlock<Cfg>, cfg: Cfg, seed: number, count: number, onProgress?: (done: number) => void): VectorFile {
  let reported = 0;
  const produced: RecordProduced | undefined = onProgress
    ? (n) => {
        if (n - reported >= GENERATE_REPORT_CHUNK || (n >= count && reported < count)) {
          reported = n;
          onProgress(Math.min(n, count));
        }
      }
    : undefined;
  const records = block.generate(cfg, seed, count, produced);
  if (records.length !== count) throw new Error(`${block.name} generator returned ${records.length} records, asked for ${count}`);
  return {
    header: {
      format: FORMAT_NAME,
      version: FORMAT_VERSION,
      block: block.name,
      generator_version: block.generatorVersion,
      seed,
      count,
      config: block.configToJson(cfg),
    },
    records,
  };
}

export interface CheckSummary {
  passed: number;
  failed: number;
  failures: ReplayOutcome[];
}

export async function checkFile(file: VectorFile): Promise<CheckSummary> {
  const block = await getBlock(file.header.block);
  const cfg = block.parseConfig(file.header.config);
  const outcomes = block.replay(cfg, file.records);
  if (outcomes.length !== file.records.length) throw new Error(`${block.name} replayer returned ${outcomes.length} outcomes for ${file.records.length} records`);
  const failures = outcomes.filter((o) => !o.ok);
  return { passed: outcomes.length - failures.length, failed: failures.length, failures };
}
