/**
 * Golden vectors for the ATC (docs/nic-memory.md). Cycle-exact, serial stimulus: each operation is
 * issued after the previous one has completed, with a fixed PCIe read latency (no jitter), so every
 * response and its cycle follow from the documented latencies.
 *
 * Records:
 * - lookup: in {op: "lookup", va: hex, physical}; out {status: hit|miss|bypass|fault|error,
 *   pa: hex | null, evicted: hex page | null (the page the miss's fill replaced)};
 *   cycles {issue (pushed on the request channel), resp (response visible)}.
 * - att: in {op: "att", page: hex, pfn: hex, valid}; out {}; cycles {issue}: software writes the
 *   host-memory ATT entry (not the ATC) before cycle `issue` is simulated.
 * - refresh: in {op: "refresh", base: hex page, top: hex page}; out {mode: probe|sweep|buffer|bad};
 *   cycles {issue (pushed on the refresh channel), done (refresh-done register visible)}.
 * - preload (buffer mode): in {op: "preload", page: hex, pfn: hex, valid}; out {result: ok|rejected};
 *   cycles {issue}.
 *
 * Expected values come from the serial golden model (models/nic/atcModel.ts): hit/bypass/error/buffer
 * lookups take hitLatency cycles from acceptance (issue + 1), misses readLatency + 1, a refresh
 * `cycles` after its acceptance.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ATC_STATUS_NAMES, type AtcConfig, atcConfig, AtcReq, type AtcWithHost, buildAtcWithHost, PreloadWrite } from '../../rtl/nic/atc/index.ts';
import { AtcSerialModel, type AtcModelConfig } from '../../models/nic/atcModel.ts';
import { hexBits, type Json, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import { checkShape, type RecordShape } from '../fields.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export interface AtcVecConfig {
  entries: number;
  ways: number;
  replacement: 'lru' | 'plru';
  hitLatency: number;
  mshrs: number;
  mode: 'cache' | 'buffer';
  bufferBasePage: number;
  /** -1: the number of sets */
  refreshProbeMax: number;
  readLatency: number;
  vaBits: number;
  paBits: number;
}

const DEFAULTS: AtcVecConfig = { entries: 64, ways: 4, replacement: 'lru', hitLatency: 4, mshrs: 4, mode: 'cache', bufferBasePage: 0x100, refreshProbeMax: -1, readLatency: 40, vaBits: 48, paBits: 48 };
const INT_KEYS = ['entries', 'ways', 'hitLatency', 'mshrs', 'bufferBasePage', 'refreshProbeMax', 'readLatency', 'vaBits', 'paBits'] as const;

/** The golden models' view of a vector configuration (the probe crossover resolved). */
export function resolved(cfg: AtcVecConfig): AtcModelConfig {
  return {
    entries: cfg.entries,
    ways: cfg.ways,
    policy: cfg.replacement,
    mode: cfg.mode,
    bufferBasePage: cfg.bufferBasePage,
    hitLatency: cfg.hitLatency,
    readLatency: cfg.readLatency,
    refreshProbeMax: cfg.refreshProbeMax < 0 ? cfg.entries / cfg.ways : cfg.refreshProbeMax,
    vaBits: cfg.vaBits,
    paBits: cfg.paBits,
  };
}

const hexOrNull = (v: number | null): Json => (v === null ? null : hexBits(v));

