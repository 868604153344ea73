/**
 * Memory checker, the cases mutation testing (docs/verification.md) found unchecked: every bound
 * of a request and of an item write on both sides (verdicts from the golden model), the
 * translations a passing multi-page check sends to the ATC (one per page and cycle, fields computed
 * here from the request), refresh numbering and back-pressure, reset, and that an idle checker is
 * not evaluated while activity skipping is on.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Simulator } from '../../rtl/kernel/index.ts';
import type { AtcReq, RefreshRequest } from '../../rtl/nic/atc/index.ts';
import { ItemWrite, MC_REASON_NAMES, MC_WRITE_RESULT_NAMES, MemChecker, MemCheckReq } from '../../rtl/nic/memcheck/index.ts';
import { type ModelCheck, type ModelItem, MemCheckerModel } from '../../models/nic/memcheckModel.ts';

const ITEMS = 8;
const VA_BITS = 24;
const MAX_LEN = 3 * 4096;
const TOP = 2 ** VA_BITS;
const PAGES = TOP / 4096;

type Req = ModelCheck & { reqVp: number; physical: boolean };

interface Bench {
  sim: Simulator;
  mc: MemChecker;
  atcReq: Channel<AtcReq>;
  refresh: Channel<RefreshRequest>;
}

function bench(withAtc: boolean, sim = new Simulator()): Bench {
  const atcReq = new Channel<AtcReq>(sim, 'atc_req', { capacity: 2, latency: 1 });
  const refresh = new Channel<RefreshRequest>(sim, 'atc_refresh', { capacity: 2, latency: 1 });
  const mc = new MemChecker(sim, 'mc', { items: ITEMS, sources: 2, latency: 2, vaBits: VA_BITS, maxLen: MAX_LEN, reqCapacity: 2 }, withAtc ? { req: atcReq, refreshIn: refresh } : undefined);
  return { sim, mc, atcReq, refresh };
}

const item = (p: Partial<ModelItem> = {}): ModelItem => ({ valid: true, key: 7, read: true, write: true, basePage: 10, topPage: 12, vp: 3, physical: false, ...p });
const toWrite = (index: number, v: ModelItem, refresh = false): ItemWrite => Object.assign(new ItemWrite(), v, { index, refresh });

/** writes through the write port, one per cycle; returns the result names */
function writeAll(b: Bench, ws: ItemWrite[]): string[] {
  for (const w of ws) {
    for (let i = 0; i < 50 && !b.mc.writeIn.canPush(); i++) b.sim.step(1);
    b.mc.writeIn.push(w);
    b.sim.step(1);
  }
  b.sim.step(2);
  return ws.map((w) => MC_WRITE_RESULT_NAMES[w.result] ?? `none(${w.result})`);
}

/** one request at a time on source 0: "reason/vp/pages" */
function verdict(b: Bench, q: Req): string {
  const r = Object.assign(new MemCheckReq(), q);
  b.mc.reqIn[0]!.push(r);
  for (let i = 0; i < 50 && !b.mc.respOut[0]!.canPop(); i++) {
    b.sim.step(1);
    while (b.atcReq.canPop()) b.atcReq.pop();
  }
  const got = b.mc.respOut[0]!.pop();
  expect(got).toBe(r);
  return `${MC_REASON_NAMES[got.reason]}/${got.vp}/${got.pages}`;
}

/** what the golden model says, with the pages counted here */
function expected(m: MemCheckerModel, q: Req): string {
  const v = m.check(q);
  const pages = v.reason === 'ok' ? Math.floor((q.va + q.len - 1) / 4096) - Math.floor(q.va / 4096) + 1 : 0;
  return `${v.reason}/${v.vp}/${pages}`;
}

