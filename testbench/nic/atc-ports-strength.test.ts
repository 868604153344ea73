/**
 * ATC (rtl/nic/atc/atc.ts), the cases mutation testing (docs/verification.md) found unchecked:
 * its ports, registers, signals and statistic names; the request checks at every bound (address,
 * asid, preload fields, backdoor preload); the output stall while the consumer holds responses;
 * the in-progress MSHR stall count, the in-flight count and the hit rate, cycle by cycle; reset in
 * the middle of a busy run (then the same responses as a fresh ATC); the corrupt-state errors of a
 * misbehaving host memory or state; a monitor with no methods; an idle ATC not being evaluated.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { Atc, ATC_BYPASS, ATC_ERROR, ATC_FAULT, ATC_HIT, ATC_MERGED, ATC_MISS, AtcReq, buildAtcWithHost, PreloadWrite } from '../../rtl/nic/atc/index.ts';
import { HostMemory } from '../../rtl/nic/hostmem/index.ts';

type Cfg = Parameters<typeof buildAtcWithHost>[1];

function rig(cfg: Cfg, readLatency = 20, skipping = true) {
  const sim = new Simulator({ skipping });
  const sys = buildAtcWithHost(sim, cfg, { readLatency, jitter: 0 });
  const got: AtcReq[] = [];
  const sent: AtcReq[] = [];
  let tag = 0;
  const req = (va: number, asid = 0, physical = false): AtcReq => {
    const r = new AtcReq();
    r.va = va;
    r.asid = asid;
    r.physical = physical;
    r.tag = tag++;
    return r;
  };
  /** push one lookup (waiting for room) */
  const push = (va: number, asid = 0, physical = false): AtcReq => {
    for (let i = 0; i < 1000 && !sys.atc.req.canPush(); i++) step();
    const r = req(va, asid, physical);
    sys.atc.req.push(r);
    sent.push(r);
    return r;
  };
  const step = (pop = true): void => {
    sim.step(1);
    while (pop && sys.atc.resp.canPop()) got.push(sys.atc.resp.pop());
  };
  const run = (n: number, pop = true): void => {
    for (let i = 0; i < n; i++) step(pop);
  };
  return { sim, ...sys, got, sent, push, step, run, req };
}

const P = 4096;

describe('ATC ports, registers, signals and statistics', () => {
  it('channel capacities and latencies, register and signal names and widths, statistic names', () => {
    const t = rig({ entries: 16, ways: 2, mshrs: 3, respCapacity: 3, latencyBuckets: 7 });
    const a = t.atc;
    expect([a.req.capacity, a.refreshIn.capacity, a.preloadIn.capacity, a.resp.capacity]).toEqual([2, 2, 2, 3]);
    expect([a.req.latency, a.refreshIn.latency, a.preloadIn.latency, a.resp.latency]).toEqual([1, 1, 1, 1]);
    expect(a.sets).toBe(8);
    expect(a._signals.map((s) => [s.name, s.width])).toEqual([
      ['refresh_done', 32],
      ['drain_turn', 1],
      ['hitpipe_occupancy', 16],
      ['mshr_busy', 11],
      ['refresh_busy', 1],
    ]);
    const stats = Object.keys(t.sim.stats.toJSON()).filter((k) => k.startsWith('atc.') && !k.startsWith('atc.hitpipe'));
    expect(stats.sort()).toEqual(
      ['lookups', 'hits', 'misses', 'merged_misses', 'evictions', 'fills', 'stale_fills_dropped', 'bypasses', 'faults', 'bad_requests', 'mshr_stall_cycles', 'output_stall_cycles', 'drain_turn_cycles', 'refreshes', 'refresh_cycles', 'bad_refreshes', 'preloads', 'bad_preloads', 'latency']
        .map((n) => `atc.${n}`)
        .sort(),
    );
    expect(a.stats.latency.counts.length).toBe(8); // 7 one-cycle buckets and the overflow bucket
    // the signals show the MSHRs in use and an active refresh
    t.push(3 * P);
    t.push(4 * P);
    t.run(2);
    a.refreshIn.push({ basePage: 0, topPage: 1000, refreshId: 1 });
    t.run(2);
    const sig = (n: string): unknown => a._signals.find((s) => s.name === n)!.get();
    expect([sig('mshr_busy'), sig('refresh_busy')]).toEqual([2, 1]);
    t.run(40);
    expect([sig('mshr_busy'), sig('refresh_busy'), sig('refresh_done')]).toEqual([0, 0, 1n]);
  });

  it('1024 MSHRs (the read tag width) are allowed; the latency histogram records accept to response', () => {
    const sim = new Simulator();
    const host = new HostMemory(sim, 'h', { readLatency: 5, jitter: 0 });
    expect(new Atc(sim, 'a', { entries: 16, ways: 2, mshrs: 1024 }, host).mshr.count).toBe(1024);
    const t = rig({ entries: 16, ways: 2 }, 9);
    for (const p of [1, 1, 2, 1]) t.push(p * P);
    t.run(40);
    t.push(2 * P);
    t.run(10);
    const lat = t.got.map((r) => r.doneCycle - r.acceptCycle);
    expect(lat.length).toBe(5);
    expect(lat[4]).toBe(4); // a hit: the hit latency
    const h = t.atc.stats.latency;
    expect([h.count, h.sum, h.min, h.max]).toEqual([5, lat.reduce((x, y) => x + y), Math.min(...lat), Math.max(...lat)]);
    for (const l of new Set(lat)) expect(h.counts[l], `latency ${l}`).toBe(lat.filter((x) => x === l).length);
  });
});

