/**
 * The memory path (checker -> ATC -> host memory): the seed's refresh handshake, cycle by cycle,
 * and the refresh safety check (random lookups, updates, refreshes and fill latencies: no stale
 * translation once the refresh-done register is set, no stale fill installed, nothing lost).
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { ATC_BYPASS, ATC_HIT, ATC_MISS, type AtcReq, RefreshEngine, type RefreshRequest } from '../../rtl/nic/atc/index.ts';
import { buildMemPath, ItemWrite, MC_OK, MC_REASON_NAMES, MC_VP_MISMATCH, MemCheckReq } from '../../rtl/nic/memcheck/index.ts';
import { passed, runRefreshCheck } from '../../experiments/nic/refreshCheck.ts';

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

describe('refresh-check observes what it certifies (issue 10 item 1): broken paths fail', () => {
  const OPS = 400;
  it('fails when the checker never sends the refresh to the ATC', () => {
    const r = runRefreshCheck({
      ops: OPS,
      seed: 1,
      tamper: (p) => {
        p.atc.refreshIn.push = () => {};
      },
    });
    expect(passed(r)).toBe(false);
    expect(r.refreshes).toBeGreaterThan(0);
    expect(r.refreshes_sent).toBe(r.refreshes);
    expect(r.refreshes_started).toBe(0);
    expect(r.refreshes_done).toBe(0);
    expect(r.first_problem).toMatch(/refresh-done register 0 of \d+ requested/);
  });

  it('fails when the refresh-done register is never written', () => {
    const r = runRefreshCheck({
      ops: OPS,
      seed: 2,
      tamper: (p) => {
        Object.defineProperty(p.atc.refreshDone, 'd', { set: () => {}, get: () => 0 });
      },
    });
    expect(passed(r)).toBe(false);
    expect(r.refreshes_started).toBe(r.refreshes);
    expect(r.refreshes_done).toBe(0);
    expect(r.verified_after_done).toBe(0);
  });

  it('fails when the old range instead of the newly written one is sent', () => {
    const r = runRefreshCheck({
      ops: OPS,
      seed: 3,
      tamper: (p) => {
        const ch = p.atc.refreshIn;
        const push = ch.push.bind(ch);
        const prevTop = new Map<number, number>();
        ch.push = (m: RefreshRequest) => {
          const old = prevTop.get(m.basePage) ?? m.topPage;
          prevTop.set(m.basePage, m.topPage);
          push({ basePage: m.basePage, topPage: old, vp: m.vp, refreshId: m.refreshId });
        };
      },
    });
    expect(passed(r)).toBe(false);
    expect(r.wrong_refresh_ranges).toBeGreaterThan(0);
    expect(r.first_problem).toMatch(/software wrote the item with VP \d+ pages/);
  });

  it('says so when the path deadlocks, and fails', async () => {
    const r = runRefreshCheck({
      ops: OPS,
      seed: 4,
      tamper: (p) => {
        p.atc.resp.push = () => {}; // the ATC never answers
      },
    });
    expect(passed(r)).toBe(false);
    expect(r.deadlock).toMatch(/no progress for 100000 cycles/);
    expect(r.first_problem).toMatch(/^deadlock: /);
  });
});

describe('items are values (issue 10 item 8)', () => {
  it('a refresh already queued keeps the range it was written with when software reuses its ItemWrite', () => {
    const sim = new Simulator();
    // 1,024 one-way sets and a probe limit of 2: a large range sweeps for 1,024 cycles, so the next refresh waits
    const { checker, atc } = buildMemPath(sim, { checker: { items: 8, sources: 1 }, atc: { entries: 1024, ways: 1, refreshProbeMax: 2 }, host: { readLatency: 20, jitter: 0 } });
    const started: [number, number, number][] = [];
    atc.monitor = { refreshStart: (_t, base, top, id) => started.push([id, base, top]) };
    checker.writeIn.push(Object.assign(new ItemWrite(), { index: 1, key: 1, basePage: 0, topPage: 5000, refresh: true }));
    sim.step(2);
    const w = Object.assign(new ItemWrite(), { index: 2, key: 2, basePage: 100, topPage: 103, vp: 3, refresh: true });
    checker.writeIn.push(w);
    sim.runUntil(() => w.result !== -1, 100);
    expect(w.refreshId).toBe(2);
    expect(atc.refresh.active).toBe(true); // refresh 1 still sweeping: refresh 2 is queued
    // software reuses its descriptor for the next item at once
    Object.assign(w, { index: 3, basePage: 500, topPage: 600, vp: 9, refresh: false, result: -1 });
    sim.runUntil(() => atc.refreshDone.q === 2, 5000);
    expect(started).toEqual([
      [1, 0, 5000],
      [2, 100, 103],
    ]);
  });
});

describe('virtual ports, multi-page requests and physical addresses (issue 10 item 9)', () => {
  function rig() {
    const sim = new Simulator();
    const path = buildMemPath(sim, { checker: { items: 8, sources: 2 }, atc: { entries: 64, ways: 4 }, host: { readLatency: 20, jitter: 0 } });
    const got: AtcReq[] = [];
    const send = (q: Partial<MemCheckReq>): MemCheckReq => {
      const r = Object.assign(new MemCheckReq(), q);
      path.checker.reqIn[0]!.push(r);
      let verdict = false;
      sim.runUntil(() => {
        while (path.atc.resp.canPop()) got.push(path.atc.resp.pop());
        if (path.checker.respOut[0]!.canPop()) {
          path.checker.respOut[0]!.pop();
          verdict = true;
        }
        return verdict && path.atc.inFlight === 0 && !path.atc.req.canPop() && (r.reason !== MC_OK || got.filter((x) => r.xlates.includes(x)).length === r.pages);
      }, 2000);
      return r;
    };
    return { sim, ...path, got, send };
  }

  it('the owning VP is checked against the VP the request acts for (-1: NIC-internal, not checked)', () => {
    const t = rig();
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 10, topPage: 20, vp: 7 }));
    const q = { item: 1, key: 5, va: 10 * 4096, len: 8 };
    expect(t.send({ ...q, reqVp: 7 }).reason).toBe(MC_OK);
    expect(t.send({ ...q, reqVp: -1 }).reason).toBe(MC_OK);
    const bad = t.send({ ...q, reqVp: 8 });
    expect(MC_REASON_NAMES[bad.reason]).toBe('vp_mismatch');
    expect(bad.vp).toBe(7);
    expect(bad.pages).toBe(0);
    expect(MC_REASON_NAMES[t.send({ ...q, reqVp: 65536 }).reason]).toBe('bad_request');
    // the VP check comes after the valid bit and before the key
    expect(MC_REASON_NAMES[t.send({ ...q, key: 6, reqVp: 8 }).reason]).toBe('vp_mismatch');
    expect(t.checker.stats.reasons[MC_VP_MISMATCH]!.value).toBe(2);
  });

  it('ATC tags carry the VP: the same page of two VPs is two translations from two ATT tables; a refresh removes one VP only', () => {
    const t = rig();
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 10, topPage: 20, vp: 7 }));
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 2, key: 5, basePage: 10, topPage: 20, vp: 9 }));
    t.att.write(12, 0x777, true, 7);
    t.att.write(12, 0x999, true, 9);
    const a = t.send({ item: 1, key: 5, va: 12 * 4096 + 3, len: 4 });
    const b = t.send({ item: 2, key: 5, va: 12 * 4096 + 3, len: 4 });
    expect([a.xlate.status, a.xlate.asid, a.xlate.pfn]).toEqual([ATC_MISS, 7, 0x777]);
    expect([b.xlate.status, b.xlate.asid, b.xlate.pfn]).toEqual([ATC_MISS, 9, 0x999]);
    expect(t.send({ item: 1, key: 5, va: 12 * 4096, len: 4 }).xlate.pfn).toBe(0x777);
    expect(t.send({ item: 2, key: 5, va: 12 * 4096, len: 4 }).xlate.status).toBe(ATC_HIT);
    expect(t.atc.tags.occupancy()).toBe(2);
    // rewrite VP 7's item with refresh: only VP 7's tag goes
    t.checker.writeIn.push(Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 10, topPage: 20, vp: 7, refresh: true }));
    t.sim.runUntil(() => t.atc.refreshDone.q === 1, 100);
    expect(t.atc.tags.occupancy()).toBe(1);
    expect(t.send({ item: 2, key: 5, va: 12 * 4096, len: 4 }).xlate.status).toBe(ATC_HIT);
    expect(t.send({ item: 1, key: 5, va: 12 * 4096, len: 4 }).xlate.status).toBe(ATC_MISS);
    // unwritten pages: each VP's default table
    expect(t.att.frame(13, 9)).toBe((13 + 2 ** 18 + 9 * 2 ** 24) % 2 ** 36);
  });

  it('a multi-page request is checked over every page and translated page by page, one page per cycle', () => {
    const t = rig();
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 100, topPage: 103, vp: 4 }));
    for (let p = 100; p <= 104; p++) t.att.write(p, 0x5000 + p, true, 4);
    // bytes 100*4096+4000 .. 103*4096+3999: four pages
    const r = t.send({ item: 1, key: 5, va: 100 * 4096 + 4000, len: 3 * 4096, reqVp: 4 });
    expect(r.reason).toBe(MC_OK);
    expect(r.pages).toBe(4);
    const xs = r.xlates.slice(0, 4);
    expect(xs.map((x) => x.part)).toEqual([0, 1, 2, 3]);
    expect(xs.map((x) => x.va)).toEqual([100 * 4096 + 4000, 101 * 4096, 102 * 4096, 103 * 4096]);
    expect(xs.map((x) => x.pfn)).toEqual([0x5064, 0x5065, 0x5066, 0x5067]);
    expect(xs.map((x) => x.pa)).toEqual([0x5064 * 4096 + 4000, 0x5065 * 4096, 0x5066 * 4096, 0x5067 * 4096]);
    expect(xs.every((x) => x.tag === r.tag && x.asid === 4)).toBe(true);
    // one page per cycle into the ATC; the verdict with the last page
    expect(xs.map((x) => x.acceptCycle - xs[0]!.acceptCycle)).toEqual([0, 1, 2, 3]);
    expect(r.doneCycle).toBe(r.grantCycle + 3 + 3);
    expect(t.checker.stats.atcPages.value).toBe(4);
    // one byte past the top page fails the range check and translates nothing
    const out = t.send({ item: 1, key: 5, va: 100 * 4096 + 4000, len: 3 * 4096 + 97 });
    expect(MC_REASON_NAMES[out.reason]).toBe('out_of_range');
    expect(t.checker.stats.atcPages.value).toBe(4);
  });

  it('physical requests need a physical item, are range-checked on physical pages and bypass the ATC (pa = va)', () => {
    const t = rig();
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 0x200, topPage: 0x201, vp: 2, physical: true }));
    t.checker.loadItem(Object.assign(new ItemWrite(), { index: 2, key: 5, basePage: 0x200, topPage: 0x201, vp: 2 }));
    const r = t.send({ item: 1, key: 5, va: 0x200 * 4096 + 10, len: 4096, physical: true, reqVp: 2 });
    expect(r.reason).toBe(MC_OK);
    expect(r.xlates.slice(0, 2).map((x) => [x.status, x.physical, x.pa])).toEqual([
      [ATC_BYPASS, true, 0x200 * 4096 + 10],
      [ATC_BYPASS, true, 0x201 * 4096],
    ]);
    expect(t.atc.stats.bypasses.value).toBe(2);
    expect(t.atc.tags.occupancy()).toBe(0);
    expect(MC_REASON_NAMES[t.send({ item: 1, key: 5, va: 0x200 * 4096, len: 4 }).reason]).toBe('addr_mode');
    expect(MC_REASON_NAMES[t.send({ item: 2, key: 5, va: 0x200 * 4096, len: 4, physical: true }).reason]).toBe('addr_mode');
    expect(MC_REASON_NAMES[t.send({ item: 1, key: 5, va: 0x202 * 4096, len: 4, physical: true }).reason]).toBe('out_of_range');
  });
});
