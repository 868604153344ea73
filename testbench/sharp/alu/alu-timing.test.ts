/**
 * The cycle formulas of docs/alu.md "Cycle behaviour", checked against the RTL on random
 * configurations (datapath width, pipeline depths, write bandwidth, child counts, payload sizes):
 *   w = max(1, ceil(bytes / writeBytesPerCycle))       write-port cycles per operand
 *   B = ceil(accumulator bytes / widthBytes)            beats per pass (0 for a barrier)
 *   P = B + D - 1                                       cycles a dependent pass adds
 *   accept:  A_j = max(push_j + 1, A_(j-1) + w)         (one operation, operands pushed in order)
 *   linear:  R = A_last + w + (K - 1) P                 (any arrival pattern, no other operation)
 *   tree:    R = A_last + w + depth(last slot) P        (isolated last arrival)
 *   stream:  one result per T = max(K w, (K - 1) B, B_out) cycles in steady state (w and B_out
 *            at least 2 with channels of capacity 1)
 * The formulas are computed here from their definitions (the tree depth by building the tree), not
 * with the RTL's helpers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../rtl/kernel/index.ts';
import type { AluHeader, AluParams } from '../../../rtl/sharp/alu/alu.ts';
import { DATA_TYPES, INDEX_TYPES, OPS, ORDERS, ROUNDINGS, TYPE_BYTES, validateHeader } from '../../../rtl/sharp/alu/types.ts';
import { header, randomArrivals, randomPayload, runAlu, type Scheduled } from '../../../experiments/sharp/alu-harness.ts';

const FLOATS = ['f16', 'bf16', 'f32', 'f64'];

interface Shape {
  w: number;
  B: number;
  D: number;
  P: number;
  Bout: number;
}

/** The documented per-operation cycle counts. */
function shapeOf(p: AluParams, h: AluHeader): Shape {
  const loc = h.op === 'minloc' || h.op === 'maxloc';
  const bytes = h.count * (TYPE_BYTES[h.type] + (loc ? TYPE_BYTES[h.indexType] : 0));
  const wide = h.wide && (h.type === 'f16' || h.type === 'bf16') && (h.op === 'sum' || h.op === 'prod');
  const accBytes = wide ? h.count * 4 : bytes;
  const isF = FLOATS.includes(h.type);
  const D = isF && h.op === 'sum' ? p.depthFadd : isF && h.op === 'prod' ? p.depthFmul : p.depthInt;
  const B = Math.ceil(accBytes / p.widthBytes);
  return { w: Math.max(1, Math.ceil(bytes / p.writeBytesPerCycle)), B, D, P: B + D - 1, Bout: Math.max(1, Math.ceil(bytes / p.widthBytes)) };
}

/** Depth of each slot in the balanced pairwise tree (levels at which it is paired), built level by level. */
function treeDepths(k: number): number[] {
  const depth = new Array<number>(k).fill(0);
  let level: number[][] = Array.from({ length: k }, (_, i) => [i]);
  while (level.length > 1) {
    const next: number[][] = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      const merged = [...level[i]!, ...level[i + 1]!];
      for (const s of merged) depth[s]!++;
      next.push(merged);
    }
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return depth;
}

const headerArb = fc
  .record({
    type: fc.constantFrom(...DATA_TYPES),
    op: fc.constantFrom(...OPS),
    indexType: fc.constantFrom(...INDEX_TYPES),
    rounding: fc.constantFrom(...ROUNDINGS),
    wide: fc.boolean(),
    children: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 9 })),
    frac: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .filter((h) => validateHeader(h.type, h.op, 0, 1, h.indexType) === 0)
  .map(({ frac, ...h }): AluHeader => {
    const max = Math.floor(256 / (TYPE_BYTES[h.type] + (h.op === 'minloc' || h.op === 'maxloc' ? TYPE_BYTES[h.indexType] : 0)));
    return { ...h, ftz: false, count: Math.min(max, Math.floor(frac * (max + 1))) };
  });

