/**
 * The sweep spec (experiments/sweep/spec.ts through cli/commands/sweep.ts loadSpec): expansion
 * order, stable ids, shards, and a clear error (naming the file and what is wrong) for each kind of
 * bad spec, before anything runs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../cli/commands/sweep.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { parseShard, pointId, shardPoints } from '../../experiments/sweep/spec.ts';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-spec-'));
let n = 0;
function specFile(doc: unknown): string {
  const p = join(dir, `s${n++}.json`);
  writeFileSync(p, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return p;
}

describe('sweep spec', () => {
  it('grid is cartesian with the last axis fastest; listed points are each crossed with the grid; fixed flags go to every point', async () => {
    const s = await loadSpec(specFile({ command: 'sim ring', fixed: { cycles: 10 }, grid: { stages: [1, 2], 'no-skipping': [false, true] }, points: [{ include: 'a' }, { include: 'b' }] }));
    expect(s.command).toEqual(['sim', 'ring']);
    expect(s.points.map((p) => p.params)).toEqual([
      { cycles: 10, include: 'a', stages: 1, 'no-skipping': false },
      { cycles: 10, include: 'a', stages: 1, 'no-skipping': true },
      { cycles: 10, include: 'a', stages: 2, 'no-skipping': false },
      { cycles: 10, include: 'a', stages: 2, 'no-skipping': true },
      { cycles: 10, include: 'b', stages: 1, 'no-skipping': false },
      { cycles: 10, include: 'b', stages: 1, 'no-skipping': true },
      { cycles: 10, include: 'b', stages: 2, 'no-skipping': false },
      { cycles: 10, include: 'b', stages: 2, 'no-skipping': true },
    ]);
    expect(s.points.map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(s.points[1]!.argv).toEqual(['--cycles', '10', '--include', 'a', '--stages', '1', '--no-skipping', '--json']);
    expect(s.points[0]!.argv).toContain('--no-skipping=false');
  });

  it('a point id depends on the command and its flags, not on their order or the point position', async () => {
    const a = await loadSpec(specFile({ command: 'atc sweep', grid: { ways: [[1, 2]], entries: [[64]] } }));
    const b = await loadSpec(specFile({ command: 'atc sweep', points: [{ seed: 3 }, { entries: [64], ways: [1, 2] }] }));
    expect(b.points[1]!.id).toBe(a.points[0]!.id);
    expect(pointId(['atc', 'sweep'], { ways: [1, 2] })).not.toBe(pointId(['atc', 'sweep'], { ways: [2, 1] }));
    expect(pointId(['atc', 'sweep'], { seed: 1 })).not.toBe(pointId(['atc', 'refresh-check'], { seed: 1 }));
    expect(a.points[0]!.id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('shards: every n-th point from i, together every point once', async () => {
    const s = await loadSpec(specFile({ command: 'sim ring', grid: { stages: [1, 2, 3, 4, 5, 6, 7] } }));
    const parts = [0, 1, 2].map((i) => shardPoints(s.points, parseShard(`${i}/3`)).map((p) => p.index));
    expect(parts).toEqual([
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
    for (const bad of ['3/3', '1', 'a/b', '0/0', '-1/2']) expect(() => parseShard(bad), bad).toThrow(InputError);
  });

  const cases: [string, unknown, RegExp][] = [
    ['not JSON', '{"command": ', /not valid JSON/],
    ['not an object', '[1]', /expected a JSON object/],
    ['unknown key', { command: 'sim ring', grid: { stages: [1] }, extra: 1 }, /unknown key "extra"/],
    ['no command', { grid: { stages: [1] } }, /"command" must be a string/],
    ['unknown command', { command: 'sim rung', grid: { stages: [1] } }, /unknown command 'sim rung' \(one of: .*sim ring/],
    ['a sweep of sweeps', { command: 'sweep', points: [{}] }, /cannot be swept/],
    ['neither grid nor points', { command: 'sim ring' }, /give "grid"/],
    ['unknown flag', { command: 'sim ring', grid: { stagez: [1] } }, /has no flag --stagez \(flags: --stages/],
    ['--json set by the spec', { command: 'sim ring', fixed: { json: true }, grid: { stages: [1] } }, /--json is set by the sweep itself/],
    ['empty axis', { command: 'sim ring', grid: { stages: [] } }, /--stages needs a non-empty array/],
    ['axis not an array', { command: 'sim ring', grid: { stages: 4 } }, /--stages needs a non-empty array/],
    ['value twice on an axis', { command: 'sim ring', grid: { stages: [2, 2] } }, /--stages lists a value twice/],
    ['a switch given a number', { command: 'sim ring', grid: { 'no-skipping': [1] } }, /is a switch: give true or false/],
    ['a list for a scalar flag', { command: 'sim ring', grid: { stages: [[1, 2]] } }, /takes one int value, not a list/],
    ['null value', { command: 'sim ring', points: [{ stages: null }] }, /expected a non-empty string or a finite number/],
    ['flag in fixed and grid', { command: 'sim ring', fixed: { stages: 1 }, grid: { stages: [2] } }, /--stages is in "fixed" too/],
    ['flag in points and grid', { command: 'sim ring', grid: { stages: [2] }, points: [{ stages: 1 }] }, /--stages is a "grid" axis too/],
    ['points not an array', { command: 'sim ring', points: {} }, /"points" must be a non-empty array/],
    ['a point not an object', { command: 'sim ring', points: [3] }, /"points"\[0\] must be an object/],
    ['the same point twice', { command: 'sim ring', points: [{ stages: 2 }, { stages: 2 }] }, /points 0 and 1 are the same \(--stages 2\)/],
    ['a value the command refuses', { command: 'sim ring', grid: { stages: [4, 0] } }, /point 1 \(--stages 0\): --stages: must be >= 1 \(got '0'\)/],
    ['a choice the command refuses', { command: 'atc sweep', grid: { replacement: ['lru', 'fifo'] } }, /point 1 \(--replacement fifo\): --replacement: expected one of lru, plru/],
    ['a required flag missing', { command: 'alu testfloat', points: [{ op: 'add' }] }, /point 0 \(--op add\): missing required flag --file/],
    ['too many points', { command: 'sim ring', grid: { stages: Array.from({ length: 1001 }, (_, i) => i + 1), cycles: Array.from({ length: 1000 }, (_, i) => i) } }, /1001000 points is more than the 1,000,000/],
  ];
  for (const [name, doc, msg] of cases) {
    it(`refused: ${name}`, async () => {
      const p = specFile(doc);
      const err = await loadSpec(p).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toContain(`sweep spec ${p}: `);
      expect((err as Error).message).toMatch(msg);
    });
  }

  it('the command line: a bad spec, a missing spec, --shard with --slurm and a bad --shard exit 2 with one line', async () => {
    const bad = await cli(['sweep', specFile({ command: 'sim ring', grid: { stages: [0] } })]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/^netoffload: sweep spec .*point 0 \(--stages 0\): --stages: must be >= 1/);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    const missing = await cli(['sweep', join(dir, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read sweep spec .*nope\.json: ENOENT/);
    const ok = specFile({ command: 'sim ring', grid: { stages: [1] } });
    expect((await cli(['sweep', ok, '--shard', '0/2', '--slurm'])).err).toMatch(/--shard and --slurm do not go together/);
    expect((await cli(['sweep', ok, '--shard', '2/2'])).err).toMatch(/--shard 2\/2: i must be below n/);
    expect((await cli(['sweep', ok, '--slurm-dry-run', '--slurm-time', 'soon'])).err).toMatch(/--slurm-time: expected Slurm's format/);
    expect((await cli(['sweep'])).err).toMatch(/missing required flag --spec/);
  });
});
