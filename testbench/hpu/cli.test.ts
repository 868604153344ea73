/**
 * `netoffload hpu run` and `netoffload hpu qemu-diff`: output, exit codes, trace and signature
 * files, and clear errors for bad input.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { ECALL, li, lui, load, store } from '../../experiments/hpu/encode.ts';
import { writeElf } from '../../experiments/hpu/elfWriter.ts';
import { CODE, DATA, exitWith } from './programs.ts';

const dir = mkdtempSync(join(tmpdir(), 'hpu-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

function elfFile(name: string, words: number[], data = new Uint8Array(64), symbols: Record<string, number> = {}): string {
  const p = join(dir, name);
  writeFileSync(p, writeElf(CODE, [
    { vaddr: CODE, data: new Uint8Array(Uint32Array.from(words.map((w) => w >>> 0)).buffer), flags: 5 },
    { vaddr: DATA, data, flags: 6 },
  ], symbols));
  return p;
}

const hello = (): string => {
  const data = new Uint8Array(64);
  data.set(new TextEncoder().encode('hi HPU\n'));
  return elfFile('hello.elf', [...li(17, 64), ...li(10, 1), ...li(11, DATA), ...li(12, 7), ECALL, ...li(31, DATA), ...li(5, 0x1234), store('sw', 5, 31, 16), ...exitWith(5)], data, { begin_signature: DATA + 8, end_signature: DATA + 24 });
};

describe('hpu run', () => {
  it('prints what the program wrote, exits with its code, reports cycles, CPI and stalls on stderr', async () => {
    const r = await cli('hpu', 'run', hello());
    expect(r.code).toBe(5);
    expect(r.out).toBe('hi HPU\n');
    expect(r.err).toMatch(/\(five-stage pipeline\): exit 5\n/);
    expect(r.err).toMatch(/instructions retired 19\n/);
    expect(r.err).toMatch(/cycles +\d+ \(/);
    expect(r.err).toMatch(/CPI +1\.\d{3}\n/);
    expect(r.err).toMatch(/stall cycles +load-use 0, jalr register 0, branch\/jump 0, divider 0, multiplier 0, memory 0, ecall 4\n/);
  });

  it('--json: one object with the report and the output; trace files of both models are identical; signature words', async () => {
    const elf = hello();
    const tp = join(dir, 'p.trace');
    const tf = join(dir, 'f.trace');
    const sig = join(dir, 'sig.txt');
    const r = await cli('hpu', 'run', elf, '--json', '--trace', tp, '--signature', sig);
    expect(r.code).toBe(5);
    const j = JSON.parse(r.out) as Record<string, unknown>;
    expect(j).toMatchObject({ status: 'exited', exit_code: 5, instructions: 19, stdout: 'hi HPU\n', stderr: '', trap: null, model: 'pipeline' });
    expect(j.cycles).toBe((j.instructions as number) + 4 + 4);
    expect(Object.keys(j.stall_cycles as object)).toEqual(['load_use', 'jump_register', 'branch', 'divider', 'multiplier', 'memory', 'ecall']);
    expect(j).toMatchObject({ organisation: 'five-stage', div_latency: 32 });
    // ri5cy: four stages (fill 3), the ecall waits 1 cycle for EX; the same trace
    const tr = join(dir, 'r.trace');
    const ri = JSON.parse((await cli('hpu', 'run', elf, '--json', '--organisation', 'ri5cy', '--trace', tr)).out) as Record<string, unknown>;
    expect(ri).toMatchObject({ organisation: 'ri5cy', div_latency: null, instructions: 19, exit_code: 5 });
    expect(ri.cycles).toBe(19 + 3 + 2);
    expect(readFileSync(tr, 'utf8')).toBe(readFileSync(tp, 'utf8'));
    const f = await cli('hpu', 'run', elf, '--model', 'functional', '--trace', tf, '--json');
    expect(JSON.parse(f.out)).toMatchObject({ model: 'functional', instructions: 19, exit_code: 5 });
    const trace = readFileSync(tp, 'utf8');
    expect(readFileSync(tf, 'utf8')).toBe(trace);
    const lines = trace.trim().split('\n');
    expect(lines.length).toBe(19);
    expect(lines[0]).toBe(`00010000 ${(li(17, 64)[0]! >>> 0).toString(16).padStart(8, '0')} x17=00000000`);
    expect(lines.every((l) => /^[0-9a-f]{8} [0-9a-f]{8}( x([1-9]|[12]\d|3[01])=[0-9a-f]{8})?$/.test(l))).toBe(true);
    expect(lines[8]).toMatch(/^00010020 00000073 x10=00000007$/); // write's return value
    expect(readFileSync(sig, 'utf8')).toBe('00000000\n00000000\n00001234\n00000000\n');
  });

  it('a trap exits 128 + signal and names pc and reason; an exhausted budget exits 124', async () => {
    const seg = await cli('hpu', 'run', elfFile('seg.elf', [lui(5, 0x80000), load('lw', 6, 5, 0)]));
    expect(seg.code).toBe(139);
    expect(seg.err).toMatch(/trap at 0x00010004: load access fault at 0x80000000/);
    const ill = await cli('hpu', 'run', elfFile('ill.elf', [0xffffffff]), '--json');
    expect(ill.code).toBe(132);
    expect(JSON.parse(ill.out)).toMatchObject({ status: 'trapped', trap: { pc: '0x00010000', cause: 2 } });
    const loop = await cli('hpu', 'run', elfFile('loop.elf', [0x0000006f]), '--max-cycles', '1000');
    expect(loop.code).toBe(124);
    expect(loop.err).toMatch(/stopped after 1000 cycles/);
  });

  it('bad input: exit 2 with the reason', async () => {
    const missing = await cli('hpu', 'run', join(dir, 'nope.elf'));
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read .*nope\.elf: ENOENT/);
    const notElf = join(dir, 'text.elf');
    writeFileSync(notElf, 'hello');
    expect((await cli('hpu', 'run', notElf)).err).toMatch(/too short for an ELF header/);
    const noSig = await cli('hpu', 'run', elfFile('nosig.elf', exitWith(0)), '--signature', join(dir, 's'));
    expect(noSig.code).toBe(2);
    expect(noSig.err).toMatch(/no symbol begin_signature/);
    const big = await cli('hpu', 'run', hello(), '--mem-bytes', '65536');
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/does not fit in --mem-bytes 65536/);
    expect((await cli('hpu', 'run')).code).toBe(2);
    const badOut = await cli('hpu', 'run', hello(), '--trace', dir);
    expect(badOut.code).toBe(2);
    expect(badOut.err).toMatch(/--trace .*is a directory/);
    expect((await cli('hpu', 'run', hello(), '--div-latency', '0')).code).toBe(2);
    const org = await cli('hpu', 'run', hello(), '--organisation', 'ri6cy');
    expect(org.code).toBe(2);
    expect(org.err).toMatch(/--organisation/);
    const div = await cli('hpu', 'run', hello(), '--organisation', 'ri5cy', '--div-latency', '8');
    expect(div.code).toBe(2);
    expect(div.err).toMatch(/--div-latency applies to --organisation five-stage only/);
    expect((await cli('hpu', 'qemu-diff', '--qemu', join(dir, 'no-qemu'))).err).toMatch(/not found or not runnable/);
  });
});