function generate(cfg: AtcVecConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const mc = resolved(cfg);
  const model = new AtcSerialModel(mc);
  const rng = new Rng(seed);
  const sets = cfg.entries / cfg.ways;
  const topPage = 2 ** (cfg.vaBits - 12) - 1;
  const base = cfg.mode === 'buffer' ? cfg.bufferBasePage : 0x100;
  // pages: a pool a little larger than the cache (conflicts and evictions), plus extremes
  const pool = (): number => (rng.int(16) === 0 ? [topPage, topPage - sets, 0, base + 3 * cfg.entries][rng.int(4)]! : base + rng.int(cfg.entries + 2 * cfg.ways + 1));
  const records: VectorRecord[] = [];
  let t = 0;
  let frame = 0x100000;
  const lookup = (va: number, physical: boolean): void => {
    const m = model.lookup(va, physical);
    const resp = t + 1 + m.latency;
    records.push({ id: records.length, in: { op: 'lookup', va: hexBits(va), physical }, out: { status: m.status, pa: hexOrNull(m.pa), evicted: hexOrNull(m.evicted) }, cycles: { issue: t, resp } });
    t = resp + rng.int(3);
  };
  const att = (page: number, valid: boolean): void => {
    const f = frame++;
    model.attWrite(page, f, valid);
    records.push({ id: records.length, in: { op: 'att', page: hexBits(page), pfn: hexBits(f), valid }, out: {}, cycles: { issue: t } });
    t += rng.int(2);
  };
  const refresh = (lo: number, hi: number): void => {
    const m = model.refresh(lo, hi);
    const done = t + 1 + m.cycles;
    records.push({ id: records.length, in: { op: 'refresh', base: hexBits(lo), top: hexBits(hi) }, out: { mode: m.mode }, cycles: { issue: t, done } });
    t = done + rng.int(3);
  };
  const preload = (page: number, valid: boolean): void => {
    const f = frame++;
    const r = model.preload(page, f, valid);
    records.push({ id: records.length, in: { op: 'preload', page: hexBits(page), pfn: hexBits(f), valid }, out: { result: r }, cycles: { issue: t } });
    t += 2 + rng.int(2); // taken by the ATC in issue + 1; the testbench reads the result in issue + 2
  };
  // corner cases
  const corners: (() => void)[] = [];
  if (cfg.mode === 'buffer') {
    for (let i = 0; i < 4; i++) corners.push(() => preload(base + i, true));
    corners.push(() => preload(base + cfg.entries, true)); // outside: rejected
    corners.push(() => lookup(base * 4096 + 5, false));
    corners.push(() => lookup((base + 5) * 4096, false)); // not loaded: fault
  } else {
    const p = base;
    corners.push(() => lookup(p * 4096 + 1, false)); // cold miss
    corners.push(() => lookup(p * 4096 + 2, false)); // hit
    for (let k = 1; k <= cfg.ways; k++) corners.push(() => lookup((p + k * sets) * 4096, false)); // fill the set, evict
    corners.push(() => lookup(p * 4096, false));
    corners.push(() => att(p + sets, false));
    corners.push(() => refresh(p + sets, p + sets)); // probe one page
    corners.push(() => lookup((p + sets) * 4096, false)); // now invalid in the ATT: fault
    corners.push(() => att(p, true));
    corners.push(() => refresh(0, topPage)); // everything: sweep
    corners.push(() => lookup(p * 4096 + 3, false)); // refilled with the new frame
  }
  corners.push(() => lookup(0x1234567, true)); // bypass
  corners.push(() => lookup(2 ** cfg.vaBits, false)); // bad address
  corners.push(() => lookup(2 ** cfg.vaBits - 1, false)); // highest address
  corners.push(() => refresh(10, 5)); // malformed
  while (records.length < count) {
    produced?.(records.length);
    const c = corners.shift();
    if (c) {
      c();
      continue;
    }
    const x = rng.int(100);
    if (x < 75) lookup(pool() * 4096 + rng.int(4096), rng.int(40) === 0);
    else if (x < 82) lookup(rng.int(30) === 0 ? 2 ** cfg.vaBits + rng.int(1000) : rng.int(2 ** 30) * 4096, rng.int(2) === 0);
    else if (x < 90) {
      if (cfg.mode === 'buffer') preload(pool(), rng.int(8) !== 0);
      else att(pool(), rng.int(8) !== 0);
    } else {
      const lo = pool();
      const big = rng.int(3) === 0;
      refresh(lo, big ? lo + sets * 4 + rng.int(100) : lo + rng.int(3));
    }
  }
  produced?.(count);
  return records.slice(0, count);
}

