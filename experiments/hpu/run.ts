/**
 * Running an RV32IM ELF on the HPU models: the functional model (models/hpu) and one pipelined
 * core (rtl/hpu/core) on the kernel, with the same memory size. Results are plain data for the
 * CLI, the tests and the benchmarks.
 */
import { Simulator, SimulationLimitError } from '../../rtl/kernel/index.ts';
import type { HpuCoreBase, HpuCoreParams, HpuProgram, RetireHook } from '../../rtl/hpu/core/coreBase.ts';
import { createHpuCore } from '../../rtl/hpu/core/create.ts';
import { PF_W, type ElfImage } from '../../models/hpu/elf.ts';
import { ISS_EXITED, ISS_TRAPPED, Rv32Iss } from '../../models/hpu/iss.ts';

export interface HpuTrapInfo {
  pc: number;
  cause: number;
  tval: number;
  reason: string;
}

export interface HpuRunResult {
  /** 'exited' (ecall exit), 'trapped', or 'limit' (the cycle/instruction budget ran out) */
  status: 'exited' | 'trapped' | 'limit';
  exitCode: number;
  trap: HpuTrapInfo | null;
  retired: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  /** final registers x0..x31 */
  regs: Int32Array;
  /** the memory (for signatures and comparisons) */
  memory: Uint8Array;
}

export interface PipelineRunResult extends HpuRunResult {
  cycles: number;
  /** stall cycles by cause (multiplier and jump_register: ri5cy only); cycles = retired + fill + their sum */
  stalls: { load_use: number; jump_register: number; branch: number; divider: number; multiplier: number; memory: number; ecall: number };
  /** cycles before the first retirement: 4 (five-stage), 3 (ri5cy) */
  fill: number;
}

/** The ELF's loadable segments as the core's memory image. */
export function programOf(image: ElfImage): HpuProgram {
  return { entry: image.entry, segments: image.segments.map((s) => ({ vaddr: s.vaddr, data: s.data, memsz: s.memsz, writable: (s.flags & PF_W) !== 0 })) };
}

export function runFunctional(image: ElfImage, opts: { maxInstructions: number; memBytes?: number; onRetire?: RetireHook }): HpuRunResult {
  const m = new Rv32Iss(image, opts.memBytes === undefined ? {} : { memBytes: opts.memBytes });
  const hook = opts.onRetire;
  if (hook) {
    while (m.retired < opts.maxInstructions && m.step()) hook(m.lastPc, m.lastInsn, m.lastRd, m.lastVal);
    if (m.status === ISS_EXITED) hook(m.lastPc, m.lastInsn, m.lastRd, m.lastVal);
  } else m.run(opts.maxInstructions);
  return {
    status: m.status === ISS_EXITED ? 'exited' : m.status === ISS_TRAPPED ? 'trapped' : 'limit',
    exitCode: m.exitCode,
    trap: m.trap,
    retired: m.retired,
    stdout: Uint8Array.from(m.stdout),
    stderr: Uint8Array.from(m.stderr),
    regs: Int32Array.from(m.x),
    memory: m.mem,
  };
}

export function buildPipeline(image: ElfImage, params: Partial<HpuCoreParams> = {}, clockHz = 1e9): { sim: Simulator; core: HpuCoreBase } {
  const sim = new Simulator({ freqHz: clockHz });
  const core = createHpuCore(sim, 'hpu', programOf(image), params);
  return { sim, core };
}

export function runPipeline(image: ElfImage, opts: { maxCycles: number; params?: Partial<HpuCoreParams>; clockHz?: number; onRetire?: RetireHook }): PipelineRunResult {
  const { sim, core } = buildPipeline(image, opts.params, opts.clockHz);
  core.onRetire = opts.onRetire ?? null;
  try {
    sim.runUntil(() => core.halted, opts.maxCycles);
  } catch (e) {
    if (!(e instanceof SimulationLimitError)) throw e;
  }
  return {
    status: core.exited ? 'exited' : core.trap ? 'trapped' : 'limit',
    exitCode: core.exitCode,
    trap: core.trap,
    retired: core.retired,
    stdout: Uint8Array.from(core.stdout),
    stderr: Uint8Array.from(core.stderr),
    regs: Int32Array.from(core.rf),
    memory: core.mem.bytes,
    cycles: core.halted ? core.haltCycle : sim.cycle,
    stalls: { load_use: core.stallLoadUse, jump_register: core.stallJr, branch: core.stallBranch, divider: core.stallDiv, multiplier: core.stallMul, memory: core.stallMem, ecall: core.stallEcall },
    fill: core.fillCycles,
  };
}