describe('memory checker: every request bound, against the golden model', () => {
  it('item, key, va, len, wrap, VP, address kind and page range just inside and just outside', () => {
    const b = bench(true);
    const m = new MemCheckerModel(ITEMS, VA_BITS, MAX_LEN);
    const items: [number, ModelItem][] = [
      [0, item()],
      [ITEMS - 1, item({ key: 0xffffffff, basePage: PAGES - 3, topPage: PAGES - 1, vp: 0xffff })],
      [2, item({ read: false })],
      [3, item({ write: false })],
      [4, item({ physical: true, basePage: 0, topPage: 0 })],
      [5, item({ valid: false })],
      [6, item({ key: 0, basePage: 0, topPage: PAGES - 1, vp: 0 })],
    ];
    expect(writeAll(b, items.map(([i, v]) => toWrite(i, v)))).toEqual(items.map(() => 'ok'));
    for (const [i, v] of items) m.write(i, v);
    const ok: Req = { item: 0, key: 7, va: 10 * 4096, len: 64, write: false, reqVp: -1, physical: false };
    const hi: Req = { item: ITEMS - 1, key: 0xffffffff, va: TOP - 4096, len: 4096, write: true, reqVp: 0xffff, physical: false };
    const cases: Req[] = [
      ok,
      { ...ok, item: -1 },
      { ...ok, item: ITEMS },
      { ...ok, item: 0.5 },
      hi,
      { ...hi, key: 2 ** 32 },
      { ...hi, key: 2 ** 32 - 2 },
      { ...ok, key: -1 },
      { ...ok, key: 7.5 },
      { ...ok, va: -1 },
      { ...ok, va: 10 * 4096 + 0.5 },
      { ...ok, va: TOP },
      { ...hi, va: TOP - 1, len: 1 },
      { ...hi, va: TOP - 1, len: 2 },
      { ...hi, va: TOP - MAX_LEN, len: MAX_LEN },
      { ...hi, va: TOP - MAX_LEN + 1, len: MAX_LEN },
      { ...ok, len: 0 },
      { ...ok, len: 1 },
      { ...ok, len: 1.5 },
      { ...ok, len: MAX_LEN },
      { ...ok, len: MAX_LEN + 1 },
      { ...ok, va: 10 * 4096 - 1 },
      { ...ok, va: 13 * 4096 - 64 },
      { ...ok, va: 13 * 4096 - 63 },
      { ...ok, va: 13 * 4096 },
      { ...ok, va: 10 * 4096, len: 3 * 4096 },
      { ...ok, va: 10 * 4096 + 1, len: 3 * 4096 },
      { ...ok, reqVp: 3 },
      { ...ok, reqVp: 4 },
      { ...ok, reqVp: 0 },
      { ...ok, reqVp: -2 },
      { ...ok, reqVp: 0x10000 },
      { ...ok, reqVp: 2.5 },
      { ...hi, reqVp: 0xfffe },
      { ...ok, item: 2 },
      { ...ok, item: 2, write: true },
      { ...ok, item: 3 },
      { ...ok, item: 3, write: true },
      { ...ok, item: 4, va: 0, physical: true },
      { ...ok, item: 4, va: 0 },
      { ...ok, physical: true },
      { ...ok, item: 5 },
      { ...ok, item: 5, key: 8 },
      { ...ok, item: 6, key: 0, va: 0, len: 1, reqVp: 0 },
      { ...ok, item: 6, key: 0, va: TOP - 2, len: 2 },
      { ...ok, key: 8 },
    ];
    const got = cases.map((q) => verdict(b, q));
    const want = cases.map((q) => expected(m, q));
    expect(got).toEqual(want);
    // every verdict occurs
    expect(new Set(want.map((s) => s.split('/')[0]))).toEqual(new Set(MC_REASON_NAMES));
    expect(b.mc.stats.checks.value).toBe(cases.length);
    for (const [k, name] of MC_REASON_NAMES.entries()) expect(b.mc.stats.reasons[k]!.value, name).toBe(want.filter((s) => s.startsWith(`${name}/`)).length);
  });
});

