/**
 * ATC parts, the cases mutation testing (docs/verification.md) found unchecked: the configuration
 * checks at every bound of every field, with the message naming the field; the tag array against
 * a plain list of entries (find, firstInvalid, the match word for pages above 2^32 and every asid,
 * invalidate, occupancy, size, reset); the MSHR file against a plain model of its specification
 * (lowest free entry, CAM match on (asid, page) of PENDING entries only, target limit, release,
 * reset, busy count); the ATC-with-host builder's names and address widths.
 */
import { describe, expect, it } from 'vitest';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ATC_DEFAULTS, atcConfig, AtcReq, buildAtcWithHost, MSHR_DRAINING, MSHR_FREE, MSHR_PENDING, MshrFile, PreloadWrite, TagArray } from '../../rtl/nic/atc/index.ts';

describe('ATC configuration: every field checked at its bounds', () => {
  it('the defaults are the documented ones', () => {
    expect(atcConfig()).toEqual({
      entries: 1 << 20,
      ways: 8,
      replacement: 'lru',
      hitLatency: 4,
      mshrs: 16,
      mshrTargets: 8,
      mode: 'cache',
      bufferBasePage: 0,
      refreshProbeMax: (1 << 20) / 8,
      vaBits: 48,
      paBits: 48,
      respCapacity: 4,
      latencyBuckets: 4096,
    });
    expect(ATC_DEFAULTS.refreshProbeMax).toBe(-1);
    // refreshProbeMax -1 means the number of sets of the geometry given
    expect(atcConfig({ entries: 64, ways: 4 }).refreshProbeMax).toBe(16);
    expect(atcConfig({ entries: 64, ways: 4, refreshProbeMax: 0 }).refreshProbeMax).toBe(0);
  });

  // [field, lowest, highest] of the integer fields (entries and ways with a geometry they divide)
  const ranges: [string, number, number][] = [
    ['vaBits', 13, 52],
    ['paBits', 13, 52],
    ['hitLatency', 2, 64],
    ['mshrs', 1, 1024],
    ['mshrTargets', 1, 64],
    ['respCapacity', 2, 1024],
    ['latencyBuckets', 1, 1 << 20],
  ];
  for (const [field, lo, hi] of ranges) {
    it(`${field}: integers in [${lo}, ${hi}]`, () => {
      const msg = (v: unknown): RegExp => new RegExp(`^ATC config: ${field} must be an integer in \\[${lo}, ${hi}\\], got ${String(v).replace('.', '\\.')}$`);
      for (const v of [lo, hi]) expect(atcConfig({ [field]: v })[field as 'vaBits']).toBe(v);
      for (const v of [lo - 1, hi + 1, lo + 0.5]) {
        if (field === 'mshrs' && v === 0) continue; // its own message, below
        expect(() => atcConfig({ [field]: v }), `${field} = ${v}`).toThrow(msg(v));
      }
      expect(() => atcConfig({ [field]: String(lo) as unknown as number })).toThrow(msg(lo));
    });
  }

  it('entries, ways and their ratio', () => {
    expect(atcConfig({ entries: 1, ways: 1 }).entries).toBe(1);
    expect(atcConfig({ entries: 1 << 26, ways: 32 }).entries).toBe(1 << 26);
    expect(() => atcConfig({ entries: 0, ways: 1 })).toThrow(/^ATC config: entries must be an integer in \[1, 67108864\], got 0$/);
    expect(() => atcConfig({ entries: (1 << 26) + 32, ways: 32 })).toThrow(/^ATC config: entries must be an integer in \[1, 67108864\], got 67108896$/);
    expect(() => atcConfig({ entries: 64, ways: 0 })).toThrow(/^ATC config: ways must be an integer in \[1, 32\], got 0$/);
    expect(() => atcConfig({ entries: 66, ways: 33 })).toThrow(/^ATC config: ways must be an integer in \[1, 32\], got 33$/);
    expect(() => atcConfig({ entries: 64, ways: 1.5 })).toThrow(/ways must be an integer/);
    expect(() => atcConfig({ entries: 60, ways: 8 })).toThrow(/^ATC config: ways \(8\) must divide entries \(60\)$/);
    expect(() => atcConfig({ entries: 96, ways: 3, replacement: 'plru' })).toThrow(/^ATC config: tree PLRU needs a power-of-two number of ways, got 3$/);
    expect(atcConfig({ entries: 96, ways: 3, replacement: 'lru' }).ways).toBe(3);
    expect(atcConfig({ entries: 64, ways: 32, replacement: 'plru' }).ways).toBe(32);
    expect(atcConfig({ entries: 64, ways: 1, replacement: 'plru' }).ways).toBe(1);
    expect(() => atcConfig({ replacement: 'fifo' as 'lru' })).toThrow(/^ATC config: replacement must be 'lru' or 'plru', got fifo$/);
    expect(() => atcConfig({ mshrs: 0 })).toThrow(/^ATC config: mshrs must be at least 1 \(a non-blocking cache needs miss registers\), got 0$/);
    expect(() => atcConfig({ mode: 'flat' as 'cache' })).toThrow(/^ATC config: mode must be 'cache' or 'buffer', got flat$/);
    expect(atcConfig({ mode: 'buffer' }).mode).toBe('buffer');
  });

  it('bufferBasePage within the virtual page space, refreshProbeMax in [0, 2^40]', () => {
    expect(atcConfig({ vaBits: 20, bufferBasePage: 255 }).bufferBasePage).toBe(255);
    expect(() => atcConfig({ vaBits: 20, bufferBasePage: 256 })).toThrow(/^ATC config: bufferBasePage must be an integer in \[0, 255\], got 256$/);
    expect(() => atcConfig({ bufferBasePage: -1 })).toThrow(/bufferBasePage must be an integer in \[0, 68719476735\], got -1/);
    expect(atcConfig({ refreshProbeMax: 2 ** 40 }).refreshProbeMax).toBe(2 ** 40);
    expect(() => atcConfig({ refreshProbeMax: 2 ** 40 + 1 })).toThrow(/^ATC config: refreshProbeMax must be an integer in \[0, 1099511627776\], got 1099511627777$/);
    expect(() => atcConfig({ refreshProbeMax: -2 })).toThrow(/refreshProbeMax must be an integer in \[0, 1099511627776\], got -2/);
  });
});

