/**
 * Trace comparison against QEMU (`netoffload hpu qemu-trace`): runs an ELF under
 * `qemu-riscv32 -one-insn-per-tb -d exec,cpu,nochain` (`-singlestep` on QEMU before 8.1, the same
 * option under its old name), which dumps the CPU state before every instruction, and the HPU
 * pipeline with its retired-instruction hook; both are normalised to one line per retired
 * instruction, `<pc> <insn> [x<rd>=<value>]` (the `--trace` format), keeping a register write only
 * when it changes the register (QEMU's dumps cannot show a write of the value already held):
 * - QEMU: instruction i is at dump i's pc, its word read from the ELF; its register write is the
 *   register that differs between dump i and dump i + 1 (none for the last instruction, the exit
 *   ecall: nothing follows it);
 * - pipeline: its trace, a write dropped when the value equals what the register held (the
 *   registers followed from the core's reset state).
 * The first line that differs is reported with its index and both sides.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants as osConstants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../rtl/kernel/errors.ts';
import { SimulationLimitError } from '../../rtl/kernel/index.ts';
import type { ElfImage } from '../../models/hpu/elf.ts';
import { HPU_CORE_DEFAULTS, type HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { buildPipeline } from './run.ts';
import { hex8 } from './trace.ts';
import { qemuVersion } from './qemuDiff.ts';

export interface QemuTraceResult {
  file: string;
  /** instructions in QEMU's log (its dumps) and retired by the pipeline */
  qemu_instructions: number;
  pipeline_instructions: number;
  /** the pipeline organisation that ran it, and its cycles (to the exit, or the cap) */
  organisation: HpuOrganisation;
  pipeline_cycles: number;
  /** normalised lines compared (the shorter of the two traces) */
  compared: number;
  /** QEMU's exit status (a signal as 128 + its number, as a shell reports it) */
  qemu_status: number;
  match: boolean;
  /** the first difference: its line index and both lines ('(end)' past the end of a trace) */
  first_difference: { index: number; qemu: string; pipeline: string } | null;
}

/** QEMU's option for one instruction per translation block: -one-insn-per-tb from 8.1, -singlestep before. */
export function singleStepOption(version: string): string {
  const m = /version (\d+)\.(\d+)/.exec(version);
  if (m === null) return '-one-insn-per-tb';
  const major = Number(m[1]);
  const minor = Number(m[2]);
  return major > 8 || (major === 8 && minor >= 1) ? '-one-insn-per-tb' : '-singlestep';
}

/** The CPU dumps of a `-d exec,cpu` log: pc and x0..x31 before each executed instruction. */
export function parseQemuCpuLog(text: string, what: string): { pcs: number[]; regs: Int32Array[] } {
  const pcs: number[] = [];
  const regs: Int32Array[] = [];
  let cur: Int32Array | null = null;
  let seen = 0;
  const reg = /x(\d+)\/\S+\s+([0-9a-f]{8})/g;
  for (const line of text.split('\n')) {
    const pc = /^ pc\s+([0-9a-f]{8})\s*$/.exec(line);
    if (pc !== null) {
      if (cur !== null && seen !== 32) throw new InputError(`${what}: CPU dump ${pcs.length} has ${seen} of 32 registers`);
      pcs.push(parseInt(pc[1]!, 16));
      cur = new Int32Array(32);
      regs.push(cur);
      seen = 0;
      continue;
    }
    if (cur === null) continue;
    reg.lastIndex = 0;
    for (let m = reg.exec(line); m !== null; m = reg.exec(line)) {
      const r = Number(m[1]);
      if (r < 32) {
        cur[r] = parseInt(m[2]!, 16) | 0;
        seen++;
      }
    }
  }
  if (cur !== null && seen !== 32) throw new InputError(`${what}: the last CPU dump has ${seen} of 32 registers`);
  if (pcs.length === 0) throw new InputError(`${what}: no CPU dump in QEMU's log (was it run with -d exec,cpu?)`);
  return { pcs, regs };
}

/** The instruction word at pc from the ELF's segments (null outside them). */
function wordAt(image: ElfImage, pc: number): number | null {
  for (const s of image.segments) {
    const off = pc - s.vaddr;
    if (off >= 0 && off + 4 <= s.data.length) return (s.data[off]! | (s.data[off + 1]! << 8) | (s.data[off + 2]! << 16) | (s.data[off + 3]! << 24)) >>> 0;
  }
  return null;
}

