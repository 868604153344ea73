/**
 * ATC model-based tests: random interleavings of lookups, ATT updates, refreshes, latency changes
 * and backpressure against the golden cache model and the freshness oracle (lib/atcWorld.ts), for
 * every replacement policy and a range of geometries; serial runs against the serial golden model
 * (exact latencies); targeted MSHR, buffer-mode and bad-input cases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import {
  Atc,
  ATC_BYPASS,
  ATC_ERROR,
  ATC_FAULT,
  ATC_HIT,
  ATC_MERGED,
  ATC_MISS,
  atcConfig,
  AtcReq,
  buildAtcWithHost,
  PreloadWrite,
} from '../../rtl/nic/atc/index.ts';
import { HostMemory } from '../../rtl/nic/hostmem/index.ts';
import { AtcSerialModel } from '../../models/nic/atcModel.ts';
import { AtcWorld, type WorldConfig } from '../../experiments/nic/atcWorld.ts';

// ---------------------------------------------------------------- model-based (fc.commands)

type Cmd = fc.Command<object, AtcWorld>;
const PAGE0 = 0x40;

/** Pages the commands use: a few more than the cache holds, so there are hits, conflicts and evictions. */
function poolPages(w: AtcWorld): number {
  return w.atc.cfg.entries + 2 * w.atc.cfg.ways + 1;
}

/** Push when the request channel has room (stepping meanwhile), then let one cycle pass. */
function pushLookup(w: AtcWorld, va: number, physical: boolean, asid = 0): void {
  for (let i = 0; i < 10000 && !w.atc.req.canPush(); i++) w.step();
  w.lookup(va, physical, asid);
  w.step();
}

class LookupCmd implements Cmd {
  constructor(
    readonly page: number,
    readonly off: number,
    readonly kind: 'cache' | 'bypass' | 'bad',
  ) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    const page = PAGE0 + (this.page % poolPages(w));
    if (this.kind === 'bad') pushLookup(w, this.off % 2 === 0 ? 2 ** 48 + this.off : -1 - this.off, false);
    // the address space (VP) from the offset's top bits: the same page in up to three VPs
    else pushLookup(w, page * 4096 + this.off, this.kind === 'bypass', (this.off >> 10) % 3);
  }
  toString(): string {
    return `lookup(${this.page}, ${this.off}, ${this.kind})`;
  }
}

/** Several lookups, one pushed per cycle when the channel allows (misses pile up, merge and stall). */
class BurstCmd implements Cmd {
  constructor(readonly pages: number[]) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    for (const p of this.pages) pushLookup(w, (PAGE0 + (p % poolPages(w))) * 4096 + p, false, p % 2);
  }
  toString(): string {
    return `burst(${this.pages.join(',')})`;
  }
}

/** The consumer does not pop for n cycles (responses back up; the hit pipeline stalls). */
class HoldCmd implements Cmd {
  constructor(readonly n: number) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    w.hold(this.n);
  }
  toString(): string {
    return `hold(${this.n})`;
  }
}

class StepCmd implements Cmd {
  constructor(readonly n: number) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    w.step(this.n);
  }
  toString(): string {
    return `step(${this.n})`;
  }
}

class UpdateCmd implements Cmd {
  constructor(
    readonly page: number,
    readonly valid: boolean,
    readonly range: 'page' | 'small' | 'all' | 'none',
  ) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    const n = poolPages(w);
    const page = PAGE0 + (this.page % n);
    if (this.range !== 'none' && !w.atc.refreshIn.canPush()) return;
    const vp = this.page % 3;
    // the refresh names the VP (a checker item's refresh), or every VP
    const rvp = this.page % 4 === 3 ? -1 : vp;
    w.attWrite(page, this.valid, vp);
    if (this.range === 'page') w.refresh(page, page, rvp);
    else if (this.range === 'small') w.refresh(page, page + 2, rvp);
    else if (this.range === 'all') w.refresh(0, PAGE0 + n + 100, rvp);
  }
  toString(): string {
    return `update(${this.page}, ${this.valid}, ${this.range})`;
  }
}

