/**
 * The HPU cores' waveforms: a short program (load-use, multiply, division, store, taken and
 * not-taken branches, a jump, a write system call and exit) runs on each organisation with a VCD
 * tracer on the core, and the file must equal the checked-in one (testbench/hpu/golden/waveform-*.vcd.golden) byte for
 * byte: every latch's name, width and value in every cycle. The signal names are also checked
 * against lists written out here, independent of the cores' sources, so a renamed latch fails
 * even if the golden file is regenerated from the renamed core.
 *
 * To regenerate the golden files after an intended change of the latches:
 * `HPU_WAVEFORM_UPDATE=1 npx vitest run testbench/hpu/waveform.test.ts`, then review the diff.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branch, jal, li, load, opI, opR, store, ECALL } from '../../experiments/hpu/encode.ts';
import { buildPipeline } from '../../experiments/hpu/run.ts';
import { Component, MemorySink, NEVER, VcdTracer } from '../../rtl/kernel/index.ts';
import type { HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { DATA, exitWith, program } from './programs.ts';

const GOLDEN = join(import.meta.dirname, 'golden');

/** the program: about 40 instructions touching every stage's paths (its output is "hi\n") */
function waveformProgram(): ReturnType<typeof program> {
  const data = new Uint8Array(4096);
  data.set([7, 0, 0, 0, 0x68, 0x69, 0x0a], 0); // a word 7, then "hi\n" at DATA + 4
  return program([
    ...li(31, DATA),
    load('lw', 5, 31, 0), // x5 = 7
    opI('addi', 6, 5, 3), // load-use: x6 = 10
    opR('mul', 7, 6, 5), // 70
    opR('div', 8, 7, 6), // 7 (the multi-cycle divider)
    opR('rem', 9, 7, 5), // 0
    store('sw', 7, 31, 8),
    load('lbu', 10, 31, 8),
    branch('beq', 9, 0, 8), // taken: skips the next instruction
    opI('addi', 11, 0, 1), // skipped
    branch('bne', 9, 0, 8), // not taken
    jal(1, 8), // jumps over one instruction
    opI('addi', 12, 0, 2), // skipped
    opI('addi', 13, 0, 2), // loop counter
    opI('addi', 13, 13, -1),
    branch('bne', 13, 0, -4),
    opR('sub', 14, 7, 6),
    opI('srai', 15, 14, 2),
    ...li(17, 64), // write(1, DATA + 4, 3)
    ...li(10, 1),
    opI('addi', 11, 31, 4),
    ...li(12, 3),
    ECALL,
    ...exitWith(0),
  ], data);
}

function vcdOf(organisation: HpuOrganisation): { text: string; names: string[]; stdout: string; cycles: number } {
  const img = waveformProgram();
  const { sim, core } = buildPipeline(img, organisation === 'five-stage' ? { organisation, divLatency: 4 } : { organisation });
  const sink = new MemorySink();
  const vcd = new VcdTracer(sim, sink, { include: ['hpu'] });
  sim.runUntil(() => core.halted, 2000);
  sim.closeTraces();
  expect(core.exited).toBe(true);
  expect(core.exitCode).toBe(0);
  return { text: sink.text(), names: vcd.signals.map((s) => `${s.name}:${s.width}`), stdout: String.fromCharCode(...core.stdout), cycles: sim.cycle };
}

/**
 * The stall input and the abort input: with the data region external and the stall input 1 for
 * cycles 0..11, a store and a load wait in the memory stage (the add behind the store takes its
 * operand from the addi retiring in the first cycle of the wait), then a misaligned load traps; or (abort)
 * the abort input is set in cycle 20 while the core spins in a loop, and three more cycles are run.
 */