const paramsArb = fc.record({
  widthBytes: fc.integer({ min: 1, max: 300 }),
  writeBytesPerCycle: fc.integer({ min: 1, max: 300 }),
  depthInt: fc.integer({ min: 1, max: 8 }),
  depthFadd: fc.integer({ min: 1, max: 12 }),
  depthFmul: fc.integer({ min: 1, max: 12 }),
  seed: fc.integer({ min: 0, max: 0xffffffff }),
  contexts: fc.constant(256),
  channelCapacity: fc.integer({ min: 1, max: 6 }),
});

function ops(h: AluHeader, opId: number, arrivals: { slot: number; at: number }[], data: Uint8Array): Scheduled[] {
  return arrivals.map((a) => ({ at: a.at, input: { kind: 'operand', opId, slot: a.slot, hdr: h, data } }));
}

describe('latency after the last operand', () => {
  it('write port: A_j = max(push_j + 1, A_(j-1) + w); linear: R = A_last + w + (K - 1) P for any arrival pattern', () => {
    fc.assert(
      fc.property(headerArb, paramsArb, fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0, 1, 4, 30), (h, pp, seed, gap) => {
        const p: AluParams = { ...pp, order: 'linear' };
        const s = shapeOf(p, h);
        const rng = new Rng(seed);
        const sched = ops(h, 7, randomArrivals(rng, h.children, gap, rng.int(10)), randomPayload(rng, h, 0.2));
        const run = runAlu(p, sched, { expect: 1 });
        const pushed = run.driver.pushed;
        for (let j = 0; j < sched.length; j++) expect(run.accepted[j]).toBe(Math.max(pushed[j]! + 1, j > 0 ? run.accepted[j - 1]! + s.w : 0));
        const r = run.results[0]!;
        const aLast = run.accepted[sched.length - 1]!;
        expect(r.lastAccept).toBe(aLast);
        expect(r.cycle - aLast).toBe(s.w + (h.count === 0 ? 0 : (h.children - 1) * s.P));
      }),
      { numRuns: Number(process.env.ALU_LAT_RUNS ?? 300) },
    );
  });

  it('tree, isolated last arrival: R = A_last + w + depth(last) P', () => {
    fc.assert(
      fc.property(headerArb, paramsArb, fc.integer({ min: 0, max: 0xffffffff }), (h, pp, seed) => {
        const p: AluParams = { ...pp, order: 'tree' };
        const s = shapeOf(p, h);
        const rng = new Rng(seed);
        const arr = randomArrivals(rng, h.children, 3);
        const last = arr[arr.length - 1]!;
        // every other operand written and every pass not waiting for the last one finished long before
        last.at = arr.length * (s.w + 2) + 10 + 64 * (s.P + s.B) + rng.int(50);
        const run = runAlu(p, ops(h, 9, arr, randomPayload(rng, h, 0.2)), { expect: 1 });
        const r = run.results[0]!;
        expect(r.lastAccept).toBe(last.at + 1);
        const depth = treeDepths(h.children)[last.slot]!;
        expect(r.cycle - r.lastAccept).toBe(s.w + (h.count === 0 ? 0 : depth * s.P));
      }),
      { numRuns: Number(process.env.ALU_LAT_RUNS ?? 300) },
    );
  });

  it('tree depths: K = 5 gives 3, 3, 3, 3, 1', () => {
    expect(treeDepths(5)).toEqual([3, 3, 3, 3, 1]);
    expect(treeDepths(64).every((d) => d === 6)).toBe(true);
  });

  it('worked examples of docs/alu.md (default parameters)', () => {
    const p = { seed: 1, widthBytes: 32, writeBytesPerCycle: 32, depthInt: 1, depthFadd: 4, depthFmul: 5, contexts: 256, channelCapacity: 4 };
    const cases: [AluHeader, 'linear' | 'tree', number][] = [
      [header('f32', 'sum', 64, 64), 'linear', 8 + 63 * 11],
      [header('f32', 'sum', 64, 64), 'tree', 8 + 6 * 11],
      [header('f32', 'sum', 8, 8), 'linear', 1 + 7 * 4],
      [header('f32', 'sum', 8, 8), 'tree', 1 + 3 * 4],
      [header('i32', 'sum', 64, 64), 'linear', 8 + 63 * 8],
      [header('i32', 'sum', 64, 64), 'tree', 8 + 6 * 8],
      [header('f64', 'prod', 32, 2), 'linear', 8 + 1 * 12],
      [header('f64', 'prod', 32, 2), 'tree', 8 + 1 * 12],
      [header('f16', 'sum', 128, 16, { wide: true }), 'linear', 8 + 15 * 19],
      [header('f16', 'sum', 128, 16, { wide: true }), 'tree', 8 + 4 * 19],
      [header('u8', 'bor', 0, 5), 'linear', 1],
      [header('u8', 'bor', 0, 5), 'tree', 1],
    ];
    for (const [h, order, lat] of cases) {
      const arr = Array.from({ length: h.children }, (_, slot) => ({ slot, at: slot === h.children - 1 ? 5000 : 0 }));
      const run = runAlu({ ...p, order }, ops(h, 1, arr, new Uint8Array(h.count * TYPE_BYTES[h.type])), { expect: 1 });
      expect(run.results[0]!.cycle - run.results[0]!.lastAccept, `${h.type} ${h.op} K=${h.children} ${order}`).toBe(lat);
    }
  });
});

