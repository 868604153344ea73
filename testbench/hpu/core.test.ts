/**
 * The five-stage pipeline's cycle behaviour (forwarding, load-use stall, branch/jump penalty,
 * divider latency, ecall serialisation), and on both organisations the stall input, the traps and
 * the system calls, each checked against the functional model's trace, registers, memory and trap
 * (the ri5cy organisation's timing: testbench/hpu/ri5cy.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { Component, NEVER } from '../../rtl/kernel/index.ts';
import { auipc, branch, ECALL, jal, jalr, li, load, lui, opI, opR, store } from '../../experiments/hpu/encode.ts';
import { buildPipeline } from '../../experiments/hpu/run.ts';
import { HPU_ORGANISATIONS, type HpuCoreBase } from '../../rtl/hpu/core/coreBase.ts';
import { CODE, DATA, exitWith, program, runBoth } from './programs.ts';

const NOP = opI('addi', 0, 0, 0);
const base = li(31, DATA);

/** Cycles and stall counters of a program (after checking it against the functional model). */
function timed(words: number[], divLatency = 32): ReturnType<typeof runBoth>['p'] {
  const r = runBoth(program([...base, ...words, ...exitWith(0)]), { divLatency });
  expect(r.mismatch).toBe(-1);
  expect(r.f.status).toBe('exited');
  expect(r.p.status).toBe('exited');
  return r.p;
}

describe('HPU pipeline timing', () => {
  it('dependent ALU instructions forward without stalls; CPI of a straight line approaches 1', () => {
    const dep = timed([opI('addi', 5, 0, 1), opR('add', 6, 5, 5), opR('add', 7, 6, 6), opR('add', 8, 7, 6)]);
    const ind = timed([opI('addi', 5, 0, 1), opR('add', 6, 9, 9), opR('add', 7, 9, 9), opR('add', 8, 9, 9)]);
    expect(dep.cycles).toBe(ind.cycles);
    expect(dep.regs[8]).toBe(6);
    expect(dep.stalls.load_use).toBe(0);
    const long = timed(Array.from({ length: 200 }, (_, i) => opI('addi', 5 + (i % 20), 5 + ((i + 19) % 20), i)));
    expect(long.cycles / long.retired).toBeLessThan(1.05);
    expect(long.cycles).toBeGreaterThanOrEqual(long.retired + 4);
  });

  it('a load followed by a use of its result costs one cycle', () => {
    const use = timed([load('lw', 5, 31, 0), opR('add', 6, 5, 5)]);
    const noUse = timed([load('lw', 5, 31, 0), opR('add', 6, 7, 7)]);
    const gap = timed([load('lw', 5, 31, 0), NOP, opR('add', 6, 5, 5)]);
    expect(use.cycles - noUse.cycles).toBe(1);
    expect(use.stalls.load_use).toBe(1);
    expect(noUse.stalls.load_use).toBe(0);
    expect(gap.stalls.load_use).toBe(0);
    // a store's data operand after a load also waits (no load-to-store-data forwarding in MEM)
    expect(timed([load('lw', 5, 31, 0), store('sw', 5, 31, 4)]).stalls.load_use).toBe(1);
  });

  it('a taken branch or a jump costs two cycles, a not-taken branch none', () => {
    const taken = timed([branch('beq', 0, 0, 4)]);
    const notTaken = timed([branch('bne', 0, 0, 4)]);
    const j = timed([jal(0, 4)]);
    const plain = timed([NOP]);
    expect(notTaken.cycles).toBe(plain.cycles);
    expect(taken.cycles - plain.cycles).toBe(2);
    expect(j.cycles - plain.cycles).toBe(2);
    expect(taken.stalls.branch).toBe(2);
    const jr = timed([auipc(5, 0), jalr(1, 5, 8)]);
    expect(jr.stalls.branch).toBe(2);
    expect(jr.regs[1]).toBe(CODE + 4 * base.length + 8);
  });

  for (const lat of [1, 2, 8, 32, 33]) {
    it(`the divider holds execute for ${lat} cycle(s) per division`, () => {
      const d = timed([...li(5, -100), ...li(6, 7), opR('div', 7, 5, 6), opR('remu', 8, 5, 6)], lat);
      const a = timed([...li(5, -100), ...li(6, 7), opR('add', 7, 5, 6), opR('add', 8, 5, 6)], lat);
      expect(d.cycles - a.cycles).toBe(2 * (lat - 1));
      expect(d.stalls.divider).toBe(2 * (lat - 1));
      expect(d.regs[7]).toBe(-14);
      expect(d.regs[8]).toBe((0xffffff9c >>> 0) % 7);
    });
  }

  it('ecall waits for the older instructions to drain', () => {
    const p = timed([]);
    expect(p.stalls.ecall).toBe(2);
  });
});

