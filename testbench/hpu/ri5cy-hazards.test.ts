/**
 * The ri5cy organisation (rtl/hpu/core/ri5cy.ts) at its corner cases: x0 as a load's destination
 * and as a jalr's base, a taken branch to a misaligned target, a jalr next to a load of another
 * register, a jalr behind a division (its register loaded just before, or written by the division
 * itself), memory untouched by non-memory instructions, nothing fetched after the exit call; and
 * on both organisations the runtime inputs: the syscall hook's retry, abort, restart in the
 * middle of a division. Every program runs on the functional model too (traces, registers, trap must agree),
 * and each cycle figure is computed by hand from the documented RI5CY timing (docs/hpu.md,
 * *Cycle behaviour (RI5CY organisation)*): fill 3, a jump 2 cycles, a jalr +1 while the
 * instruction in EX writes its register, or a load in WB does, an ecall after a full EX +1.
 */
import { describe, expect, it } from 'vitest';
import { branch, ECALL, jal, jalr, li, load, opI, opR, store } from '../../experiments/hpu/encode.ts';
import { buildPipeline } from '../../experiments/hpu/run.ts';
import { Component, NEVER } from '../../rtl/kernel/index.ts';
import { HPU_ORGANISATIONS, SYSCALL_RETRY, type HpuCoreBase } from '../../rtl/hpu/core/coreBase.ts';
import { writeElf } from '../../experiments/hpu/elfWriter.ts';
import { parseElf } from '../../models/hpu/elf.ts';
import { CODE, DATA, exitWith, program, runBoth, type Both } from './programs.ts';

const NOP = opI('addi', 0, 0, 0);
const base = li(31, DATA);
const exit0 = exitWith(0);

/** Both models on `words` (after `base`, before the exit); the traces must agree; the pipeline's cycle identity must hold when it exits. */
function both(words: number[], data?: Uint8Array): Both {
  const r = runBoth(program([...base, ...words, ...exit0], data), { organisation: 'ri5cy' }, 20_000);
  expect(r.mismatch).toBe(-1);
  expect(Array.from(r.p.regs)).toEqual(Array.from(r.f.regs));
  const s = r.p.stalls;
  if (r.p.status === 'exited') expect(r.p.cycles).toBe(r.p.retired + 3 + s.load_use + s.jump_register + s.branch + s.divider + s.multiplier + s.memory + s.ecall);
  return r;
}
const cycles = (words: number[], data?: Uint8Array): number => {
  const r = both(words, data);
  expect(r.p.status).toBe('exited');
  return r.p.cycles;
};

/** 4 KiB of data whose first word is `w` */
function dataWord(w: number): Uint8Array {
  const data = new Uint8Array(4096);
  new DataView(data.buffer).setUint32(0, w >>> 0, true);
  return data;
}

/** the words of `li` for any address of the code page (lui + addi) */
const N = li(6, CODE + 4).length;
/** the address of word `i` of the program (after `base`) */
const at = (i: number): number => CODE + 4 * (base.length + i);

