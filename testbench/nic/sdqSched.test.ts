/**
 * SDQ scheduler, buffer and readout, cycle by cycle against the cycle model
 * (models/nic/sdqCycleModel.ts) over random configurations, policies and scenarios (doorbells,
 * overflowing doorbells, doorbells for VPs without a ring, PIO traffic, reordering read
 * latencies, consumer stalls), skipping on and off; per-VP order of what is dispatched; the
 * scheduler's fairness bound per policy; configuration errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { SCHED_POLICIES, type SchedPolicy, VpScheduler } from '../../rtl/nic/vp/scheduler.ts';
import { sdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';
import { runSchedModel } from '../../models/nic/sdqCycleModel.ts';
import { type NicSchedConfig, randomScenario, runSchedRtl } from '../../vectors/blocks/nicsched.ts';

const cfgArb = fc.record({
  pioVps: fc.integer({ min: 0, max: 3 }),
  dmaVps: fc.integer({ min: 1, max: 8 }),
  depth: fc.integer({ min: 1, max: 16 }),
  maxReads: fc.integer({ min: 1, max: 4 }),
  batch: fc.integer({ min: 1, max: 4 }),
  policy: fc.constantFrom(...SCHED_POLICIES),
});

describe('SDQ scheduler, buffer and readout', () => {
  it('match the cycle model read for read, dispatch for dispatch, error for error (skipping on and off)', () => {
    fc.assert(
      fc.property(cfgArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.boolean(), (cfg: NicSchedConfig, seed, skipping) => {
        const s = randomScenario(cfg, new Rng(seed));
        const got = runSchedRtl(cfg, s, skipping);
        const exp = runSchedModel({ ...cfg, ...s });
        expect(got.reads).toEqual(exp.reads);
        expect(got.dispatch).toEqual(exp.dispatch);
        expect(got.errors).toEqual(exp.errors);
      }),
      { numRuns: 60 },
    );
  });

  it('dispatch each DMA VP ring entry once, in ring order, with consecutive sequence numbers', () => {
    fc.assert(
      fc.property(cfgArb, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (cfg: NicSchedConfig, seed) => {
        const s = randomScenario(cfg, new Rng(seed));
        s.cycles = 20000; // long enough to drain
        const got = runSchedRtl(cfg, s);
        // descriptors accepted per VP: doorbells minus refusals (errors name the VP and cycle)
        const accepted = new Map<number, number>();
        const refused = new Set(got.errors.map(([c, vp]) => `${c - 1}/${vp}`));
        for (const d of s.doorbells) if (!refused.has(`${d.cycle}/${d.vp}`)) accepted.set(d.vp, (accepted.get(d.vp) ?? 0) + d.count);
        for (let j = 0; j < cfg.dmaVps; j++) {
          const vp = cfg.pioVps + j;
          const mine = got.dispatch.filter((d) => d[1] === vp);
          expect(mine.length).toBe(accepted.get(vp) ?? 0);
          mine.forEach((d, i) => {
            expect(d[2]).toBe(i);
            expect(d[3]).toBe(i % s.rings[j]!);
          });
        }
      }),
      { numRuns: 40 },
    );
  });

  it('a different policy gives a different schedule somewhere (the policy is live)', () => {
    const base: NicSchedConfig = { pioVps: 2, dmaVps: 6, depth: 8, maxReads: 3, batch: 2, policy: 'round-robin' };
    const differs = (p: SchedPolicy): boolean => {
      for (let seed = 0; seed < 20; seed++) {
        const s = randomScenario(base, new Rng(seed));
        if (JSON.stringify(runSchedRtl(base, s).reads) !== JSON.stringify(runSchedRtl({ ...base, policy: p }, s).reads)) return true;
      }
      return false;
    };
    expect(differs('fixed-priority')).toBe(true);
    expect(differs('oldest-first')).toBe(true);
  });

  it('configuration errors name the parameter', () => {
    expect(() => sdqConfig({ depth: 0 })).toThrow(/depth must be an integer in \[1, 65536\], got 0/);
    expect(() => sdqConfig({ entryBytes: 96 })).toThrow(/entryBytes must be 64 or 128/);
    expect(() => sdqConfig({ policy: 'lottery' as SchedPolicy })).toThrow(/policy must be one of round-robin, fixed-priority, oldest-first/);
    expect(() => sdqConfig({ pioVps: 200, dmaVps: 100 })).toThrow(/pioVps \+ dmaVps must be at most 256/);
    expect(() => sdqConfig({ colour: 1 } as never)).toThrow(/unknown parameter 'colour'/);
  });
});

/** Calls the scheduler once per cycle with a candidate set that changes only as the plan says, and records picks. */
class PickHarness extends Component {
  readonly sched: VpScheduler;
  readonly picks: number[] = [];
  readonly cands: boolean[][] = [];
  private readonly live: boolean[];
  constructor(
    parent: Scope,
    n: number,
    policy: SchedPolicy,
    private readonly plan: (t: number, i: number, live: boolean) => boolean,
    private readonly cycles: number,
  ) {
    super(parent, 'h');
    this.sched = new VpScheduler(this, 'sched', n, policy);
    this.live = Array.from({ length: n }, () => false);
  }
  tick(t: number): number {
    for (let i = 0; i < this.live.length; i++) {
      const was = this.live[i]!;
      this.live[i] = this.plan(t, i, was);
      if (!was && this.live[i]) this.sched.arm(i, t);
    }
    this.cands.push([...this.live]);
    const g = this.sched.pick((i) => this.live[i]!);
    this.picks.push(g);
    if (g >= 0) this.sched.served(g, t);
    return t + 1 < this.cycles ? t + 1 : NEVER;
  }
}

describe('VP scheduler fairness', () => {
  // a candidate that stays a candidate until picked: the longest run of picks of others while it waits
  const worstWait = (h: PickHarness, n: number): number => {
    let worst = 0;
    for (let i = 0; i < n; i++) {
      let others = 0;
      for (let t = 0; t < h.picks.length; t++) {
        if (!h.cands[t]![i]) {
          others = 0;
          continue;
        }
        if (h.picks[t] === i) others = 0;
        else if (h.picks[t]! >= 0) worst = Math.max(worst, ++others);
      }
    }
    return worst;
  };
  it.each(['round-robin', 'oldest-first'] as const)('%s: a persistent candidate waits at most n - 1 picks of others', (policy) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 1e9 }), (n, seed) => {
        const r = new Rng(seed);
        const sim = new Simulator({});
        const holder: { h?: PickHarness } = {};
        const h = new PickHarness(sim, n, policy, (t, i, live) => {
          const picked = holder.h!.picks[t - 1] === i;
          if (live && !picked) return true; // keeps waiting until picked
          return r.int(4) !== 0; // after a pick (or when idle) it usually has more
        }, 400);
        holder.h = h;
        sim.step(400);
        expect(worstWait(h, n)).toBeLessThanOrEqual(n - 1);
      }),
      { numRuns: 60 },
    );
  });

  it('fixed-priority has no bound: VP 0 kept busy starves VP 1', () => {
    const sim = new Simulator({});
    const h = new PickHarness(sim, 2, 'fixed-priority', () => true, 100);
    sim.step(100);
    expect(h.picks.every((g) => g === 0)).toBe(true);
  });
});
