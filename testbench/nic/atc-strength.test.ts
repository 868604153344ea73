/**
 * ATC, the cases mutation testing (docs/verification.md) found unchecked: both replacement
 * policies against the golden cache model's policies on long random touch/victim sequences for
 * every way count, the policies' parameter checks, and the documented refresh cost (mode and
 * cycles) against the golden model at every bound of the range, in cache and buffer mode.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atcConfig, makeReplacement, MSHR_FREE, MSHR_PENDING, MshrFile, REFRESH_MODE_NAMES, RefreshEngine, TagArray, TreePlru, TrueLru } from '../../rtl/nic/atc/index.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { AtcSerialModel, type AtcModelConfig } from '../../models/nic/atcModel.ts';
import { SetAssocCacheModel } from '../../models/nic/cacheModel.ts';

describe('ATC replacement policies against the golden cache model', () => {
  for (const policy of ['lru', 'plru'] as const) {
    it(`${policy}: the victim after every touch agrees, for 1 to 16 ways`, () => {
      fc.assert(
        fc.property(fc.constantFrom(1, 2, 4, 8, 16), fc.array(fc.tuple(fc.nat(2), fc.nat(15)), { minLength: 1, maxLength: 300 }), (ways, touches) => {
          const sets = 3;
          const rtl = makeReplacement(policy, sets, ways);
          const model = new SetAssocCacheModel(sets * ways, ways, policy);
          // fill every way of every set in order (page set + sets x way lands in way `way`)
          for (let s = 0; s < sets; s++)
            for (let w = 0; w < ways; w++) {
              expect(model.fill(s + sets * w, 1).way).toBe(w);
              rtl.touch(s, w);
            }
          for (let s = 0; s < sets; s++) expect(rtl.victim(s)).toBe(model.nextVictim(s).way);
          for (const [s, x] of touches) {
            const w = x % ways;
            expect(model.lookup(s + sets * w).hit).toBe(true);
            rtl.touch(s, w);
            for (let t = 0; t < sets; t++) expect(rtl.victim(t), `set ${t} after touching ${s}/${w}`).toBe(model.nextVictim(t).way);
          }
          // reset returns to the initial order: victim of a fresh structure
          rtl.reset();
          const fresh = makeReplacement(policy, sets, ways);
          for (let s = 0; s < sets; s++) expect(rtl.victim(s)).toBe(fresh.victim(s));
        }),
        { numRuns: 150 },
      );
    });
  }

  it('the initial victim is the way a fill order 0, 1, ... would evict first, and state size is as documented', () => {
    expect(new TrueLru(4, 8).victim(0)).toBe(7);
    expect(new TrueLru(4, 8).bytes).toBe(32);
    expect(new TreePlru(4, 8).victim(3)).toBe(0);
    expect(new TreePlru(4, 8).bytes).toBe(16);
    expect(makeReplacement('lru', 2, 2).name).toBe('lru');
    expect(makeReplacement('plru', 2, 2).name).toBe('plru');
  });

  it('tree PLRU accepts power-of-two way counts in [1, 32] only', () => {
    for (const w of [1, 2, 32]) expect(() => new TreePlru(2, w)).not.toThrow();
    for (const w of [0, 3, 6, 64, -2]) expect(() => new TreePlru(2, w), String(w)).toThrow(/tree PLRU needs a power-of-two number of ways in \[1, 32\]/);
    // 32 ways: every way reachable as a victim
    const p = new TreePlru(1, 32);
    const seen = new Set<number>();
    for (let i = 0; i < 32; i++) {
      const v = p.victim(0);
      seen.add(v);
      p.touch(0, v);
    }
    expect(seen.size).toBe(32);
  });
});

describe('ATC refresh cost against the golden model', () => {
  const model = (cfg: ReturnType<typeof atcConfig>): AtcSerialModel =>
    new AtcSerialModel({ entries: cfg.entries, ways: cfg.ways, policy: cfg.replacement, mode: cfg.mode, bufferBasePage: cfg.bufferBasePage, hitLatency: cfg.hitLatency, readLatency: 0, refreshProbeMax: cfg.refreshProbeMax, vaBits: cfg.vaBits, paBits: cfg.paBits } satisfies AtcModelConfig);

  it('cache mode: bad, probe up to refreshProbeMax pages, sweep beyond', () => {
    for (const probe of [-1, 0, 5]) {
      const cfg = atcConfig({ entries: 64, ways: 4, refreshProbeMax: probe });
      const m = model(cfg);
      const pm = cfg.refreshProbeMax;
      const ranges: [number, number][] = [
        [0, 0],
        [7, 7],
        [10, 10 + pm - 1],
        [10, 10 + pm],
        [10, 10 + pm + 1],
        [0, 2 ** 30],
        [5, 4],
        [-1, 3],
        [1.5, 3],
        [1, 3.5],
        [3, 3],
      ];
      for (const [lo, hi] of ranges) {
        const got = RefreshEngine.cost(cfg, lo, hi);
        const want = m.refresh(lo, hi);
        expect({ mode: REFRESH_MODE_NAMES[got.mode], cycles: got.cycles }, `probeMax ${pm}: [${lo}, ${hi}]`).toEqual({ mode: want.mode, cycles: want.cycles });
      }
    }
  });

  it('buffer mode: the part of the range inside the buffer, at least one cycle', () => {
    const cfg = atcConfig({ entries: 16, ways: 1, mode: 'buffer', bufferBasePage: 100 });
    const m = model(cfg);
    const ranges: [number, number][] = [
      [100, 100],
      [100, 115],
      [99, 116],
      [0, 99],
      [116, 200],
      [90, 100],
      [115, 120],
      [105, 108],
      [0, 2 ** 40],
      [108, 105],
      [-3, 101],
    ];
    for (const [lo, hi] of ranges) {
      const got = RefreshEngine.cost(cfg, lo, hi);
      const want = m.refresh(lo, hi);
      expect({ mode: REFRESH_MODE_NAMES[got.mode], cycles: got.cycles }, `[${lo}, ${hi}]`).toEqual({ mode: want.mode, cycles: want.cycles });
    }
  });
});

describe('ATC refresh engine: what it removes, from the specification', () => {
  /**
   * Random tags and MSHRs, one refresh; expected: every valid tag (cache: any way of page p's set;
   * buffer: entry i holds page bufferBasePage + i) whose page is in [base, top] and, when the refresh
   * names a VP in [0, 65535], whose asid is that VP, is removed and reported once to the monitor;
   * nothing else changes; every PENDING MSHR whose read is out (needIssue 0) with a page in range
   * and a matching VP is marked stale, no other; the engine takes the documented number of steps.
   */
  function run(mode: 'cache' | 'buffer', seed: number): void {
    const rng = new Rng(seed);
    const cfg = mode === 'cache' ? atcConfig({ entries: 32, ways: 4, refreshProbeMax: 3 }) : atcConfig({ entries: 16, ways: 1, mode: 'buffer', bufferBasePage: 40 });
    const sets = cfg.entries / cfg.ways;
    const tags = new TagArray(sets, cfg.ways);
    const mshr = new MshrFile(4, 2);
    for (let i = 0; i < tags.entries; i++) {
      tags.valid[i] = rng.int(4) === 0 ? 0 : 1;
      tags.page[i] = mode === 'cache' ? (i >> 2) + sets * rng.int(4) : cfg.bufferBasePage + i;
      tags.asid[i] = [0, 1, 2, 0xffff][rng.int(4)]!;
    }
    for (let m = 0; m < 4; m++) {
      mshr.state[m] = rng.int(3) === 0 ? MSHR_FREE : MSHR_PENDING;
      mshr.page[m] = (mode === 'cache' ? 0 : cfg.bufferBasePage) + rng.int(tags.entries);
      mshr.asid[m] = [0, 1, 2, 0xffff][rng.int(4)]!;
      mshr.needIssue[m] = rng.int(3) === 0 ? 1 : 0;
    }
    const lo0 = mode === 'cache' ? 0 : cfg.bufferBasePage - 4;
    const base = lo0 + rng.int(tags.entries);
    const top = base + [0, 1, 2, 3, 4, 9, 40][rng.int(7)]!;
    const vp = [-1, 0, 1, 2, 0xffff, 0x10000, -7, 1.5, undefined][rng.int(9)];
    const named = vp !== undefined && Number.isInteger(vp) && vp >= 0 && vp <= 0xffff;
    const hit = (page: number, asid: number): boolean => page >= base && page <= top && (!named || asid === vp);
    const before = { valid: [...tags.valid], page: [...tags.page], asid: [...tags.asid] };
    const removed: string[] = [];
    const e = new RefreshEngine(tags, mshr, cfg);
    e.start(100, { basePage: base, topPage: top, vp, refreshId: 9 });
    expect(e.active).toBe(true);
    expect(e.id).toBe(9);
    const cost = RefreshEngine.cost(cfg, base, top);
    let steps = 0;
    for (let t = 100; steps < 1000; t++) {
      steps++;
      if (e.step(t, { invalidate: (_t, page, way, asid) => removed.push(`${page}/${way}/${asid}`) })) break;
    }
    expect(steps).toBe(cost.cycles);
    expect(e.active).toBe(false);
    const want: string[] = [];
    for (let i = 0; i < tags.entries; i++) {
      const gone = before.valid[i] === 1 && hit(before.page[i]!, before.asid[i]!);
      expect(tags.valid[i], `entry ${i} page ${before.page[i]} asid ${before.asid[i]}, refresh [${base}, ${top}] vp ${vp}`).toBe(gone ? 0 : before.valid[i]);
      if (gone) want.push(`${before.page[i]}/${mode === 'cache' ? i % cfg.ways : i}/${before.asid[i]}`);
    }
    expect([...removed].sort()).toEqual(want.sort());
    for (let m = 0; m < 4; m++) expect(mshr.stale[m], `mshr ${m}`).toBe(mshr.state[m] === MSHR_PENDING && mshr.needIssue[m] === 0 && hit(mshr.page[m]!, mshr.asid[m]!) ? 1 : 0);
  }

  it('cache mode (probe and sweep) and buffer mode, random tags, ranges and VPs', () => {
    for (let seed = 1; seed <= 300; seed++) {
      run('cache', seed);
      run('buffer', seed);
    }
  });

  it('a malformed refresh removes nothing, marks nothing and takes one step; reset clears the engine', () => {
    const cfg = atcConfig({ entries: 8, ways: 2 });
    const tags = new TagArray(4, 2);
    tags.valid.fill(1);
    for (let i = 0; i < 8; i++) tags.page[i] = i >> 1;
    const mshr = new MshrFile(2, 1);
    mshr.state.fill(MSHR_PENDING);
    mshr.page[0] = 1;
    mshr.page[1] = 2;
    const e = new RefreshEngine(tags, mshr, cfg);
    expect([e.active, e.mode, e.vp, e.startCycle, e.id]).toEqual([false, 0, -1, -1, 0]);
    for (const [b, t] of [[3, 1], [-1, 3], [1.5, 3], [1, 2.5]] as const) {
      e.start(5, { basePage: b, topPage: t, refreshId: 1 });
      expect(REFRESH_MODE_NAMES[e.mode]).toBe('bad');
      expect(e.step(5, null)).toBe(true);
      expect([...tags.valid]).toEqual(new Array(8).fill(1));
      expect([...mshr.stale], `[${b}, ${t}]`).toEqual([0, 0]);
    }
    e.start(6, { basePage: 0, topPage: 100, vp: 3, refreshId: 2 });
    e.reset();
    expect([e.active, e.mode, e.vp, e.startCycle]).toEqual([false, 0, -1, -1]);
  });
});