describe('memory checker: every item-write bound, against the golden model', () => {
  it('index, key, base and top page, VP: accepted just inside, rejected just outside with a message, table unchanged', () => {
    const b = bench(false);
    const m = new MemCheckerModel(ITEMS, VA_BITS, MAX_LEN);
    const good = item();
    const cases: [number, ModelItem][] = [
      [0, good],
      [ITEMS - 1, good],
      [ITEMS, good],
      [-1, good],
      [1.5, good],
      [1, { ...good, key: 0 }],
      [1, { ...good, key: 0xffffffff }],
      [1, { ...good, key: 2 ** 32 }],
      [1, { ...good, key: -1 }],
      [1, { ...good, key: 1.5 }],
      [1, { ...good, basePage: 0, topPage: 0 }],
      [1, { ...good, basePage: -1 }],
      [1, { ...good, basePage: 1.5, topPage: 3 }],
      [1, { ...good, basePage: PAGES - 1, topPage: PAGES - 1 }],
      [1, { ...good, basePage: PAGES, topPage: PAGES }],
      [1, { ...good, basePage: 5, topPage: 4 }],
      [1, { ...good, basePage: 5, topPage: 5.5 }],
      [1, { ...good, topPage: PAGES }],
      [1, { ...good, vp: 0 }],
      [1, { ...good, vp: 0xffff }],
      [1, { ...good, vp: 0x10000 }],
      [1, { ...good, vp: -1 }],
      [1, { ...good, vp: 0.5 }],
      [2, { ...good, key: 99 }],
    ];
    const ws = cases.map(([i, v]) => toWrite(i, v));
    const got = writeAll(b, ws);
    expect(got).toEqual(cases.map(([i, v]) => m.write(i, v)));
    for (const w of ws) expect(w.error === '', `${w.index}: ${w.error}`).toBe(w.result === 0);
    expect(ws[2]!.error).toMatch(/item index 8 out of range \[0, 8\)/);
    expect(ws[7]!.error).toMatch(/key 4294967296 is not a 32-bit unsigned integer/);
    expect(ws[14]!.error).toMatch(/base page 4096 is not an integer in \[0, 2\^12\)/);
    expect(ws[15]!.error).toMatch(/top page 4 must be an integer in \[base page 5, 2\^12\)/);
    expect(ws[20]!.error).toMatch(/virtual port 65536 is not an integer in \[0, 65535\]/);
    expect(b.mc.stats.writes.value).toBe(got.filter((r) => r === 'ok').length);
    expect(b.mc.stats.rejectedWrites.value).toBe(got.filter((r) => r !== 'ok').length);
    for (const w of ws) expect(w.appliedCycle).toBeGreaterThan(0);
    // the table holds what the model holds: check each written item through a request
    for (const i of [0, 1, 2, ITEMS - 1]) {
      const it = m.item(i);
      const q: Req = { item: i, key: it.key, va: it.basePage * 4096, len: 1, write: false, reqVp: it.vp, physical: it.physical ?? false };
      expect(verdict(b, q)).toBe(expected(m, q));
      expect(verdict(b, { ...q, key: (it.key + 1) % 2 ** 32 })).toBe(expected(m, { ...q, key: (it.key + 1) % 2 ** 32 }));
    }
    // loadItem (the backdoor) validates the same way
    expect(() => b.mc.loadItem(toWrite(1, { ...good, vp: 0x10000 }))).toThrow(/mc: item 1: virtual port 65536/);
  });
});

