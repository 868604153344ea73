/**
 * `atc refresh-check`: a random mix of lookups, ATT updates with refreshes and PCIe latency changes
 * through the whole memory path (memory checker -> ATC -> host memory), judged by the freshness
 * oracle. Lookups go through the checker (with valid keys and ranges, so every check passes and is
 * forwarded to the ATC); an update writes new translations (or invalidates them) in the ATT, then
 * writes the memory-checker item with the refresh bit, exactly the seed's refresh procedure.
 */
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ATC_FAULT, ATC_HIT, ATC_MERGED, ATC_MISS, type AtcConfig, type AtcMonitor, PAGE_BYTES } from '../../rtl/nic/atc/index.ts';
import { ATT_DEFAULT_OFFSET } from '../../rtl/nic/hostmem/index.ts';
import { buildMemPath, ItemWrite, MC_OK, MemCheckReq, type MemPath } from '../../rtl/nic/memcheck/index.ts';
import { type RefreshRecord, TranslationOracle } from './translationOracle.ts';

export interface RefreshCheckOptions {
  ops: number;
  seed: number;
  skipping?: boolean;
  atc?: Partial<AtcConfig>;
}

export interface RefreshCheckReport {
  ops: number;
  lookups: number;
  refreshes: number;
  updates: number;
  stale_translations: number;
  stale_installs: number;
  lost: number;
  duplicated: number;
  unexpected_verdicts: number;
  hits: number;
  misses: number;
  merged_misses: number;
  faults: number;
  stale_fills_dropped: number;
  probe_refreshes: number;
  sweep_refreshes: number;
  cycles: number;
  first_problem: string | null;
}

interface Region {
  item: number;
  base: number;
  top: number;
  key: number;
  hot: number;
}

const POOL = 48;

