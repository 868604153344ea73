/**
 * The ri5cy organisation's cycle behaviour (rtl/hpu/core/ri5cy.ts), each figure computed by hand
 * from the CV32E40P user manual's instruction latencies (jump 2 cycles, taken branch 3, not-taken
 * 1, mul 1, mulh* 5, div/rem 3..35 by the divisor's leading zeros, a 1-cycle penalty for a load's
 * immediate user and for a jalr right after the instruction writing its register) and
 * controller (a load's WAW hazard, a jalr after a load waits for the load to leave WB, a jump
 * redirects fetch from a held ID), every program also checked against the functional model.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { branch, jal, jalr, li, load, opI, opR, store, type OpName } from '../../experiments/hpu/encode.ts';
import { CODE, DATA, exitWith, program, runBoth } from './programs.ts';

const NOP = opI('addi', 0, 0, 0);
const base = li(31, DATA);
// every program: `base`, the words, the exit sequence (li a7; li a0; ecall)
const plainLength = base.length + exitWith(0).length;

/** The ri5cy run of a program (checked against the functional model). */
function ri5cy(words: number[]): ReturnType<typeof runBoth>['p'] {
  const r = runBoth(program([...base, ...words, ...exitWith(0)]), { organisation: 'ri5cy' });
  expect(r.mismatch).toBe(-1);
  expect(r.f.status).toBe('exited');
  expect(r.p.status).toBe('exited');
  const s = r.p.stalls;
  expect(r.p.cycles).toBe(r.p.retired + 3 + s.load_use + s.jump_register + s.branch + s.divider + s.multiplier + s.memory + s.ecall);
  return r.p;
}
const cycles = (words: number[]): number => ri5cy(words).cycles;

/** Divide cycles by hand: 3 + the divisor's leading zeros (signed negative: leading ones - 1). */
function divCycles(op: OpName, b: number): number {
  const signedNeg = (op === 'div' || op === 'rem') && b < 0;
  let n = 0;
  for (let bit = 31; bit >= 0 && ((b >>> bit) & 1) === (signedNeg ? 1 : 0); bit--) n++;
  return 3 + (signedNeg ? n - 1 : n);
}

