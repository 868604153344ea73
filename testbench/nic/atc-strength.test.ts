/**
 * ATC, the cases mutation testing (docs/verification.md) found unchecked: both replacement
 * policies against the golden cache model's policies on long random touch/victim sequences for
 * every way count, the policies' parameter checks, and the documented refresh cost (mode and
 * cycles) against the golden model at every bound of the range, in cache and buffer mode.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { atcConfig, makeReplacement, REFRESH_MODE_NAMES, RefreshEngine, TreePlru, TrueLru } from '../../rtl/nic/atc/index.ts';
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