describe('ATC tag array against a list of entries', () => {
  interface E {
    page: number;
    asid: number;
    pfn: number;
    valid: boolean;
  }
  /** the specification: find = lowest way of the set with a valid entry of (page, asid) */
  const find = (ref: E[], ways: number, set: number, page: number, asid: number): number => {
    for (let w = 0; w < ways; w++) {
      const e = ref[set * ways + w]!;
      if (e.valid && e.page === page && e.asid === asid) return w;
    }
    return -1;
  };

  it('random writes, invalidations and probes, pages up to 2^40 and every asid bit', () => {
    for (const [sets, ways] of [[4, 1], [2, 3], [3, 8], [1, 32]] as const) {
      const rng = new Rng(sets * 100 + ways);
      const tags = new TagArray(sets, ways);
      expect(tags.entries).toBe(sets * ways);
      expect(tags.bytes).toBe(27 * sets * ways);
      const ref: E[] = Array.from({ length: sets * ways }, () => ({ page: 0, asid: 0, pfn: 0, valid: false }));
      // pages that differ only in bits above 31, or only below; asids that differ in one bit
      const pages = [0, 1, 2 ** 32, 2 ** 32 + 1, 2 ** 39 + 5, 2 ** 40 - 1, 0xffffffff, 2 ** 33];
      const asids = [0, 1, 0x8000, 0xffff, 0x00ff];
      for (let step = 0; step < 1000; step++) {
        const i = rng.int(sets * ways);
        const op = rng.int(4);
        if (op === 0) {
          tags.invalidate(i);
          ref[i]!.valid = false;
        } else if (op === 1) {
          const e = { page: pages[rng.int(pages.length)]!, asid: asids[rng.int(asids.length)]!, pfn: rng.int(1 << 20), valid: rng.int(4) !== 0 };
          tags.set(i, e.page, e.asid, e.pfn, e.valid);
          ref[i] = e;
        }
        const set = rng.int(sets);
        const page = pages[rng.int(pages.length)]!;
        const asid = asids[rng.int(asids.length)]!;
        expect(tags.find(set, page, asid), `find(${set}, ${page}, ${asid})`).toBe(find(ref, ways, set, page, asid));
        let inv = -1;
        for (let w = 0; w < ways && inv < 0; w++) if (!ref[set * ways + w]!.valid) inv = w;
        expect(tags.firstInvalid(set)).toBe(inv);
        expect(tags.occupancy()).toBe(ref.filter((e) => e.valid).length);
        expect([tags.page[i], tags.asid[i], tags.pfn[i], tags.valid[i]]).toEqual([ref[i]!.page, ref[i]!.asid, ref[i]!.pfn, ref[i]!.valid ? 1 : 0]);
      }
      tags.reset();
      expect(tags.occupancy()).toBe(0);
      for (let s = 0; s < sets; s++) {
        expect(tags.firstInvalid(s)).toBe(0);
        for (const p of pages) expect(tags.find(s, p, 0)).toBe(-1);
      }
      expect([...tags.page, ...tags.asid, ...tags.pfn, ...tags.valid, ...tags.match].every((v) => v === 0)).toBe(true);
    }
  });

  it('an invalid entry of page 0, asid 0 (the reset contents) never matches, and the match word holds the fields', () => {
    const tags = new TagArray(1, 2);
    expect(tags.find(0, 0, 0)).toBe(-1);
    tags.set(1, 0, 0, 7, false);
    expect(tags.find(0, 0, 0)).toBe(-1);
    expect(tags.firstInvalid(0)).toBe(0);
    tags.set(0, 2 ** 40 - 1, 0xffff, 3, true);
    expect([tags.match[0], tags.match[1]]).toEqual([-1, 0x1000000 | (0xff << 16) | 0xffff]);
    expect(tags.find(0, 2 ** 40 - 1, 0xffff)).toBe(0);
    expect(tags.find(0, 2 ** 32 - 1, 0xffff)).toBe(-1);
    expect(tags.find(0, 2 ** 40 - 1, 0xfffe)).toBe(-1);
    expect(tags.firstInvalid(0)).toBe(1);
    tags.set(1, 5, 1, 9, true);
    expect(tags.firstInvalid(0)).toBe(-1);
    tags.invalidate(0);
    expect([tags.valid[0], tags.match[1], tags.page[0]]).toEqual([0, 0, 2 ** 40 - 1]);
    expect(tags.find(0, 2 ** 40 - 1, 0xffff)).toBe(-1);
    expect(tags.firstInvalid(0)).toBe(0);
  });
});