describe('ri5cy corner cases against the functional model and the documented cycle counts', () => {
  it('a load into x0 is no load-use hazard for a reader of x0 (no stall), and writes nothing', () => {
    const data = dataWord(0x12345678);
    const reader = both([load('lw', 0, 31, 0), opR('add', 5, 0, 0)], data);
    expect(reader.p.stalls.load_use).toBe(0);
    expect(reader.p.cycles).toBe(cycles([load('lw', 0, 31, 0), opR('add', 5, 7, 7)], data));
    expect(reader.p.regs[5]).toBe(0);
  });

  it('instructions other than loads and stores leave memory alone (address 0 still reads 0 after ALU results pass WB)', () => {
    const r = both([opI('addi', 6, 0, 77), opR('add', 7, 6, 6), opR('sll', 8, 6, 6), load('lw', 5, 0, 0), store('sw', 5, 31, 4)]);
    expect(r.p.status).toBe('exited');
    expect(r.p.regs[5]).toBe(0);
    expect(new DataView(r.p.memory.buffer).getUint32(0, true)).toBe(0);
  });

  it('the exit ecall stops fetch: a jump and an ecall after it cost nothing (same cycles and stall counts as without them)', () => {
    const run = (tail: number[]): Both => {
      const r = runBoth(program([...base, opI('addi', 5, 0, 1), ...exit0, ...tail]), { organisation: 'ri5cy' }, 1000);
      expect(r.mismatch).toBe(-1);
      expect(r.p.status).toBe('exited');
      return r;
    };
    const plain = run([]);
    for (const tail of [[jal(0, 0)], [ECALL], [opI('addi', 6, 0, 5), jal(0, -4)]]) {
      const r = run(tail);
      expect(r.p.cycles).toBe(plain.p.cycles);
      expect(r.p.stalls).toEqual(plain.p.stalls);
      expect(r.p.regs[6]).toBe(0);
    }
  });

  it('a load into x0 writes nothing: x0 reads 0 afterwards, from the register file and in the next instruction', () => {
    const r = both([load('lw', 0, 31, 0), opR('add', 5, 0, 0), NOP, opR('add', 6, 0, 0), store('sw', 5, 31, 8)], dataWord(0x12345678));
    expect(r.p.status).toBe('exited');
    expect(r.p.regs[0]).toBe(0);
    expect(r.p.regs[5]).toBe(0);
    expect(r.p.regs[6]).toBe(0);
  });

  it('a taken branch to a misaligned target traps (cause 0, tval the target) at the branch; not taken, it does not', () => {
    const r = both([...li(9, 0x5a), branch('beq', 0, 0, 6), store('sw', 9, 31, 64)]);
    const pc = at(li(9, 0x5a).length);
    expect(r.f.status).toBe('trapped');
    expect(r.p.status).toBe('trapped');
    expect(r.p.trap).toMatchObject({ pc, cause: 0, tval: pc + 6 });
    expect(r.f.trap).toMatchObject({ pc, cause: 0, tval: pc + 6 });
    expect(r.p.retired).toBe(r.f.retired);
    expect(new DataView(r.p.memory.buffer).getUint32(DATA + 64, true)).toBe(0); // nothing younger took effect
    const notTaken = both([...li(9, 0x5a), branch('bne', 0, 0, 6), store('sw', 9, 31, 64)]);
    expect(notTaken.p.status).toBe('exited');
    expect(new DataView(notTaken.p.memory.buffer).getUint32(DATA + 64, true)).toBe(0x5a);
  });

  it('a jalr through x0 (an absolute target) never waits for its register: 2 cycles, also behind a store or an empty EX', () => {
    // code at CODE, and the exit sequence at 0x400 (reached by jalr x1, 0x400(x0))
    const EXIT_AT = 0x400;
    const run = (before: number[]): Both => {
      const words = [...base, ...before, jalr(1, 0, EXIT_AT)];
      const low = new Uint32Array(EXIT_AT / 4 + exit0.length); // zeros (illegal) up to the exit sequence
      low.set(exit0, EXIT_AT / 4);
      const img = parseElf(
        writeElf(CODE, [
          { vaddr: 0, data: new Uint8Array(low.buffer), flags: 5 },
          { vaddr: CODE, data: new Uint8Array(Uint32Array.from(words.map((w) => w >>> 0)).buffer), flags: 5 },
          { vaddr: DATA, data: new Uint8Array(4096), flags: 6 },
        ]),
        'jalr x0 test',
      );
      const r = runBoth(img, { organisation: 'ri5cy' }, 1000);
      expect(r.mismatch).toBe(-1);
      expect(r.f.status).toBe('exited');
      expect(r.p.status).toBe('exited');
      expect(r.p.regs[1]).toBe(CODE + 4 * (words.length - 1) + 4); // the link
      return r;
    };
    for (const before of [[store('sw', 0, 31, 0)], [branch('bne', 0, 0, 8)], []]) {
      const r = run(before);
      // retired + fill 3 + 1 for the jump + 1 for the exit ecall behind a full EX
      expect(r.p.cycles).toBe(r.p.retired + 3 + 1 + 1);
      expect(r.p.stalls.jump_register).toBe(0);
      expect(r.p.stalls.branch).toBe(1);
    }
  });

  it('a jalr while a load of another register is in WB does not wait (2 cycles); of its own register it does (3)', () => {
    // x6 = the address after the jump; the load writes x5 (or x6 itself, with the same value)
    const words = (loadReg: number, jump: boolean): number[] => {
      const target = at(N + 4);
      return [...li(6, target), store('sw', 6, 31, 0), load('lw', loadReg, 31, 0), NOP, jump ? jalr(0, 6, 0) : NOP];
    };
    expect(cycles(words(5, true)) - cycles(words(5, false))).toBe(1);
    expect(cycles(words(6, true)) - cycles(words(6, false))).toBe(1 + 1);
  });

  it('a jalr behind a division redirects fetch while the division holds EX once its register is no longer in flight; through the quotient it waits for it', () => {
    const setup = [...li(5, 1000), ...li(8, 7)];
    // x6 loaded just before the division: the load is in WB in the division's first EX cycle, then gone
    const loaded = (jump: boolean): number[] => {
      const target = at(setup.length + N + 4);
      return [...setup, ...li(6, target), store('sw', 6, 31, 0), load('lw', 6, 31, 0), opR('div', 7, 5, 8), jump ? jalr(0, 6, 0) : NOP];
    };
    expect(cycles(loaded(true)) - cycles(loaded(false))).toBe(0);
    // the jump target is the quotient: x6 = (target * 7) / 7; it waits for the division, then 1 (jr) + 1 (jump)
    const quotient = (jump: boolean): number[] => {
      const n = li(5, at(0) * 7).length;
      const target = at(n + li(8, 7).length + 2);
      expect(li(5, target * 7).length).toBe(n);
      return [...li(5, target * 7), ...li(8, 7), opR('divu', 6, 5, 8), jump ? jalr(0, 6, 0) : NOP];
    };
    const q = both(quotient(true));
    expect(q.p.status).toBe('exited');
    expect(q.p.cycles - cycles(quotient(false))).toBe(2);
    expect(q.p.stalls.jump_register).toBe(1);
    // the same after an ALU result (the documented 1 + 1)
    const alu = (jump: boolean): number[] => {
      const target = at(N + 2);
      return [...li(5, target), opI('addi', 6, 5, 0), jump ? jalr(0, 6, 0) : NOP];
    };
    expect(cycles(alu(true)) - cycles(alu(false))).toBe(2);
  });
});