const line = (pc: number, insn: number | null, rd: number, v: number): string => `${hex8(pc)} ${insn === null ? '????????' : hex8(insn)}${rd > 0 ? ` x${rd}=${hex8(v)}` : ''}`;

/** QEMU's dumps as normalised trace lines. */
export function normaliseQemu(dumps: { pcs: number[]; regs: Int32Array[] }, image: ElfImage): string[] {
  const out: string[] = [];
  const n = dumps.pcs.length;
  for (let i = 0; i < n; i++) {
    let rd = 0;
    let v = 0;
    if (i + 1 < n) {
      const a = dumps.regs[i]!;
      const b = dumps.regs[i + 1]!;
      for (let r = 1; r < 32; r++)
        if (a[r] !== b[r]) {
          if (rd !== 0) throw new InputError(`QEMU dump ${i + 1}: registers x${rd} and x${r} both changed after one instruction (not a one-instruction-per-block log)`);
          rd = r;
          v = b[r]!;
        }
    }
    out.push(line(dumps.pcs[i]!, wordAt(image, dumps.pcs[i]!), rd, v));
  }
  return out;
}

/** The pipeline's retired-instruction trace, normalised (writes that change nothing dropped), and its cycles. */
export function pipelineTrace(image: ElfImage, maxCycles: number, organisation: HpuOrganisation = HPU_CORE_DEFAULTS.organisation): { lines: string[]; cycles: number } {
  const { sim, core } = buildPipeline(image, { organisation });
  const shadow = Int32Array.from(core.rf);
  const out: string[] = [];
  core.onRetire = (pc, insn, rd, value) => {
    const changed = rd !== 0 && shadow[rd] !== (value | 0);
    if (rd !== 0) shadow[rd] = value | 0;
    out.push(line(pc, insn >>> 0, changed ? rd : 0, value));
  };
  try {
    sim.runUntil(() => core.halted, maxCycles);
  } catch (e) {
    if (!(e instanceof SimulationLimitError)) throw e;
  }
  return { lines: out, cycles: core.halted ? core.haltCycle : sim.cycle };
}

/** Run `file` under QEMU and on the pipeline (`organisation`, default five-stage); compare the normalised traces. */
export function runQemuTrace(file: string, image: ElfImage, opts: { qemu?: string; maxCycles: number; organisation?: HpuOrganisation }): QemuTraceResult {
  const organisation = opts.organisation ?? HPU_CORE_DEFAULTS.organisation;
  const bin = opts.qemu ?? 'qemu-riscv32';
  const version = qemuVersion(bin);
  if (version === null) throw new InputError(`${bin} not found or not runnable (Debian: apt-get install -y qemu-user)`);
  const dir = mkdtempSync(join(tmpdir(), 'hpu-qtrace-'));
  let q: string[];
  let status: number;
  try {
    const log = join(dir, 'exec.log');
    const r = spawnSync(bin, [singleStepOption(version), '-d', 'exec,cpu,nochain', '-D', log, file], { maxBuffer: 1 << 24 });
    if (r.error) throw new InputError(`${bin} ${file}: ${r.error.message}`);
    status = r.status ?? 128 + (r.signal !== null ? (osConstants.signals[r.signal] ?? 0) : 0);
    q = normaliseQemu(parseQemuCpuLog(readFileSync(log, 'utf8'), `${bin} ${file}`), image);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const { lines: p, cycles } = pipelineTrace(image, opts.maxCycles, organisation);
  const n = Math.min(q.length, p.length);
  let diff: QemuTraceResult['first_difference'] = null;
  for (let i = 0; i < n && diff === null; i++) if (q[i] !== p[i]) diff = { index: i, qemu: q[i]!, pipeline: p[i]! };
  if (diff === null && q.length !== p.length) diff = { index: n, qemu: q[n] ?? '(end)', pipeline: p[n] ?? '(end)' };
  return { file, organisation, pipeline_cycles: cycles, qemu_instructions: q.length, pipeline_instructions: p.length, compared: n, qemu_status: status, match: diff === null, first_difference: diff };
}