class LatencyCmd implements Cmd {
  constructor(
    readonly lat: number,
    readonly jitter: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    w.setLatency(this.lat, this.jitter);
  }
  toString(): string {
    return `latency(${this.lat}, ${this.jitter})`;
  }
}

class DrainCmd implements Cmd {
  check(): boolean {
    return true;
  }
  run(_m: object, w: AtcWorld): void {
    w.drain();
  }
  toString(): string {
    return 'drain';
  }
}

const pageArb = fc.oneof(fc.nat(3), fc.nat(70));
const commands = [
  fc.tuple(pageArb, fc.nat(4095), fc.constantFrom<'cache' | 'bypass' | 'bad'>('cache', 'cache', 'cache', 'cache', 'cache', 'bypass', 'bad')).map(([p, o, k]) => new LookupCmd(p, o, k)),
  fc.tuple(pageArb, fc.nat(4095)).map(([p, o]) => new LookupCmd(p, o, 'cache')),
  fc.array(pageArb, { minLength: 2, maxLength: 12 }).map((ps) => new BurstCmd(ps)),
  fc.integer({ min: 1, max: 20 }).map((n) => new HoldCmd(n)),
  fc.integer({ min: 1, max: 30 }).map((n) => new StepCmd(n)),
  fc.integer({ min: 50, max: 250 }).map((n) => new StepCmd(n)),
  fc.tuple(pageArb, fc.boolean(), fc.constantFrom<'page' | 'small' | 'all' | 'none'>('page', 'page', 'small', 'all', 'none')).map(([p, v, r]) => new UpdateCmd(p, v || p % 5 !== 0, r)),
  fc.tuple(fc.integer({ min: 2, max: 80 }), fc.integer({ min: 0, max: 60 })).map(([l, j]) => new LatencyCmd(l, j)),
  fc.constant(new DrainCmd()),
];

const worldArb = fc.record({
  ways: fc.constantFrom(1, 2, 4, 8),
  sets: fc.constantFrom(1, 2, 4, 8),
  mshrs: fc.integer({ min: 1, max: 4 }),
  mshrTargets: fc.integer({ min: 1, max: 3 }),
  hitLatency: fc.integer({ min: 2, max: 5 }),
  probe: fc.constantFrom(-1, 0, 2),
  readLatency: fc.integer({ min: 2, max: 60 }),
  jitter: fc.integer({ min: 0, max: 40 }),
  respCapacity: fc.constantFrom(2, 4),
  seed: fc.nat(),
});

type WorldParams = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function makeWorld(r: WorldParams, replacement: 'lru' | 'plru', sim?: WorldConfig['sim']): AtcWorld {
  return new AtcWorld({
    atc: { entries: r.ways * r.sets, ways: r.ways, replacement, mshrs: r.mshrs, mshrTargets: r.mshrTargets, hitLatency: r.hitLatency, refreshProbeMax: r.probe, respCapacity: r.respCapacity },
    readLatency: r.readLatency,
    jitter: r.jitter,
    seed: r.seed,
    ...(sim ? { sim } : {}),
  });
}

