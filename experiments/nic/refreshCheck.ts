/**
 * `atc refresh-check`: a random mix of lookups, ATT updates with refreshes and PCIe latency changes
 * through the whole memory path (memory checker -> ATC -> host memory), judged by the freshness
 * oracle. Lookups go through the checker (with valid keys, VPs and ranges, so every check passes
 * and is forwarded to the ATC, one translation per page); an update writes new translations (or
 * invalidates them) in the owning VP's ATT, then rewrites the memory-checker item with a new range
 * and the refresh bit, exactly the seed's refresh procedure. Software keeps one ItemWrite per item
 * and rewrites it as soon as the previous write was applied (items are values: a refresh already
 * queued must keep the range it was sent with).
 *
 * The check observes what it certifies, and fails when any of these does not hold:
 * - every refresh software requested is sent by the checker, started by the ATC with exactly the
 *   range and VP of the item write that asked for it, and completed: the refresh-done register
 *   software reads reaches the number of refreshes requested (counted separately: requested,
 *   sent, started, done);
 * - once software sees refresh k done, it looks up a page that update k changed: that lookup (and
 *   every other lookup accepted after a covering refresh's done register was visible) must return
 *   the new translation (`verified_after_done` counts these probes; each refresh gets one);
 * - no fill installs a translation older than a refresh that had started;
 * - every request is answered exactly once (verdict and one translation per page);
 * - the run does not deadlock: if the path stops making progress, the report says where
 *   (`deadlock`) and the check fails.
 */
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ATC_FAULT, ATC_HIT, ATC_MERGED, ATC_MISS, type AtcConfig, type AtcMonitor, PAGE_BYTES } from '../../rtl/nic/atc/index.ts';
import { ATT_DEFAULT_OFFSET, ATT_VP_STRIDE } from '../../rtl/nic/hostmem/index.ts';
import { buildMemPath, ItemWrite, MC_OK, MemCheckReq, type MemPath } from '../../rtl/nic/memcheck/index.ts';
import { type RefreshRecord, TranslationOracle } from './translationOracle.ts';

export interface RefreshCheckOptions {
  ops: number;
  seed: number;
  skipping?: boolean;
  atc?: Partial<AtcConfig>;
  /** testing the check itself: called once the path is built (e.g. to break a block) */
  tamper?: (path: MemPath) => void;
  /** progress of long runs (a CLI's bar): called with the operations done, every 1,024 operations */
  onProgress?: (opsDone: number) => void;
}

/** Operations between two progress reports of runRefreshCheck (the chunking does not change the run). */
const PROGRESS_OPS = 1024;

export interface RefreshCheckReport {
  ops: number;
  lookups: number;
  /** translations returned (one per page of each passing request) */
  translations: number;
  multi_page_requests: number;
  refreshes: number;
  refreshes_sent: number;
  refreshes_started: number;
  refreshes_done: number;
  wrong_refresh_ranges: number;
  verified_after_done: number;
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
  /** where the run stopped making progress, null when it did not */
  deadlock: string | null;
  first_problem: string | null;
}

interface Region {
  item: number;
  vp: number;
  base: number;
  /** current top page of the item as software last wrote it */
  top: number;
  /** the item's range varies in [base + minTop, base + maxTop] */
  minTop: number;
  maxTop: number;
  key: number;
  /** lookups and updates go to [base, base + hot), always inside the item */
  hot: number;
  /** software's write descriptor for this item, reused */
  write: ItemWrite;
}

interface Pending {
  /** refresh number (1-based) this verification probe is for */
  id: number;
  region: Region;
  page: number;
}

const POOL = 48;
/** cycles without any progress after which the run is declared deadlocked */
const STALL_LIMIT = 100000;

export function passed(r: RefreshCheckReport): boolean {
  return (
    r.first_problem === null &&
    r.deadlock === null &&
    r.stale_translations === 0 &&
    r.stale_installs === 0 &&
    r.lost === 0 &&
    r.duplicated === 0 &&
    r.unexpected_verdicts === 0 &&
    r.wrong_refresh_ranges === 0 &&
    r.refreshes_sent === r.refreshes &&
    r.refreshes_started === r.refreshes &&
    r.refreshes_done === r.refreshes &&
    r.verified_after_done === r.refreshes
  );
}

export function runRefreshCheck(o: RefreshCheckOptions): RefreshCheckReport {
  if (!Number.isInteger(o.ops) || o.ops < 1) throw new RangeError(`refresh-check: ops must be a positive integer, got ${o.ops}`);
  const t = refreshTraffic(o);
  let alive = true;
  for (let done = 0; done < o.ops && alive; ) {
    const n = Math.min(PROGRESS_OPS, o.ops - done);
    alive = t.ops(n);
    done += n;
    if (alive) o.onProgress?.(done);
  }
  if (alive) t.drain();
  return t.report();
}

