/**
 * A sweep as a Slurm job array (docs/sweep.md): one array task per shard, each running
 * `netoffload sweep SPEC --shard $SLURM_ARRAY_TASK_ID/N` into its own results file, and a merge
 * job that starts when every array task succeeded (`--dependency=afterok`) and combines the shard
 * files into the sweep's results file. The scripts are plain sbatch scripts; submitting them
 * needs `sbatch` on the PATH and a filesystem every node shares (the repository, the spec and the
 * output directory).
 */
import { spawnSync } from 'node:child_process';
import { InputError } from '../../rtl/kernel/errors.ts';

export interface SlurmOptions {
  /** absolute path of the spec */
  spec: string;
  /** absolute path of the merged results file */
  out: string;
  /** array tasks (shards) */
  shards: number;
  /** CPUs per array task (each runs that many worker threads) */
  cpusPerTask: number;
  /** the command that runs netoffload on a node, e.g. [node, /repo/cli/netoffload.js] */
  netoffload: string[];
  /** directory the jobs start in (the repository) */
  workdir: string;
  partition?: string;
  /** wall-clock limit of one array task, Slurm's format (e.g. 01:00:00) */
  time: string;
  /** shell lines run before netoffload on the node (e.g. `module load nodejs/20`) */
  setup: string[];
  jobName: string;
}

/** A word quoted for a POSIX shell (left as is when it has nothing the shell would read). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function stem(out: string): string {
  return out.endsWith('.jsonl') ? out.slice(0, -'.jsonl'.length) : out;
}

/** The results file of shard i of n. */
export function shardFile(out: string, i: number, n: number): string {
  return `${stem(out)}.shard-${i}-of-${n}.jsonl`;
}

/** Where the array script, the merge script and the job logs go. */
export function slurmFiles(out: string): { array: string; merge: string; logs: string } {
  return { array: `${stem(out)}.array.sbatch`, merge: `${stem(out)}.merge.sbatch`, logs: `${stem(out)}.slurm-%A_%a.log` };
}

function header(o: SlurmOptions, name: string, log: string, extra: string[]): string[] {
  const lines = ['#!/bin/bash', `#SBATCH --job-name=${name}`, `#SBATCH --output=${log}`, `#SBATCH --time=${o.time}`, ...extra];
  if (o.partition !== undefined) lines.push(`#SBATCH --partition=${o.partition}`);
  lines.push('set -euo pipefail', `cd ${shellQuote(o.workdir)}`, ...o.setup);
  return lines;
}

/** The array script: task i runs shard i of n with as many worker threads as it has CPUs. */
export function arrayScript(o: SlurmOptions): string {
  const f = slurmFiles(o.out);
  const run = [...o.netoffload, 'sweep', o.spec].map(shellQuote).join(' ');
  const shardOut = `${shellQuote(stem(o.out))}.shard-"$SLURM_ARRAY_TASK_ID"-of-${o.shards}.jsonl`;
  return (
    [
      ...header(o, o.jobName, f.logs, [`#SBATCH --array=0-${o.shards - 1}`, '#SBATCH --ntasks=1', `#SBATCH --cpus-per-task=${o.cpusPerTask}`]),
      `${run} --shard "$SLURM_ARRAY_TASK_ID/${o.shards}" --jobs "\${SLURM_CPUS_PER_TASK:-${o.cpusPerTask}}" --out ${shardOut}`,
    ].join('\n') + '\n'
  );
}

/** The merge script: combines every shard's file into the results file, checking that no point is missing. */
export function mergeScript(o: SlurmOptions): string {
  const f = slurmFiles(o.out);
  const shards = Array.from({ length: o.shards }, (_, i) => shellQuote(shardFile(o.out, i, o.shards)));
  const run = [...o.netoffload, 'sweep', 'merge', o.out].map(shellQuote).join(' ');
  return [...header(o, `${o.jobName}-merge`, f.logs.replace('%A_%a', '%j-merge'), ['#SBATCH --ntasks=1', '#SBATCH --cpus-per-task=1']), `${run} ${shards.join(' ')} --spec ${shellQuote(o.spec)}`].join('\n') + '\n';
}

/** Runs sbatch (--parsable) on a script and returns the job id; `dependency` is an afterok job id. */
export function sbatch(script: string, dependency?: string): string {
  const args = ['--parsable', ...(dependency ? [`--dependency=afterok:${dependency}`] : []), script];
  const r = spawnSync('sbatch', args, { encoding: 'utf8' });
  if (r.error) {
    const code = (r.error as NodeJS.ErrnoException).code;
    throw new InputError(code === 'ENOENT' ? 'sbatch is not on the PATH: run on a Slurm login node, or give --slurm-dry-run to print the script' : `sbatch: ${r.error.message}`);
  }
  if (r.status !== 0) throw new Error(`sbatch ${args.join(' ')} failed (exit ${r.status}): ${(r.stderr || r.stdout).trim()}`);
  const id = r.stdout.trim().split(';')[0]!;
  if (!/^\d+$/.test(id)) throw new Error(`sbatch ${args.join(' ')} printed no job id (got '${r.stdout.trim()}')`);
  return id;
}