describe('memory checker: translations and refreshes sent to the ATC', () => {
  it('a passing check spanning k pages sends k translations, one per cycle, page by page; failing checks send none', () => {
    const b = bench(true);
    writeAll(b, [toWrite(0, item({ basePage: 10, topPage: 13, vp: 9 })), toWrite(1, item({ physical: true, basePage: 0, topPage: 100, vp: 4 }))]);
    const runs: [Req, number][] = [
      [{ item: 0, key: 7, va: 10 * 4096 + 100, len: 3 * 4096, write: true, reqVp: -1, physical: false }, 4],
      [{ item: 0, key: 7, va: 11 * 4096, len: 4096, write: false, reqVp: 9, physical: false }, 1],
      [{ item: 1, key: 7, va: 5 * 4096 + 4095, len: 2, write: false, reqVp: 4, physical: true }, 2],
      [{ item: 0, key: 6, va: 10 * 4096, len: 8192, write: false, reqVp: -1, physical: false }, 0],
    ];
    let tag = 100;
    for (const [q, pages] of runs) {
      const r = Object.assign(new MemCheckReq(), q, { tag: ++tag });
      b.mc.reqIn[1]!.push(r);
      const seen: { cycle: number; x: { va: number; asid: number; physical: boolean; tag: number; source: number; part: number; status: number } }[] = [];
      let done = -1;
      for (let c = 0; c < 40; c++) {
        b.sim.step(1);
        while (b.atcReq.canPop()) {
          const x = b.atcReq.pop();
          seen.push({ cycle: b.sim.cycle, x: { va: x.va, asid: x.asid, physical: x.physical, tag: x.tag, source: x.source, part: x.part, status: x.status } });
        }
        if (done < 0 && b.mc.respOut[1]!.canPop()) {
          expect(b.mc.respOut[1]!.pop()).toBe(r);
          done = b.sim.cycle;
        }
      }
      expect(r.pages).toBe(pages);
      expect(seen.map((s) => s.x)).toEqual(
        Array.from({ length: pages }, (_, k) => ({ va: k === 0 ? q.va : (Math.floor(q.va / 4096) + k) * 4096, asid: r.vp, physical: q.physical, tag, source: 1, part: k, status: -1 })),
      );
      // one page per cycle, and the verdict leaves with the last page
      for (let k = 1; k < seen.length; k++) expect(seen[k]!.cycle).toBe(seen[k - 1]!.cycle + 1);
      if (pages > 0) expect(done).toBe(seen.at(-1)!.cycle);
    }
    expect(b.mc.stats.atcPages.value).toBe(7);
  });

  it('refreshes are numbered 1, 2, 3 ..., carry the range as written, and a write waits while the refresh channel is full', () => {
    const b = bench(true);
    const ws = [0, 1, 2, 3].map((k) => toWrite(k, item({ basePage: 20 + k, topPage: 30 + k, vp: 10 + k }), true));
    ws.push(toWrite(4, item(), false));
    let pushed = 0;
    for (let c = 0; c < 12; c++) {
      if (pushed < ws.length && b.mc.writeIn.canPush()) b.mc.writeIn.push(ws[pushed++]!);
      b.sim.step(1);
    }
    // nobody takes refreshes: two fit in the channel, the third write waits, and the writes behind it too
    expect(pushed).toBe(4);
    expect(ws.map((w) => w.result)).toEqual([0, 0, -1, -1, -1]);
    expect(ws.map((w) => w.refreshId)).toEqual([1, 2, 0, 0, 0]);
    expect(b.mc.refreshesSent).toBe(2);
    const got: RefreshRequest[] = [];
    for (let c = 0; c < 20; c++) {
      if (pushed < ws.length && b.mc.writeIn.canPush()) b.mc.writeIn.push(ws[pushed++]!);
      while (b.refresh.canPop()) {
        const r = b.refresh.pop();
        got.push({ basePage: r.basePage, topPage: r.topPage, vp: r.vp, refreshId: r.refreshId });
      }
      b.sim.step(1);
    }
    expect(got).toEqual([0, 1, 2, 3].map((k) => ({ basePage: 20 + k, topPage: 30 + k, vp: 10 + k, refreshId: k + 1 })));
    expect(ws.map((w) => w.result)).toEqual([0, 0, 0, 0, 0]);
    expect(ws.map((w) => w.refreshId)).toEqual([1, 2, 3, 4, 0]);
    expect(b.mc.stats.refreshes.value).toBe(4);
    expect(b.mc.stats.refreshWithoutAtc.value).toBe(0);
  });

  it('without an ATC a refresh write is applied at once and counted as a refresh without ATC', () => {
    const b = bench(false);
    const ws = [toWrite(0, item(), true), toWrite(1, item(), true), toWrite(2, item(), false)];
    expect(writeAll(b, ws)).toEqual(['ok', 'ok', 'ok']);
    expect(ws.map((w) => w.refreshId)).toEqual([0, 0, 0]);
    expect(b.mc.refreshesSent).toBe(0);
    expect(b.mc.stats.refreshWithoutAtc.value).toBe(2);
    expect(b.mc.stats.refreshes.value).toBe(0);
  });
});

/** a busy run: multi-page checks with the ATC side stalled, responses not taken, refreshes queued */
function busy(b: Bench, from: number): { log: string[] } {
  const log: string[] = [];
  writeAll(b, [toWrite(0, item({ basePage: 0, topPage: 50 }), true), toWrite(1, item({ basePage: 0, topPage: 50 }), true)]);
  const reqs: MemCheckReq[] = [];
  for (let k = 0; k < 12; k++) {
    const r = Object.assign(new MemCheckReq(), { tag: from + k, item: k % 2, key: 7, va: k * 4096 + 17, len: 1 + (k % 3) * 4096, write: false });
    reqs.push(r);
  }
  let next = 0;
  for (let c = 0; c < 60; c++) {
    for (let s = 0; s < 2; s++) if (next < reqs.length && b.mc.reqIn[s]!.canPush()) b.mc.reqIn[s]!.push(reqs[next++]!);
    b.sim.step(1);
    if (c % 3 === 0) while (b.atcReq.canPop()) b.atcReq.pop();
    if (c > 20) for (let s = 0; s < 2; s++) while (b.mc.respOut[s]!.canPop()) {
      const r = b.mc.respOut[s]!.pop();
      log.push(`${s}:${r.tag}:${r.reason}:${r.pages}:${r.grantCycle}:${r.doneCycle}`);
    }
    if (c > 30) while (b.refresh.canPop()) log.push(`refresh ${b.refresh.pop().refreshId}`);
  }
  return { log };
}

