/**
 * `netoffload sweep SPEC.json`: a design-space sweep described in a file, on worker threads,
 * resumable, results as JSON Lines and CSV; one shard of it (`--shard i/n`); or as a Slurm job
 * array (`--slurm`). `netoffload sweep merge OUT SHARD...`: the shards' results combined.
 * The engine is experiments/sweep/; docs/sweep.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bool, checkOutputPath, checkOutputs, type CommandIO, type CommandSpec, type FlagValues, list, num, optStr, parseFlags, str, UsageError } from '../args.ts';
import { type Progress, startProgress } from '../progress.ts';
import { loadCommands } from '../registry.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { arrayScript, mergeScript, sbatch, type SlurmOptions, slurmFiles } from '../../experiments/sweep/slurm.ts';
import { parseShard, parseSpec, type SweepSpec } from '../../experiments/sweep/spec.ts';
import { mergeResults, runSweep, type SweepSummary } from '../../experiments/sweep/sweep.ts';

const WORKER = new URL('../sweepWorker.ts', import.meta.url);
const BIN = fileURLToPath(new URL('../netoffload.js', import.meta.url));
const REPO = resolve(dirname(BIN), '..');

/** Reads and checks a spec against the CLI's commands: each point's flags parsed as its command would. */
export async function loadSpec(path: string): Promise<SweepSpec> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read sweep spec ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const cmds = await loadCommands();
  return parseSpec(text, path, cmds, (shape, argv) => {
    const cmd = cmds.find((c) => c.path.join(' ') === shape.path.join(' '))!;
    checkOutputs(cmd, parseFlags(cmd, argv));
  });
}

function defaultOut(spec: string): string {
  return `out/sweep/${basename(spec).replace(/\.json$/, '')}.jsonl`;
}

function summaryText(s: SweepSummary, shard: string | undefined): string {
  const lines = [
    `sweep: ${s.command}, ${s.points} points${shard ? `, shard ${shard}: ${s.selected} of them` : ''}; ${s.skipped} already in the results file, ${s.ran} run now, ${s.failed.length} with a failed command${s.lost.length ? `, ${s.lost.length} lost` : ''}`,
  ];
  if (s.dropped_partial_line) lines.push('  (a partly written last line of an interrupted run was dropped; its point ran again)');
  for (const f of s.failed.slice(0, 10)) lines.push(`  point ${f.index} (${f.id}): exit ${f.exit}: ${f.error.split('\n')[0]}`);
  if (s.failed.length > 10) lines.push(`  ... and ${s.failed.length - 10} more`);
  for (const l of s.lost) lines.push(`  point ${l.index} not recorded: ${l.reason} (a rerun tries it again)`);
  lines.push(`results: ${s.jsonl}`, `csv:     ${s.csv}`);
  return lines.join('\n') + '\n';
}

function slurmRun(f: FlagValues, spec: SweepSpec, specPath: string, out: string, io: CommandIO): number {
  const shards = Math.min(num(f, 'shards'), spec.points.length);
  const o: SlurmOptions = {
    spec: resolve(specPath),
    out: resolve(out),
    shards,
    cpusPerTask: num(f, 'slurm-cpus'),
    netoffload: [process.execPath, BIN],
    workdir: REPO,
    partition: optStr(f, 'slurm-partition'),
    time: str(f, 'slurm-time'),
    setup: f['slurm-setup'] === undefined ? [] : list(f, 'slurm-setup'),
    jobName: `netoffload-sweep-${basename(specPath).replace(/\.json$/, '')}`.replace(/[^A-Za-z0-9_.-]/g, '_'),
  };
  const array = arrayScript(o);
  const merge = mergeScript(o);
  const files = slurmFiles(o.out);
  if (bool(f, 'slurm-dry-run')) {
    if (bool(f, 'json')) io.out(JSON.stringify({ shards, array_script: array, merge_script: merge }) + '\n');
    else io.out(`# ${files.array}\n${array}\n# ${files.merge}\n${merge}`);
    return 0;
  }
  writeFileSync(files.array, array);
  writeFileSync(files.merge, merge);
  const arrayJob = sbatch(files.array);
  const mergeJob = sbatch(files.merge, arrayJob);
  if (bool(f, 'json')) io.out(JSON.stringify({ shards, array_job: arrayJob, merge_job: mergeJob, array_script: files.array, merge_script: files.merge, out: o.out }) + '\n');
  else io.out(`submitted job array ${arrayJob} (${shards} tasks, ${files.array}) and merge job ${mergeJob} (after all succeed, ${files.merge}); results: ${o.out}; logs: ${files.logs}\n`);
  return 0;
}

const positiveInt = (v: number, name: string): number => {
  if (!Number.isSafeInteger(v) || v < 1) throw new UsageError(`--${name} must be a positive integer`);
  return v;
};