const SHAPES: Record<string, RecordShape> = {
  lookup: { in: ['op', 'va', 'physical'], out: ['status', 'pa', 'evicted'], cycles: ['issue', 'resp'] },
  att: { in: ['op', 'page', 'pfn', 'valid'], out: [], cycles: ['issue'] },
  refresh: { in: ['op', 'base', 'top'], out: ['mode'], cycles: ['issue', 'done'] },
  preload: { in: ['op', 'page', 'pfn', 'valid'], out: ['result'], cycles: ['issue'] },
};
/** cycles a replayer waits past the expected cycle before calling a response or done register missing */
const LATE_SLACK = 64;

/**
 * Replays the records through the RTL. Expectations come from the vector alone: the testbench
 * steps the design one cycle at a time and observes when a response becomes poppable (the cycle
 * it is visible) and when the refresh-done register changes; a response earlier or later than
 * `cycles.resp`, a second response, or none within LATE_SLACK cycles of the expected cycle is a
 * mismatch (the RTL's own doneCycle field is not trusted). Records are checked for unknown and
 * missing fields first (InputError naming the line).
 */
function replay(cfg: AtcVecConfig, records: VectorRecord[]): ReplayOutcome[] {
  for (const rec of records) {
    const op = new RecordReader(rec, 'in').str('op', Object.keys(SHAPES));
    checkShape(rec, op, SHAPES[op]!);
  }
  const sim = new Simulator();
  const { atc, att } = buildVecAtc(sim, cfg, {});
  let evicted: number | null = null;
  let mode = '';
  atc.monitor = {
    install: (_t, _p, _f, _w, e) => {
      evicted = e < 0 ? null : e;
    },
    refreshStart: (_t, _b, _top, _id, m) => {
      mode = m;
    },
  };
  const out: ReplayOutcome[] = [];
  let refreshes = 0;
  /** one cycle; returns the responses that became poppable (the testbench pops every cycle) */
  const cycle = (): AtcReq[] => {
    sim.step(1);
    const got: AtcReq[] = [];
    while (atc.resp.canPop()) got.push(atc.resp.pop());
    return got;
  };
  for (const rec of records) {
    const o: ReplayOutcome = { id: rec.id, ok: true, mismatches: [] };
    out.push(o);
    const miss = (m: string): void => {
      o.ok = false;
      o.mismatches.push(m);
    };
    try {
      const i = new RecordReader(rec, 'in');
      const exp = new RecordReader(rec, 'out');
      const cy = new RecordReader(rec, 'cycles');
      const issue = cy.int('issue', 0);
      if (sim.cycle > issue) {
        miss(`cycles.issue: ${issue} is before the previous operation finished (cycle ${sim.cycle})`);
        continue;
      }
      // nothing may come out between operations (a late or duplicated response of an earlier one)
      while (sim.cycle < issue) for (const extra of cycle()) miss(`unexpected response (tag ${extra.tag}) in cycle ${sim.cycle} while idle: answered twice or late`);
      const op = i.str('op', Object.keys(SHAPES));
      if (op === 'lookup') {
        const r = new AtcReq();
        r.va = Number(i.hex('va', 64));
        r.physical = i.bool('physical');
        r.tag = rec.id;
        evicted = null;
        atc.req.push(r);
        const want = cy.int('resp', issue + 1);
        let seen = -1;
        while (sim.cycle < want + LATE_SLACK && seen < 0) {
          for (const got of cycle()) {
            if (got !== r) miss(`response for another request (tag ${got.tag}) in cycle ${sim.cycle}`);
            else if (seen >= 0) miss(`answered twice (cycles ${seen} and ${sim.cycle})`);
            else seen = sim.cycle;
          }
        }
        if (seen < 0) {
          miss(`cycles.resp: expected ${want}, no response by cycle ${sim.cycle}`);
          continue;
        }
        if (seen !== want) miss(`cycles.resp: expected ${want}, the response was visible in cycle ${seen} (${seen < want ? 'early' : 'late'})`);
        const status = ATC_STATUS_NAMES[r.status] ?? String(r.status);
        if (status !== exp.str('status')) miss(`out.status: expected ${exp.str('status')}, got ${status}`);
        const pa = r.pa < 0 ? null : hexBits(r.pa);
        if (pa !== exp.json('pa')) miss(`out.pa: expected ${JSON.stringify(exp.json('pa'))}, got ${JSON.stringify(pa)}`);
        if (hexOrNull(evicted) !== exp.json('evicted')) miss(`out.evicted: expected ${JSON.stringify(exp.json('evicted'))}, got ${JSON.stringify(hexOrNull(evicted))}`);
      } else if (op === 'att') {
        att.write(Number(i.hex('page', 64)), Number(i.hex('pfn', 64)), i.bool('valid'));
      } else if (op === 'refresh') {
        const want = cy.int('done', issue + 1);
        mode = '';
        const before = atc.refreshDone.q;
        atc.refreshIn.push({ basePage: Number(i.hex('base', 64)), topPage: Number(i.hex('top', 64)), refreshId: ++refreshes });
        let seen = -1;
        while (seen < 0 && sim.cycle < want + LATE_SLACK) {
          for (const extra of cycle()) miss(`unexpected response (tag ${extra.tag}) during a refresh`);
          if (atc.refreshDone.q !== before) seen = sim.cycle;
        }
        if (seen < 0) miss(`cycles.done: expected ${want}, the done register did not change by cycle ${sim.cycle}`);
        else {
          if (seen !== want) miss(`cycles.done: expected ${want}, the done register changed in cycle ${seen} (${seen < want ? 'early' : 'late'})`);
          if (atc.refreshDone.q !== before + 1) miss(`refresh-done register went from ${before} to ${atc.refreshDone.q}, expected ${before + 1}`);
        }
        if (mode !== exp.str('mode')) miss(`out.mode: expected ${exp.str('mode')}, got ${mode}`);
      } else {
        const w = new PreloadWrite();
        w.page = Number(i.hex('page', 64));
        w.pfn = Number(i.hex('pfn', 64));
        w.valid = i.bool('valid');
        atc.preloadIn.push(w);
        for (let k = 0; k < 2; k++) for (const extra of cycle()) miss(`unexpected response (tag ${extra.tag}) after a preload`);
        const r = w.result === 0 ? 'ok' : w.result === 1 ? 'rejected' : 'not taken';
        if (r !== exp.str('result')) miss(`out.result: expected ${exp.str('result')}, got ${r}`);
      }
    } catch (e) {
      miss((e as Error).message);
    }
  }
  // a response after the last operation is a duplicate or a late one
  for (let k = 0; k < LATE_SLACK; k++) for (const extra of cycle()) if (out.length > 0) {
    const last = out[out.length - 1]!;
    last.ok = false;
    last.mismatches.push(`unexpected response (tag ${extra.tag}) in cycle ${sim.cycle} after the last operation`);
  }
  return out;
}

