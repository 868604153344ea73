/**
 * Running sweeps (experiments/sweep/sweep.ts, pool.ts, results.ts through `netoffload sweep`):
 * the results do not depend on --jobs, on shards (merged) or on reruns, byte for byte; a rerun
 * skips finished points (and drops a partly written line); a point whose command fails is
 * recorded and the others go on; a results file of another spec is refused.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'sweep-run-'));
const spec = join(dir, 'ring.json');
// costs differ along the sweep (the long points first), so with two workers the points finish out of order
writeFileSync(spec, JSON.stringify({ command: 'sim ring', grid: { cycles: [20000, 200, 10000, 100], stages: [3, 5] } }));
const read = (p: string): string => readFileSync(p, 'utf8');

describe('netoffload sweep', () => {
  it('--jobs 1 and --jobs 2 give the same bytes (JSON Lines in point order, CSV beside it)', async () => {
    const a = await cli(['sweep', spec, '--jobs', '1', '--out', join(dir, 'j1.jsonl'), '--json']);
    expect(a.code, a.err).toBe(0);
    const b = await cli(['sweep', spec, '--jobs', '2', '--out', join(dir, 'j2.jsonl'), '--json']);
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ command: 'sim ring', points: 8, selected: 8, skipped: 0, ran: 8, failed: [], lost: [] });
    const lines = read(join(dir, 'j1.jsonl')).trimEnd().split('\n');
    expect(lines).toHaveLength(8);
    expect(read(join(dir, 'j2.jsonl'))).toBe(read(join(dir, 'j1.jsonl')));
    expect(read(join(dir, 'j2.csv'))).toBe(read(join(dir, 'j1.csv')));
    const rows = lines.map((l) => JSON.parse(l) as { index: number; params: { cycles: number; stages: number }; exit: number; result: { cycles: number; stages: number; ok: boolean } });
    expect(rows.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (const r of rows) {
      expect(r.exit).toBe(0);
      expect(r.result).toMatchObject({ cycles: r.params.cycles, stages: r.params.stages, ok: true });
    }
    const csv = read(join(dir, 'j1.csv')).trimEnd().split('\n');
    expect(csv[0]).toBe('id,index,command,params.cycles,params.stages,exit,error,result.stages,result.cycles,result.emitted,result.received,result.errors,result.ok');
    expect(csv[1]).toMatch(/^[0-9a-f]{16},0,sim ring,20000,3,0,,3,20000,20000,\d+,0,true$/);
  });

  it('a rerun skips finished points (even a result it would compute differently), runs the rest, drops a partly written line, and gives the same bytes', async () => {
    const full = read(join(dir, 'j1.jsonl')).trimEnd().split('\n');
    const out = join(dir, 'resume.jsonl');
    // an interrupted run: points finished out of order, two missing, the last line cut short
    const kept = [full[5]!, full[0]!, full[3]!, full[7]!, full[2]!, full[6]!.replace('"received":', '"received_marker":1,"received":')];
    writeFileSync(out, kept.map((l) => l + '\n').join('') + full[1]!.slice(0, 40));
    const r = await cli(['sweep', spec, '--jobs', '2', '--out', out, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ points: 8, skipped: 6, ran: 2, dropped_partial_line: true });
    const again = read(out).trimEnd().split('\n');
    expect(again[6]).toContain('"received_marker":1'); // kept, not run again
    expect(again.filter((_, i) => i !== 6)).toEqual(full.filter((_, i) => i !== 6));
    const twice = await cli(['sweep', spec, '--out', out, '--json']);
    expect(JSON.parse(twice.out)).toMatchObject({ skipped: 8, ran: 0 });
  });

  it('shards 0/3, 1/3, 2/3 merged equal the local run byte for byte; merge refuses missing points, conflicting results and a truncated shard', async () => {
    const shards = [0, 1, 2].map((i) => join(dir, `shard${i}.jsonl`));
    for (let i = 0; i < 3; i++) {
      const r = await cli(['sweep', spec, '--shard', `${i}/3`, '--jobs', '1', '--out', shards[i]!, '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ points: 8, selected: i < 2 ? 3 : 2, ran: i < 2 ? 3 : 2 });
    }
    const merged = join(dir, 'merged.jsonl');
    const m = await cli(['sweep', 'merge', merged, ...shards, '--spec', spec, '--json']);
    expect(m.code, m.err).toBe(0);
    expect(JSON.parse(m.out)).toMatchObject({ command: 'sim ring', shards: 3, points: 8 });
    expect(read(merged)).toBe(read(join(dir, 'j1.jsonl')));
    expect(read(join(dir, 'merged.csv'))).toBe(read(join(dir, 'j1.csv')));
    // without --spec the shards still merge to the same bytes
    expect((await cli(['sweep', 'merge', join(dir, 'merged2.jsonl'), shards[2]!, shards[0]!, shards[1]!])).code).toBe(0);
    expect(read(join(dir, 'merged2.jsonl'))).toBe(read(merged));

    const missing = await cli(['sweep', 'merge', join(dir, 'm3.jsonl'), shards[0]!, shards[2]!, '--spec', spec]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/3 of 8 points have no result in the shard files \(indices 1, 4, 7\)/);
    const forged = join(dir, 'forged.jsonl');
    writeFileSync(forged, read(shards[0]!).replace('"errors":0', '"errors":1'));
    const conflict = await cli(['sweep', 'merge', join(dir, 'm4.jsonl'), shards[0]!, forged]);
    expect(conflict.code).toBe(2);
    expect(conflict.err).toMatch(/point [0-9a-f]{16} \(index 0\) differs between .*shard0\.jsonl and .*forged\.jsonl/);
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, read(shards[1]!).slice(0, -5));
    expect((await cli(['sweep', 'merge', join(dir, 'm5.jsonl'), shards[0]!, cut])).err).toMatch(/cut\.jsonl ends in a partly written line/);
    expect((await cli(['sweep', 'merge', join(dir, 'm6.jsonl')])).err).toMatch(/name the output file and at least one shard file/);
    expect((await cli(['sweep', 'merge', join(dir, 'm7.jsonl'), join(dir, 'none.jsonl')])).err).toMatch(/none\.jsonl does not exist/);
  });

  it('a point whose command refuses its input is recorded with its exit code and message; the other points go on; the sweep exits 1', async () => {
    const s = join(dir, 'decode.json');
    writeFileSync(s, JSON.stringify({ command: 'nic decode', grid: { hex: ['00', 'zz', '0011'] } }));
    const out = join(dir, 'decode.jsonl');
    const r = await cli(['sweep', s, '--jobs', '2', '--out', out]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/3 points; 0 already in the results file, 3 run now, 1 with a failed command/);
    expect(r.out).toMatch(/point 1 \([0-9a-f]{16}\): exit 2: --hex: 'zz' is not an even number of hexadecimal digits/);
    const rows = read(out).trimEnd().split('\n').map((l) => JSON.parse(l) as { exit: number; result: unknown; error?: string });
    expect(rows.map((x) => x.exit)).toEqual([0, 2, 0]);
    expect(rows[0]!.result).toMatchObject({ reason: 'bad_buffer' });
    expect(rows[1]!.result).toBeNull();
    expect(rows[1]!.error).toMatch(/^--hex: 'zz'/);
    expect(read(join(dir, 'decode.csv')).split('\n')[2]).toMatch(/^[0-9a-f]{16},1,nic decode,zz,2,--hex: 'zz' is not an even number of hexadecimal digits \(byte 0 first\),,,,,$/);
    // the failure is a result: a rerun does not run it again, and still exits 1
    const again = await cli(['sweep', s, '--out', out, '--json']);
    expect(again.code).toBe(1);
    expect(JSON.parse(again.out)).toMatchObject({ skipped: 3, ran: 0, failed: [{ index: 1, exit: 2 }] });
  });

  it('a results file of another spec, or with a malformed line, is refused (exit 2) and left as it was', async () => {
    const out = join(dir, 'other.jsonl');
    copyFileSync(join(dir, 'decode.jsonl'), out);
    const before = read(out);
    const r = await cli(['sweep', spec, '--out', out]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/results file .*other\.jsonl holds point [0-9a-f]{16} \(nic decode .*\), which is not a point of this spec/);
    expect(read(out)).toBe(before);
    appendFileSync(out, '{"id": 5}\n{}\n');
    const m = await cli(['sweep', join(dir, 'decode.json'), '--out', out]);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/results file .*other\.jsonl line 4: "id" must be 16 hex digits/);
  });
});
