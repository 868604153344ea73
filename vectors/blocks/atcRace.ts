/**
 * Race vectors for the ATC (docs/nic-memory.md "Race vectors", docs/vectors.md): one continuous
 * concurrent run in which several requests are in flight at once, cycle-exact. The generator
 * strings together random race episodes (merged misses, a page's MSHR filling up, hits under
 * misses, all MSHRs busy, refreshes racing fills in flight, a sweep racing hits, the same page in
 * three VPs, faulting fills, a stream of hits with misses draining among them; in buffer mode:
 * preloads racing lookups, refreshes racing lookups, wrong VPs, pages outside the buffer) and ends
 * with a census (a lookup of every page) that shows the final contents. Every expectation comes
 * from the cycle-level golden model (models/nic/atcCycleModel.ts) and the vector alone.
 *
 * Records (one per operation, in issue order; several may share a cycle):
 * - lookup: in {op: "lookup", va: hex, asid, physical}; out {status: hit|miss|merged|bypass|fault|
 *   error, pa: hex | null}; cycles {issue (pushed on the request channel), accept (the cycle the
 *   ATC takes it from the channel), resp (the response visible)}. The response carries tag = id.
 * - att: in {op: "att", page: hex, pfn: hex, valid, vp}; out {}; cycles {issue}: software writes VP
 *   vp's ATT entry before cycle `issue` is simulated.
 * - refresh: in {op: "refresh", base: hex, top: hex, vp (-1: every VP)}; out {mode: probe|sweep|
 *   buffer|bad}; cycles {issue, done (the refresh-done register shows it)}.
 * - preload: in {op: "preload", page: hex, pfn: hex, valid, asid}; out {result: ok|rejected};
 *   cycles {issue, applied (the cycle the port takes it)}.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ATC_STATUS_NAMES, AtcReq, PreloadWrite } from '../../rtl/nic/atc/index.ts';
import { AtcCycleModel, type CycleLookup, type CyclePreload, type CycleRefresh } from '../../models/nic/atcCycleModel.ts';
import { hexBits, type Json, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import { checkShape, lineOf, type RecordShape } from '../fields.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';
import { type AtcVecConfig, buildVecAtc, parseAtcVecConfig, resolved } from './atc.ts';

export interface AtcRaceConfig extends AtcVecConfig {
  mshrTargets: number;
}

const DEFAULTS: AtcRaceConfig = { entries: 16, ways: 2, replacement: 'lru', hitLatency: 3, mshrs: 3, mshrTargets: 3, mode: 'cache', bufferBasePage: 0x100, refreshProbeMax: -1, readLatency: 24, vaBits: 48, paBits: 48 };
/** the response channel's capacity (the ATC's default); the testbench pops every response the cycle it is visible */
const RESP_CAPACITY = 4;
/** cycles a replayer waits past the last expected cycle for late or duplicated responses */
const LATE_SLACK = 64;

const hexOrNull = (v: number | null): Json => (v === null ? null : hexBits(v));

type Item = { gap: number } & (
  | { op: 'lookup'; va: number; asid: number; physical: boolean }
  | { op: 'att'; page: number; valid: boolean; vp: number }
  | { op: 'refresh'; base: number; top: number; vp: number }
  | { op: 'preload'; page: number; valid: boolean; asid: number }
);

type Issued = { rec: VectorRecord } & ({ op: 'lookup'; m: CycleLookup } | { op: 'refresh'; m: CycleRefresh } | { op: 'preload'; m: CyclePreload } | { op: 'att' });

function modelFor(cfg: AtcRaceConfig): AtcCycleModel {
  return new AtcCycleModel({ ...resolved(cfg), mshrs: cfg.mshrs, mshrTargets: cfg.mshrTargets, respCapacity: RESP_CAPACITY });
}

