/**
 * `npm run soak [-- flags]`: runs every soak block (bench/soak/blocks/) for --cycles simulated
 * cycles (default 10^8), prints a table per block and writes the figures to out/soak.json. Exit 0
 * when every block passes, 1 when one fails, 2 on a bad flag or file. See docs/long-runs.md.
 *
 * out/soak.json is one merged file: a run of some blocks (`--block`) replaces those blocks'
 * entries and keeps every other block's entry from the file's earlier runs (each entry carries its
 * own cycles, seed, heap samples, growth, least-squares slope, rates and verdict), so blocks run one
 * at a time add up to the whole table. `--fresh` writes this run's blocks only; `--merge FILES`
 * runs nothing and merges the entries of other soak result files into --out.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bool, type CommandIO, commandHelp, type CommandSpec, list, num, parseFlags, str, UsageError } from '../../cli/args.ts';
import { heapSlope, loadBlocks, soak, type SoakResult, soakTable } from './harness.ts';

export async function soakCommand(): Promise<CommandSpec> {
  const blocks = await loadBlocks();
  const names = blocks.map((b) => b.name);
  return {
    path: ['soak'],
    summary: 'long runs: every block for N simulated cycles; live heap and rate every few million cycles',
    details: `Blocks: ${names.join(', ')}.
Fails if a block's live heap (after a forced GC) at the end exceeds its heap at 10 % of the run by
more than 5 MB, if its simulation rate at the end is more than 20 % below the start, or if its
functional check (results against the golden model, progress) fails. Run as npm run soak -- FLAGS.`,
    flags: [
      { name: 'cycles', type: 'int', default: 100_000_000, min: 1000, max: 1e12, help: 'simulated cycles per block' },
      { name: 'samples', type: 'int', default: 20, min: 10, max: 1000, help: 'samples per block (a multiple of 10)' },
      { name: 'block', type: 'list', default: names, choices: names, help: 'blocks to run (comma-separated)' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of every block' },
      { name: 'no-rate-check', type: 'bool', help: 'report the rates (cycles per CPU second) but do not judge them' },
      { name: 'out', type: 'string', default: 'out/soak.json', help: 'the merged figures: this run\'s blocks replace their entries, the others are kept' },
      { name: 'fresh', type: 'bool', help: 'write this run\'s blocks only (do not keep other blocks\' entries from --out)' },
      { name: 'merge', type: 'list', help: 'run nothing: merge the block entries of these soak result files (later files win) into --out' },
    ],
    run(f, io) {
      const path = str(f, 'out');
      const json = bool(f, 'json');
      const from = f['merge'] === undefined ? [] : list(f, 'merge');
      if (from.length > 0) {
        let merged: SoakResult[] = bool(f, 'fresh') ? [] : readResults(path, false);
        for (const file of from) merged = mergeResults(merged, readResults(file, true), names);
        const doc = writeDoc(path, merged, null);
        io.out(json ? JSON.stringify(doc) + '\n' : `merged ${from.length} files: ${merged.length} blocks (${merged.filter((r) => r.ok).length} pass); wrote ${path}\n`);
        return doc.ok ? 0 : 1;
      }
      const samples = num(f, 'samples');
      if (samples % 10 !== 0) throw new UsageError(`--samples must be a multiple of 10 (so 10 % of the run is a sample), got ${samples}`);
      const chosen = list(f, 'block');
      // read before running: a file that is not a soak result is refused before hours of simulation
      const earlier = bool(f, 'fresh') ? [] : readResults(path, false);
      const results: SoakResult[] = [];
      for (const b of blocks.filter((x) => chosen.includes(x.name))) {
        if (!json) io.err(`${b.name}: running ${num(f, 'cycles').toLocaleString('en-US')} cycles...\n`);
        const r = soak(b, { cycles: num(f, 'cycles'), samples, seed: num(f, 'seed'), checkRate: !bool(f, 'no-rate-check') });
        results.push(r);
        if (!json) io.out(soakTable(r) + '\n');
      }
      const merged = mergeResults(earlier, results, names);
      const doc = writeDoc(path, merged, { cycles: num(f, 'cycles'), samples, seed: num(f, 'seed'), blocks: results.map((r) => r.block), ok: results.every((r) => r.ok) });
      if (json) io.out(JSON.stringify(doc) + '\n');
      else io.out(`${results.filter((r) => r.ok).length}/${results.length} blocks pass; wrote ${path} (${merged.length} blocks in all, ${merged.filter((r) => r.ok).length} pass)\n`);
      return results.every((r) => r.ok) ? 0 : 1;
    },
  };
  function writeDoc(path: string, merged: SoakResult[], run: SoakRunInfo | null): SoakDoc {
    mkdirSync(dirname(path), { recursive: true });
    const doc: SoakDoc = { node: process.version, ok: merged.every((r) => r.ok), run, blocks: merged, table: merged.map(row) };
    writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
    return doc;
  }
}

interface SoakRunInfo {
  cycles: number;
  samples: number;
  seed: number;
  blocks: string[];
  ok: boolean;
}

/** The merged file: every block's latest entry, the run that last wrote it, and one summary row per block. */
interface SoakDoc {
  node: string;
  /** every block in the file passes */
  ok: boolean;
  /** the run that wrote the file (null: written by --merge) */
  run: SoakRunInfo | null;
  blocks: SoakResult[];
  table: ReturnType<typeof row>[];
}