describe('ATC MSHR file against its specification', () => {
  const req = (): AtcReq => new AtcReq();

  it('random allocations, merges, fills and releases', () => {
    for (const [count, targets] of [[1, 1], [3, 2], [5, 4]] as const) {
      const rng = new Rng(count * 10 + targets);
      const f = new MshrFile(count, targets);
      expect(f.reads.map((r) => r.tag)).toEqual([...Array(count).keys()]);
      expect(f.waiters.length).toBe(count * targets);
      type M = { state: number; page: number; asid: number; waiters: AtcReq[] };
      const ref: M[] = Array.from({ length: count }, () => ({ state: MSHR_FREE, page: 0, asid: 0, waiters: [] }));
      for (let step = 0; step < 800; step++) {
        const page = rng.int(4) + (rng.int(2) === 0 ? 0 : 2 ** 35);
        const asid = rng.int(2) * 0xffff;
        const want = ref.findIndex((m) => m.state === MSHR_PENDING && m.page === page && m.asid === asid);
        expect(f.findPending(page, asid), `findPending(${page}, ${asid})`).toBe(want);
        const op = rng.int(4);
        if (op === 0) {
          const r = req();
          const free = ref.findIndex((m) => m.state === MSHR_FREE);
          const m = f.alloc(page, asid, r);
          expect(m).toBe(free);
          if (m >= 0) {
            ref[m] = { state: MSHR_PENDING, page, asid, waiters: [r] };
            expect([f.state[m], f.page[m], f.asid[m], f.needIssue[m], f.stale[m], f.nWait[m], f.drainPos[m], f.waiters[m * targets]]).toEqual([MSHR_PENDING, page, asid, 1, 0, 1, 0, r]);
          }
        } else if (op === 1 && want >= 0) {
          const r = req();
          const ok = f.merge(want, r);
          expect(ok).toBe(ref[want]!.waiters.length < targets);
          if (ok) ref[want]!.waiters.push(r);
        } else if (op === 2) {
          // the fill: the ATC moves a pending entry to draining (not pending for the CAM any more)
          const m = rng.int(count);
          if (ref[m]!.state === MSHR_PENDING) {
            f.state[m] = MSHR_DRAINING;
            f.stale[m] = 1;
            f.needIssue[m] = 1;
            ref[m]!.state = MSHR_DRAINING;
          }
        } else if (op === 3) {
          const m = rng.int(count);
          if (ref[m]!.state !== MSHR_FREE) {
            f.release(m);
            ref[m] = { state: MSHR_FREE, page: 0, asid: 0, waiters: [] };
            expect([f.state[m], f.nWait[m], f.needIssue[m], f.stale[m]]).toEqual([MSHR_FREE, 0, 0, 0]);
          }
        }
        expect(f.busy).toBe(ref.filter((m) => m.state !== MSHR_FREE).length);
        expect([...f.state]).toEqual(ref.map((m) => m.state));
        expect([...f.nWait]).toEqual(ref.map((m) => m.waiters.length));
        expect(f.waiters.every((w, i) => w === (ref[Math.floor(i / targets)]!.waiters[i % targets] ?? null)), 'waiters').toBe(true);
      }
      f.reset();
      expect(f.busy).toBe(0);
      expect([...f.state, ...f.needIssue, ...f.stale, ...f.nWait, ...f.drainPos].every((v) => v === 0)).toBe(true);
      expect(f.waiters.every((w) => w === null)).toBe(true);
      for (let m = 0; m < count; m++) expect(f.alloc(m, 0, req())).toBe(m);
      expect(f.alloc(99, 0, req())).toBe(-1);
    }
  });

  it('release clears exactly the waiters the entry held; a corrupt free count is an error', () => {
    const f = new MshrFile(2, 3);
    const a = req();
    const b = req();
    expect(f.alloc(1, 0, a)).toBe(0);
    expect(f.merge(0, b)).toBe(true);
    expect(f.alloc(2, 0, req())).toBe(1);
    f.drainPos[0] = 2;
    f.release(0);
    expect(f.waiters.slice(0, 3)).toEqual([null, null, null]);
    expect(f.waiters[3]).not.toBeNull();
    expect(f.findPending(1, 0)).toBe(-1);
    expect(f.busy).toBe(1);
    // an entry marked busy behind the file's back: alloc finds no free entry although one is counted
    f.state[0] = MSHR_PENDING;
    expect(() => f.alloc(3, 0, req())).toThrow(/^MSHR file: free count says an entry is free but none is \(corrupt state\)$/);
  });
});