/** The race episodes: each a short list of operations with the cycles between them. */
class Episodes {
  readonly base: number;
  readonly pool: number;
  readonly sets: number;
  constructor(
    readonly cfg: AtcRaceConfig,
    readonly rng: Rng,
    readonly model: AtcCycleModel,
    /** the resolved probe/sweep crossover (pages) */
    readonly probeMax: number,
  ) {
    this.sets = cfg.entries / cfg.ways;
    this.base = cfg.mode === 'buffer' ? cfg.bufferBasePage : 0x100;
    this.pool = cfg.mode === 'buffer' ? cfg.entries : cfg.entries + 2 * cfg.ways;
  }
  private pick<T>(xs: readonly T[]): T {
    return xs[this.rng.int(xs.length)]!;
  }
  private lk(page: number, asid: number, gap: number, physical = false): Item {
    return { gap, op: 'lookup', va: page * 4096 + this.rng.int(4096), asid, physical };
  }
  private vp(): number {
    return this.pick([0, 0, 1, 2]);
  }
  /** a pool page (asid a) the cache does not hold */
  private cold(a: number): number {
    for (let i = 0; i < 20; i++) {
      const p = this.base + this.rng.int(this.pool);
      if (this.model.cache.peek(p, a) === null) return p;
    }
    return this.base + this.rng.int(this.pool);
  }
  /** a translation the cache holds, or a pool page */
  private warm(): { page: number; asid: number } {
    const r = this.model.resident();
    return r.length > 0 ? this.pick(r) : { page: this.base + this.rng.int(this.pool), asid: 0 };
  }

  next(): Item[] {
    const c = this.cfg;
    const rng = this.rng;
    const L = c.readLatency;
    const items = c.mode === 'buffer' ? this.bufferEpisode() : this.cacheEpisode();
    // now and then a pause: the in-flight work drains before the next race
    if (items.length > 0 && rng.int(4) === 0) items[0]!.gap += L + rng.int(2 * L);
    return items;
  }