function row(r: SoakResult) {
  return { block: r.block, cycles: r.cycles, seed: r.seed, heap_10pct_mb: r.heap_10pct_mb, heap_end_mb: r.heap_end_mb, growth_kb_per_mcycle: r.growth_kb_per_mcycle, slope_kb_per_mcycle: r.slope_kb_per_mcycle, rate_start: r.rate_start, rate_end: r.rate_end, ok: r.ok };
}

/** Entries of `earlier` not in `now`, then `now`'s, in the blocks' discovery order (unknown names last). */
export function mergeResults(earlier: readonly SoakResult[], now: readonly SoakResult[], order: readonly string[]): SoakResult[] {
  const by = new Map<string, SoakResult>();
  for (const r of earlier) by.set(r.block, r);
  for (const r of now) by.set(r.block, r);
  const rank = (b: string): number => (order.includes(b) ? order.indexOf(b) : order.length);
  return [...by.values()].sort((a, b) => rank(a.block) - rank(b.block));
}

/** The block entries of a soak result file. A missing file is no entries unless `required`; a file that is not one is a usage error. */
export function readResults(path: string, required: boolean): SoakResult[] {
  if (!existsSync(path)) {
    if (required) throw new UsageError(`--merge: ${path} does not exist`);
    return [];
  }
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UsageError(`${path} is not a soak result file (not JSON: ${(e as Error).message}); pass --fresh to overwrite it`);
  }
  const blocks = (doc as { blocks?: unknown }).blocks;
  if (!Array.isArray(blocks)) throw new UsageError(`${path} is not a soak result file (no 'blocks' array); pass --fresh to overwrite it`);
  blocks.forEach((b: unknown, i) => {
    const r = b as Partial<SoakResult>;
    if (typeof r !== 'object' || r === null || typeof r.block !== 'string' || typeof r.cycles !== 'number' || !Array.isArray(r.samples) || typeof r.ok !== 'boolean')
      throw new UsageError(`${path}: blocks[${i}] is not a soak result (needs block, cycles, samples, ok)`);
    r.seed ??= 1; // files written before entries carried their seed: the default seed
    r.slope_kb_per_mcycle ??= heapSlope(r.samples.slice(Math.max(0, r.samples.length / 10 - 1)));
  });
  return blocks as SoakResult[];
}

export async function runSoak(argv: string[], io: CommandIO): Promise<number> {
  try {
    const cmd = await soakCommand();
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(commandHelp(cmd).replace('netoffload soak', 'npm run soak --'));
      return 0;
    }
    return await cmd.run(parseFlags(cmd, argv), io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`soak: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === invoked) {
  process.exitCode = await runSoak(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
}
