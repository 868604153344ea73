/**
 * The AMO world's stream path (experiments/gemini/amoWorld.ts, used by the gemini-amo soak entry):
 * operations drawn on demand and events dropped behave exactly like the history path, keep nothing
 * per answered operation; and the acceptance-order checker (bench/soak/amoOrder.ts) passes the
 * unit's answers and fails a wrong one.
 */
import { describe, expect, it } from 'vitest';
import { type AmoEvent, type AmoOpSpec, buildAmoWorld, oldValue } from '../../experiments/gemini/amoWorld.ts';
import { AMO_FADD } from '../../rtl/gemini/amo/ops.ts';
import { Rng } from '../../rtl/kernel/rng.ts';
import { GoldenAmoUnit } from '../../models/gemini/amoModel.ts';
import { AcceptOrderChecker } from '../../bench/soak/amoOrder.ts';
import { randomAmo } from '../../bench/soak/blocks/gemini.ts';

const UNIT = { cacheLines: 4, cacheWays: 2, replacement: 'lru' as const, writePolicy: 'write-back' as const, memBytes: 1024 };
const programs = (n: number): AmoOpSpec[][] =>
  [0, 1, 2].map((i) => {
    const r = new Rng(10 + i);
    return Array.from({ length: n }, () => randomAmo(r, UNIT.memBytes, 12));
  });
const outcome = (e: AmoEvent): string => `${e.initiator}/${e.seq} ${e.invoke}-${e.response} ${e.req.status} ${oldValue(e.req)} ${e.req.hit} ${e.req.acceptCycle}`;

describe('AMO world stream path', () => {
  it('gives the same events as the history path and keeps none of them', () => {
    const hist = buildAmoWorld({ unit: UNIT, programs: programs(300), window: 3, maxGap: 2, seed: 4 });
    hist.run();
    const arrays = programs(300);
    const seen: string[] = [];
    const stream = buildAmoWorld({ unit: UNIT, programs: arrays.map((a) => (seq: number) => a[seq] ?? null), window: 3, maxGap: 2, seed: 4, keepEvents: false, onResponse: (e) => seen.push(outcome(e)) });
    stream.run();
    expect(stream.events()).toEqual([]);
    for (const ini of stream.initiators) expect([ini.issued, ini.answered, ini.inFlight, ini.events.length]).toEqual([300, 300, 0, 0]);
    expect(new Set(hist.events().map((e) => e.req.status)).size).toBeGreaterThan(1); // good and bad requests
    const want = hist.initiators.flatMap((i) => i.events).map(outcome).sort();
    expect(seen.sort()).toEqual(want);
  });

  const run = (tamperAt: number): AcceptOrderChecker => {
    const checker = new AcceptOrderChecker(new GoldenAmoUnit(UNIT), 'test');
    let answers = 0;
    const w = buildAmoWorld({
      unit: UNIT,
      programs: [0, 1, 2].map((i) => ((r: Rng) => (seq: number) => (seq < 400 ? randomAmo(r, UNIT.memBytes, 12) : null))(new Rng(20 + i))),
      window: 4,
      maxGap: 1,
      keepEvents: false,
      onIssue: (e) => checker.issued(e.req),
      onResponse: (e) => {
        if (answers++ >= tamperAt && e.req.op === AMO_FADD && e.req.status === 0 && tamperAt >= 0) {
          e.req.oldLo ^= 1; // a wrong old value
          tamperAt = -1;
        }
        checker.answered(e.req);
      },
    });
    w.run();
    return checker;
  };

  it('the acceptance-order checker passes the unit and fails a wrong answer', () => {
    const good = run(Infinity);
    expect([good.checked, good.mismatches, good.held]).toEqual([1200, 0, 0]);
    const bad = run(600);
    expect(bad.mismatches).toBe(1);
    expect(bad.firstMismatch).toMatch(/^test: FADD @\d+ accepted at cycle \d+: unit ok old .* golden model ok old/);
  });
});