  private cacheEpisode(): Item[] {
    const c = this.cfg;
    const rng = this.rng;
    const L = c.readLatency;
    const out: Item[] = [];
    switch (rng.int(10)) {
      case 0: {
        // merged misses; with more than mshrTargets requests the page's MSHR fills up and the rest stall
        const a = this.vp();
        const x = this.cold(a);
        const n = 2 + rng.int(c.mshrTargets + 1);
        for (let i = 0; i < n; i++) out.push(this.lk(x, a, i === 0 ? 0 : rng.int(3)));
        break;
      }
      case 1: {
        // hits under a miss
        const h = this.warm();
        const a = this.vp();
        const x = this.cold(a);
        out.push(this.lk(x, a, 0), this.lk(h.page, h.asid, 1), this.lk(h.page, h.asid, rng.int(2)), this.lk(x, a, 1), this.lk(h.page, h.asid, 1));
        break;
      }
      case 2: {
        // every MSHR busy: the next miss stalls at the head of the channel, a hit behind it waits too
        const k = c.mshrs + 1 + rng.int(2);
        for (let i = 0; i < k; i++) {
          const a = this.vp();
          out.push(this.lk(this.cold(a), a, rng.int(2)));
        }
        const h = this.warm();
        out.push(this.lk(h.page, h.asid, 0));
        break;
      }
      case 3: {
        // a refresh racing the fill in flight: software changes the page and refreshes while the read is out
        const a = this.vp();
        const x = this.cold(a);
        out.push(this.lk(x, a, 0));
        out.push({ gap: 1 + rng.int(L), op: 'att', page: x, valid: rng.int(5) !== 0, vp: a });
        out.push({ gap: 0, op: 'refresh', base: x - rng.int(2), top: x + rng.int(3), vp: rng.int(3) === 0 ? -1 : a });
        out.push(this.lk(x, a, rng.int(4)));
        if (rng.int(2) === 0) out.push(this.lk(x, a, rng.int(L)));
        break;
      }
      case 4: {
        // a sweep (range larger than the probe crossover) racing hits and a miss
        const lo = this.base + rng.int(this.pool);
        out.push({ gap: 0, op: 'refresh', base: lo, top: lo + this.probeMax + rng.int(this.pool), vp: rng.int(2) === 0 ? -1 : this.vp() });
        for (let i = 0; i < 6 + rng.int(5); i++) {
          const h = rng.int(4) === 0 ? { page: this.cold(0), asid: 0 } : this.warm();
          out.push(this.lk(h.page, h.asid, rng.int(2)));
        }
        break;
      }
      case 5: {
        // the same page in three VPs: three MSHRs, three reads
        const x = this.base + rng.int(this.pool);
        for (const a of [0, 1, 2, 0]) out.push(this.lk(x, a, rng.int(2)));
        break;
      }
      case 6: {
        // a fill that faults (invalid ATT entry): every waiter gets the fault, nothing is cached; then valid again
        const a = this.vp();
        const x = this.cold(a);
        out.push({ gap: 0, op: 'att', page: x, valid: false, vp: a }, this.lk(x, a, 0), this.lk(x, a, 1));
        out.push({ gap: L + 4, op: 'att', page: x, valid: true, vp: a }, { gap: 0, op: 'refresh', base: x, top: x, vp: a }, this.lk(x, a, 2));
        break;
      }
      case 7: {
        // misses, then a stream of hits long enough that the fills come back and drain while hits want the port (fairness)
        const n = c.readLatency + 8 + rng.int(12);
        for (let i = 0; i < n; i++) {
          if (i < 6 && rng.int(2) === 0) {
            const a = this.vp();
            out.push(this.lk(this.cold(a), a, 0));
          } else {
            const h = this.warm();
            out.push(this.lk(h.page, h.asid, 0));
          }
        }
        break;
      }
      case 8: {
        // bypass, a bad address, a malformed refresh, among misses
        const a = this.vp();
        out.push(this.lk(this.cold(a), a, 0), { gap: 0, op: 'lookup', va: rng.int(2 ** 30) * 4096 + rng.int(4096), asid: a, physical: true });
        out.push({ gap: rng.int(2), op: 'lookup', va: 2 ** c.vaBits + rng.int(1000), asid: a, physical: false });
        out.push({ gap: 0, op: 'refresh', base: this.base + 9, top: this.base + 3, vp: -1 }, this.lk(this.cold(a), a, 1));
        break;
      }
      default: {
        // software updates one page and refreshes it while lookups of it hit (probe)
        const h = this.warm();
        out.push(this.lk(h.page, h.asid, 0), { gap: 0, op: 'att', page: h.page, valid: true, vp: h.asid }, { gap: 0, op: 'refresh', base: h.page, top: h.page, vp: h.asid });
        for (let i = 0; i < 3; i++) out.push(this.lk(h.page, h.asid, 1));
        break;
      }
    }
    return out;
  }