function stallVcd(organisation: HpuOrganisation, scenario: 'stall-trap' | 'abort'): string {
  const words =
    scenario === 'stall-trap'
      ? [...li(31, DATA), opI('addi', 5, 0, 9), store('sw', 5, 31, 4), opR('add', 7, 5, 5), load('lw', 6, 31, 4), opR('add', 8, 7, 6), load('lw', 9, 31, 2), ...exitWith(0)]
      : [...li(31, DATA), opI('addi', 5, 0, 1), opI('addi', 5, 5, 1), jal(0, -4), ...exitWith(0)];
  const { sim, core } = buildPipeline(program(words), { organisation, extBase: DATA, extLimit: DATA + 4096 });
  class Driver extends Component {
    tick(t: number): number {
      if (scenario === 'stall-trap') {
        core.stallIn.d = t < 12 ? 1 : 0;
        return t < 12 ? t + 1 : NEVER;
      }
      if (t === 20) core.abortIn.d = 1;
      return t < 20 ? t + 1 : NEVER;
    }
  }
  new Driver(sim, 'driver');
  const sink = new MemorySink();
  new VcdTracer(sim, sink, { include: ['hpu'] });
  sim.runUntil(() => core.halted, 2000);
  sim.step(3);
  sim.closeTraces();
  if (scenario === 'stall-trap') {
    expect(core.trap?.cause).toBe(4); // misaligned load
    expect(core.stallMem).toBeGreaterThan(0);
    expect(core.rf[8]).toBe(27);
  } else expect(core.trap === null && !core.exited).toBe(true);
  return sink.text();
}

/** `text` equals the golden file `name` (HPU_WAVEFORM_UPDATE=1 writes it first) */
function expectGolden(text: string, name: string): void {
  const file = join(GOLDEN, name);
  if (process.env.HPU_WAVEFORM_UPDATE === '1') writeFileSync(file, text);
  const golden = readFileSync(file, 'utf8');
  // the first differing line, for a readable failure
  const a = text.split('\n');
  const b = golden.split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  expect(i === -1 && a.length === b.length ? 'identical' : `${name} line ${i + 1}: got ${JSON.stringify(a[i])}, golden ${JSON.stringify(b[i])}`).toBe('identical');
}

// the signals, written out independently of rtl/hpu/core (name:width, in declaration order)
const FIVE_STAGE = [
  'stall_in:1', 'abort_in:1',
  'pc:32', 'fetch_stop:1', 'fd_valid:1', 'fd_pc:32', 'fd_insn:32', 'fd_fault:4',
  'de_valid:1', 'de_pc:32', 'de_insn:32', 'de_ctl:16', 'de_a:32', 'de_b:32', 'de_imm:32', 'de_trap:4', 'de_sys:2',
  'em_valid:1', 'em_pc:32', 'em_insn:32', 'em_ctl:32', 'em_val:32', 'em_addr:32', 'em_rd:5', 'em_trap:4', 'em_tval:32', 'em_exit:1',
  'mw_valid:1', 'mw_pc:32', 'mw_insn:32', 'mw_rd:5', 'mw_val:32', 'mw_trap:4', 'mw_tval:32', 'mw_exit:1',
  'div_busy:1', 'div_count:7', 'div_rem:32', 'div_quo:32', 'div_bits:6',
];
const RI5CY = [
  'stall_in:1', 'abort_in:1',
  'pc:32', 'fetch_stop:1', 'fd_valid:1', 'fd_pc:32', 'fd_insn:32', 'fd_fault:4', 'jump_done:1', 'mul_cnt:3',
  'de_valid:1', 'de_pc:32', 'de_insn:32', 'de_ctl:16', 'de_a:32', 'de_b:32', 'de_imm:32', 'de_trap:4', 'de_tval:32', 'de_sys:2', 'de_rd:5',
  'ew_valid:1', 'ew_pc:32', 'ew_insn:32', 'ew_ctl:16', 'ew_val:32', 'ew_addr:32', 'ew_rd:5', 'ew_trap:4', 'ew_tval:32', 'ew_exit:1',
  'sdiv_state:2', 'sdiv_cnt:6', 'sdiv_rem:32', 'sdiv_dvs:32', 'sdiv_quo:32',
];

describe('HPU core waveforms', () => {
  for (const [organisation, names] of [['five-stage', FIVE_STAGE], ['ri5cy', RI5CY]] as const) {
    it(`${organisation}: the VCD of a short program equals the golden file, with the latch names listed here`, () => {
      const r = vcdOf(organisation);
      expect(r.stdout).toBe('hi\n');
      expect(r.names).toEqual(names);
      expectGolden(r.text, `waveform-${organisation}.vcd.golden`);
    });

    it(`${organisation}: the VCDs of a run held by the stall input then trapping, and of an aborted run, equal the golden files`, () => {
      expectGolden(stallVcd(organisation, 'stall-trap'), `waveform-stall-trap-${organisation}.vcd.golden`);
      expectGolden(stallVcd(organisation, 'abort'), `waveform-abort-${organisation}.vcd.golden`);
    });
  }
});
