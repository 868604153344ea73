/**
 * The cycle-level ALU (rtl/sharp/alu/alu.ts) against the golden model (models/alu/golden.ts):
 * every valid type x operation, every rounding mode for the float types, both reduction orders,
 * with ftz, wide accumulation and minloc/maxloc index types drawn at random, child counts 1..64,
 * payloads full of special values (NaN, sNaN, infinities, zeros, subnormals, extremes), and the
 * operations streamed through one ALU with their operands in random order, interleaved.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../rtl/kernel/index.ts';
import type { AluHeader, AluParams } from '../../../rtl/sharp/alu/alu.ts';
import { DATA_TYPES, elementBytes, INDEX_TYPES, isFloat, OPS, ORDERS, ROUNDINGS, type ReductionOrder, validateHeader } from '../../../rtl/sharp/alu/types.ts';
import { goldenFor, header, hex, randomArrivals, randomPayload, runAlu, type Scheduled } from '../../../experiments/sharp/alu-harness.ts';

interface Spec {
  opId: number;
  seedId?: number;
  hdr: AluHeader;
  operands: Uint8Array[];
}

/** A random child count (1..64, biased to small and to powers of two +-1) and a count keeping the golden model quick. */
function shape(rng: Rng, eb: number): { children: number; count: number } {
  const r = rng.int(4);
  const children = r === 0 ? 1 + rng.int(64) : r === 1 ? rng.pick([1, 2, 3, 7, 8, 9, 31, 32, 33, 63, 64]) : 1 + rng.int(8);
  const maxCount = Math.floor(256 / eb);
  const budget = Math.max(1, Math.floor(2000 / children)); // elements x children per operation
  const count = rng.int(8) === 0 ? maxCount : rng.int(Math.min(maxCount, budget) + 1);
  return { children, count };
}

function makeSpec(rng: Rng, opId: number, hdr: Omit<AluHeader, 'count' | 'children'>): Spec {
  const { children, count } = shape(rng, elementBytes(hdr.type, hdr.op, hdr.indexType));
  const h: AluHeader = { ...hdr, count, children };
  const special = rng.pick([0, 0.1, 0.3, 0.7]);
  const operands = Array.from({ length: children }, () => randomPayload(rng, h, special));
  return { opId, seedId: rng.int(3) === 0 ? rng.u32() : undefined, hdr: h, operands };
}

/** Interleaves the operations: each starts at a random cycle, its operands in random order and spacing. */
function interleave(rng: Rng, specs: Spec[], spread: number, maxGap: number): Scheduled[] {
  const all: Scheduled[] = [];
  for (const s of specs) {
    const start = rng.int(spread + 1);
    for (const a of randomArrivals(rng, s.hdr.children, maxGap, start)) {
      all.push({ at: a.at, input: { kind: 'operand', opId: s.opId, seedId: s.seedId, slot: a.slot, hdr: s.hdr, data: s.operands[a.slot]! } });
    }
  }
  return all.map((x, i) => [x, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]).map((x) => x[0]);
}

function randomParams(rng: Rng, order: ReductionOrder): Partial<AluParams> {
  return {
    order,
    seed: rng.u32(),
    widthBytes: rng.pick([1, 4, 8, 16, 32, 32, 64, 256]),
    writeBytesPerCycle: rng.pick([1, 8, 32, 32, 100]),
    depthInt: 1 + rng.int(3),
    depthFadd: 1 + rng.int(6),
    depthFmul: 1 + rng.int(6),
  };
}

function checkAgainstGolden(params: Partial<AluParams>, specs: Spec[], sched: Scheduled[]): void {
  const run = runAlu(params, sched, { expect: specs.length });
  expect(run.results.length).toBe(specs.length);
  const byOp = new Map(run.results.map((r) => [r.opId, r]));
  for (const s of specs) {
    const r = byOp.get(s.opId)!;
    const g = goldenFor(params, s.hdr, s.seedId ?? s.opId, s.operands);
    const what = `${JSON.stringify(s.hdr)} opId ${s.opId} seedId ${s.seedId} params ${JSON.stringify(params)}`;
    expect(r, what).toBeDefined();
    expect(r.status, what).toBe(g.status);
    expect(hex(r.data), what).toBe(hex(g.data));
    expect(r.flags, what).toBe(g.flags);
  }
  expect(run.alu.activeOperations).toBe(0);
}

describe('ALU = golden model', () => {
  for (const order of ORDERS) {
    it(`${order}: every type x operation x rounding mode, interleaved operations`, () => {
      const rng = new Rng(order === 'linear' ? 0xa1 : 0xa2);
      const specs: Spec[] = [];
      let id = 1;
      for (const type of DATA_TYPES) {
        for (const op of OPS) {
          if (validateHeader(type, op, 0, 1, 'i32') !== 0) continue;
          const roundings = isFloat(type) ? ROUNDINGS : [rng.pick(ROUNDINGS)];
          for (const rounding of roundings) {
            const indexType = rng.int(3) === 0 ? rng.pick(INDEX_TYPES) : 'i32';
            specs.push(makeSpec(rng, id++, { type, op, indexType, rounding, ftz: rng.int(3) === 0, wide: (type === 'f16' || type === 'bf16') && rng.bool() }));
          }
        }
      }
      // several ALU instances (different widths, depths, seeds), each with a share of the operations
      for (let part = 0; part < 4; part++) {
        const mine = specs.filter((_, i) => i % 4 === part);
        const params = randomParams(rng, order);
        checkAgainstGolden(params, mine, interleave(rng, mine, 200, 6));
      }
    });
  }

  it('wide accumulation and ftz on every f16/bf16 sum/prod in every rounding mode', () => {
    const rng = new Rng(0xa3);
    for (const order of ORDERS) {
      const specs: Spec[] = [];
      let id = 1;
      for (const type of ['f16', 'bf16'] as const)
        for (const op of ['sum', 'prod'] as const)
          for (const rounding of ROUNDINGS)
            for (const ftz of [false, true]) specs.push(makeSpec(rng, id++, { type, op, indexType: 'i32', rounding, ftz, wide: true }));
      checkAgainstGolden(randomParams(rng, order), specs, interleave(rng, specs, 50, 3));
    }
  });

  it('random operation mixes (fast-check)', () => {
    const headerArb = fc.record({
      type: fc.constantFrom(...DATA_TYPES),
      op: fc.constantFrom(...OPS),
      indexType: fc.constantFrom(...INDEX_TYPES),
      rounding: fc.constantFrom(...ROUNDINGS),
      ftz: fc.boolean(),
      wide: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(headerArb, { minLength: 1, maxLength: 6 }), fc.constantFrom(...ORDERS), fc.integer({ min: 0, max: 0xffffffff }), (hdrs, order, seed) => {
        const rng = new Rng(seed);
        const specs = hdrs.filter((h) => validateHeader(h.type, h.op, 0, 1, h.indexType) === 0).map((h, i) => makeSpec(rng, i + 1, h));
        checkAgainstGolden(randomParams(rng, order), specs, interleave(rng, specs, 30, 4));
      }),
      { numRuns: 40 },
    );
  });
});