  private bufferEpisode(): Item[] {
    const c = this.cfg;
    const rng = this.rng;
    const out: Item[] = [];
    const inside = (): number => this.base + rng.int(c.entries);
    switch (rng.int(6)) {
      case 0: {
        // a preload racing lookups of its page: the lookup taken in the same cycle reads the buffer before the write
        const p = inside();
        const a = this.vp();
        out.push({ gap: 0, op: 'preload', page: p, valid: rng.int(6) !== 0, asid: a }, this.lk(p, a, 0), this.lk(p, a, 1), this.lk(p, a, rng.int(3)));
        break;
      }
      case 1: {
        // loaded pages looked up by their VP and by others
        for (let i = 0; i < 6; i++) {
          const p = inside();
          const e = this.model.loaded(p);
          out.push(this.lk(p, e !== null && rng.int(3) !== 0 ? e.asid : this.vp(), rng.int(2)));
        }
        break;
      }
      case 2: {
        // a refresh walking the buffer while lookups of its range come in
        const lo = this.base - 1 + rng.int(c.entries);
        const hi = lo + rng.int(c.entries);
        out.push({ gap: 0, op: 'refresh', base: lo, top: hi, vp: rng.int(3) === 0 ? -1 : this.vp() });
        for (let i = 0; i < 6; i++) {
          const p = Math.min(hi, lo + 2 * i);
          const e = this.model.loaded(p);
          out.push(this.lk(p, e !== null ? e.asid : 0, 1));
        }
        break;
      }
      case 3: {
        // preloads: outside the buffer (rejected), a burst of them, lookups of pages outside (fault)
        out.push({ gap: 0, op: 'preload', page: this.base + c.entries + rng.int(8), valid: true, asid: 0 }, this.lk(this.base + c.entries + rng.int(8), 0, 0));
        for (let i = 0; i < 3; i++) out.push({ gap: 0, op: 'preload', page: inside(), valid: true, asid: this.vp() });
        break;
      }
      case 4: {
        // a burst of lookups, back to back
        for (let i = 0; i < 8; i++) {
          const p = inside();
          const e = this.model.loaded(p);
          out.push(this.lk(p, e !== null ? e.asid : this.vp(), 0));
        }
        break;
      }
      default: {
        out.push({ gap: 0, op: 'lookup', va: rng.int(2 ** 30) * 4096, asid: 0, physical: true }, { gap: 0, op: 'lookup', va: 2 ** c.vaBits + rng.int(100), asid: 0, physical: false });
        out.push({ gap: 0, op: 'refresh', base: this.base + 5, top: this.base + 2, vp: 0 });
        break;
      }
    }
    return out;
  }

  /** The closing census: one lookup of every page (every VP used) shows what the ATC holds. */
  census(n: number): Item[] {
    const out: Item[] = [];
    for (let i = 0; out.length < n; i++) {
      const page = this.base + (i % this.pool);
      const a = Math.floor(i / this.pool) % 3;
      const e = this.cfg.mode === 'buffer' ? this.model.loaded(page) : null;
      out.push(this.lk(page, e !== null ? e.asid : a, 1));
    }
    return out;
  }
}

function generate(cfg: AtcRaceConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  return generateRace(cfg, seed, count, produced).records;
}

/** The generator, with the cycle model it ran (its `counts` say which races the stream contains). */
export function generateRace(cfg: AtcRaceConfig, seed: number, count: number, produced?: RecordProduced): { records: VectorRecord[]; model: AtcCycleModel } {
  const model = modelFor(cfg);
  const rng = new Rng(seed);
  const probeMax = cfg.refreshProbeMax < 0 ? cfg.entries / cfg.ways : cfg.refreshProbeMax;
  const eps = new Episodes(cfg, rng, model, probeMax);
  const issued: Issued[] = [];
  const censusN = Math.min(Math.floor(count / 5), 2 * eps.pool);
  let plan: Item[] = [];
  let censusStarted = false;
  let last = 0;
  let frame = 0x100000;
  while (issued.length < count) {
    if (plan.length === 0) {
      if (!censusStarted && count - issued.length <= censusN) {
        plan = eps.census(count - issued.length);
        censusStarted = true;
      } else plan = eps.next();
      plan = plan.slice(0, count - issued.length);
      if (plan.length === 0) continue;
    }
    const it = plan[0]!;
    const t = model.t;
    const ready = t >= last + it.gap && (it.op === 'lookup' ? model.canLookup() : it.op === 'refresh' ? model.canRefresh() : it.op === 'preload' ? model.canPreload() : true);
    if (!ready) {
      model.step();
      continue;
    }
    plan.shift();
    last = t;
    const id = issued.length;
    if (it.op === 'lookup') issued.push({ op: 'lookup', m: model.lookup(it.va, it.asid, it.physical), rec: { id, in: { op: 'lookup', va: hexBits(it.va), asid: it.asid, physical: it.physical }, out: {}, cycles: { issue: t } } });
    else if (it.op === 'att') {
      const f = frame++;
      model.attWrite(it.page, f, it.valid, it.vp);
      issued.push({ op: 'att', rec: { id, in: { op: 'att', page: hexBits(it.page), pfn: hexBits(f), valid: it.valid, vp: it.vp }, out: {}, cycles: { issue: t } } });
    } else if (it.op === 'refresh') issued.push({ op: 'refresh', m: model.refresh(it.base, it.top, it.vp), rec: { id, in: { op: 'refresh', base: hexBits(it.base), top: hexBits(it.top), vp: it.vp }, out: {}, cycles: { issue: t } } });
    else {
      const f = frame++;
      issued.push({ op: 'preload', m: model.preload(it.page, f, it.valid, it.asid), rec: { id, in: { op: 'preload', page: hexBits(it.page), pfn: hexBits(f), valid: it.valid, asid: it.asid }, out: {}, cycles: { issue: t } } });
    }
    produced?.(issued.length);
  }
  for (let i = 0; i < 1_000_000 && !model.idle; i++) model.step();
  if (!model.idle) throw new Error('atc-race generator: the cycle model did not go idle');
  const records = issued.map((x) => {
    const r = x.rec;
    if (x.op === 'lookup') {
      r.out = { status: x.m.status!, pa: hexOrNull(x.m.pa) };
      r.cycles = { ...r.cycles, accept: x.m.accept, resp: x.m.resp };
    } else if (x.op === 'refresh') {
      r.out = { mode: x.m.mode! };
      r.cycles = { ...r.cycles, done: x.m.done };
    } else if (x.op === 'preload') {
      r.out = { result: x.m.result! };
      r.cycles = { ...r.cycles, applied: x.m.applied };
    }
    return r;
  });
  return { records, model };
}