describe('ATC request checks at every bound', () => {
  it('lookups: address in [0, 2^vaBits) and an integer, asid an integer in [0, 65535], also for physical requests', () => {
    const t = rig({ entries: 16, ways: 2, vaBits: 20 });
    const cases: [number, number, boolean, number][] = [
      [2 ** 20 - 1, 0, false, ATC_MISS],
      [2 ** 20, 0, false, ATC_ERROR],
      [-1, 0, false, ATC_ERROR],
      [0, 0, false, ATC_MISS],
      [5.5, 0, false, ATC_ERROR],
      [2 * P, 0xffff, false, ATC_MISS],
      [2 * P, 0x10000, false, ATC_ERROR],
      [2 * P, -1, false, ATC_ERROR],
      [2 * P, 1.5, false, ATC_ERROR],
      [2 ** 20, 0, true, ATC_ERROR],
      [2 * P + 7, 0x10000, true, ATC_ERROR],
      [2 ** 20 - 1, 0xffff, true, ATC_BYPASS],
    ];
    for (const [va, asid, phys] of cases) {
      t.push(va, asid, phys);
      t.run(1);
    }
    t.run(60);
    const by = new Map(t.got.map((r) => [r.tag, r]));
    cases.forEach(([va, asid, phys, st], i) => {
      const r = by.get(i)!;
      expect(r.status, `va ${va} asid ${asid} physical ${phys}`).toBe(st);
      if (st === ATC_ERROR) expect([r.pfn, r.pa]).toEqual([-1, -1]);
      if (st === ATC_BYPASS) expect([r.pfn, r.pa]).toEqual([255, 2 ** 20 - 1]);
    });
    expect([t.atc.stats.errors.value, t.atc.stats.bypasses.value, t.atc.stats.lookups.value]).toEqual([8, 1, 3]);
  });

  it('buffer mode: entry of the page, loaded, valid and of the asid, else a fault; lookups count both', () => {
    const t = rig({ entries: 8, ways: 1, mode: 'buffer', bufferBasePage: 100 });
    t.atc.preloadEntry(100, 7, true, 3);
    t.atc.preloadEntry(107, 8);
    t.atc.preloadEntry(104, 9, false);
    const cases: [number, number, number][] = [
      [100, 3, ATC_HIT],
      [100, 0, ATC_FAULT],
      [107, 0, ATC_HIT],
      [108, 0, ATC_FAULT],
      [99, 0, ATC_FAULT],
      [104, 0, ATC_FAULT],
      [101, 0, ATC_FAULT],
    ];
    for (const [p, asid] of cases) t.push(p * P + 5, asid);
    t.run(20);
    expect(t.got.map((r) => [r.status, r.pa])).toEqual(cases.map(([p, , st]) => [st, st === ATC_HIT ? (p === 100 ? 7 : 8) * P + 5 : -1]));
    expect([t.atc.stats.lookups.value, t.atc.stats.hits.value, t.atc.stats.faults.value]).toEqual([7, 2, 5]);
  });

  it('backdoor preload: buffer mode only, page inside the buffer, frame below 2^(paBits-12), asid in [0, 65535]', () => {
    const t = rig({ entries: 8, ways: 1, mode: 'buffer', bufferBasePage: 100, paBits: 20 });
    const a = t.atc;
    for (const [page, pfn, asid] of [[100, 0, 0], [107, 255, 0xffff]] as const) expect(() => a.preloadEntry(page, pfn, true, asid)).not.toThrow();
    expect(() => a.preloadEntry(99, 1)).toThrow(/^atc: page 99 is outside the buffer \[100, 108\)$/);
    expect(() => a.preloadEntry(108, 1)).toThrow(/^atc: page 108 is outside the buffer \[100, 108\)$/);
    expect(() => a.preloadEntry(100.5, 1)).toThrow(/page 100.5 is outside the buffer/);
    expect(() => a.preloadEntry(101, 256)).toThrow(/^atc: frame 256 out of range$/);
    expect(() => a.preloadEntry(101, -1)).toThrow(/^atc: frame -1 out of range$/);
    expect(() => a.preloadEntry(101, 1.5)).toThrow(/^atc: frame 1.5 out of range$/);
    expect(() => a.preloadEntry(101, 1, true, 0x10000)).toThrow(/^atc: asid 65536 out of range \[0, 65535\]$/);
    expect(() => a.preloadEntry(101, 1, true, -1)).toThrow(/^atc: asid -1 out of range/);
    expect(() => a.preloadEntry(101, 1, true, 0.5)).toThrow(/^atc: asid 0.5 out of range/);
    expect(a.tags.occupancy()).toBe(2);
    expect([a.tags.pfn[7], a.tags.asid[7]]).toEqual([255, 0xffff]);
    expect(() => rig({ entries: 8, ways: 1 }).atc.preloadEntry(0, 1)).toThrow(/^atc: preloadEntry needs buffer mode$/);
  });

  it('the preload port: the same checks, rejected (result 1) without a write; cache mode rejects every preload', () => {
    const t = rig({ entries: 8, ways: 1, mode: 'buffer', bufferBasePage: 100, paBits: 20 });
    const w = (page: number, pfn: number, asid = 0, valid = true): PreloadWrite => Object.assign(new PreloadWrite(), { page, pfn, asid, valid });
    const ws = [w(100, 0), w(107, 255, 0xffff), w(99, 1), w(108, 1), w(100.5, 1), w(101, 256), w(101, -1), w(101, 1.5), w(101, 1, 0x10000), w(101, 1, -1), w(101, 1, 0.5), w(102, 4, 0, false)];
    for (const x of ws) {
      while (!t.atc.preloadIn.canPush()) t.step();
      t.atc.preloadIn.push(x);
    }
    t.run(4);
    expect(ws.map((x) => x.result)).toEqual([0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]);
    expect([t.atc.stats.preloads.value, t.atc.stats.badPreloads.value]).toEqual([3, 9]);
    expect(t.atc.tags.occupancy()).toBe(2);
    expect([t.atc.tags.page[2], t.atc.tags.pfn[2], t.atc.tags.valid[2]]).toEqual([102, 4, 0]);
    const c = rig({ entries: 8, ways: 1 });
    const x = w(0, 1);
    c.atc.preloadIn.push(x);
    c.run(3);
    expect([x.result, c.atc.stats.badPreloads.value, c.atc.tags.occupancy()]).toEqual([1, 1, 0]);
  });
});