describe('memory checker reset', () => {
  it('after a reset in the middle of a busy run the checker behaves as a fresh one', () => {
    const fresh = bench(true);
    const want = busy(fresh, 0).log;
    expect(want.length).toBeGreaterThan(10);
    const b = bench(true);
    // stop in the middle: credits in use, a multi-page forward half done, refreshes numbered
    const writes = [toWrite(0, item({ basePage: 0, topPage: 50 }), true)];
    writeAll(b, writes);
    for (let k = 0; k < 4; k++) b.mc.reqIn[k % 2]!.push(Object.assign(new MemCheckReq(), { tag: 900 + k, item: 0, key: 7, va: 4096 * k, len: 3 * 4096 }));
    b.sim.step(4);
    expect(b.mc.refreshesSent).toBe(1);
    b.sim.reset();
    expect(b.mc.refreshesSent).toBe(0);
    expect(busy(b, 0).log).toEqual(want);
  });
});

describe('memory checker activity', () => {
  it('an idle checker is not evaluated; a waiting write or request keeps it evaluated every cycle', () => {
    const b = bench(true);
    b.sim.step(1000);
    expect(b.sim.evaluations).toBeLessThan(20);
    // a refresh write that waits for the full refresh channel is retried every cycle
    for (let k = 0; k < 3; k++) b.mc.writeIn.push(toWrite(k, item(), true)), b.sim.step(1);
    const w = toWrite(3, item(), true);
    b.mc.writeIn.push(w);
    b.sim.step(30);
    expect(w.result).toBe(-1);
    b.refresh.pop();
    b.sim.step(3);
    expect(w.result).toBe(-1); // the write before it went first
    b.refresh.pop();
    b.sim.step(3);
    expect(w.result).toBe(0);
    expect(w.refreshId).toBe(4);
  });
});

describe('memory checker statistics', () => {
  it('carry the names docs/nic-memory.md gives them, and count what happened', () => {
    const b = bench(true);
    writeAll(b, [toWrite(0, item(), true), toWrite(ITEMS, item())]);
    expect(verdict(b, { item: 0, key: 7, va: 10 * 4096, len: 2 * 4096, write: false, reqVp: -1, physical: false })).toBe('ok/3/2');
    const stats = b.sim.stats.toJSON();
    const mine = Object.keys(stats).filter((k) => k.startsWith('mc.'));
    const want = ['checks', ...MC_REASON_NAMES.map((r) => `verdict_${r}`), 'grants_src0', 'grants_src1', 'item_writes', 'rejected_writes', 'refreshes', 'refresh_without_atc', 'atc_stall_cycles', 'atc_pages', 'pipe.dropped'];
    expect(mine.sort()).toEqual(want.map((k) => `mc.${k}`).sort());
    expect([stats['mc.checks'], stats['mc.verdict_ok'], stats['mc.grants_src0'], stats['mc.item_writes'], stats['mc.rejected_writes'], stats['mc.refreshes'], stats['mc.atc_pages']]).toEqual([1, 1, 1, 1, 1, 1, 2]);
  });
});

describe('memory checker request channels', () => {
  it('hold reqCapacity requests each, visible to the arbiter one cycle after the push', () => {
    for (const reqCapacity of [1, 3, 5]) {
      const sim = new Simulator();
      const mc = new MemChecker(sim, 'mc', { items: ITEMS, sources: 1, latency: 2, vaBits: VA_BITS, maxLen: MAX_LEN, reqCapacity });
      const rs: MemCheckReq[] = [];
      while (mc.reqIn[0]!.canPush() && rs.length < 10) {
        const r = Object.assign(new MemCheckReq(), { item: 0, key: 1, va: 0, len: 1 });
        mc.reqIn[0]!.push(r);
        rs.push(r);
      }
      expect(rs.length).toBe(reqCapacity);
      sim.step(1);
      expect(rs[0]!.grantCycle).toBe(-1);
      sim.step(1);
      expect(rs[0]!.grantCycle).toBe(1);
      expect(rs[0]!.reason).toBe(1); // invalid_item: nothing was written
    }
  });
});