describe('HPU pipeline stall input (both organisations)', () => {
  for (const organisation of HPU_ORGANISATIONS) {
    it(`${organisation}: the stall input holds an access to the external range, nothing else; the trace is unchanged`, () => {
      const words = [...base, opI('addi', 5, 0, 9), store('sw', 5, 31, 0), load('lw', 6, 31, 0), opR('add', 7, 6, 6), ...exitWith(0)];
      const run = (stallUntil: number, ext: boolean): { core: HpuCoreBase; trace: number[] } => {
        const { sim, core } = buildPipeline(program(words), ext ? { organisation, extBase: DATA, extLimit: DATA + 4096 } : { organisation });
        const trace: number[] = [];
        core.onRetire = (pc, insn, rd, v) => trace.push(pc, insn, rd, v);
        class Driver extends Component {
          tick(t: number): number {
            core.stallIn.d = t < stallUntil ? 1 : 0;
            return t < stallUntil ? t + 1 : NEVER;
          }
        }
        new Driver(sim, 'driver');
        sim.runUntil(() => core.halted, 10_000);
        return { core, trace };
      };
      const free = run(0, true);
      const held = run(40, true);
      const local = run(40, false);
      expect(held.trace).toEqual(free.trace);
      expect(local.trace).toEqual(free.trace);
      expect(held.core.stallMem).toBeGreaterThan(0);
      expect(held.core.haltCycle - free.core.haltCycle).toBe(held.core.stallMem);
      expect(local.core.stallMem).toBe(0);
      expect(local.core.haltCycle).toBe(free.core.haltCycle);
      expect(held.core.rf[7]).toBe(18);
    });
  }
});

describe('HPU traps and system calls (both models)', () => {
  const trapCases: [string, number[], number, number?][] = [
    ['an all-ones word is illegal', [0xffffffff], 2],
    ['an all-zeros word is illegal', [0], 2],
    ['a CSR instruction is illegal (no Zicsr)', [0x00002573], 2],
    ['ebreak', [0x00100073], 3],
    ['misaligned lw', [load('lw', 5, 31, 2)], 4, DATA + 2],
    ['misaligned lh', [load('lh', 5, 31, 1)], 4, DATA + 1],
    ['misaligned sw', [store('sw', 5, 31, 6)], 6, DATA + 6],
    ['load outside memory', [lui(5, 0x80000), load('lw', 6, 5, 0)], 5, 0x80000000],
    ['store outside memory', [lui(5, 0x100), store('sb', 6, 5, 0)], 7, 0x100000],
    ['store into the code segment', [lui(5, 0x10), store('sw', 6, 5, 0)], 7, CODE],
    ['jal to a misaligned target', [jal(1, 2)], 0],
    ['jalr to a misaligned target', [...li(5, CODE + 2), jalr(1, 5, 0)], 0, CODE + 2],
    ['a jump out of memory faults at fetch', [...li(5, 0x200000), jalr(0, 5, 0)], 1, 0x200000],
  ];
  for (const organisation of HPU_ORGANISATIONS) {
    for (const [what, words, cause, tval] of trapCases) {
      it(`${organisation}: ${what}: trap cause ${cause} at the same pc, nothing younger takes effect`, () => {
        // the instruction after the faulting one would store 0x5a to DATA+64
        const img = program([...base, ...li(9, 0x5a), ...words, store('sw', 9, 31, 64), ...exitWith(0)]);
        const r = runBoth(img, { organisation });
        expect(r.mismatch).toBe(-1);
        expect(r.f.status).toBe('trapped');
        expect(r.p.status).toBe('trapped');
        expect(r.p.trap!.pc).toBe(r.f.trap!.pc);
        expect(r.p.trap!.cause).toBe(cause);
        expect(r.f.trap!.cause).toBe(cause);
        expect(r.p.trap!.tval).toBe(r.f.trap!.tval);
        if (tval !== undefined) expect(r.p.trap!.tval).toBe(tval);
        expect(r.p.trap!.reason.length).toBeGreaterThan(5);
        expect(r.p.retired).toBe(r.f.retired);
        expect(Array.from(r.p.regs)).toEqual(Array.from(r.f.regs));
        expect(new DataView(r.p.memory.buffer).getUint32(DATA + 64, true)).toBe(0);
      });
    }
  }

  for (const organisation of HPU_ORGANISATIONS) {
    it(`${organisation}: write(1) and write(2) copy the buffer to stdout and stderr and return the length; bad fd, bad buffer and unknown calls return -errno`, () => {
      const data = new Uint8Array(4096);
      data.set(new TextEncoder().encode('hello, HPU\n'));
      const sys = (nr: number, a0: number, a1: number, a2: number, save: number): number[] => [...li(17, nr), ...li(10, a0), ...li(11, a1), ...li(12, a2), ECALL, store('sw', 10, 31, save)];
      const img = program([...base, ...sys(64, 1, DATA, 11, 100), ...sys(64, 2, DATA + 7, 4, 104), ...sys(64, 3, DATA, 1, 108), ...sys(64, 1, 0xfffff000, 16, 112), ...sys(1234, 0, 0, 0, 116), ...exitWith(3)], data);
      const r = runBoth(img, { organisation });
      expect(r.mismatch).toBe(-1);
      for (const m of [r.f, r.p]) {
        expect(new TextDecoder().decode(m.stdout)).toBe('hello, HPU\n');
        expect(new TextDecoder().decode(m.stderr)).toBe('HPU\n');
        const dv = new DataView(m.memory.buffer);
        expect([100, 104, 108, 112, 116].map((o) => dv.getInt32(DATA + o, true))).toEqual([11, 4, -9, -14, -38]);
        expect(m.status).toBe('exited');
        expect(m.exitCode).toBe(3);
      }
    });
  }

  for (const organisation of HPU_ORGANISATIONS) {
    it(`${organisation}: a program that never exits stops at the budget on both models`, () => {
      const r = runBoth(program([jal(0, 0)]), { organisation }, 1000);
      expect(r.f.status).toBe('limit');
      expect(r.p.status).toBe('limit');
    });
  }
});