describe('ATC with host memory: names and address widths', () => {
  it('names <prefix>atc and <prefix>hostmem; the ATT and host memory take the ATC widths (default 48)', () => {
    const sim = new Simulator();
    const a = buildAtcWithHost(sim, { entries: 16, ways: 2, vaBits: 30, paBits: 20 }, { readLatency: 9 }, 'x_');
    expect([a.atc.path, a.host.path]).toEqual(['x_atc', 'x_hostmem']);
    expect([a.att.vaBits, a.att.paBits, a.host.cfg.vaBits, a.host.cfg.paBits, a.host.cfg.readLatency]).toEqual([30, 20, 30, 20, 9]);
    expect(a.host.att).toBe(a.att);
    const b = buildAtcWithHost(new Simulator(), { entries: 16, ways: 2 });
    expect([b.atc.path, b.host.path, b.att.vaBits, b.att.paBits, b.host.cfg.vaBits, b.host.cfg.paBits]).toEqual(['atc', 'hostmem', 48, 48, 48, 48]);
    const c = buildAtcWithHost(new Simulator(), { entries: 16, ways: 2, vaBits: 40 });
    expect([c.att.vaBits, c.att.paBits]).toEqual([40, 48]);
    const d = buildAtcWithHost(new Simulator(), { entries: 16, ways: 2, paBits: 40 });
    expect([d.att.vaBits, d.att.paBits]).toEqual([48, 40]);
  });
});

describe('ATC descriptors', () => {
  it('a new request and preload write carry the documented "not set / not answered" values', () => {
    // requesters tell an unanswered request by status, pfn, pa, acceptCycle and doneCycle -1, and a
    // request the memory checker did not forward by source -1
    expect({ ...new AtcReq() }).toEqual({ tag: 0, va: 0, physical: false, asid: 0, source: -1, part: 0, status: -1, pfn: -1, pa: -1, acceptCycle: -1, doneCycle: -1 });
    expect({ ...new PreloadWrite() }).toEqual({ page: 0, asid: 0, pfn: 0, valid: true, result: -1 });
  });
});