const SHAPES: Record<string, RecordShape> = {
  lookup: { in: ['op', 'va', 'asid', 'physical'], out: ['status', 'pa'], cycles: ['issue', 'accept', 'resp'] },
  att: { in: ['op', 'page', 'pfn', 'valid', 'vp'], out: [], cycles: ['issue'] },
  refresh: { in: ['op', 'base', 'top', 'vp'], out: ['mode'], cycles: ['issue', 'done'] },
  preload: { in: ['op', 'page', 'pfn', 'valid', 'asid'], out: ['result'], cycles: ['issue', 'applied'] },
};

/** One record's stimulus, checked and decoded before anything is driven. */
type Op =
  | { op: 'lookup'; req: AtcReq; accept: number; resp: number; status: string; pa: Json; seenAccept: number; seenResp: number }
  | { op: 'att'; page: number; pfn: number; valid: boolean; vp: number }
  | { op: 'refresh'; base: number; top: number; vp: number; done: number; mode: string; seenDone: number; seenMode: string }
  | { op: 'preload'; w: PreloadWrite; applied: number; result: string; seenApplied: number };

function decode(rec: VectorRecord): { issue: number; op: Op } {
  const i = new RecordReader(rec, 'in');
  const kind = i.str('op', Object.keys(SHAPES));
  checkShape(rec, kind, SHAPES[kind]!);
  const o = new RecordReader(rec, 'out');
  const cy = new RecordReader(rec, 'cycles');
  const issue = cy.int('issue', 0);
  if (kind === 'lookup') {
    const req = new AtcReq();
    req.tag = rec.id;
    req.va = Number(i.hex('va', 64));
    req.asid = i.int('asid', 0, 0xffff);
    req.physical = i.bool('physical');
    o.str('status', ATC_STATUS_NAMES);
    const pa = o.json('pa') ?? null;
    if (pa !== null) o.hex('pa', 64);
    return { issue, op: { op: 'lookup', req, accept: cy.int('accept', issue + 1), resp: cy.int('resp', issue + 2), status: o.str('status'), pa, seenAccept: -1, seenResp: -1} };
  }
  if (kind === 'att') return { issue, op: { op: 'att', page: Number(i.hex('page', 64)), pfn: Number(i.hex('pfn', 64)), valid: i.bool('valid'), vp: i.int('vp', 0, 0xffff) } };
  if (kind === 'refresh') return { issue, op: { op: 'refresh', base: Number(i.hex('base', 64)), top: Number(i.hex('top', 64)), vp: i.int('vp', -1, 0xffff), done: cy.int('done', issue + 2), mode: o.str('mode', ['probe', 'sweep', 'buffer', 'bad']), seenDone: -1, seenMode: ''} };
  const w = new PreloadWrite();
  w.page = Number(i.hex('page', 64));
  w.pfn = Number(i.hex('pfn', 64));
  w.valid = i.bool('valid');
  w.asid = i.int('asid', 0, 0xffff);
  return { issue, op: { op: 'preload', w, applied: cy.int('applied', issue + 1), result: o.str('result', ['ok', 'rejected']), seenApplied: -1} };
}