export const commands: CommandSpec[] = [
  {
    path: ['sweep'],
    summary: 'run a design-space sweep described in a JSON file: parallel, resumable, JSON Lines + CSV; shards; Slurm job arrays',
    details: `
The spec names a command and its flags' values: "fixed" (every point), "grid" (cartesian
product, the last axis varying fastest) and/or "points" (listed; each crossed with the grid);
see docs/sweep.md and experiments/sweep/examples/. Every point is checked as its command would
check it before anything runs. Points run on --jobs worker threads, each through the command's
own implementation with --json; a line per finished point is appended to --out at once (JSON
Lines, keyed by the point's id), so a rerun skips finished points; at the end the file is
rewritten in point order and a CSV is written beside it (FILE.jsonl -> FILE.csv). The bytes
do not depend on --jobs, on shards or on reruns. Exit 1 if a point's command failed (its line
is kept) or a worker died (its point is not recorded).
--shard i/n runs every n-th point from i. --slurm writes a job array (one task per shard,
--shards) and a merge job and submits both with sbatch; --slurm-dry-run prints them.`,
    positional: 'spec',
    flags: [
      { name: 'spec', type: 'string', required: true, help: 'the sweep spec (JSON)' },
      { name: 'jobs', type: 'int', default: availableParallelism(), min: 1, max: 1024, help: 'worker threads (default: the number of cores)' },
      { name: 'out', type: 'string', output: 'mkdir', help: 'results file (JSON Lines; default out/sweep/<spec name>.jsonl); the CSV goes beside it' },
      { name: 'shard', type: 'string', help: 'run only shard i of n (i/n, 0 <= i < n): every n-th point from i' },
      { name: 'slurm', type: 'bool', help: 'write a Slurm job array (one task per shard) and a merge job, and submit them with sbatch' },
      { name: 'slurm-dry-run', type: 'bool', help: 'print the Slurm scripts --slurm would submit' },
      { name: 'shards', type: 'int', default: 4, min: 1, max: 100_000, help: 'array tasks of --slurm (at most one per point)' },
      { name: 'slurm-cpus', type: 'int', default: 1, min: 1, max: 1024, help: 'CPUs per array task (its worker threads)' },
      { name: 'slurm-partition', type: 'string', help: 'Slurm partition (default: the cluster default)' },
      { name: 'slurm-time', type: 'string', default: '01:00:00', help: 'time limit of one array task' },
      { name: 'slurm-setup', type: 'list', help: 'shell lines run on the node first, comma-separated (e.g. module load nodejs/20)' },
    ],
    async run(f, io) {
      const specPath = str(f, 'spec');
      const slurm = bool(f, 'slurm') || bool(f, 'slurm-dry-run');
      const shardText = optStr(f, 'shard');
      if (slurm && shardText !== undefined) throw new UsageError('--shard and --slurm do not go together (--slurm runs every shard, as array tasks; --shards sets how many)');
      if (!/^\d{2}:\d{2}:\d{2}$|^\d+-\d{1,2}(:\d{2}){0,2}$|^\d+$/.test(str(f, 'slurm-time'))) throw new UsageError(`--slurm-time: expected Slurm's format, e.g. 01:00:00 or 2-00:00:00 (got '${str(f, 'slurm-time')}')`);
      const shard = shardText === undefined ? undefined : parseShard(shardText);
      const out = optStr(f, 'out') ?? defaultOut(specPath);
      if (f.out === undefined) checkOutputPath('--out', out, 'mkdir');
      const spec = await loadSpec(specPath);
      if (slurm) return slurmRun(f, spec, specPath, out, io);
      let progress: Progress | undefined;
      const s = await runSweep({
        spec,
        out,
        jobs: positiveInt(num(f, 'jobs'), 'jobs'),
        shard,
        entry: WORKER,
        onProgress(done, total) {
          progress ??= startProgress(io, { label: 'sweep', total, unit: 'points' });
          progress.update(done);
        },
      }).finally(() => progress?.stop());
      if (bool(f, 'json')) io.out(JSON.stringify(s) + '\n');
      else io.out(summaryText(s, shardText));
      return s.failed.length > 0 || s.lost.length > 0 ? 1 : 0;
    },
  },
  {
    path: ['sweep', 'merge'],
    summary: "combine shards' results files into one (equal, byte for byte, to a local run of the whole sweep)",
    details: `
Usage: netoffload sweep merge OUT SHARD... [--spec SPEC]. Reads every shard's results file
(JSON Lines from sweep --shard), checks that they are of one sweep (same command; a point in
two files must have the same result) and writes OUT in point order with its CSV beside it.
With --spec, every point of the spec must be present (a shard that did not run or did not finish
is an error naming the missing points).`,
    positional: 'files',
    variadic: true,
    flags: [
      { name: 'files', type: 'list', required: true, help: 'OUT then the shard files' },
      { name: 'spec', type: 'string', help: 'the sweep spec: check that every point is present' },
    ],
    async run(f, io) {
      const files = list(f, 'files');
      if (files.length < 2) throw new UsageError('sweep merge: name the output file and at least one shard file (sweep merge OUT SHARD...)');
      const [out, ...shards] = files as [string, ...string[]];
      checkOutputPath('sweep merge OUT', out, 'mkdir');
      if (shards.some((s) => resolve(s) === resolve(out))) throw new UsageError(`sweep merge: OUT '${out}' is also a shard file`);
      const specPath = optStr(f, 'spec');
      const spec = specPath === undefined ? undefined : await loadSpec(specPath);
      const s = mergeResults(out, shards, spec);
      if (bool(f, 'json')) io.out(JSON.stringify(s) + '\n');
      else io.out(`sweep merge: ${s.command}, ${s.points} points from ${s.shards} files${spec ? ' (every point of the spec)' : ''}\nresults: ${s.jsonl}\ncsv:     ${s.csv}\n`);
      return 0;
    },
  },
];