describe('ATC against the golden cache model, random command sequences', () => {
  for (const replacement of ['lru', 'plru'] as const) {
    it(`${replacement}: hit/miss, victims, refresh removals, responses and freshness agree`, () => {
      const tot = { hits: 0, evictions: 0, invalidations: 0, staleFills: 0, merged: 0, mshrStalls: 0, outputStalls: 0 };
      fc.assert(
        fc.property(worldArb, fc.commands(commands, { maxCommands: 80, size: 'max' }), (r, cmds) => {
          const w = makeWorld(r, replacement);
          fc.modelRun(() => ({ model: {}, real: w }), cmds);
          w.drain();
          const s = w.atc.stats;
          // the statistics agree with what the monitor saw
          expect(s.hits.value).toBe(w.counts.hits);
          expect(s.hits.value + s.misses.value + s.merged.value).toBe(w.counts.lookups);
          expect(s.evictions.value).toBe(w.counts.evictions);
          expect(s.staleFills.value).toBe(w.counts.staleFills);
          tot.hits += w.counts.hits;
          tot.evictions += w.counts.evictions;
          tot.invalidations += w.counts.invalidations;
          tot.staleFills += w.counts.staleFills;
          tot.merged += s.merged.value;
          tot.mshrStalls += s.mshrStallCycles.value;
          tot.outputStalls += s.outputStallCycles.value;
        }),
        { numRuns: 150 },
      );
      // the runs exercised every path the properties are about
      for (const [k, v] of Object.entries(tot)) expect(v, k).toBeGreaterThan(0);
    });
  }

  it('the checks can fail: a tag array that silently loses a fill is caught', () => {
    const w = new AtcWorld({ atc: { entries: 4, ways: 2 }, readLatency: 5, jitter: 0, seed: 1 });
    w.lookup(0x41000);
    w.drain();
    // corrupt the RTL behind the monitor's back: the model still holds the page
    for (let i = 0; i < w.atc.tags.entries; i++) w.atc.tags.invalidate(i);
    expect(() => w.compareArrays()).toThrow(/RTL holds null/);
    w.lookup(0x41000);
    expect(() => w.drain()).toThrow(/RTL miss, model hit/);
  });
});

// ---------------------------------------------------------------- serial runs, exact timing