/**
 * Replays the stream through the RTL, one cycle at a time. Before cycle t it writes the ATT and
 * pushes every operation whose `issue` is t (an operation whose channel is full then is a mismatch
 * and is pushed as soon as there is room); after the cycle it observes, without trusting the
 * ATC's own fields: which requests left the request channel (its count: `accept`), which responses
 * became poppable (their tag: `resp`, a second one is "answered twice"), the refresh-done
 * register (the k-th increment is the k-th refresh: `done`) and which preloads got a result
 * (`applied`). It runs 64 cycles past the last expected event; a response never seen is a
 * mismatch. Records are checked for shape (unknown and missing fields, InputError naming the
 * line) and issue order before anything is driven.
 */
function replay(cfg: AtcRaceConfig, records: VectorRecord[]): ReplayOutcome[] {
  const ops = records.map((rec) => decode(rec));
  if (ops.length === 0) return [];
  let end = 0;
  for (let k = 0; k < ops.length; k++) {
    const { issue, op } = ops[k]!;
    if (k > 0 && issue < ops[k - 1]!.issue) throw new InputError(`line ${lineOf(records[k]!)}: cycles.issue ${issue} is before the previous record's (${ops[k - 1]!.issue}); records must be in issue order`);
    end = Math.max(end, issue, op.op === 'lookup' ? op.resp : op.op === 'refresh' ? op.done : op.op === 'preload' ? op.applied : issue);
  }
  const sim = new Simulator();
  const { atc, att } = buildVecAtc(sim, cfg, { mshrTargets: cfg.mshrTargets, respCapacity: RESP_CAPACITY });
  const out: ReplayOutcome[] = records.map((r) => ({ id: r.id, ok: true, mismatches: [] }));
  const miss = (k: number, m: string): void => {
    out[k]!.ok = false;
    out[k]!.mismatches.push(m);
  };
  const refreshes: number[] = [];
  let refreshSeen = 0;
  let refreshStarted = 0;
  atc.monitor = {
    refreshStart: (_t, _b, _top, _id, mode) => {
      const k = refreshes[refreshStarted++];
      if (k !== undefined) (ops[k]!.op as { seenMode: string }).seenMode = mode;
    },
  };
  /** requests in the request channel, oldest first (record indices) */
  const inChannel: number[] = [];
  const waiting: number[] = [];
  const preloads: number[] = [];
  let next = 0;
  let refreshId = 0;
  const tryPush = (k: number, t: number): boolean => {
    const op = ops[k]!.op;
    if (op.op === 'lookup') {
      if (!atc.req.canPush()) return false;
      atc.req.push(op.req);
      inChannel.push(k);
    } else if (op.op === 'refresh') {
      if (!atc.refreshIn.canPush()) return false;
      atc.refreshIn.push({ basePage: op.base, topPage: op.top, vp: op.vp, refreshId: ++refreshId });
      refreshes.push(k);
    } else if (op.op === 'preload') {
      if (!atc.preloadIn.canPush()) return false;
      atc.preloadIn.push(op.w);
      preloads.push(k);
    } else {
      att.write(op.page, op.pfn, op.valid, op.vp);
      return true;
    }
    if (ops[k]!.issue !== t) miss(k, `pushed in cycle ${t}, not ${ops[k]!.issue}: its channel was full (the ATC did not take earlier requests when due)`);
    return true;
  };
  for (let t = 0; t <= end + LATE_SLACK || waiting.length > 0; t++) {
    if (t > end + 100 * LATE_SLACK) break;
    // stimulus of cycle t: held-back operations first, in record order
    while (waiting.length > 0 && tryPush(waiting[0]!, t)) waiting.shift();
    while (next < ops.length && ops[next]!.issue === t) {
      if (waiting.length > 0 || !tryPush(next, t)) {
        if (waiting.length === 0) miss(next, `its channel was full in its issue cycle ${t}`);
        waiting.push(next);
      }
      next++;
    }
    const held0 = atc.req.held();
    const done0 = atc.refreshDone.q;
    sim.step(1);
    // accepted: the oldest requests left the channel
    for (let n = held0 - atc.req.held(); n > 0; n--) {
      const k = inChannel.shift()!;
      (ops[k]!.op as { seenAccept: number }).seenAccept = t;
    }
    for (let d = done0; d !== atc.refreshDone.q; d = (d + 1) >>> 0) {
      const k = refreshes[refreshSeen++];
      if (k === undefined) miss(records.length - 1, `the refresh-done register counted a refresh that was never requested (cycle ${t + 1})`);
      else (ops[k]!.op as { seenDone: number }).seenDone = t + 1;
    }
    while (preloads.length > 0 && (ops[preloads[0]!]!.op as { w: PreloadWrite }).w.result !== -1) (ops[preloads.shift()!]!.op as { seenApplied: number }).seenApplied = t;
    while (atc.resp.canPop()) {
      const r = atc.resp.pop();
      const k = r.tag;
      const op = k >= 0 && k < ops.length ? ops[k]!.op : null;
      if (op === null || op.op !== 'lookup' || op.req !== r) miss(op === null ? records.length - 1 : k, `a response with tag ${k} that is no outstanding lookup (cycle ${t + 1})`);
      else if (op.seenResp >= 0) miss(k, `answered twice (cycles ${op.seenResp} and ${t + 1})`);
      else op.seenResp = t + 1;
    }
  }
  const when = (seen: number, want: number): string => (seen < want ? 'early' : 'late');
  for (let k = 0; k < ops.length; k++) {
    const op = ops[k]!.op;
    if (op.op === 'lookup') {
      if (op.seenAccept < 0) miss(k, `cycles.accept: expected ${op.accept}, never taken from the request channel`);
      else if (op.seenAccept !== op.accept) miss(k, `cycles.accept: expected ${op.accept}, taken in cycle ${op.seenAccept} (${when(op.seenAccept, op.accept)})`);
      if (op.seenResp < 0) {
        miss(k, `cycles.resp: expected ${op.resp}, no response (lost)`);
        continue;
      }
      if (op.seenResp !== op.resp) miss(k, `cycles.resp: expected ${op.resp}, the response was visible in cycle ${op.seenResp} (${when(op.seenResp, op.resp)})`);
      const status = ATC_STATUS_NAMES[op.req.status] ?? String(op.req.status);
      if (status !== op.status) miss(k, `out.status: expected ${op.status}, got ${status}`);
      const pa = op.req.pa < 0 ? null : hexBits(op.req.pa);
      if (pa !== op.pa) miss(k, `out.pa: expected ${JSON.stringify(op.pa)}, got ${JSON.stringify(pa)}`);
    } else if (op.op === 'refresh') {
      if (op.seenDone < 0) miss(k, `cycles.done: expected ${op.done}, the done register never counted it`);
      else if (op.seenDone !== op.done) miss(k, `cycles.done: expected ${op.done}, the done register counted it in cycle ${op.seenDone} (${when(op.seenDone, op.done)})`);
      if (op.seenMode !== op.mode) miss(k, `out.mode: expected ${op.mode}, got ${op.seenMode || 'never started'}`);
    } else if (op.op === 'preload') {
      const got = op.w.result === 0 ? 'ok' : op.w.result === 1 ? 'rejected' : 'not taken';
      if (got !== op.result) miss(k, `out.result: expected ${op.result}, got ${got}`);
      if (op.seenApplied !== op.applied) miss(k, `cycles.applied: expected ${op.applied}, ${op.seenApplied < 0 ? 'never taken' : `taken in cycle ${op.seenApplied}`}`);
    }
  }
  return out;
}

