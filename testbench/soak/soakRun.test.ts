/**
 * `npm run soak`'s merged result file (bench/soak/run.ts): a run of some blocks replaces their
 * entries in --out and keeps the others; --fresh keeps none; --merge combines result files without
 * running; a file that is not a soak result is refused (exit 2) before anything runs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSoak } from '../../bench/soak/run.ts';

interface Doc {
  ok: boolean;
  run: { blocks: string[] } | null;
  blocks: { block: string; cycles: number; seed: number; slope_kb_per_mcycle: number; samples: unknown[]; ok: boolean }[];
  table: { block: string; cycles: number; ok: boolean }[];
}

async function soakCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runSoak(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const read = (p: string): Doc => JSON.parse(readFileSync(p, 'utf8')) as Doc;
const quick = ['--cycles', '10000', '--samples', '10', '--no-rate-check'];

describe('npm run soak: one merged out/soak.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  it('a run of one block replaces its entry and keeps the others', async () => {
    const out = join(dir, 'soak.json');
    expect((await soakCli(['--block', 'kernel-ring', '--out', out, ...quick])).code).toBe(0);
    expect((await soakCli(['--block', 'hpu', '--seed', '3', '--out', out, ...quick])).code).toBe(0);
    let d = read(out);
    expect(d.blocks.map((b) => b.block)).toEqual(['hpu', 'kernel-ring']); // discovery order
    expect(d.blocks.map((b) => b.seed)).toEqual([3, 1]);
    expect(d.table.map((r) => [r.block, r.cycles, r.ok])).toEqual([
      ['hpu', 10000, true],
      ['kernel-ring', 10000, true],
    ]);
    expect(d.run!.blocks).toEqual(['hpu']);
    for (const b of d.blocks) expect(Number.isFinite(b.slope_kb_per_mcycle)).toBe(true);
    expect((await soakCli(['--block', 'kernel-ring', '--cycles', '20000', '--samples', '10', '--no-rate-check', '--out', out])).code).toBe(0);
    d = read(out);
    expect(d.blocks.map((b) => [b.block, b.cycles])).toEqual([
      ['hpu', 10000],
      ['kernel-ring', 20000],
    ]);
    expect((await soakCli(['--block', 'kernel-ring', '--fresh', '--out', out, ...quick])).code).toBe(0);
    expect(read(out).blocks.map((b) => b.block)).toEqual(['kernel-ring']);
  });

  it('--merge combines result files without running; a failed entry makes the merged file fail', async () => {
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    const m = join(dir, 'm.json');
    await soakCli(['--block', 'kernel-ring', '--out', a, ...quick]);
    await soakCli(['--block', 'hpu', '--out', b, ...quick]);
    const r = await soakCli(['--merge', `${b},${a}`, '--out', m]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/merged 2 files: 2 blocks \(2 pass\)/);
    expect(read(m).blocks.map((x) => x.block)).toEqual(['hpu', 'kernel-ring']);
    const bad = read(b);
    bad.blocks[0]!.ok = false;
    writeFileSync(b, JSON.stringify(bad));
    expect((await soakCli(['--merge', b, '--out', m])).code).toBe(1);
    expect(read(m).ok).toBe(false);
  });

  it('refuses a file that is not a soak result, before running', async () => {
    const junk = join(dir, 'junk.json');
    writeFileSync(junk, '{"blocks": [{"name": 1}]}');
    const r = await soakCli(['--block', 'kernel-ring', '--out', junk, ...quick]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/blocks\[0\] is not a soak result/);
    expect(r.err).not.toMatch(/running/);
    writeFileSync(junk, 'not json');
    expect((await soakCli(['--merge', junk, '--out', join(dir, 'x.json')])).err).toMatch(/not a soak result file \(not JSON/);
    expect((await soakCli(['--merge', join(dir, 'missing.json')])).err).toMatch(/missing.json does not exist/);
  });
});
