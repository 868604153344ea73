/**
 * The memory path (checker -> ATC -> host memory): the seed's refresh handshake, cycle by cycle,
 * and the refresh safety check (random lookups, updates, refreshes and fill latencies: no stale
 * translation once the refresh-done register is set, no stale fill installed, nothing lost).
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { ATC_HIT, ATC_MISS, RefreshEngine } from '../../rtl/nic/atc/index.ts';
import { buildMemPath, ItemWrite, MC_OK, MemCheckReq } from '../../rtl/nic/memcheck/index.ts';
import { runRefreshCheck } from '../../experiments/nic/refreshCheck.ts';

describe('refresh handshake: checker item write -> ATC tag removal -> refresh-done register', () => {
  it('runs the three seed steps with the documented timing', () => {
    const sim = new Simulator();
    const { checker, atc, att } = buildMemPath(sim, { checker: { items: 8, sources: 2 }, atc: { entries: 64, ways: 4, refreshProbeMax: 8 }, host: { readLatency: 20, jitter: 0 } });
    checker.loadItem(Object.assign(new ItemWrite(), { index: 2, key: 77, basePage: 100, topPage: 199 }));
    const lookup = (page: number): MemCheckReq => {
      const r = new MemCheckReq();
      Object.assign(r, { item: 2, key: 77, va: page * 4096 + 12, len: 4 });
      checker.reqIn[0]!.push(r);
      sim.runUntil(() => atc.resp.canPop(), 1000);
      atc.resp.pop();
      checker.respOut[0]!.pop();
      expect(r.reason).toBe(MC_OK);
      return r;
    };
    for (const p of [100, 103, 150]) expect(lookup(p).xlate.status).toBe(ATC_MISS);
    expect(lookup(103).xlate.status).toBe(ATC_HIT);
    // step 1: software changes the translation of pages 100..103 and rewrites the item with refresh
    att.write(103, 5555, true);
    const w = Object.assign(new ItemWrite(), { index: 2, key: 77, basePage: 100, topPage: 103, refresh: true });
    const pushed = sim.cycle;
    checker.writeIn.push(w);
    sim.runUntil(() => atc.refreshDone.q === 1, 1000);
    // the write is applied the cycle after the push, the ATC starts the cycle after that, and the
    // probe of 4 pages takes 4 cycles before the done register is visible
    expect(w.appliedCycle).toBe(pushed + 1);
    expect(w.refreshId).toBe(1);
    expect(RefreshEngine.cost(atc.cfg, 100, 103)).toEqual({ mode: 1, cycles: 4 });
    expect(sim.cycle).toBe(pushed + 2 + 4);
    expect(atc.stats.refreshCycles.value).toBe(4);
    // step 2/3: tags in [100, 103] are gone, page 150 (outside) stays
    expect(atc.tags.occupancy()).toBe(1);
    const again = lookup(103);
    expect(again.xlate.status).toBe(ATC_MISS);
    expect(again.xlate.pfn).toBe(5555);
    // the checker item now spans only 100..103
    const r = new MemCheckReq();
    Object.assign(r, { item: 2, key: 77, va: 150 * 4096, len: 4 });
    checker.reqIn[1]!.push(r);
    sim.runUntil(() => checker.respOut[1]!.canPop(), 100);
    expect(checker.respOut[1]!.pop().reason).toBe(4);
    // a large range sweeps all 16 sets
    checker.writeIn.push(Object.assign(new ItemWrite(), { index: 2, key: 77, basePage: 0, topPage: 10000, refresh: true }));
    const t0 = sim.cycle;
    sim.runUntil(() => atc.refreshDone.q === 2, 1000);
    expect(sim.cycle - t0).toBe(2 + 16);
    expect(atc.tags.occupancy()).toBe(0);
  });
});

describe('refresh safety through the whole memory path', () => {
  it('random lookups, updates, refreshes and fill latencies: no stale translation, nothing lost', () => {
    for (const seed of [1, 2, 3, 4]) {
      const r = runRefreshCheck({ ops: 1500, seed });
      expect(r.first_problem).toBeNull();
      expect(r.stale_translations).toBe(0);
      expect(r.stale_installs).toBe(0);
      expect(r.lost).toBe(0);
      expect(r.duplicated).toBe(0);
      expect(r.unexpected_verdicts).toBe(0);
      expect(r.lookups).toBeGreaterThan(500);
      // the run exercised what the property is about
      expect(r.probe_refreshes).toBeGreaterThan(0);
      expect(r.sweep_refreshes).toBeGreaterThan(0);
      expect(r.stale_fills_dropped).toBeGreaterThan(0);
      expect(r.hits).toBeGreaterThan(0);
      expect(r.merged_misses).toBeGreaterThan(0);
      expect(r.faults).toBeGreaterThan(0);
    }
  });

  it('is identical with activity skipping on and off', () => {
    const on = runRefreshCheck({ ops: 800, seed: 9 });
    const off = runRefreshCheck({ ops: 800, seed: 9, skipping: false });
    expect(off).toEqual(on);
  });

  it('with plru and other geometries too', () => {
    for (const atc of [{ replacement: 'plru' as const }, { entries: 64, ways: 1, mshrs: 2 }, { entries: 512, ways: 16, refreshProbeMax: 0 }]) {
      const r = runRefreshCheck({ ops: 600, seed: 5, atc });
      expect(r.first_problem).toBeNull();
      expect(r.stale_translations + r.stale_installs + r.lost + r.duplicated).toBe(0);
    }
  });
});