const opCode: Record<string, bigint> = { lookup: 0n, att: 1n, refresh: 2n, preload: 3n };
const MODES = ['probe', 'sweep', 'buffer', 'bad'] as const;
const vpBits = (v: number): bigint => (v < 0 ? (1n << 17n) - 1n : BigInt(v));

export const block: VectorBlock<AtcRaceConfig> = {
  name: 'atc-race',
  description: 'NIC address translation cache under concurrency: merged misses, hits under misses, MSHR-full stalls, refreshes racing fills, buffer-mode races; cycle-exact',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig: (raw) => parseAtcVecConfig(raw, DEFAULTS, ['mshrTargets']),
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [
    {
      name: 'ops',
      layout: [
        { name: 'op', width: 2, codes: ['lookup', 'att', 'refresh', 'preload'] },
        { name: 'addr', width: 56 },
        { name: 'physical', width: 1 },
        { name: 'arg', width: 56 },
        { name: 'valid', width: 1 },
        { name: 'vp', width: 17 },
        { name: 'issue', width: 32 },
        { name: 'accept', width: 32 },
        { name: 'status', width: 3, codes: ATC_STATUS_NAMES },
        { name: 'pa_valid', width: 1 },
        { name: 'pa', width: 56 },
        { name: 'result', width: 1, codes: ['ok', 'rejected'] },
        { name: 'mode', width: 2, codes: MODES },
        { name: 'done', width: 32 },
      ],
      rows: (file: VectorFile) =>
        file.records.map((r) => {
          const i = new RecordReader(r, 'in');
          const o = new RecordReader(r, 'out');
          const c = new RecordReader(r, 'cycles');
          const op = i.str('op', Object.keys(opCode));
          const addr = op === 'lookup' ? i.hex('va', 56) : op === 'refresh' ? i.hex('base', 56) : i.hex('page', 56);
          const arg = op === 'refresh' ? i.hex('top', 56) : op === 'lookup' ? 0n : i.hex('pfn', 56);
          const vp = op === 'lookup' || op === 'preload' ? i.int('asid') : i.int('vp');
          const pa = o.json('pa');
          const result = op === 'preload' && o.str('result') === 'rejected' ? 1n : 0n;
          const mode = op === 'refresh' ? BigInt(MODES.indexOf(o.str('mode', MODES) as (typeof MODES)[number])) : 0n;
          const done = op === 'lookup' ? c.int('resp') : op === 'refresh' ? c.int('done') : op === 'preload' ? c.int('applied') : c.int('issue');
          return [
            opCode[op]!,
            addr,
            op === 'lookup' && i.bool('physical') ? 1n : 0n,
            arg,
            op === 'att' || op === 'preload' ? (i.bool('valid') ? 1n : 0n) : 0n,
            vpBits(vp),
            BigInt(c.int('issue')),
            op === 'lookup' ? BigInt(c.int('accept')) : 0n,
            op === 'lookup' ? BigInt(Math.max(0, ATC_STATUS_NAMES.indexOf(o.str('status') as never))) : 0n,
            typeof pa === 'string' ? 1n : 0n,
            typeof pa === 'string' ? BigInt(pa) : 0n,
            result,
            mode,
            BigInt(done),
          ];
        }),
    },
  ],
};
