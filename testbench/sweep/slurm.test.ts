/**
 * `netoffload sweep --slurm` (experiments/sweep/slurm.ts): the job array and merge scripts, their
 * submission through sbatch (a stand-in sbatch on the PATH records the calls), a clear error when
 * sbatch is missing, and the scripts themselves run by bash as Slurm would run them (each array
 * task with its SLURM_ARRAY_TASK_ID, then the merge) giving the local run's bytes. The real
 * one-node cluster is scripts/slurm-ci.sh, run by CI.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shellQuote } from '../../experiments/sweep/slurm.ts';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-slurm-'));
const spec = join(dir, 'ring.json');
writeFileSync(spec, JSON.stringify({ command: 'sim ring', fixed: { cycles: 300 }, grid: { stages: [2, 3, 4] } }));
const read = (p: string): string => readFileSync(p, 'utf8');
const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe('netoffload sweep --slurm', () => {
  it('--slurm-dry-run prints an array of --shards tasks running --shard $SLURM_ARRAY_TASK_ID/n and a merge of every shard file with --spec', async () => {
    const r = await cli(['sweep', spec, '--slurm-dry-run', '--shards', '2', '--slurm-cpus', '2', '--slurm-partition', 'short', '--slurm-setup', 'module load nodejs/20', '--out', join(dir, 'dry.jsonl'), '--json']);
    expect(r.code, r.err).toBe(0);
    const d = JSON.parse(r.out) as { shards: number; array_script: string; merge_script: string };
    expect(d.shards).toBe(2);
    expect(d.array_script).toMatch(/^#!\/bin\/bash\n/);
    expect(d.array_script).toContain('#SBATCH --array=0-1\n');
    expect(d.array_script).toContain('#SBATCH --cpus-per-task=2\n');
    expect(d.array_script).toContain('#SBATCH --partition=short\n');
    expect(d.array_script).toContain('\nmodule load nodejs/20\n');
    expect(d.array_script).toMatch(/sweep \S+ring\.json --shard "\$SLURM_ARRAY_TASK_ID\/2" --jobs "\$\{SLURM_CPUS_PER_TASK:-2\}" --out \S+dry\.shard-"\$SLURM_ARRAY_TASK_ID"-of-2\.jsonl\n$/);
    expect(d.merge_script).toMatch(/sweep merge \S+dry\.jsonl \S+dry\.shard-0-of-2\.jsonl \S+dry\.shard-1-of-2\.jsonl --spec \S+ring\.json\n$/);
    // more shards than points: one task per point
    const few = await cli(['sweep', spec, '--slurm-dry-run', '--shards', '10', '--out', join(dir, 'dry.jsonl'), '--json']);
    expect(JSON.parse(few.out)).toMatchObject({ shards: 3 });
  });

  it('--slurm submits the array, then the merge with --dependency=afterok on it; without sbatch it is a usage error', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const calls = join(dir, 'calls.txt');
    writeFileSync(join(bin, 'sbatch'), `#!/bin/sh\necho "$@" >> ${shellQuote(calls)}\nn=$(wc -l < ${shellQuote(calls)})\necho "$((40 + n));cluster"\n`);
    chmodSync(join(bin, 'sbatch'), 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    const out = join(dir, 'sub.jsonl');
    const r = await cli(['sweep', spec, '--slurm', '--shards', '2', '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ shards: 2, array_job: '41', merge_job: '42', array_script: join(dir, 'sub.array.sbatch'), merge_script: join(dir, 'sub.merge.sbatch') });
    expect(read(calls)).toBe(`--parsable ${join(dir, 'sub.array.sbatch')}\n--parsable --dependency=afterok:41 ${join(dir, 'sub.merge.sbatch')}\n`);
    process.env.PATH = join(dir, 'empty');
    const none = await cli(['sweep', spec, '--slurm', '--out', out]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/sbatch is not on the PATH: run on a Slurm login node, or give --slurm-dry-run/);
  });

  it('the scripts run as Slurm runs them (each array task, then the merge) give the bytes of a local run', async () => {
    const out = join(dir, 'bash.jsonl');
    const r = await cli(['sweep', spec, '--slurm-dry-run', '--shards', '2', '--out', out, '--json']);
    const d = JSON.parse(r.out) as { array_script: string; merge_script: string };
    writeFileSync(join(dir, 'a.sbatch'), d.array_script);
    writeFileSync(join(dir, 'm.sbatch'), d.merge_script);
    for (const task of ['0', '1']) execFileSync('bash', [join(dir, 'a.sbatch')], { env: { ...process.env, SLURM_ARRAY_TASK_ID: task, SLURM_CPUS_PER_TASK: '1' }, stdio: 'pipe' });
    execFileSync('bash', [join(dir, 'm.sbatch')], { stdio: 'pipe' });
    const local = join(dir, 'local.jsonl');
    expect((await cli(['sweep', spec, '--jobs', '1', '--out', local])).code).toBe(0);
    expect(read(out)).toBe(read(local));
    expect(read(join(dir, 'bash.csv'))).toBe(read(join(dir, 'local.csv')));
    expect(read(out).trimEnd().split('\n')).toHaveLength(3);
  });

  it('shellQuote leaves plain words and quotes the rest', () => {
    expect(shellQuote('/a/b-c_d.json')).toBe('/a/b-c_d.json');
    expect(shellQuote("it's here")).toBe(`'it'\\''s here'`);
  });
});