describe('throughput', () => {
  it('a stream of identical operations leaves one result per T = max(K w, (K - 1) B, B_out) cycles in steady state', () => {
    fc.assert(
      fc.property(headerArb, paramsArb, fc.constantFrom(...ORDERS), fc.integer({ min: 0, max: 0xffffffff }), (h0, pp, order, seed) => {
        const h = { ...h0, children: Math.min(h0.children, 24) };
        const p: AluParams = { ...pp, order };
        const s = shapeOf(p, h);
        // a channel of capacity 1 moves one entry per 2 cycles (the credit returns a cycle after the pop)
        const ch = p.channelCapacity === 1 ? 2 : 1;
        const T = Math.max(h.children * Math.max(ch, s.w), (h.children - 1) * s.B, Math.max(ch, s.Bout));
        const rng = new Rng(seed);
        const data = randomPayload(rng, h, 0.2);
        const n = 48;
        const sched: Scheduled[] = [];
        // every operand is offered at cycle 0 (the stream is limited by the ALU alone), each
        // operation's operands in the same (random) slot order
        const order1 = randomArrivals(rng, h.children, 0);
        for (let o = 0; o < n; o++) sched.push(...ops(h, o, order1, data));
        const run = runAlu(p, sched, { expect: n });
        const c = run.results.map((r) => r.cycle).sort((a, b) => a - b);
        // steady state (operations 16..40): periodic with an average of exactly T per operation
        // (a pattern may repeat over a few operations, e.g. T-1, T+1 when passes of neighbours collide)
        let period = -1;
        for (let q = 1; q <= 16 && period < 0; q++) {
          let ok = true;
          for (let i = 16; i + q <= 40 && ok; i++) ok = c[i + q]! - c[i]! === q * T;
          if (ok) period = q;
        }
        expect(period, `T=${T} ${JSON.stringify(s)} K=${h.children} intervals ${c.slice(16, 41).map((x, i) => x - c[15 + i]!).join(',')}`).toBeGreaterThan(0);
      }),
      { numRuns: Number(process.env.ALU_THR_RUNS ?? 120) },
    );
  });
  it('worked examples of docs/alu.md: f32 sum K = 64 x 256 B streams at 512 cycles, wide f16 at 1008', () => {
    // f32: every interval 512 once settled; wide f16: 848 and 1168 alternating (passes of two
    // neighbouring operations interleave), 1008 on average
    const cases: [AluHeader, number, number][] = [
      [header('f32', 'sum', 64, 64), 512, 1],
      [header('f16', 'sum', 128, 64, { wide: true }), 1008, 2],
    ];
    for (const [h, T, q] of cases) {
      const sched: Scheduled[] = [];
      for (let o = 0; o < 20; o++) sched.push(...ops(h, o, Array.from({ length: 64 }, (_, slot) => ({ slot, at: 0 })), new Uint8Array(256)));
      const c = runAlu({}, sched, { expect: 20 }).results.map((r) => r.cycle);
      // (the last operation has no successor to share the combine unit with: leave it out)
      for (let i = 8; i + q < 19; i++) expect(c[i + q]! - c[i]!).toBe(q * T);
    }
  });
});
