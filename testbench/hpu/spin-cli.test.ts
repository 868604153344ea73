/**
 * `netoffload spin run | check | table | sweep`: output, JSON, exit codes and clear errors for bad
 * input (a missing or non-RV32 handler ELF, bad lists).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'spin-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('netoffload spin', () => {
  it('spin run reports handler time, drops and throughput; --json carries the same', async () => {
    const r = await cli(['spin', 'run', '--handler', 'histogram', '--bytes', '256', '--packets', '64', '--per-message', '16']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/handler time\s+mean \d+\.\d ns/);
    expect(r.out).toMatch(/failed messages\s+0/);
    const j = await cli(['spin', 'run', '--handler', 'busy', '--spin', '3', '--bytes', '64', '--packets', '40', '--json']);
    const o = JSON.parse(j.out);
    expect(o.failed).toBe(0);
    expect(o.instructions).toBeGreaterThan(20);
    expect(o.handlerNs).toBeGreaterThan(0);
  });

  it('spin run exits 1 when handlers exceed their budget', async () => {
    const r = await cli(['spin', 'run', '--handler', 'busy', '--spin', '100000', '--bytes', '64', '--packets', '4', '--budget', '2000']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/FAIL: 1 messages failed/);
  });

  it('bad input exits 2 naming the problem', async () => {
    const missing = await cli(['spin', 'run', '--handler', join(dir, 'nope.elf')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read handler .*nope\.elf: ENOENT/);
    const junk = join(dir, 'junk.elf');
    writeFileSync(junk, new Uint8Array(100));
    const bad = await cli(['spin', 'run', '--handler', junk]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/junk\.elf/);
    const riscv = await cli(['spin', 'run', '--handler', 'vectors/riscv-tests/rv32ui/add.elf']);
    expect(riscv.code).toBe(2);
    expect(riscv.err).toMatch(/outside the handler-code region|defines none of/);
    const list = await cli(['spin', 'sweep', '--sizes', '64,x']);
    expect(list.code).toBe(2);
    expect(list.err).toMatch(/--sizes: 'x' is not an integer/);
    expect((await cli(['spin', 'run', '--bytes', '5000'])).code).toBe(2);
    const org = await cli(['spin', 'run', '--organisation', 'r5']);
    expect(org.code).toBe(2);
    expect(org.err).toMatch(/--organisation/);
    const orgs = await cli(['spin', 'sweep', '--organisation', 'ri5cy,x']);
    expect(orgs.code).toBe(2);
    expect(orgs.err).toMatch(/--organisation/);
  });

  it('spin check passes on a few scenarios', async () => {
    const r = await cli(['spin', 'check', '--runs', '3', '--seed', '9', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ runs: 3, pass: true, problems: [] });
    const ri = await cli(['spin', 'check', '--runs', '3', '--seed', '9', '--json', '--organisation', 'ri5cy']);
    expect(JSON.parse(ri.out)).toMatchObject({ runs: 3, pass: true, problems: [] });
    expect(JSON.parse(ri.out).digest).not.toBe(JSON.parse(r.out).digest); // other pipelines, other cycles
  });

  it('spin sweep --json gives one point per combination', async () => {
    const r = await cli(['spin', 'sweep', '--hpus', '2,4', '--clusters', '1', '--handler', 'busy', '--sizes', '64,512', '--packets', '24', '--json']);
    expect(r.code).toBe(0);
    const pts = JSON.parse(r.out).points;
    expect(pts).toHaveLength(4);
    expect(pts[0]).toMatchObject({ handler: 'busy', bytes: 64, clusters: 1, hpus: 2, organisation: 'five-stage' });
    const both = JSON.parse((await cli(['spin', 'sweep', '--hpus', '2', '--clusters', '1', '--handler', 'work', '--sizes', '64', '--packets', '8', '--spin', '5', '--organisation', 'five-stage,ri5cy', '--json'])).out).points;
    expect(both.map((p: { organisation: string }) => p.organisation)).toEqual(['five-stage', 'ri5cy']);
    expect(both[1].handler_ns).toBeLessThan(both[0].handler_ns); // four stages, jumps in decode
    const run = JSON.parse((await cli(['spin', 'run', '--handler', 'work', '--spin', '5', '--bytes', '64', '--packets', '8', '--organisation', 'ri5cy', '--json'])).out);
    expect(run.handlerNs).toBe(both[1].handler_ns);
  });
});