/** The RTL under test for a vector configuration: an ATC with its host memory, no jitter. */
export function buildVecAtc(sim: Simulator, cfg: AtcVecConfig, extra: Partial<AtcConfig>): AtcWithHost {
  const { entries, ways, replacement, hitLatency, mshrs, mode, bufferBasePage, refreshProbeMax, vaBits, paBits } = cfg;
  return buildAtcWithHost(sim, { entries, ways, replacement, hitLatency, mshrs, mode, bufferBasePage, refreshProbeMax, vaBits, paBits, ...extra }, { readLatency: cfg.readLatency, jitter: 0 });
}

function intField(raw: { [k: string]: Json }, k: string): number {
  const v = raw[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InputError(`config.${k} must be an integer, got ${JSON.stringify(v)}`);
  return v;
}

/**
 * Validates a vector header's ATC configuration (shared by the serial and the race vectors):
 * unknown fields, integers, replacement and mode names, and the ATC's own limits, each an
 * InputError naming the field. `extraInts` are further integer fields of a block's config.
 */
export function parseAtcVecConfig<C extends AtcVecConfig>(raw: { [k: string]: Json }, defaults: C, extraInts: readonly (keyof C & string)[]): C {
  const ints: readonly string[] = [...INT_KEYS, ...extraInts];
  const known = [...ints, 'replacement', 'mode'];
  for (const k of Object.keys(raw)) if (!known.includes(k)) throw new InputError(`config: unknown field '${k}' (fields: ${known.join(', ')})`);
  const c: C = { ...defaults };
  const cr = c as unknown as Record<string, unknown>;
  for (const k of ints) if (raw[k] !== undefined) cr[k] = intField(raw, k);
  if (raw.replacement !== undefined) {
    if (raw.replacement !== 'lru' && raw.replacement !== 'plru') throw new InputError(`config.replacement must be "lru" or "plru", got ${JSON.stringify(raw.replacement)}`);
    c.replacement = raw.replacement;
  }
  if (raw.mode !== undefined) {
    if (raw.mode !== 'cache' && raw.mode !== 'buffer') throw new InputError(`config.mode must be "cache" or "buffer", got ${JSON.stringify(raw.mode)}`);
    c.mode = raw.mode;
  }
  try {
    atcConfig({ ...c });
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  if (c.readLatency < 2 || c.readLatency > 100000) throw new InputError(`config.readLatency must be in [2, 100000], got ${c.readLatency}`);
  if (c.entries > 1 << 20) throw new InputError('config.entries must be at most 1048576 for vectors');
  return c;
}

const opCode: Record<string, bigint> = { lookup: 0n, att: 1n, refresh: 2n, preload: 3n };
const statusCode = (s: Json | undefined): bigint => BigInt(Math.max(0, ATC_STATUS_NAMES.indexOf(s as never)));

export const block: VectorBlock<AtcVecConfig> = {
  name: 'atc',
  description: 'NIC address translation cache: serial lookups, ATT updates, refreshes (and buffer preloads), cycle-exact',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig: (raw) => parseAtcVecConfig(raw, DEFAULTS, []),
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [
    {
      name: 'ops',
      layout: [
        { name: 'op', width: 2, codes: Object.entries(opCode).sort((x, y) => Number(x[1] - y[1])).map(([n]) => n) }, // by code: the package's ATC_OPS_OP_*
        { name: 'addr', width: 56 },
        { name: 'physical', width: 1 },
        { name: 'arg', width: 56 },
        { name: 'valid', width: 1 },
        { name: 'issue', width: 32 },
        { name: 'status', width: 3, codes: ATC_STATUS_NAMES },
        { name: 'pa', width: 56 },
        { name: 'evicted_valid', width: 1 },
        { name: 'evicted', width: 40 },
        { name: 'done', width: 32 },
      ],
      rows: (file: VectorFile) =>
        file.records.map((r) => {
          const i = new RecordReader(r, 'in');
          const o = new RecordReader(r, 'out');
          const c = new RecordReader(r, 'cycles');
          const op = i.str('op', ['lookup', 'att', 'refresh', 'preload']);
          const addr = op === 'lookup' ? i.hex('va', 56) : op === 'refresh' ? i.hex('base', 56) : i.hex('page', 56);
          const arg = op === 'refresh' ? i.hex('top', 56) : op === 'lookup' ? 0n : i.hex('pfn', 56);
          const pa = o.json('pa');
          const ev = o.json('evicted');
          const done = op === 'lookup' ? c.int('resp') : op === 'refresh' ? c.int('done') : c.int('issue');
          return [
            opCode[op]!,
            addr,
            op === 'lookup' && i.bool('physical') ? 1n : 0n,
            arg,
            op === 'att' || op === 'preload' ? (i.bool('valid') ? 1n : 0n) : 0n,
            BigInt(c.int('issue')),
            op === 'lookup' ? statusCode(o.json('status')) : 0n,
            typeof pa === 'string' ? BigInt(pa) : 0n,
            typeof ev === 'string' ? 1n : 0n,
            typeof ev === 'string' ? BigInt(ev) : 0n,
            BigInt(done),
          ];
        }),
    },
  ],
};