/** A core of `organisation` on `words`, with a component writing 1 to its abort input in cycle `abortAt` (if given). */
function coreOn(organisation: (typeof HPU_ORGANISATIONS)[number], words: number[], abortAt = -1): { sim: ReturnType<typeof buildPipeline>['sim']; core: HpuCoreBase; trace: number[] } {
  const { sim, core } = buildPipeline(program(words), { organisation });
  const trace: number[] = [];
  core.onRetire = (pc, insn, rd, v) => trace.push(pc, insn, rd, v);
  if (abortAt >= 0) {
    class Abort extends Component {
      tick(t: number): number {
        if (t < abortAt) return abortAt;
        core.abortIn.d = t === abortAt ? 1 : 0;
        return t === abortAt ? t + 1 : NEVER;
      }
    }
    new Abort(sim, 'abort');
  }
  return { sim, core, trace };
}

describe('runtime inputs on both organisations: the syscall hook\'s retry, abort, restart', () => {
  for (const organisation of HPU_ORGANISATIONS) {
    it(`${organisation}: a syscall the hook answers SYSCALL_RETRY three times waits 3 more cycles in decode (ecall stalls), then a0 gets the answer`, () => {
      const words = [...base, ...li(17, 500), ECALL, store('sw', 10, 31, 0), ...exitWith(0)];
      const run = (retries: number): HpuCoreBase => {
        const { sim, core } = coreOn(organisation, words);
        let calls = 0;
        core.syscallHook = (rf) => {
          expect(rf[17]).toBe(500);
          return calls++ < retries ? SYSCALL_RETRY : 42;
        };
        sim.runUntil(() => core.halted, 10_000);
        expect(core.exited).toBe(true);
        expect(calls).toBe(retries + 1);
        expect(new DataView(core.mem.bytes.buffer).getInt32(DATA, true)).toBe(42);
        return core;
      };
      const now = run(0);
      const later = run(3);
      expect(later.haltCycle - now.haltCycle).toBe(3);
      expect(later.stallEcall - now.stallEcall).toBe(3);
      expect(later.retired).toBe(now.retired);
    });

    it(`${organisation}: an abort halts the core at once: what retired is a prefix of the functional model's trace, nothing retires twice`, () => {
      const loop = [...base, ...li(5, 1000), opI('addi', 6, 6, 1), store('sw', 6, 31, 0), load('lw', 7, 31, 0), opR('add', 8, 7, 6), opI('addi', 5, 5, -1), branch('bne', 5, 0, -20), ...exitWith(0)];
      const full = runBoth(program(loop), { organisation }).trace;
      for (const at of [37, 38, 39, 40, 41]) {
        const { sim, core, trace } = coreOn(organisation, loop, at);
        sim.runUntil(() => core.halted, 10_000);
        expect(core.exited).toBe(false);
        expect(core.haltCycle).toBe(at + 1);
        expect(trace.length / 4).toBe(core.retired);
        expect(core.retired).toBeGreaterThan(20);
        expect(trace).toEqual(full.slice(0, trace.length));
        sim.step(20); // a halted core stays halted
        expect(trace.length / 4).toBe(core.retired);
      }
    });

    it(`${organisation}: restart after an abort in the middle of a division: the next program's division takes its own cycles and gives its own result`, () => {
      // program A at CODE: divu by 1 in a loop (35-cycle divisions on ri5cy; 32 on five-stage); program B after it
      const a = [...base, ...li(5, 1000), ...li(6, 1), opR('divu', 7, 5, 6), jal(0, -4)];
      const b = [...li(31, DATA), ...li(5, 100), ...li(6, 7), opR('divu', 7, 5, 6), store('sw', 7, 31, 0), ...exitWith(0)];
      const bEntry = CODE + 4 * a.length;
      // B alone, from its entry, on a fresh core
      const { sim: s0, core: fresh } = coreOn(organisation, [...a, ...b]);
      fresh.halted = true;
      fresh.restart(bEntry, 1 << 20, 0);
      s0.runUntil(() => fresh.halted, 10_000);
      const alone = fresh.haltCycle - 1;
      expect(new DataView(fresh.mem.bytes.buffer).getInt32(DATA, true)).toBe(14);
      for (const at of [20, 25, 30]) {
        const { sim, core } = coreOn(organisation, [...a, ...b], at);
        sim.runUntil(() => core.halted, 10_000);
        expect(core.stallDiv).toBeGreaterThan(0); // aborted with a division under way
        const from = sim.cycle;
        core.restart(bEntry, 1 << 20, 0);
        sim.runUntil(() => core.halted, 10_000);
        expect(core.exited).toBe(true);
        expect(new DataView(core.mem.bytes.buffer).getInt32(DATA, true)).toBe(14);
        expect(core.haltCycle - from - 1).toBe(alone);
      }
    });
  }
});
