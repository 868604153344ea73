/**
 * Differential test against QEMU: random RV32IM programs (experiments/hpu/randomProgram.ts, from
 * a fast-check seed) run on qemu-riscv32 and on both HPU models. Each program ends by writing its
 * data region and a dump of x1..x31 to stdout, so qemu's stdout carries its final memory and
 * registers; the models' output, exit codes, final registers and memory must equal it, and each
 * pipeline organisation's (five-stage and ri5cy) retired-instruction trace must equal the
 * functional model's.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../rtl/kernel/errors.ts';
import { parseElf } from '../../models/hpu/elf.ts';
import { randomProgramElf, RP_DATA, RP_DATA_BYTES, samplePrograms } from './randomProgram.ts';
import { runFunctional, runPipeline } from './run.ts';
import { HPU_ORGANISATIONS } from '../../rtl/hpu/core/coreBase.ts';

export interface QemuDiffResult {
  programs: number;
  /** instructions each model retired over all programs (the functional model's count; the pipeline's is equal when passing) */
  instructions: number;
  /** the programs' cycles on the five-stage pipeline */
  pipeline_cycles: number;
  /** the same programs' cycles on the ri5cy organisation */
  ri5cy_cycles: number;
  mismatches: number;
  /** the first mismatch, with its program index */
  first_problem: string | null;
  qemu: string;
}

export function qemuVersion(bin = 'qemu-riscv32'): string | null {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) return null;
  return r.stdout.split('\n')[0] ?? '';
}

/** Internal caps of each model run (a generated program's loops are bounded far below them). */
const QD_MAX_INSTRUCTIONS = 10_000_000;
const QD_MAX_CYCLES = 100_000_000;

/** `onProgram(done)` is called after each program is compared (for progress reports). */
export function runQemuDiff(opts: { seed: number; programs: number; maxItems: number; qemu?: string; onProgram?: (done: number) => void }): QemuDiffResult {
  const bin = opts.qemu ?? 'qemu-riscv32';
  const version = qemuVersion(bin);
  if (version === null) throw new InputError(`${bin} not found or not runnable (Debian: apt-get install -y qemu-user)`);
  const dir = mkdtempSync(join(tmpdir(), 'hpu-qemu-'));
  const out: QemuDiffResult = { programs: 0, instructions: 0, pipeline_cycles: 0, ri5cy_cycles: 0, mismatches: 0, first_problem: null, qemu: version };
  try {
    const progs = samplePrograms(opts.seed, opts.programs, opts.maxItems);
    progs.forEach((prog, i) => {
      const elf = randomProgramElf(prog);
      const file = join(dir, `p${i}.elf`);
      writeFileSync(file, elf, { mode: 0o755 });
      const q = spawnSync(bin, [file], { maxBuffer: 1 << 20 });
      const image = parseElf(elf, file);
      const trace: number[] = [];
      const f = runFunctional(image, { maxInstructions: QD_MAX_INSTRUCTIONS, onRetire: (pc, insn, rd, v) => trace.push(pc, insn, rd, v) });
      const qout = Buffer.from(q.stdout ?? []);
      const problems: string[] = [];
      if (q.status !== 0) problems.push(`qemu exit status ${q.status}${q.signal ? ` (${q.signal})` : ''}`);
      if (f.status !== 'exited' || f.exitCode !== 0) problems.push(f.status === 'limit' ? `functional model did not exit within its internal cap of ${QD_MAX_INSTRUCTIONS.toLocaleString('en-US')} instructions` : `functional model ${f.status} ${f.trap?.reason ?? f.exitCode}`);
      if (!qout.equals(Buffer.from(f.stdout))) problems.push(`functional model's memory/registers differ from qemu at byte ${firstDiff(qout, f.stdout)}`);
      // the dump holds x1..x31 as they were before the exit sequence; the models' data region must also equal qemu's in memory
      if (!Buffer.from(f.memory.subarray(RP_DATA, RP_DATA + RP_DATA_BYTES)).equals(qout.subarray(0, RP_DATA_BYTES))) problems.push('functional model memory differs from qemu');
      for (const organisation of HPU_ORGANISATIONS) {
        let k = 0;
        let traceOk = true;
        const p = runPipeline(image, {
          maxCycles: QD_MAX_CYCLES,
          params: { organisation },
          onRetire: (pc, insn, rd, v) => {
            if (trace[k] !== pc || trace[k + 1] !== insn || trace[k + 2] !== rd || trace[k + 3] !== v) traceOk = false;
            k += 4;
          },
        });
        const who = `${organisation} pipeline`;
        if (p.status !== 'exited' || p.exitCode !== 0) problems.push(p.status === 'limit' ? `${who} did not exit within its internal cap of ${QD_MAX_CYCLES.toLocaleString('en-US')} cycles` : `${who} ${p.status} ${p.trap?.reason ?? p.exitCode}`);
        if (!qout.equals(Buffer.from(p.stdout))) problems.push(`${who}'s memory/registers differ from qemu at byte ${firstDiff(qout, p.stdout)}`);
        if (!traceOk || k !== trace.length) problems.push(`${who} trace differs from the functional model`);
        if (organisation === 'ri5cy') out.ri5cy_cycles += p.cycles;
        else out.pipeline_cycles += p.cycles;
      }
      out.programs++;
      out.instructions += f.retired;
      if (problems.length > 0) {
        out.mismatches++;
        out.first_problem ??= `program ${i} (seed ${opts.seed}): ${problems.join('; ')}`;
      }
      opts.onProgram?.(i + 1);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

function firstDiff(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}
