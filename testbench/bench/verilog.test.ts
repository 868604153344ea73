/**
 * The Verilator comparison of the kernel suite (issue 17): without Verilator on the PATH it is
 * skipped and says so; the SystemVerilog ring is built with the parameters the JavaScript rings
 * use. No Verilator needed (the build and the same-work check run in `npm run bench`).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STAGES } from '../../bench/ring-run.ts';
import { contenders, VARIANTS } from '../../bench/suites/kernel.ts';
import { findVerilator, prepareVerilatorRing, RING_SV, VERILATOR_FLAGS, verilatorParams } from '../../bench/verilog/build.ts';
import { buildRing, RING_CHANNEL_CAPACITY, RING_FIFO_DEPTH } from '../../rtl/examples/ring.ts';

const scratch = mkdtempSync(join(tmpdir(), 'verring-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('Verilator comparison: skip path', () => {
  it('without verilator on the PATH nothing is built and the suite says it skipped the comparison', () => {
    const empty = join(scratch, 'empty');
    const vl = prepareVerilatorRing({ pathEnv: `${empty}:/nonexistent`, cacheDir: join(scratch, 'cache') });
    expect(vl.kind).toBe('skipped');
    const lines: string[] = [];
    const list = contenders(vl, (l) => lines.push(l));
    expect(list).toEqual([...VARIANTS]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/verilator is not on the PATH: the Verilator comparison was skipped/);
  });

  it('finds an executable verilator on the PATH, and only an executable one', () => {
    const dir = join(scratch, 'bin');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const f = join(dir, 'verilator');
    writeFileSync(f, '#!/bin/sh\nexit 0\n');
    expect(findVerilator(dir)).toBeNull();
    chmodSync(f, 0o755);
    expect(findVerilator(`/nonexistent:${dir}`)).toBe(f);
    expect(findVerilator('')).toBeNull();
  });
});

describe('Verilator comparison: the SV ring is the ring of rtl/examples/ring.ts', () => {
  it('is built with STAGES, DEPTH and CAPACITY from the constants the JavaScript rings use', () => {
    expect(verilatorParams()).toEqual([`-GSTAGES=${STAGES}`, `-GDEPTH=${RING_FIFO_DEPTH}`, `-GCAPACITY=${RING_CHANNEL_CAPACITY}`]);
    // and those constants are what ring.ts builds: a stage FIFO holds RING_FIFO_DEPTH tokens
    const r = buildRing(1);
    r.sim.step(200);
    expect(r.fifoHeld(1)).toBeLessThanOrEqual(1); // a ring never backs up...
    const stalled = buildRing(2);
    stalled.source.in.pop = (): number => 0; // ...unless its source stops taking tokens back
    stalled.source.in.canPop = (): boolean => false;
    stalled.sim.step(200);
    expect([stalled.fifoHeld(1), stalled.fifoHeld(2)]).toEqual([RING_FIFO_DEPTH, RING_FIFO_DEPTH]);
  });

  it('ring.sv declares exactly those parameters on its top module and takes no other sizes', () => {
    const sv = readFileSync(RING_SV, 'utf8');
    const top = /module ring #\(([^)]*)\)/.exec(sv);
    expect(top).not.toBeNull();
    const names = [...top![1]!.matchAll(/parameter int (\w+)/g)].map((x) => x[1]);
    expect(names).toEqual(['STAGES', 'DEPTH', 'CAPACITY']);
  });

  it('builds the strongest single-thread configuration', () => {
    const flags = VERILATOR_FLAGS.join(' ');
    expect(flags).toContain('-O3 --cc --exe --build');
    expect(flags).toContain('-CFLAGS -O3 -march=native');
    expect(flags).toContain('OPT_FAST=-O3');
    expect(flags).toContain('--output-split-cfuncs 500');
    expect(flags).not.toMatch(/--threads/);
  });
});