describe('ATC counts while it works', () => {
  it('a consumer that holds responses: the pipeline stalls, nothing is accepted, one output stall per cycle', () => {
    const t = rig({ entries: 16, ways: 2, hitLatency: 2, respCapacity: 2 });
    t.push(1 * P);
    t.run(40);
    expect(t.got.length).toBe(1);
    // six hits offered back to back, none popped: two responses fill the channel, one waits at the
    // end of the pipeline, two requests wait in the request channel, the sixth is never pushed
    let pushed = 0;
    for (let c = 0; c < 12; c++) {
      if (pushed < 6 && t.atc.req.canPush()) t.atc.req.push(t.req(1 * P + ++pushed));
      t.step(false);
    }
    t.run(5, false);
    const a = t.atc;
    const s0 = a.stats.outputStallCycles.value;
    const held = a.req.held();
    const lookups = a.stats.lookups.value;
    expect(s0).toBeGreaterThan(0);
    expect(held).toBe(2);
    t.run(10, false);
    expect(a.stats.outputStallCycles.value - s0).toBe(10);
    expect([a.req.held(), a.stats.lookups.value, a.inFlight]).toEqual([held, lookups, 1]);
    t.run(10);
    while (pushed < 6) {
      if (t.atc.req.canPush()) t.atc.req.push(t.req(1 * P + ++pushed));
      t.step();
    }
    t.run(10);
    expect(t.got.map((r) => [r.tag, r.status])).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => [k, k === 0 ? ATC_MISS : ATC_HIT]));
    // two more stall cycles after the first pops: the credit of the response channel is registered
    expect(a.stats.outputStallCycles.value - s0).toBe(12);
  });

  it('the MSHR stall in progress, the in-flight count and the hit rate, cycle by cycle', () => {
    const t = rig({ entries: 16, ways: 2, mshrs: 1, mshrTargets: 2 }, 15);
    const a = t.atc;
    expect(a.hitRate()).toBe(0);
    const pages = [1, 1, 1, 2, 1, 2];
    let stalled = 0;
    for (let c = 0; c < 120; c++) {
      const before = a.stats.mshrStallCycles.value;
      if (pages.length > 0 && a.req.canPush()) {
        const r = t.req(pages.shift()! * P);
        a.req.push(r);
        t.sent.push(r);
      }
      t.step();
      const inflight = t.sent.filter((r) => r.acceptCycle >= 0 && r.doneCycle < 0).length;
      expect(a.inFlight, `cycle ${t.sim.cycle}`).toBe(inflight);
      if (a.mshrStallCycles > a.stats.mshrStallCycles.value) {
        stalled++;
        expect(a.mshrStallCycles - a.stats.mshrStallCycles.value).toBeGreaterThan(0);
        expect(a.stats.mshrStallCycles.value).toBe(before);
      }
      if (t.sent.every((r) => r.doneCycle >= 0) && !a.req.canPop()) break;
    }
    expect(stalled).toBeGreaterThan(10);
    expect(a.mshrStallCycles).toBe(a.stats.mshrStallCycles.value);
    // the third request to page 1 found the MSHR full (2 targets), page 2 found no free MSHR
    expect([...t.got].sort((x, y) => x.tag - y.tag).map((r) => r.status)).toEqual([ATC_MISS, ATC_MERGED, ATC_HIT, ATC_MISS, ATC_HIT, ATC_MERGED]);
    // the hit to page 1 (tag 4) overtook the miss to page 2 (tag 3) accepted before it
    expect(t.got.map((r) => r.tag)).toEqual([0, 1, 2, 4, 3, 5]);
    const s = a.stats;
    expect(a.hitRate()).toBe(s.hits.value / (s.hits.value + s.misses.value + s.merged.value));
    expect(a.hitRate()).toBe(2 / 6);
  });
});

