/**
 * Random RV32IM programs (fast-check; a failure shrinks and replays from its seed and path) on the
 * functional model and the pipeline (either organisation): the retired-instruction traces are equal entry by entry, and
 * so are the final registers, memory and output; the pipeline never retires faster than one
 * instruction per cycle, and its cycle count is the retired instructions plus the fill and the
 * counted stalls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseElf } from '../../models/hpu/elf.ts';
import { randomProgramArb, randomProgramElf, RP_DUMP_BYTES } from '../../experiments/hpu/randomProgram.ts';
import { runBoth } from './programs.ts';
import { HPU_ORGANISATIONS } from '../../rtl/hpu/core/coreBase.ts';

describe('random programs: pipeline = functional model', () => {
  it('traces, registers, memory and output agree for both organisations and any divider latency; CPI >= 1', () => {
    fc.assert(
      fc.property(randomProgramArb(1, 50), fc.integer({ min: 1, max: 40 }), fc.constantFrom(...HPU_ORGANISATIONS), (prog, divLatency, organisation) => {
        const r = runBoth(parseElf(randomProgramElf(prog)), { divLatency, organisation });
        expect(r.mismatch).toBe(-1);
        expect([r.f.status, r.f.exitCode]).toEqual(['exited', 0]);
        expect([r.p.status, r.p.exitCode]).toEqual(['exited', 0]);
        expect(Array.from(r.p.regs)).toEqual(Array.from(r.f.regs));
        expect(Buffer.from(r.p.memory).equals(Buffer.from(r.f.memory))).toBe(true);
        expect(r.p.stdout.length).toBe(RP_DUMP_BYTES);
        expect(Buffer.from(r.p.stdout).equals(Buffer.from(r.f.stdout))).toBe(true);
        expect(r.p.cycles).toBeGreaterThanOrEqual(r.p.retired);
        const s = r.p.stalls;
        // 4 cycles to fill the five stages (3 for ri5cy's four), then one retirement per cycle unless a counted stall intervenes
        expect(r.p.fill).toBe(organisation === 'ri5cy' ? 3 : 4);
        expect(r.p.cycles).toBe(r.p.retired + r.p.fill + s.load_use + s.jump_register + s.branch + s.divider + s.multiplier + s.memory + s.ecall);
      }),
      { numRuns: 100 },
    );
  });

  it('the same program and seed give bit-identical runs', () => {
    const [prog] = fc.sample(randomProgramArb(30, 30), { seed: 7, numRuns: 1 });
    const a = runBoth(parseElf(randomProgramElf(prog!)));
    const b = runBoth(parseElf(randomProgramElf(prog!)));
    expect(b.trace).toEqual(a.trace);
    expect(b.p.cycles).toBe(a.p.cycles);
  });
});