/** The refresh-check traffic as a running object: `runRefreshCheck` is ops(n), drain(), report(); the soak benchmark runs it for 10^8 cycles in epochs. */
export interface RefreshTraffic {
  readonly sim: Simulator;
  /** Run `n` more operations; false once the run has deadlocked. */
  ops(n: number): boolean;
  /** Wait until every request is answered and every refresh is done and verified; false on deadlock. */
  drain(): boolean;
  /**
   * After a drain: forget the epoch's history (refresh records, the oracle's versions), the oracle
   * starting again from the ATT as it is now, so that a long run's memory stays flat. Every cached
   * translation is current then: every update was followed by a refresh of its page, all done.
   */
  newEpoch(): void;
  /** The counts so far, with the end-of-run checks (after a drain: the final verdict). */
  report(): RefreshCheckReport;
}

export function refreshTraffic(o: Omit<RefreshCheckOptions, 'ops'>): RefreshTraffic {
  const rng = new Rng(o.seed);
  const sim = new Simulator({ skipping: o.skipping ?? true });
  const path: MemPath = buildMemPath(sim, {
    checker: { items: 16, sources: 5 },
    atc: { entries: 256, ways: 4, mshrs: 8, mshrTargets: 4, ...o.atc },
    host: { readLatency: 100, jitter: 200, seed: o.seed ^ 0x5eed },
  });
  if (o.tamper) o.tamper(path);
  const { checker, atc, host, att } = path;
  // the ATT's documented default mapping (pages never written by software)
  let oracle = new TranslationOracle((p, vp) => (p + ATT_DEFAULT_OFFSET + vp * ATT_VP_STRIDE) % att.frameLimit);
  const rep: RefreshCheckReport = {
    ops: 0, lookups: 0, translations: 0, multi_page_requests: 0, refreshes: 0, refreshes_sent: 0, refreshes_started: 0, refreshes_done: 0, wrong_refresh_ranges: 0, verified_after_done: 0,
    updates: 0, stale_translations: 0, stale_installs: 0, lost: 0, duplicated: 0, unexpected_verdicts: 0, hits: 0, misses: 0, merged_misses: 0, faults: 0, stale_fills_dropped: 0,
    probe_refreshes: 0, sweep_refreshes: 0, cycles: 0, deadlock: null, first_problem: null,
  };
  const problem = (msg: string): void => {
    if (rep.first_problem === null) rep.first_problem = msg;
  };

  // memory regions: six small items (probe refreshes) and two large ones (probe or sweep), three VPs
  const regions: Region[] = [];
  for (let i = 0; i < 8; i++) {
    const small = i < 6;
    const base = 0x1000 * (i + 1);
    const hot = small ? 8 : 16;
    const r: Region = { item: i, vp: i % 3, base, top: 0, minTop: hot - 1, maxTop: small ? 23 : 511, key: rng.u32(), hot, write: new ItemWrite() };
    r.top = base + r.maxTop;
    regions.push(r);
    fillWrite(r, false);
    checker.loadItem(r.write);
    r.write.result = 0; // loaded before the run
  }

  /** refreshes of this epoch (refresh number idBase + 1 is records[0]) */
  let records: RefreshRecord[] = [];
  let idBase = 0;
  /** per refresh: the region and a page its update changed */
  let probes: Pending[] = [];
  const verifyQueue: Pending[] = [];
  let doneSeen = 0;
  const monitor: AtcMonitor = {
    refreshStart(t, base, top, id, mode) {
      rep.refreshes_started++;
      const rec = records[id - 1 - idBase];
      if (!rec) return problem(`refresh id ${id} started but was never requested`);
      const vp = atc.refresh.vp;
      if (base !== rec.base || top !== rec.top || vp !== rec.vp) {
        rep.wrong_refresh_ranges++;
        problem(`refresh ${id}: the ATC removes VP ${vp} pages [${base}, ${top}], but software wrote the item with VP ${rec.vp} pages [${rec.base}, ${rec.top}]`);
      }
      rec.startCycle = t;
      if (mode === 'probe') rep.probe_refreshes++;
      else if (mode === 'sweep') rep.sweep_refreshes++;
    },
    install(t, page, pfn, _way, _evicted, asid) {
      const bad = oracle.judgeInstall(page, pfn, t, asid);
      if (bad !== null) {
        rep.stale_installs++;
        problem(bad);
      }
    },
  };
  atc.monitor = monitor;

  // request pool: an entry is free when its verdict and (for a passing check) all its translations are back
  const pool = Array.from({ length: POOL }, (_, i) => {
    const r = new MemCheckReq();
    r.tag = i;
    return r;
  });
  const waitVerdict = new Uint8Array(POOL);
  const waitXlate = new Int32Array(POOL);
  /** per pool entry: the refresh number a verification probe checks (0: an ordinary lookup) */
  const verifies = new Int32Array(POOL);
  const free: number[] = [...Array(POOL).keys()].reverse();
  let progressAt = 0;
  const release = (i: number): void => {
    if (waitVerdict[i] === 0 && waitXlate[i] === 0) free.push(i);
  };

  const service = (): void => {
    const d = atc.refreshDone.q;
    while (doneSeen < d) {
      const rec = records[doneSeen - idBase];
      if (rec) {
        rec.doneCycle = sim.cycle;
        verifyQueue.push(probes[doneSeen - idBase]!);
      } else problem(`the refresh-done register reads ${d} but software requested only ${idBase + records.length} refreshes`);
      doneSeen++;
      progressAt = sim.cycle;
    }
    for (let s = 0; s < checker.respOut.length; s++) {
      const ch = checker.respOut[s]!;
      while (ch.canPop()) {
        const r = ch.pop();
        progressAt = sim.cycle;
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
        } else if (r.pages !== waitXlate[r.tag]) problem(`request ${r.tag}: the checker forwards ${r.pages} pages, the request spans ${waitXlate[r.tag]}`);
        release(r.tag);
      }
    }
    while (atc.resp.canPop()) {
      const x = atc.resp.pop();
      progressAt = sim.cycle;
      if (waitXlate[x.tag]! <= 0) {
        rep.duplicated++;
        problem(`translation for request ${x.tag} that was not outstanding`);
        continue;
      }
      waitXlate[x.tag]!--;
      rep.translations++;
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
      const bad = oracle.judgeResponse(page, frame, x.acceptCycle, x.asid);
      if (bad !== null) {
        rep.stale_translations++;
        problem(bad);
      }
      const v = verifies[x.tag]!;
      if (v > 0) {
        const rec = records[v - 1 - idBase]!;
        if (x.acceptCycle < rec.doneCycle) problem(`verification lookup for refresh ${v} accepted in cycle ${x.acceptCycle}, before the done register was visible (${rec.doneCycle})`);
        else rep.verified_after_done++;
        verifies[x.tag] = 0;
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
  const stuck = (): boolean => sim.cycle - progressAt > STALL_LIMIT;
  /** false (and the run is declared deadlocked) when `cond` does not come true while nothing moves */
  const waitFor = (cond: () => boolean, what: string): boolean => {
    progressAt = Math.max(progressAt, sim.cycle);
    while (!cond()) {
      if (stuck()) {
        rep.deadlock = `no progress for ${STALL_LIMIT} cycles at cycle ${sim.cycle} while waiting for ${what} (${POOL - free.length} requests outstanding, refresh-done register ${atc.refreshDone.q} of ${idBase + records.length} requested)`;
        problem(`deadlock: ${rep.deadlock}`);
        return false;
      }
      step();
    }
    return true;
  };

  /** Push one lookup through the checker; false on deadlock. */
  const lookup = (r: Region, page: number, pages: number, verify: number): boolean => {
    const s = rng.int(checker.reqIn.length);
    const ch = checker.reqIn[s]!;
    if (!waitFor(() => free.length > 0 && ch.canPush(), 'a free request slot')) return false;
    const i = free.pop()!;
    const q = pool[i]!;
    q.item = r.item;
    q.key = r.key;
    q.reqVp = rng.int(4) === 0 ? -1 : r.vp;
    q.va = pages === 1 ? page * PAGE_BYTES + rng.int(PAGE_BYTES - 64) : page * PAGE_BYTES + 4000;
    q.len = pages === 1 ? 64 : (pages - 1) * PAGE_BYTES;
    q.write = rng.bool();
    waitVerdict[i] = 1;
    waitXlate[i] = Math.floor((q.va + q.len - 1) / PAGE_BYTES) - Math.floor(q.va / PAGE_BYTES) + 1;
    verifies[i] = verify;
    if (waitXlate[i]! > 1) rep.multi_page_requests++;
    rep.lookups++;
    ch.push(q);
    return true;
  };

  let nextFrame = 2 ** 35;
  const update = (r: Region, pages: number): boolean => {
    let last = r.base;
    for (let k = 0; k < pages; k++) {
      const page = r.base + rng.int(r.hot);
      const valid = rng.bool(0.9);
      const frame = nextFrame++;
      att.write(page, frame, valid, r.vp);
      oracle.write(page, frame, valid, r.vp);
      rep.updates++;
      last = page;
    }
    // the previous write of this item must have been taken before software reuses its descriptor
    if (!waitFor(() => checker.writeIn.canPush() && r.write.result !== -1, 'the item-write port')) return false;
    r.top = r.base + r.minTop + rng.int(r.maxTop - r.minTop + 1);
    records.push(oracle.requestRefresh(r.base, r.top, r.vp));
    probes.push({ id: idBase + records.length, region: r, page: last });
    fillWrite(r, true);
    checker.writeIn.push(r.write);
    rep.refreshes++;
    return true;
  };
  const verifyPending = (): boolean => {
    while (verifyQueue.length > 0) {
      const v = verifyQueue.shift()!;
      if (!lookup(v.region, v.page, 1, v.id)) return false;
    }
    return true;
  };

  let alive = true;
  const ops = (n: number): boolean => {
    let ok = alive;
    rep.ops += n;
    for (let op = 0; op < n && ok; op++) {
      ok = verifyPending();
      if (!ok) break;
      const x = rng.float();
      if (x < 0.65) {
        const r = regions[rng.int(regions.length)]!;
        const multi = rng.int(8) === 0;
        const pages = multi ? 2 + rng.int(2) : 1;
        ok = lookup(r, r.base + rng.int(r.hot - pages + 1), pages, 0);
      } else if (x < 0.85) ok = update(regions[rng.int(6)]!, 1);
      else if (x < 0.9) ok = update(regions[6 + rng.int(2)]!, 1 + rng.int(4));
      else if (x < 0.95) host.setLatency(rng.range(20, 400), rng.range(0, 300));
      else step(rng.int(300));
      if (ok) step(rng.int(3));
    }
    alive = ok;
    return ok;
  };
  // drain: every refresh done and verified, every request answered
  const drain = (): boolean => {
    if (alive) {
      progressAt = sim.cycle;
      while (free.length < POOL || doneSeen < idBase + records.length || verifyQueue.length > 0) {
        if (!verifyPending()) {
          alive = false;
          break;
        }
        if (stuck()) {
          alive = false;
          rep.deadlock = `no progress for ${STALL_LIMIT} cycles while draining at cycle ${sim.cycle} (${POOL - free.length} requests outstanding, refresh-done register ${atc.refreshDone.q} of ${idBase + records.length} requested)`;
          problem(`deadlock: ${rep.deadlock}`);
          break;
        }
        step();
      }
    }
    return alive;
  };
  const newEpoch = (): void => {
    if (free.length < POOL || doneSeen < idBase + records.length || verifyQueue.length > 0) throw new Error('refresh traffic: newEpoch() needs a drained path');
    idBase += records.length;
    records = [];
    probes = [];
    // the oracle starts from the ATT's present entries of the pages software writes
    const now = new Map<string, number>();
    for (const r of regions) for (let p = r.base; p < r.base + r.hot; p++) now.set(`${r.vp}/${p}`, att.read(p, r.vp));
    oracle = new TranslationOracle((p, vp) => {
      const e = now.get(`${vp}/${p}`);
      return e === undefined ? (p + ATT_DEFAULT_OFFSET + vp * ATT_VP_STRIDE) % att.frameLimit : Math.floor(e / 2);
    });
    for (const r of regions) for (let p = r.base; p < r.base + r.hot; p++) {
      const e = now.get(`${r.vp}/${p}`)!;
      if (e % 2 === 0) oracle.write(p, Math.floor(e / 2), false, r.vp);
    }
  };
  const report = (): RefreshCheckReport => {
    rep.lost = POOL - free.length;
    if (rep.lost > 0) problem(`${rep.lost} requests never answered`);
    rep.refreshes_sent = checker.refreshesSent;
    rep.refreshes_done = atc.refreshDone.q;
    if (rep.refreshes_sent !== rep.refreshes) problem(`software requested ${rep.refreshes} refreshes, the checker sent ${rep.refreshes_sent}`);
    if (rep.refreshes_started !== rep.refreshes) problem(`software requested ${rep.refreshes} refreshes, the ATC started ${rep.refreshes_started}`);
    if (rep.refreshes_done !== rep.refreshes) problem(`software requested ${rep.refreshes} refreshes, the refresh-done register reads ${rep.refreshes_done}`);
    if (rep.verified_after_done !== rep.refreshes) problem(`${rep.refreshes - rep.verified_after_done} refreshes were never verified by a lookup after their done register`);
    const st = atc.stats;
    rep.hits = st.hits.value;
    rep.misses = st.misses.value;
    rep.merged_misses = st.merged.value;
    rep.faults = st.faults.value;
    rep.stale_fills_dropped = st.staleFills.value;
    rep.cycles = sim.cycle;
    return { ...rep };
  };
  return { sim, ops, drain, newEpoch, report };
}

/** Software fills its write descriptor of the item with the region's current range. */
function fillWrite(r: Region, refresh: boolean): void {
  const w = r.write;
  w.index = r.item;
  w.valid = true;
  w.key = r.key;
  w.read = true;
  w.write = true;
  w.basePage = r.base;
  w.topPage = r.top;
  w.vp = r.vp;
  w.physical = false;
  w.refresh = refresh;
  w.result = -1;
}