describe('ATC reset, errors and activity', () => {
  /** a busy stretch: misses, merges, a full MSHR file, hits, a refresh racing the fills */
  const busy = (t: ReturnType<typeof rig>, base: number): void => {
    for (const p of [1, 1, 2, 3, 1, 4, 2]) t.push((base + p) * P + p);
    t.atc.refreshIn.push({ basePage: base, topPage: base + 3, refreshId: 1 });
    t.run(3);
  };

  it('reset in the middle of a busy run: afterwards the ATC answers as a fresh one', () => {
    const cfg: Cfg = { entries: 8, ways: 2, mshrs: 2, mshrTargets: 2 };
    const fresh = rig(cfg, 12);
    busy(fresh, 10);
    fresh.run(100);
    const t = rig(cfg, 12);
    busy(t, 10);
    t.run(5);
    t.sim.reset();
    expect([t.atc.inFlight, t.atc.mshr.busy, t.atc.refresh.active, t.atc.tags.occupancy(), t.atc.mshrStallCycles]).toEqual([0, 0, false, 0, 0]);
    // every channel is empty after the reset; the same stimulus again
    t.got.length = 0;
    busy(t, 10);
    t.run(100);
    const view = (x: ReturnType<typeof rig>) => x.got.map((r) => [r.va, r.status, r.pa, r.acceptCycle, r.doneCycle]);
    expect(view(t)).toEqual(view(fresh));
    expect(t.sim.stats.toJSON()).toEqual(fresh.sim.stats.toJSON());
    expect([...t.atc.tags.valid]).toEqual([...fresh.atc.tags.valid]);
  });

  it('a completion for an MSHR with no read in flight is an error naming the MSHR and cycle; corrupt counts are errors', () => {
    const t = rig({ entries: 8, ways: 2, mshrs: 2 });
    t.run(2);
    t.host.resp.push(5 * 2048 + 1024 + 1);
    expect(() => t.run(2)).toThrow(/^atc: fill for MSHR 1 which has no read in flight \(cycle 3\)$/);
    const u = rig({ entries: 8, ways: 2, mshrs: 2 });
    (u.atc as unknown as { needIssue: number }).needIssue = 1;
    expect(() => u.run(1)).toThrow(/^atc: needIssue count is 1 but no MSHR needs a read \(corrupt state\)$/);
    const v = rig({ entries: 8, ways: 2, mshrs: 2 }, 5);
    v.push(P);
    v.run(3);
    v.atc.mshr.waiters[0] = null;
    expect(() => v.run(10)).toThrow(/^atc: drain of MSHR 0 waiter 0 found no request \(corrupt state\)$/);
  });

  it('a monitor without methods changes nothing', () => {
    const cfg: Cfg = { entries: 8, ways: 2, mshrs: 2, mshrTargets: 2 };
    const a = rig(cfg, 12);
    const b = rig(cfg, 12);
    b.atc.monitor = {};
    for (const x of [a, b]) {
      busy(x, 10);
      x.host.att.write(12, 99, false);
      busy(x, 10);
      x.run(150);
    }
    expect(b.got.map((r) => [r.status, r.pa, r.doneCycle])).toEqual(a.got.map((r) => [r.status, r.pa, r.doneCycle]));
    expect(b.atc.stats.staleFills.value + b.atc.stats.evictions.value).toBeGreaterThan(0);
  });

  it('an idle ATC is not evaluated; with work it is evaluated until the work is done', () => {
    const t = rig({ entries: 8, ways: 2 }, 30);
    t.run(500);
    expect(t.sim.evaluations).toBeLessThan(10);
    const e0 = t.sim.evaluations;
    t.push(P);
    t.run(100);
    expect(t.got.length).toBe(1);
    const e1 = t.sim.evaluations - e0;
    expect(e1).toBeGreaterThan(2);
    expect(e1).toBeLessThan(30);
    t.run(500);
    expect(t.sim.evaluations - e0).toBe(e1);
  });
});