export function runRefreshCheck(o: RefreshCheckOptions): RefreshCheckReport {
  if (!Number.isInteger(o.ops) || o.ops < 1) throw new RangeError(`refresh-check: ops must be a positive integer, got ${o.ops}`);
  const rng = new Rng(o.seed);
  const sim = new Simulator({ skipping: o.skipping ?? true });
  const path: MemPath = buildMemPath(sim, {
    checker: { items: 16, sources: 5 },
    atc: { entries: 256, ways: 4, mshrs: 8, mshrTargets: 4, ...o.atc },
    host: { readLatency: 100, jitter: 200, seed: o.seed ^ 0x5eed },
  });
  const { checker, atc, host, att } = path;
  // the ATT's documented default mapping (pages never written by software)
  const oracle = new TranslationOracle((p) => (p + ATT_DEFAULT_OFFSET) % att.frameLimit);
  const rep: RefreshCheckReport = {
    ops: o.ops, lookups: 0, refreshes: 0, updates: 0, stale_translations: 0, stale_installs: 0, lost: 0, duplicated: 0,
    unexpected_verdicts: 0, hits: 0, misses: 0, merged_misses: 0, faults: 0, stale_fills_dropped: 0, probe_refreshes: 0, sweep_refreshes: 0, cycles: 0, first_problem: null,
  };
  const problem = (msg: string): void => {
    if (rep.first_problem === null) rep.first_problem = msg;
  };

  // memory regions: six small ones (probe refreshes) and two large ones (sweep refreshes)
  const regions: Region[] = [];
  for (let i = 0; i < 8; i++) {
    const size = i < 6 ? 8 : 512;
    const base = 0x1000 * (i + 1);
    const r: Region = { item: i, base, top: base + size - 1, key: rng.u32(), hot: Math.min(size, 16) };
    regions.push(r);
    const w = itemWrite(r, false);
    checker.loadItem(w);
  }

  const records: RefreshRecord[] = [];
  let doneSeen = 0;
  const monitor: AtcMonitor = {
    refreshStart(t, _base, _top, id, mode) {
      const rec = records[id - 1];
      if (!rec) return problem(`refresh id ${id} started but was never requested`);
      rec.startCycle = t;
      if (mode === 'probe') rep.probe_refreshes++;
      else if (mode === 'sweep') rep.sweep_refreshes++;
    },
    install(t, page, pfn) {
      const bad = oracle.judgeInstall(page, pfn, t);
      if (bad !== null) {
        rep.stale_installs++;
        problem(bad);
      }
    },
  };
  atc.monitor = monitor;

  // request pool: an entry is free when its verdict and (for a passing check) its translation are back
  const pool = Array.from({ length: POOL }, (_, i) => {
    const r = new MemCheckReq();
    r.tag = i;
    return r;
  });
  const waitVerdict = new Uint8Array(POOL);
  const waitXlate = new Uint8Array(POOL);
  const free: number[] = [...Array(POOL).keys()].reverse();
  const release = (i: number): void => {
    if (waitVerdict[i] === 0 && waitXlate[i] === 0) free.push(i);
  };

  const service = (): void => {
    const d = atc.refreshDone.q;
    while (doneSeen < d) {
      const rec = records[doneSeen];
      if (rec) rec.doneCycle = sim.cycle;
      doneSeen++;
    }
    for (let s = 0; s < checker.respOut.length; s++) {
      const ch = checker.respOut[s]!;
      while (ch.canPop()) {
        const r = ch.pop();
        if (waitVerdict[r.tag] !== 1) {
          rep.duplicated++;
          problem(`verdict for request ${r.tag} that was not outstanding`);
          continue;
        }
        waitVerdict[r.tag] = 0;
        if (r.reason !== MC_OK) {
          rep.unexpected_verdicts++;
          problem(`check of item ${r.item} va ${r.va} failed with reason ${r.reason}`);
          waitXlate[r.tag] = 0;
        }
        release(r.tag);
      }
    }
    while (atc.resp.canPop()) {
      const x = atc.resp.pop();
      if (waitXlate[x.tag] !== 1) {
        rep.duplicated++;
        problem(`translation for request ${x.tag} that was not outstanding`);
        continue;
      }
      waitXlate[x.tag] = 0;
      rep.lookups++;
      const page = Math.floor(x.va / PAGE_BYTES);
      let frame: number | null;
      if (x.status === ATC_HIT || x.status === ATC_MISS || x.status === ATC_MERGED) frame = x.pfn;
      else if (x.status === ATC_FAULT) frame = null;
      else {
        problem(`unexpected ATC status ${x.status} for va ${x.va}`);
        rep.stale_translations++;
        release(x.tag);
        continue;
      }
      const bad = oracle.judgeResponse(page, frame, x.acceptCycle);
      if (bad !== null) {
        rep.stale_translations++;
        problem(bad);
      }
      release(x.tag);
    }
  };
  const step = (n = 1): void => {
    for (let i = 0; i < n; i++) {
      sim.step(1);
      service();
    }
  };
  const waitFor = (cond: () => boolean, what: string): void => {
    for (let i = 0; i < 100000 && !cond(); i++) step();
    if (!cond()) throw new Error(`refresh-check: timed out waiting for ${what} at cycle ${sim.cycle}`);
  };

  let nextFrame = 2 ** 35;
  const update = (r: Region, pages: number): void => {
    for (let k = 0; k < pages; k++) {
      const page = r.base + rng.int(r.hot);
      const valid = rng.bool(0.9);
      const frame = nextFrame++;
      att.write(page, frame, valid);
      oracle.write(page, frame, valid);
      rep.updates++;
    }
    waitFor(() => checker.writeIn.canPush(), 'the item-write port');
    records.push(oracle.requestRefresh(r.base, r.top));
    checker.writeIn.push(itemWrite(r, true));
    rep.refreshes++;
  };

  for (let op = 0; op < o.ops; op++) {
    const x = rng.float();
    if (x < 0.65) {
      const r = regions[rng.int(regions.length)]!;
      const s = rng.int(checker.reqIn.length);
      const ch = checker.reqIn[s]!;
      waitFor(() => free.length > 0 && ch.canPush(), 'a free request slot');
      const i = free.pop()!;
      const q = pool[i]!;
      q.item = r.item;
      q.key = r.key;
      q.va = (r.base + rng.int(r.hot)) * PAGE_BYTES + rng.int(PAGE_BYTES - 64);
      q.len = 64;
      q.write = rng.bool();
      waitVerdict[i] = 1;
      waitXlate[i] = 1;
      ch.push(q);
    } else if (x < 0.85) update(regions[rng.int(6)]!, 1);
    else if (x < 0.9) update(regions[6 + rng.int(2)]!, 1 + rng.int(4));
    else if (x < 0.95) host.setLatency(rng.range(20, 400), rng.range(0, 300));
    else step(rng.int(300));
    step(rng.int(3));
  }
  // drain: every request answered, every refresh done
  for (let i = 0; i < 200000 && (free.length < POOL || doneSeen < records.length); i++) step();
  rep.lost = POOL - free.length;
  if (rep.lost > 0) problem(`${rep.lost} requests never answered`);
  if (doneSeen < records.length) problem(`${records.length - doneSeen} refreshes never completed`);
  const st = atc.stats;
  rep.hits = st.hits.value;
  rep.misses = st.misses.value;
  rep.merged_misses = st.merged.value;
  rep.faults = st.faults.value;
  rep.stale_fills_dropped = st.staleFills.value;
  rep.cycles = sim.cycle;
  return rep;
}

function itemWrite(r: Region, refresh: boolean): ItemWrite {
  const w = new ItemWrite();
  w.index = r.item;
  w.valid = true;
  w.key = r.key;
  w.read = true;
  w.write = true;
  w.basePage = r.base;
  w.topPage = r.top;
  w.vp = r.item;
  w.refresh = refresh;
  return w;
}