describe('ri5cy: four stages, RI5CY instruction latencies', () => {
  it('fills in 3 cycles: n straight-line instructions and the exit ecall (1 cycle waiting for EX) take n + 3 + 1', () => {
    const p = ri5cy([]);
    expect(p.retired).toBe(plainLength);
    expect(p.cycles).toBe(plainLength + 3 + 1);
    expect(p.stalls.ecall).toBe(1);
    const long = ri5cy(Array.from({ length: 100 }, (_, i) => opR('add', 5 + (i % 20), 5 + ((i + 19) % 20), 5 + ((i + 18) % 20))));
    expect(long.cycles).toBe(plainLength + 100 + 3 + 1);
  });

  it('a jal takes 2 cycles, a taken branch 3, a not-taken branch 1', () => {
    const plain = cycles([NOP]);
    expect(cycles([jal(0, 4)]) - plain).toBe(1);
    expect(cycles([branch('beq', 0, 0, 4)]) - plain).toBe(2);
    expect(cycles([branch('bne', 0, 0, 4)]) - plain).toBe(0);
    expect(ri5cy([jal(0, 4)]).stalls.branch).toBe(1);
  });

  it('a jalr takes 2 cycles, 1 more right after the instruction writing its register', () => {
    const n = li(6, CODE + 4).length; // the length of li for any address of the code page
    const words = (dep: boolean, jump: boolean): number[] => {
      const set = li(6, CODE + 4 * (base.length + n + 3)); // the address after the jump
      return [...(dep ? [NOP, NOP, ...set] : [...set, NOP, NOP]), jump ? jalr(0, 6, 0) : NOP];
    };
    expect(cycles(words(false, true)) - cycles(words(false, false))).toBe(1);
    expect(cycles(words(true, true)) - cycles(words(true, false))).toBe(2);
    expect(ri5cy(words(true, true)).stalls.jump_register).toBe(1);
    expect(ri5cy(words(false, true)).stalls.jump_register).toBe(0);
  });

  it('a jalr right after a load of its register waits for the load to leave WB (2 cycles), one instruction later 1', () => {
    const words = (gap: boolean, jump: boolean): number[] => {
      const n = li(6, CODE + 4).length;
      const target = CODE + 4 * (base.length + n + 3 + (gap ? 1 : 0));
      const set = li(6, target);
      return [...set, store('sw', 6, 31, 0), load('lw', 5, 31, 0), ...(gap ? [NOP] : []), jump ? jalr(0, 5, 0) : NOP];
    };
    expect(cycles(words(false, true)) - cycles(words(false, false))).toBe(1 + 2);
    expect(cycles(words(true, true)) - cycles(words(true, false))).toBe(1 + 1);
    const s = ri5cy(words(false, true)).stalls;
    expect([s.load_use, s.jump_register]).toEqual([1, 1]); // load in EX: load-use (and jr); load in WB: jr
  });

  it('load-use: the next instruction reading or (from EX) writing the loaded register waits 1 cycle; a second load to it does not', () => {
    const noUse = cycles([load('lw', 5, 31, 0), opR('add', 6, 7, 7)]);
    expect(cycles([load('lw', 5, 31, 0), opR('add', 6, 5, 7)]) - noUse).toBe(1);
    expect(cycles([load('lw', 5, 31, 0), opR('add', 6, 7, 5)]) - noUse).toBe(1);
    expect(cycles([load('lw', 5, 31, 0), store('sw', 5, 31, 4)]) - noUse).toBe(1);
    expect(cycles([load('lw', 5, 31, 0), opI('addi', 5, 0, 1)]) - noUse).toBe(1);
    expect(cycles([load('lw', 5, 31, 0), load('lw', 5, 31, 4)]) - noUse).toBe(0);
    expect(cycles([load('lw', 5, 31, 0), NOP, opR('add', 6, 5, 5)]) - cycles([load('lw', 5, 31, 0), NOP, opR('add', 6, 7, 7)])).toBe(0);
    expect(ri5cy([load('lw', 5, 31, 0), opR('add', 6, 5, 5)]).stalls.load_use).toBe(1);
  });

  it('mul takes 1 cycle, mulh, mulhsu and mulhu 5; results forward to the next instruction without a stall', () => {
    const setup = [...li(5, -123456789), ...li(6, 987654321)];
    const add = cycles([...setup, opR('add', 7, 5, 6), opR('add', 8, 7, 7)]);
    expect(cycles([...setup, opR('mul', 7, 5, 6), opR('add', 8, 7, 7)]) - add).toBe(0);
    for (const op of ['mulh', 'mulhsu', 'mulhu'] as const) {
      const p = ri5cy([...setup, opR(op, 7, 5, 6), opR('add', 8, 7, 7)]);
      expect(p.cycles - add, op).toBe(4);
      expect(p.stalls.multiplier).toBe(4);
    }
  });

  it('div/divu/rem/remu take 3 + the divisor\'s leading zeros (signed, negative: leading ones - 1), 3..35', () => {
    const cases: [OpName, number][] = [['div', 7], ['divu', 0], ['div', 0], ['divu', 0x80000000 | 0], ['div', -1], ['div', -7], ['rem', 1], ['remu', 0xffff], ['div', 0x80000000 | 0], ['rem', -2]];
    for (const [op, b] of cases) {
      const words = (o: OpName): number[] => [...li(5, -100), ...li(6, b), opR(o, 7, 5, 6)];
      const extra = cycles(words(op)) - cycles(words('add'));
      expect(extra, `${op} by ${b}`).toBe(divCycles(op, b) - 1);
    }
    expect(divCycles('divu', 0)).toBe(35);
    expect(divCycles('divu', 0x80000000 | 0)).toBe(3);
  });

  it('random divisions: the cycles follow the divisor, the results equal the functional model\'s', () => {
    fc.assert(
      fc.property(fc.constantFrom<OpName>('div', 'divu', 'rem', 'remu'), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.nat(31), (op, a, b, sh) => {
        const bb = b >> sh; // spread the leading zeros / ones
        const words = (o: OpName): number[] => [...li(5, a), ...li(6, bb), opR(o, 7, 5, 6)];
        expect(cycles(words(op)) - cycles(words('add'))).toBe(divCycles(op, bb) - 1);
      }),
      { numRuns: 40 },
    );
  });

  it('a jump in a held ID redirects fetch at once: behind a division or a load-use stall it costs nothing more', () => {
    const setup = [...li(5, 1000), ...li(6, 7)];
    expect(cycles([...setup, opR('div', 7, 5, 6), jal(0, 4)]) - cycles([...setup, opR('div', 7, 5, 6), NOP])).toBe(0);
    expect(cycles([load('lw', 5, 31, 0), jal(5, 4)]) - cycles([load('lw', 5, 31, 0), NOP])).toBe(1); // the WAW stall hides the jump's cycle
  });

  it('CPI of small loops: 10 trips of (jal, mulh, addi, bne) take 11 cycles a trip, 2 fewer on the last', () => {
    const loop = (trips: number): number[] => [...li(5, trips), jal(0, 4), opR('mulh', 8, 5, 5), opI('addi', 5, 5, -1), branch('bne', 5, 0, -12)];
    const p10 = ri5cy(loop(10));
    const p11 = ri5cy(loop(11));
    expect(p11.cycles - p10.cycles).toBe(4 + 1 + 4 + 2);
    expect(p10.cycles).toBe(plainLength + 2 + 10 * 4 + 3 + 1 + 10 * (1 + 4) + 9 * 2);
    expect((p11.cycles - p10.cycles) / 4).toBe(2.75);
    // mulh before the jal: the jump is taken from ID while the mulh holds EX, its cycle is hidden
    const hidden = (trips: number): number[] => [...li(5, trips), opR('mulh', 8, 5, 5), jal(0, 4), opI('addi', 5, 5, -1), branch('bne', 5, 0, -12)];
    expect(cycles(hidden(11)) - cycles(hidden(10))).toBe(4 + 4 + 2);
    // a load/use loop: lw, add (1 load-use), addi, bne: 7 cycles a trip
    const lu = (trips: number): number[] => [...li(5, trips), load('lw', 6, 31, 0), opR('add', 7, 7, 6), opI('addi', 5, 5, -1), branch('bne', 5, 0, -12)];
    expect(cycles(lu(6)) - cycles(lu(5))).toBe(7);
  });
});