describe('ATC serial lookups match the serial golden model exactly (status, address, victim, latency)', () => {
  it('every policy and geometry', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<'lru' | 'plru'>('lru', 'plru'),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(1, 2, 4),
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 2, max: 30 }),
        fc.array(fc.tuple(fc.nat(40), fc.nat(4095), fc.nat(19)), { minLength: 1, maxLength: 80 }),
        (replacement, ways, sets, hitLatency, readLatency, ops) => {
          const entries = ways * sets;
          const sim = new Simulator();
          const { atc, att } = buildAtcWithHost(sim, { entries, ways, replacement, hitLatency }, { readLatency, jitter: 0 });
          const cfg = atc.cfg;
          const model = new AtcSerialModel({ entries, ways, policy: replacement, mode: 'cache', bufferBasePage: 0, hitLatency, readLatency, refreshProbeMax: cfg.refreshProbeMax, vaBits: 48, paBits: 48 });
          let evicted: number | null = null;
          atc.monitor = { install: (_t, _p, _f, _w, e) => (evicted = e < 0 ? null : e) };
          let frame = 1000;
          for (const [p, off, kind] of ops) {
            const page = 0x80 + p;
            if (kind === 0) {
              // software changes a translation and refreshes it
              att.write(page, frame, true);
              model.attWrite(page, frame, true);
              frame++;
              const want = model.refresh(page, page + (p % 3));
              const start = sim.cycle + 1;
              atc.refreshIn.push({ basePage: page, topPage: page + (p % 3), refreshId: 0 });
              const before = atc.refreshDone.q;
              sim.runUntil(() => atc.refreshDone.q !== before, 10000);
              expect(sim.cycle - start).toBe(want.cycles);
              continue;
            }
            const r = new AtcReq();
            r.va = kind === 1 ? 2 ** 48 + off : page * 4096 + off;
            r.physical = kind === 2;
            evicted = null;
            const want = model.lookup(r.va, r.physical);
            const pushed = sim.cycle;
            atc.req.push(r);
            sim.runUntil(() => atc.resp.canPop(), 10000);
            const got = atc.resp.pop();
            expect(got).toBe(r);
            const names = ['hit', 'miss', 'miss', 'bypass', 'fault', 'error'];
            expect(names[got.status]).toBe(want.status);
            expect(got.pa).toBe(want.pa ?? -1);
            expect(evicted).toBe(want.evicted);
            expect(got.acceptCycle).toBe(pushed + 1);
            expect(got.doneCycle - got.acceptCycle).toBe(want.latency);
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

// ---------------------------------------------------------------- targeted behaviour

function rig(atcCfg: Parameters<typeof buildAtcWithHost>[1], readLatency = 50) {
  const sim = new Simulator();
  const sys = buildAtcWithHost(sim, atcCfg, { readLatency, jitter: 0 });
  const got: AtcReq[] = [];
  const push = (va: number, tag: number): AtcReq => {
    const r = new AtcReq();
    r.va = va;
    r.tag = tag;
    sys.atc.req.push(r);
    return r;
  };
  const run = (n: number): void => {
    for (let i = 0; i < n; i++) {
      sim.step(1);
      while (sys.atc.resp.canPop()) got.push(sys.atc.resp.pop());
    }
  };
  return { sim, ...sys, got, push, run };
}

describe('ATC miss handling', () => {
  it('merges misses to one page into one MSHR and one ATT read; hits proceed under the miss and complete first', () => {
    const t = rig({ entries: 16, ways: 4 });
    // warm page 5
    t.push(5 * 4096, 100);
    t.run(60);
    t.got.length = 0;
    const reads0 = (t.sim.stats.get('hostmem.reads') as { value: number }).value;
    t.push(9 * 4096, 1); // miss
    t.run(1);
    t.push(9 * 4096 + 8, 2); // merges
    t.run(1);
    t.push(5 * 4096 + 16, 3); // hit under the miss
    t.run(1);
    t.push(9 * 4096 + 24, 4); // merges
    t.run(80);
    expect(t.got.map((r) => r.tag)).toEqual([3, 1, 2, 4]);
    expect(t.got.map((r) => r.status)).toEqual([ATC_HIT, ATC_MISS, ATC_MERGED, ATC_MERGED]);
    expect((t.sim.stats.get('hostmem.reads') as { value: number }).value - reads0).toBe(1);
    expect(t.atc.stats.merged.value).toBe(2);
  });

  it('stalls and counts when all MSHRs are busy, and loses nothing', () => {
    const t = rig({ entries: 16, ways: 4, mshrs: 2 }, 40);
    for (let i = 0; i < 3; i++) {
      t.push((20 + i) * 4096, i);
      t.run(1);
    }
    t.run(200);
    expect(t.got.map((r) => r.tag).sort()).toEqual([0, 1, 2]);
    // the third miss waited from its arrival (cycle 3) until the first MSHR freed (cycle 42)
    expect(t.atc.stats.mshrStallCycles.value).toBe(t.got.find((r) => r.tag === 2)!.acceptCycle - 3);
    expect(t.atc.stats.mshrStallCycles.value).toBeGreaterThan(30);
  });

  it('stalls when the page MSHR has no room for another target', () => {
    const t = rig({ entries: 16, ways: 4, mshrTargets: 2 }, 30);
    for (let i = 0; i < 3; i++) {
      t.push(7 * 4096 + i, i);
      t.run(1);
    }
    t.run(100);
    expect(t.got.map((r) => r.tag)).toEqual([0, 1, 2]);
    expect(t.got[2]!.status).toBe(ATC_HIT); // accepted after the fill, when the page was cached
    expect(t.atc.mshrStallCycles).toBeGreaterThan(20);
  });

  it('an invalid ATT entry gives a fault to every waiter and is not cached', () => {
    const t = rig({ entries: 16, ways: 4 }, 10);
    t.att.write(3, 77, false);
    t.push(3 * 4096, 1);
    t.push(3 * 4096 + 1, 2);
    t.run(40);
    expect(t.got.map((r) => r.status)).toEqual([ATC_FAULT, ATC_FAULT]);
    expect(t.atc.tags.occupancy()).toBe(0);
  });
});

describe('ATC buffer mode and bypass', () => {
  it('a preloaded buffer never reads host memory; unloaded or outside pages fault; refresh removes entries', () => {
    const sim = new Simulator();
    const { atc } = buildAtcWithHost(sim, { mode: 'buffer', entries: 64, ways: 8, bufferBasePage: 1000 }, { readLatency: 50 });
    for (let i = 0; i < 32; i++) atc.preloadEntry(1000 + i, 5000 + i);
    const w = new PreloadWrite();
    w.page = 1040;
    w.pfn = 9;
    atc.preloadIn.push(w);
    const bad = new PreloadWrite();
    bad.page = 2000; // outside the buffer
    sim.step(2);
    atc.preloadIn.push(bad);
    sim.step(2);
    expect(w.result).toBe(0);
    expect(bad.result).toBe(1);
    const out: AtcReq[] = [];
    const vas = [1000 * 4096 + 5, 1031 * 4096, 1040 * 4096, 1035 * 4096, 999 * 4096, 1064 * 4096];
    for (const [i, va] of vas.entries()) {
      const r = new AtcReq();
      r.va = va;
      r.tag = i;
      atc.req.push(r);
      sim.step(1);
      while (atc.resp.canPop()) out.push(atc.resp.pop());
    }
    sim.step(10);
    while (atc.resp.canPop()) out.push(atc.resp.pop());
    expect(out.map((r) => r.status)).toEqual([ATC_HIT, ATC_HIT, ATC_HIT, ATC_FAULT, ATC_FAULT, ATC_FAULT]);
    expect(out[0]!.pa).toBe(5000 * 4096 + 5);
    expect(out[2]!.pfn).toBe(9);
    expect(out.every((r) => r.doneCycle - r.acceptCycle === atc.cfg.hitLatency)).toBe(true);
    expect((sim.stats.get('hostmem.reads') as { value: number }).value).toBe(0);
    // refresh pages 1000..1009 (10 cycles), then they fault
    const start = sim.cycle + 1;
    atc.refreshIn.push({ basePage: 990, topPage: 1009, refreshId: 1 });
    sim.runUntil(() => atc.refreshDone.q === 1, 100);
    expect(sim.cycle - start).toBe(10);
    const r = new AtcReq();
    r.va = 1005 * 4096;
    atc.req.push(r);
    sim.runUntil(() => atc.resp.canPop(), 20);
    expect(atc.resp.pop().status).toBe(ATC_FAULT);
  });

  it('physical addresses bypass the cache with the hit latency and touch nothing', () => {
    const t = rig({ entries: 16, ways: 4 });
    const r = new AtcReq();
    r.va = 0x123456789;
    r.physical = true;
    t.atc.req.push(r);
    t.run(10);
    expect(t.got[0]!.status).toBe(ATC_BYPASS);
    expect(t.got[0]!.pa).toBe(0x123456789);
    expect(t.got[0]!.doneCycle - t.got[0]!.acceptCycle).toBe(4);
    expect(t.atc.stats.lookups.value).toBe(0);
    expect(t.atc.tags.occupancy()).toBe(0);
  });
});

describe('ATC bad input', () => {
  it('rejects invalid configurations with a clear message', () => {
    expect(() => atcConfig({ entries: 100, ways: 8 })).toThrow(/ways \(8\) must divide entries \(100\)/);
    expect(() => atcConfig({ mshrs: 0 })).toThrow(/mshrs must be at least 1/);
    expect(() => atcConfig({ ways: 3, entries: 96, replacement: 'plru' })).toThrow(/power-of-two/);
    expect(() => atcConfig({ hitLatency: 1 })).toThrow(/hitLatency/);
    expect(() => atcConfig({ respCapacity: 1 })).toThrow(/respCapacity/);
    expect(() => atcConfig({ replacement: 'fifo' as 'lru' })).toThrow(/replacement/);
    const sim = new Simulator();
    const host = new HostMemory(sim, 'h');
    expect(() => new Atc(sim, 'a', { entries: 10, ways: 4 }, host)).toThrow(/must divide/);
    expect(() => host.setLatency(1, 0)).toThrow(/readLatency/);
  });

  it('a bad address or a malformed refresh is answered or dropped without disturbing other requests', () => {
    const t = rig({ entries: 16, ways: 4 }, 10);
    t.push(4 * 4096, 0);
    t.run(20);
    t.push(2 ** 48, 1);
    t.run(1);
    t.push(Number.NaN, 2);
    t.run(1);
    t.push(4 * 4096 + 1, 3);
    t.run(1);
    t.atc.refreshIn.push({ basePage: 10, topPage: 5, refreshId: 1 });
    t.run(20);
    expect(t.got.map((r) => [r.tag, r.status])).toEqual([
      [0, ATC_MISS],
      [1, ATC_ERROR],
      [2, ATC_ERROR],
      [3, ATC_HIT],
    ]);
    expect(t.atc.stats.errors.value).toBe(2);
    expect(t.atc.stats.badRefreshes.value).toBe(1);
    expect(t.atc.refreshDone.q).toBe(1);
    expect(t.atc.tags.occupancy()).toBe(1);
  });
});

describe('ATC footprint', () => {
  it('the default 1M-entry, 8-way configuration stores its arrays in well under 100 MB', () => {
    const sim = new Simulator();
    const { atc } = buildAtcWithHost(sim, {}, {});
    expect(atc.cfg.entries).toBe(1 << 20);
    expect(atc.sets).toBe(131072);
    // page 8 + asid 2 + frame 8 + valid 1 + match word 8 (tagArray.ts) + LRU age 1 bytes per entry
    expect(atc.storageBytes).toBe((8 + 2 + 8 + 1 + 8 + 1) * (1 << 20));
    expect(atc.storageBytes / 2 ** 20).toBeLessThan(50);
  });
});

// ---------------------------------------------------------------- activity skipping

describe('ATC results do not depend on activity skipping or evaluation order', () => {
  it('skipping on, off and shuffled give identical responses and statistics', () => {
    fc.assert(
      fc.property(worldArb, fc.constantFrom<'lru' | 'plru'>('lru', 'plru'), fc.commands(commands, { maxCommands: 40, size: 'max' }), (r, pol, cmds) => {
        const runs = [{ skipping: true }, { skipping: false }, { skipping: true, shuffleSeed: r.seed + 1 }].map((sim) => {
          const w = makeWorld(r, pol, sim);
          for (const c of cmds) c.run({}, w);
          w.drain();
          return { log: JSON.stringify(w.log), stats: JSON.stringify(w.sim.stats.toJSON()), cycle: w.sim.cycle, evals: w.sim.evaluations };
        });
        expect(runs[1]!.log).toBe(runs[0]!.log);
        expect(runs[1]!.stats).toBe(runs[0]!.stats);
        expect(runs[2]!.log).toBe(runs[0]!.log);
        expect(runs[2]!.stats).toBe(runs[0]!.stats);
        expect(runs[0]!.evals).toBeLessThanOrEqual(runs[1]!.evals);
      }),
      { numRuns: 25 },
    );
  });
});

// ---------------------------------------------------------------- fairness (issue 10 item 7)

/**
 * Drive an ATC with a hit stream (one lookup per cycle whenever the request channel has room) and
 * misses among them; the consumer pops every cycle. Returns, per miss/merged/fault response, the
 * cycles from its fill being accepted to its response being pushed, and the ATC.
 */
function hitStream(o: { cycles: number; missEvery: (c: number) => boolean; missPage: (c: number) => number; hot: number[]; mshrs: number; targets: number; seed: number }) {
  const sim = new Simulator();
  const { atc } = buildAtcWithHost(sim, { entries: 256, ways: 4, mshrs: o.mshrs, mshrTargets: o.targets }, { readLatency: 12, jitter: 6, seed: o.seed });
  const fillAt = new Map<string, number>();
  atc.monitor = { fill: (t, page, asid) => void fillAt.set(`${asid}:${page}`, t) };
  const waits: number[] = [];
  let tag = 0;
  const push = (page: number): void => {
    const r = new AtcReq();
    r.tag = tag++;
    r.va = page * 4096;
    atc.req.push(r);
  };
  // warm the hot pages
  for (const p of o.hot) {
    push(p);
    sim.runUntil(() => atc.resp.canPop(), 1000);
    atc.resp.pop();
  }
  let k = 0;
  const take = (): void => {
    while (atc.resp.canPop()) {
      const r = atc.resp.pop();
      if (r.status === ATC_MISS || r.status === ATC_MERGED || r.status === ATC_FAULT) waits.push(r.doneCycle - 1 - fillAt.get(`${r.asid}:${Math.floor(r.va / 4096)}`)!);
    }
  };
  for (let c = 0; c < o.cycles; c++) {
    if (atc.req.canPush()) push(o.missEvery(c) ? o.missPage(c) : o.hot[k++ % o.hot.length]!);
    sim.step(1);
    take();
  }
  for (let i = 0; i < 5000 && atc.inFlight + (atc.req.canPop() ? 1 : 0) > 0; i++) {
    sim.step(1);
    take();
  }
  return { atc, waits };
}

describe('ATC fairness: a miss response cannot be starved by hits (issue 10 item 7)', () => {
  it('under a hit every cycle, each fill is answered within 1 cycle (nothing queued ahead of it)', () => {
    const { atc, waits } = hitStream({ cycles: 3000, missEvery: (c) => c % 97 === 50, missPage: (c) => 1000 + c, hot: [1, 2, 3], mshrs: 16, targets: 8, seed: 1 });
    expect(waits.length).toBeGreaterThan(25);
    expect(Math.max(...waits)).toBeLessThanOrEqual(1);
    expect(atc.stats.drainTurnCycles.value).toBeGreaterThan(0);
  });

  it('property: with a hit offered every cycle, every waiter is answered within 2 x mshrs x targets - 1 cycles of its fill', () => {
    fc.assert(
      fc.property(
        fc.record({ mshrs: fc.integer({ min: 1, max: 4 }), targets: fc.integer({ min: 1, max: 4 }), period: fc.integer({ min: 2, max: 9 }), pages: fc.integer({ min: 1, max: 6 }), seed: fc.nat() }),
        (p) => {
          const { waits } = hitStream({ cycles: 600, missEvery: (c) => c % p.period === 0, missPage: (c) => 500 + ((c * 7) % (p.pages * 64)), hot: [1, 2], mshrs: p.mshrs, targets: p.targets, seed: p.seed });
          const bound = 2 * p.mshrs * p.targets - 1;
          expect(waits.length).toBeGreaterThan(0);
          for (const w of waits) expect(w).toBeLessThanOrEqual(bound);
        },
      ),
      { numRuns: 30 },
    );
  });
});

describe('ATC concurrency against the transaction-level miss model (issue 10 item 4)', () => {
  it('merged misses, hits under misses, full MSHRs and full targets, refresh racing in-flight fills: classification and final contents agree', () => {
    for (const seed of [1, 2, 3]) {
      const w = new AtcWorld({ atc: { entries: 16, ways: 2, mshrs: 2, mshrTargets: 2 }, readLatency: 30, jitter: 20, seed });
      const page = (p: number): number => (0x40 + p) * 4096;
      w.lookup(page(0));
      w.step();
      w.drain(); // page 0 cached: later lookups of it hit under the misses
      for (let round = 0; round < 4; round++) {
        // three to one page (the third must wait: 2 targets), two more pages (the second must wait: 2 MSHRs), hits among them
        for (const p of [1, 1, 1, 0, 2, 3, 0, 4]) {
          for (let i = 0; i < 100 && w.lookup(page(p + 8 * round), false, round % 2) < 0; i++) w.step();
          w.step();
        }
        w.attWrite(0x40 + 1 + 8 * round, true, round % 2);
        w.refresh(0x40 + 8 * round, 0x40 + 8 * round + 4, round % 2); // races the fills in flight
        w.step(5);
      }
      w.drain();
      expect(w.counts.merged).toBeGreaterThan(0);
      expect(w.counts.misses).toBeGreaterThan(8);
      expect(w.atc.stats.mshrStallCycles.value).toBeGreaterThan(0);
      expect(w.counts.hits).toBeGreaterThan(0);
    }
  });
});
