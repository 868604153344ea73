/**
 * Many initiators hammer one word with random AMO mixes (several outstanding each, random gaps);
 * the history (invocation = push cycle, response = pop cycle, fetched values, final value) must be
 * linearizable (linearizability.ts). The checker itself must reject histories that are not.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMO_FADD, AMO_FCSWAP, AMO_NAMES } from '../../rtl/gemini/amo/ops.ts';
import { type AmoOpSpec, buildAmoWorld, oldValue } from '../../experiments/gemini/amoWorld.ts';
import { amoApply, isFetching } from '../../models/gemini/amoModel.ts';
import { checkLinearizable, type HistoryOp } from './linearizability.ts';

const WORD = 0x40;

function opFor(name: string, a: bigint, b: bigint): (old: bigint) => bigint {
  return (old) => amoApply(name, old, a, b);
}

function historyOf(world: ReturnType<typeof buildAmoWorld>): HistoryOp[][] {
  return world.initiators.map((ini) =>
    ini.events.map((e) => {
      const name = AMO_NAMES[e.spec.op]!;
      const h: HistoryOp = { initiator: e.initiator, invoke: e.invoke, response: e.response, apply: opFor(name, e.spec.a, e.spec.b ?? 0n), label: name };
      if (isFetching(name)) h.fetched = oldValue(e.req);
      return h;
    }),
  );
}

function finalValue(world: ReturnType<typeof buildAmoWorld>): bigint {
  const c = world.unit.cached(WORD);
  if (c) return (BigInt(c.hi) << 32n) | BigInt(c.lo);
  const m = world.memory.load64(WORD);
  return (BigInt(m.hi) << 32n) | BigInt(m.lo);
}

/** Small operands so values recur (harder for the search) and FCSWAP compares sometimes match. */
const small = fc.bigInt({ min: 0n, max: 15n });
const specArb: fc.Arbitrary<AmoOpSpec> = fc.record({ op: fc.integer({ min: 0, max: AMO_NAMES.length - 1 }), a: small, b: small }).map((s) => ({ ...s, addr: WORD }));

describe('linearizability of one word under many initiators', () => {
  it('random AMO mixes from 2 to 8 initiators, up to 300 operations, are linearizable', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.array(specArb, { minLength: 40, maxLength: 300 }),
        (n, window, maxGap, seed, ops) => {
          const programs: AmoOpSpec[][] = Array.from({ length: n }, () => []);
          ops.forEach((s, i) => programs[i % n]!.push(s));
          const w = buildAmoWorld({ programs, window, maxGap, seed, unit: { cacheLines: 2, cacheWays: 1 } });
          w.run();
          const r = checkLinearizable(historyOf(w), 0n, finalValue(w));
          expect(r.ok).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a few hundred FADD/FCSWAP from 16 initiators: the load-balancing counter is linearizable', () => {
    const programs: AmoOpSpec[][] = Array.from({ length: 16 }, (_, i) => Array.from({ length: 20 }, (_, k) => (k % 5 === 4 ? { op: AMO_FCSWAP, addr: WORD, a: BigInt(i), b: BigInt(k) } : { op: AMO_FADD, addr: WORD, a: 1n })));
    const w = buildAmoWorld({ programs, window: 2, maxGap: 3, seed: 7 });
    w.run();
    const r = checkLinearizable(historyOf(w), 0n, finalValue(w));
    expect(r.ok).toBe(true);
    expect(r.order).toHaveLength(320);
  });
});

describe('the checker rejects what is not linearizable', () => {
  const fadd = (initiator: number, invoke: number, response: number, fetched: bigint): HistoryOp => ({ initiator, invoke, response, apply: (o) => o + 1n, fetched });

  it('two FADDs that both fetched 0', () => {
    expect(checkLinearizable([[fadd(0, 0, 5, 0n)], [fadd(1, 1, 6, 0n)]], 0n, 2n).ok).toBe(false);
  });

  it('real-time order: the later operation cannot have come first', () => {
    // initiator 1 invoked after initiator 0 responded, yet fetched the initial value
    expect(checkLinearizable([[fadd(0, 0, 2, 0n)], [fadd(1, 3, 6, 0n)]], 0n, 2n).ok).toBe(false);
    expect(checkLinearizable([[fadd(0, 0, 4, 1n)], [fadd(1, 3, 6, 0n)]], 0n, 2n).ok).toBe(true); // overlapping: fine
  });

  it('program order: an initiator\'s second operation cannot precede its first', () => {
    expect(checkLinearizable([[fadd(0, 0, 9, 1n), fadd(0, 1, 9, 0n)]], 0n, 2n).ok).toBe(false);
  });

  it('a wrong final value', () => {
    expect(checkLinearizable([[fadd(0, 0, 5, 0n)], [fadd(1, 1, 6, 1n)]], 0n, 3n).ok).toBe(false);
  });

  it('a real history with one fetched value changed', () => {
    const programs: AmoOpSpec[][] = Array.from({ length: 6 }, () => Array.from({ length: 30 }, () => ({ op: AMO_FADD, addr: WORD, a: 3n })));
    const w = buildAmoWorld({ programs, window: 3, maxGap: 2, seed: 3 });
    w.run();
    const h = historyOf(w);
    expect(checkLinearizable(h, 0n, finalValue(w)).ok).toBe(true);
    h[2]![10]!.fetched = h[2]![10]!.fetched! + 3n;
    expect(checkLinearizable(h, 0n, finalValue(w)).ok).toBe(false);
  });
});
