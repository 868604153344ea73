/**
 * Deterministic ordering of the cycle-level ALU: the result bits and flags of an operation never
 * depend on the arrival order or spacing of its operands, nor on other operations interleaved with
 * it; and the simulation itself is independent of activity skipping and of the evaluation order
 * within a cycle (same results, same result cycles, same accept cycles).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../rtl/kernel/index.ts';
import type { AluHeader, AluParams, AluResult } from '../../../rtl/sharp/alu/alu.ts';
import { DATA_TYPES, elementBytes, INDEX_TYPES, OPS, ORDERS, ROUNDINGS, validateHeader } from '../../../rtl/sharp/alu/types.ts';
import { hex, randomArrivals, randomPayload, runAlu, type Scheduled } from '../../../experiments/sharp/alu-harness.ts';

const headerArb = fc
  .record({
    type: fc.constantFrom(...DATA_TYPES),
    op: fc.constantFrom(...OPS),
    indexType: fc.constantFrom(...INDEX_TYPES),
    rounding: fc.constantFrom(...ROUNDINGS),
    ftz: fc.boolean(),
    wide: fc.boolean(),
    children: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 2, max: 9 })),
    countFrac: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .filter((h) => validateHeader(h.type, h.op, 0, 1, h.indexType) === 0)
  .map(({ countFrac, ...h }): AluHeader => {
    const max = Math.min(Math.floor(256 / elementBytes(h.type, h.op, h.indexType)), Math.max(1, Math.floor(800 / h.children)));
    return { ...h, count: Math.floor(countFrac * (max + 1)) > max ? max : Math.floor(countFrac * (max + 1)) };
  });

const paramsArb = fc.record({
  order: fc.constantFrom(...ORDERS),
  seed: fc.integer({ min: 0, max: 0xffffffff }),
  widthBytes: fc.integer({ min: 1, max: 64 }),
  writeBytesPerCycle: fc.integer({ min: 1, max: 64 }),
  depthInt: fc.integer({ min: 1, max: 4 }),
  depthFadd: fc.integer({ min: 1, max: 8 }),
  depthFmul: fc.integer({ min: 1, max: 8 }),
});

/** The operation under test (opId 1000) with operands in the order and spacing drawn from `arrivalSeed`, mixed with `others`. */
function schedule(h: AluHeader, operands: Uint8Array[], arrivalSeed: number, others: { h: AluHeader; operands: Uint8Array[] }[]): Scheduled[] {
  const rng = new Rng(arrivalSeed);
  const all: Scheduled[] = [];
  const add = (opId: number, hh: AluHeader, ops: Uint8Array[], start: number, gap: number): void => {
    for (const a of randomArrivals(rng, hh.children, gap, start)) all.push({ at: a.at, input: { kind: 'operand', opId, slot: a.slot, hdr: hh, data: ops[a.slot]! } });
  };
  add(1000, h, operands, rng.int(40), rng.pick([0, 1, 3, 20]));
  others.forEach((o, i) => add(i + 1, o.h, o.operands, rng.int(60), rng.pick([0, 2, 9])));
  return all.map((x, i) => [x, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]).map((x) => x[0]);
}

describe('arrival-order independence', () => {
  it('same bits and flags for every arrival order and spacing, with other operations interleaved', () => {
    fc.assert(
      fc.property(headerArb, paramsArb, fc.array(headerArb, { maxLength: 3 }), fc.integer({ min: 0, max: 0xffffffff }), fc.array(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 2, maxLength: 3 }), (h, params, otherHdrs, dataSeed, arrivalSeeds) => {
        const rng = new Rng(dataSeed);
        const operands = Array.from({ length: h.children }, () => randomPayload(rng, h, 0.2));
        const others = otherHdrs.map((oh) => ({ h: oh, operands: Array.from({ length: oh.children }, () => randomPayload(rng, oh, 0.2)) }));
        let first: AluResult | undefined;
        for (const a of arrivalSeeds) {
          const run = runAlu(params, schedule(h, operands, a, others), { expect: 1 + others.length });
          const r = run.results.find((x) => x.opId === 1000)!;
          expect(r.status).toBe(0);
          if (first === undefined) first = r;
          else {
            expect(hex(r.data)).toBe(hex(first.data));
            expect(r.flags).toBe(first.flags);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('simulation independent of activity skipping and evaluation order', () => {
  it('skipping on/off and shuffled evaluation: identical results, result cycles and accept cycles', () => {
    fc.assert(
      fc.property(fc.array(headerArb, { minLength: 1, maxLength: 5 }), paramsArb, fc.integer({ min: 0, max: 0xffffffff }), (hdrs, params: Partial<AluParams>, seed) => {
        const rng = new Rng(seed);
        const ops = hdrs.map((h) => ({ h, operands: Array.from({ length: h.children }, () => randomPayload(rng, h, 0.2)) }));
        const sched = schedule(ops[0]!.h, ops[0]!.operands, seed, ops.slice(1));
        const n = ops.length;
        const a = runAlu(params, sched, { skipping: true, expect: n });
        const b = runAlu(params, sched, { skipping: false, expect: n });
        const c = runAlu(params, sched, { skipping: true, shuffleSeed: seed, expect: n });
        const flat = (rs: AluResult[]) => rs.map((r) => `${r.opId}:${r.status}:${hex(r.data)}:${r.flags}:${r.cycle}:${r.lastAccept}`);
        expect(a.results.length).toBe(ops.length);
        expect(flat(b.results)).toEqual(flat(a.results));
        expect(flat(c.results)).toEqual(flat(a.results));
        expect(b.accepted).toEqual(a.accepted);
        expect(c.accepted).toEqual(a.accepted);
        // skipping evaluates the ALU only when something can happen
        expect(a.sim.evaluations).toBeLessThanOrEqual(b.sim.evaluations);
      }),
      { numRuns: 30 },
    );
  });
});
