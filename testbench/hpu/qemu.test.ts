/**
 * The QEMU differential, short: random programs on qemu-riscv32 (when installed; CI installs
 * qemu-user and also runs the longer `netoffload hpu qemu-diff` step) and on both models.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { qemuVersion, runQemuDiff } from '../../experiments/hpu/qemuDiff.ts';
import { normaliseQemu, parseQemuCpuLog, runQemuTrace, singleStepOption } from '../../experiments/hpu/qemuTrace.ts';
import { parseElf, type ElfImage } from '../../models/hpu/elf.ts';
import { runPipeline } from '../../experiments/hpu/run.ts';
import { runCli } from '../../cli/main.ts';

const qemu = qemuVersion();

describe('QEMU differential', () => {
  it.runIf(qemu !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('qemu-riscv32 and both models agree on 25 random programs', () => {
    const r = runQemuDiff({ seed: 11, programs: 25, maxItems: 60 });
    expect(r.first_problem).toBeNull();
    expect(r.mismatches).toBe(0);
    expect(r.programs).toBe(25);
    expect(r.instructions).toBeGreaterThan(25 * 100);
  });
});

describe('QEMU trace comparison (hpu qemu-trace)', () => {
  // a hand-written `-d exec,cpu` log of three instructions: addi x1 = 5, add x2 = x1 + x1, ecall
  const dump = (pc: number, x1: number, x2: number): string =>
    `Trace 0: 0x7f0000000000 [00000000/${pc.toString(16).padStart(8, '0')}/00107600/00000201] \n pc       ${pc.toString(16).padStart(8, '0')}\n` +
    Array.from({ length: 8 }, (_, row) => Array.from({ length: 4 }, (_, k) => {
      const r = row * 4 + k;
      const v = r === 1 ? x1 : r === 2 ? x2 : 0;
      return ` x${r}/r${r}`.padEnd(10) + v.toString(16).padStart(8, '0');
    }).join('') + '\n').join('');
  const log = dump(0x10000, 0, 0) + dump(0x10004, 5, 0) + dump(0x10008, 5, 10);
  const image = { entry: 0x10000, segments: [{ vaddr: 0x10000, data: new Uint8Array(Uint32Array.from([0x00500093, 0x00108133, 0x00000073]).buffer), memsz: 12, flags: 5 }], symbols: new Map() } as unknown as ElfImage;

  it('parses the CPU dumps and normalises them to the --trace format (changed registers only, words from the ELF)', () => {
    const d = parseQemuCpuLog(log, 'test log');
    expect(d.pcs).toEqual([0x10000, 0x10004, 0x10008]);
    expect(normaliseQemu(d, image)).toEqual(['00010000 00500093 x1=00000005', '00010004 00108133 x2=0000000a', '00010008 00000073']);
  });
  it('rejects a log without dumps, a truncated dump, and two registers changed by one instruction', () => {
    expect(() => parseQemuCpuLog('nothing here\n', 'q.log')).toThrow(/q.log: no CPU dump/);
    expect(() => parseQemuCpuLog(log.slice(0, log.length - 60), 'q.log')).toThrow(/q.log: the last CPU dump has \d+ of 32 registers/);
    expect(() => normaliseQemu(parseQemuCpuLog(dump(0x10000, 0, 0) + dump(0x10004, 1, 1), 'q'), image)).toThrow(/x1 and x2 both changed/);
  });
  it('chooses -singlestep before QEMU 8.1 and -one-insn-per-tb from 8.1', () => {
    expect(singleStepOption('qemu-riscv32 version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)')).toBe('-singlestep');
    expect(singleStepOption('qemu-riscv32 version 8.1.0')).toBe('-one-insn-per-tb');
    expect(singleStepOption('qemu-riscv32 version 9.0.2')).toBe('-one-insn-per-tb');
  });
  it.runIf(qemu !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('the pipeline trace equals qemu-riscv32\'s on riscv-tests (add, lw, beq, div, mulh)', () => {
    for (const t of ['rv32ui/add', 'rv32ui/lw', 'rv32ui/beq', 'rv32um/div', 'rv32um/mulh']) {
      const file = `vectors/riscv-tests/${t}.elf`;
      const r = runQemuTrace(file, parseElf(new Uint8Array(readFileSync(file)), file), { maxCycles: 1_000_000 });
      expect(r.first_difference, file).toBeNull();
      expect(r.qemu_status).toBe(0);
      expect(r.compared).toBeGreaterThan(80);
    }
  });
  it.runIf(qemu !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('--organisation ri5cy: the RI5CY pipeline\'s trace equals qemu-riscv32\'s, with its own cycle count', () => {
    for (const t of ['rv32ui/jalr', 'rv32ui/lw', 'rv32um/div', 'rv32um/mulh']) {
      const file = `vectors/riscv-tests/${t}.elf`;
      const image = parseElf(new Uint8Array(readFileSync(file)), file);
      const r = runQemuTrace(file, image, { maxCycles: 1_000_000, organisation: 'ri5cy' });
      expect(r.first_difference, file).toBeNull();
      expect(r.organisation).toBe('ri5cy');
      expect(r.compared).toBeGreaterThan(80);
      // the cycles are those of the ri5cy core on this program (not the five-stage core's)
      expect(r.pipeline_cycles).toBe(runPipeline(image, { maxCycles: 1_000_000, params: { organisation: 'ri5cy' } }).cycles);
      const five = runQemuTrace(file, image, { maxCycles: 1_000_000 });
      expect(five.organisation).toBe('five-stage');
      expect(five.pipeline_cycles).toBe(runPipeline(image, { maxCycles: 1_000_000 }).cycles);
      expect(five.pipeline_cycles).not.toBe(r.pipeline_cycles);
    }
  });
  it('hpu qemu-trace --organisation: ri5cy on the command line (text and JSON), an unknown organisation is a usage error', async () => {
    const run = async (...argv: string[]): Promise<{ code: number; out: string; err: string }> => {
      let out = '';
      let err = '';
      const code = await runCli(argv, { out: (x) => (out += x), err: (x) => (err += x) });
      return { code, out, err };
    };
    const bad = await run('hpu', 'qemu-trace', 'vectors/riscv-tests/rv32ui/add.elf', '--organisation', 'ri6cy');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--organisation.*five-stage, ri5cy/);
    if (qemu === null && process.env.NETOFFLOAD_REQUIRE_QEMU !== '1') return;
    const text = await run('hpu', 'qemu-trace', 'vectors/riscv-tests/rv32ui/add.elf', '--organisation', 'ri5cy');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/same {2}vectors\/riscv-tests\/rv32ui\/add\.elf: \d+ instructions compared \(qemu \d+, ri5cy pipeline \d+ in \d+ cycles/);
    expect(text.out).toMatch(/PASS: 1 programs, \d+ instructions, the ri5cy pipeline's trace equals qemu-riscv32's/);
    const j = JSON.parse((await run('hpu', 'qemu-trace', 'vectors/riscv-tests/rv32ui/add.elf', '--organisation', 'ri5cy', '--json')).out) as { organisation: string; pass: boolean; results: { organisation: string; pipeline_cycles: number }[] };
    expect(j.organisation).toBe('ri5cy');
    expect(j.pass).toBe(true);
    expect(j.results[0]!.organisation).toBe('ri5cy');
    const five = JSON.parse((await run('hpu', 'qemu-trace', 'vectors/riscv-tests/rv32ui/add.elf', '--json')).out) as { organisation: string; results: { pipeline_cycles: number }[] };
    expect(five.organisation).toBe('five-stage');
    expect(five.results[0]!.pipeline_cycles).not.toBe(j.results[0]!.pipeline_cycles);
  });
  it.runIf(qemu !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('reports where a handler ELF run without the runtime parts ways with qemu (a0 = 0 is no argument block)', () => {
    const file = 'rtl/hpu/handlers/elf/busy.elf';
    const r = runQemuTrace(file, parseElf(new Uint8Array(readFileSync(file)), file), { maxCycles: 10_000 });
    expect(r.match).toBe(false);
    expect(r.qemu_status).toBe(139); // SIGSEGV on the load from address 0
    expect(r.first_difference).toEqual({ index: 1, qemu: '(end)', pipeline: '00024004 00028c63' });
  });
});
