/**
 * Golden vectors for the memory checker (docs/nic-memory.md). Cycle-exact.
 *
 * Records, in the order the testbench drives them (by issue cycle):
 * - item write: in {op: "write", index, valid, key: hex, read, write, base: hex page, top: hex page,
 *   vp, physical, refresh}; out {result: "ok" | "bad_index" | "bad_field"}; cycles {issue, applied}.
 *   The testbench pushes it on the write port in cycle `issue`; the checker takes it in `applied`.
 * - check: in {op: "check", source, item, key: hex, va: hex, len: hex, access: "read" | "write",
 *   req_vp (-1: none), physical}; out {reason, vp, pages}; cycles {issue, grant, resp}. Pushed on
 *   the source's request channel in `issue`; granted by the arbiter in `grant`; the verdict is
 *   visible (poppable) in `resp`.
 * The testbench pops every response as soon as it is visible; the replayer observes that cycle
 * (it does not trust the checker's doneCycle field), and a verdict early, late, twice or never is
 * a mismatch. Unknown or missing record fields are an input error naming the line.
 *
 * Expected values come from the golden checker model (models/nic/memcheckModel.ts) and an
 * independent cycle model of the request channels and the round-robin arbiter written here from
 * the documented timing: a request pushed in cycle i is visible from i + 1; each cycle the
 * arbiter grants the first visible source at or after the one following the last grantee; a check
 * granted in g sees the item writes taken in cycles < g and its verdict is visible in g + latency;
 * a write pushed in i is taken in i + 1 (one per cycle).
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { ItemWrite, MC_REASON_NAMES, MC_WRITE_RESULT_NAMES, MemChecker, MemCheckReq, memCheckConfig, type MemCheckConfig } from '../../rtl/nic/memcheck/index.ts';
import { MemCheckerModel, type ModelItem, RoundRobinModel } from '../../models/nic/memcheckModel.ts';
import { hexBits, type Json, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import { checkShape, type RecordShape } from '../fields.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';
import { codeOf } from '../readmemh.ts';

/** the vector header's block configuration: the checker's own parameters */
export type McVecConfig = MemCheckConfig;

const DEFAULTS: McVecConfig = { items: 64, sources: 5, latency: 3, vaBits: 48, maxLen: 2 ** 32, reqCapacity: 2 };

function cfgInt(raw: { [k: string]: Json }, k: keyof McVecConfig): number {
  const v = raw[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InputError(`config.${k} must be an integer, got ${JSON.stringify(v)}`);
  return v;
}

interface CheckIn {
  source: number;
  item: number;
  key: number;
  va: number;
  len: number;
  write: boolean;
  reqVp: number;
  physical: boolean;
}

interface WriteIn extends ModelItem {
  index: number;
  refresh: boolean;
}

type Stim = { kind: 'check'; c: CheckIn } | { kind: 'write'; w: WriteIn };

/** Stimulus source: corner cases first, then random traffic biased toward items that were written. */
class Stimulus {
  private readonly rng: Rng;
  private readonly written: Map<number, ModelItem> = new Map();
  private corner = 0;
  private readonly top: number;

  constructor(
    private readonly cfg: McVecConfig,
    seed: number,
  ) {
    this.rng = new Rng(seed);
    this.top = 2 ** (cfg.vaBits - 12) - 1;
  }

  private item(i: number, p: Partial<WriteIn>): WriteIn {
    const w: WriteIn = { index: i, valid: true, key: 0x1000 + i, read: true, write: true, basePage: 0x100 * (i + 1), topPage: 0x100 * (i + 1) + 3, vp: i % 40, refresh: false, ...p };
    return w;
  }

  /** Writes that set up the corner-case items; valid writes are remembered. */
  setupWrites(): WriteIn[] {
    const n = this.cfg.items;
    const ws = [
      this.item(0, {}),
      this.item(1 % n, { write: false }), // read only
      this.item(2 % n, { read: false }), // write only
      this.item(3 % n, { valid: false }), // invalid
      this.item(4 % n, { basePage: this.top - 1, topPage: this.top, key: 0xffffffff }), // top of the address space
      this.item(5 % n, { basePage: 0, topPage: 0 }),
      { ...this.item(0, {}), index: n }, // bad index
      this.item(6 % n, { key: 2 ** 32 }), // bad key
      this.item(6 % n, { topPage: 0x100 }), // top below base
      this.item(6 % n, { vp: 70000 }), // bad vp
      this.item(7 % n, { refresh: true }),
    ];
    for (const w of ws) this.note(w);
    return ws;
  }

  note(w: WriteIn): void {
    if (w.index >= 0 && w.index < this.cfg.items && w.key < 2 ** 32 && w.topPage >= w.basePage && w.vp <= 0xffff) this.written.set(w.index, w);
  }

  /** The corner-case checks (each against the setup items). */
  cornerChecks(): CheckIn[] {
    const n = this.cfg.items;
    const top = 2 ** this.cfg.vaBits;
    const it0 = this.item(0, {});
    const b0 = it0.basePage * 4096;
    const span = (it0.topPage - it0.basePage + 1) * 4096;
    const c = (p: Partial<CheckIn>): CheckIn => ({ source: 0, item: 0, key: it0.key, va: b0, len: 64, write: false, reqVp: -1, physical: false, ...p });
    return [
      c({ len: span }), // exactly the item
      c({ len: span + 1 }), // one byte past the top page
      c({ va: b0 - 1, len: 2 }), // one byte below the base page
      c({ va: b0 + span - 1, len: 1 }), // last byte
      c({ len: 0 }), // zero length
      c({ va: top - 4, len: 5 }), // wraps past the top of the address space
      c({ item: n }), // item out of range
      c({ key: it0.key + 1 }), // key mismatch
      c({ item: 1 % n, key: 0x1001, va: 0x200 * 4096, write: true }), // read-only item, write access
      c({ item: 2 % n, key: 0x1002, va: 0x300 * 4096 }), // write-only item, read access
      c({ item: 3 % n, key: 0x1003, va: 0x400 * 4096 }), // invalid item
      c({ item: 4 % n, key: 0xffffffff, va: top - 4096, len: 4096 }), // ends exactly at the top
      c({ item: 4 % n, key: 0xffffffff, va: top - 8192, len: 8192, write: true }),
      c({ len: this.cfg.maxLen + 1 }), // longer than allowed
      c({ va: top }), // address beyond the address space
      c({ item: 5 % n, key: 0x1005, va: 0, len: 4096 }),
      c({ reqVp: it0.vp }), // the owning VP
      c({ reqVp: it0.vp + 1 }), // another VP
      c({ reqVp: 65536 }), // not a VP
      c({ physical: true }), // physical request, virtual item
      c({ len: 3 * 4096 }), // three pages
    ];
  }

  nextCorner(): CheckIn | null {
    const cs = this.cornerChecks();
    return this.corner < cs.length ? cs[this.corner++]! : null;
  }

  randomWrite(): WriteIn {
    const r = this.rng;
    const n = this.cfg.items;
    const base = r.int(4) === 0 ? Math.floor(r.float() * 2 ** (this.cfg.vaBits - 12)) : 0x100 * (1 + r.int(n));
    const w: WriteIn = {
      index: r.int(20) === 0 ? n + r.int(4) : r.int(Math.min(n, 16)),
      valid: r.int(6) !== 0,
      key: r.int(4) === 0 ? r.u32() : 0x1000 + r.int(16),
      read: r.int(5) !== 0,
      write: r.int(3) !== 0,
      basePage: base,
      topPage: Math.min(base + r.int(16), 2 ** (this.cfg.vaBits - 12) - 1),
      vp: r.int(40),
      physical: r.int(8) === 0,
      refresh: r.bool(0.3),
    };
    if (r.int(25) === 0) w.topPage = Math.max(0, w.basePage - 1 - r.int(3)); // may be below base
    this.note(w);
    return w;
  }

  randomCheck(source: number): CheckIn {
    const r = this.rng;
    const keys = [...this.written.keys()].sort((a, b) => a - b);
    const item = keys.length > 0 && r.int(8) !== 0 ? keys[r.int(keys.length)]! : r.int(this.cfg.items + 2);
    const it = this.written.get(item);
    const key = it && r.int(8) !== 0 ? it.key : r.u32();
    const base = it ? it.basePage : r.int(64);
    const pages = it ? it.topPage - it.basePage + 1 : 4;
    const start = base * 4096 + r.int(pages * 4096 + 256) - (r.int(10) === 0 ? 128 : 0);
    const len = r.int(6) === 0 ? 1 + r.int(pages * 4096) : 1 + r.int(512);
    const vpPick = r.int(8);
    const reqVp = vpPick < 4 ? -1 : vpPick < 7 && it ? it.vp : r.int(40);
    const physical = it && r.int(10) !== 0 ? (it.physical ?? false) : r.bool(0.2);
    return { source, item, key, va: Math.max(0, Math.min(start, 2 ** this.cfg.vaBits - 1)), len, write: r.bool(it ? (it.write && !it.read ? 0.9 : 0.3) : 0.5), reqVp, physical };
  }

  /** Per-cycle traffic decisions. */
  wantsWrite(): boolean {
    return this.rng.int(12) === 0;
  }
  wantsCheck(source: number, cycle: number): boolean {
    // sources take turns being busy so the arbiter sees every mix of requesters
    const phase = (cycle >> 4) % (this.cfg.sources + 1);
    return this.rng.int(4) !== 0 && (phase === this.cfg.sources || phase !== source);
  }
}

interface Pending {
  rec: VectorRecord;
  c: CheckIn;
  visible: number;
}

function generate(cfg: McVecConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const stim = new Stimulus(cfg, seed);
  const model = new MemCheckerModel(cfg.items, cfg.vaBits, cfg.maxLen);
  const rr = new RoundRobinModel(cfg.sources);
  const queues: Pending[][] = Array.from({ length: cfg.sources }, () => []);
  const popped: number[] = new Array<number>(cfg.sources).fill(0);
  const pushes: number[][] = Array.from({ length: cfg.sources }, () => []);
  const writesDue: { rec: VectorRecord; w: WriteIn; at: number }[] = [];
  const records: VectorRecord[] = [];
  const setup = stim.setupWrites();
  let t = 0;
  const canPush = (s: number): boolean => {
    // producer view: pushes so far minus pops up to the previous cycle
    const pops = popped[s]!;
    return pushes[s]!.length - pops < cfg.reqCapacity;
  };
  while (records.length < count || queues.some((q) => q.length > 0) || writesDue.length > 0) {
    // ---- testbench pushes in cycle t
    if (records.length < count) {
      let w: WriteIn | null = null;
      if (setup.length > 0) w = setup.shift()!;
      else if (stim.wantsWrite()) w = stim.randomWrite();
      if (w) {
        const rec: VectorRecord = {
          id: records.length,
          in: { op: 'write', index: w.index, valid: w.valid, key: hexBits(w.key), read: w.read, write: w.write, base: hexBits(w.basePage), top: hexBits(w.topPage), vp: w.vp, physical: w.physical ?? false, refresh: w.refresh },
          out: {},
          cycles: { issue: t, applied: t + 1 },
        };
        records.push(rec);
        produced?.(records.length);
        writesDue.push({ rec, w, at: t + 1 });
      }
      for (let s = 0; s < cfg.sources && records.length < count; s++) {
        if (setup.length > 0 || !canPush(s)) continue;
        let c: CheckIn | null = null;
        if (s === 0) c = stim.nextCorner();
        if (c === null && stim.wantsCheck(s, t)) c = stim.randomCheck(s);
        if (c === null) continue;
        c.source = s;
        const rec: VectorRecord = {
          id: records.length,
          in: { op: 'check', source: s, item: c.item, key: hexBits(c.key), va: hexBits(c.va), len: hexBits(c.len), access: c.write ? 'write' : 'read', req_vp: c.reqVp, physical: c.physical },
          out: {},
          cycles: { issue: t },
        };
        records.push(rec);
        produced?.(records.length);
        queues[s]!.push({ rec, c, visible: t + 1 });
        pushes[s]!.push(t);
      }
    }
    // ---- the checker in cycle t: arbitration and check against the table as of the cycle start
    const req = queues.map((q) => q.length > 0 && q[0]!.visible <= t);
    const g = rr.pick(req);
    if (g >= 0) {
      const p = queues[g]!.shift()!;
      popped[g]!++;
      const v = model.check(p.c);
      // pages: what a passing check spans (the translations a connected ATC would get)
      const pages = v.reason === 'ok' ? Number((BigInt(p.c.va) + BigInt(p.c.len) - 1n) / 4096n - BigInt(p.c.va) / 4096n + 1n) : 0;
      p.rec.out = { reason: v.reason, vp: v.vp, pages };
      p.rec.cycles = { ...p.rec.cycles, grant: t, resp: t + cfg.latency };
    }
    // item writes taken in this cycle become visible to grants from t + 1
    while (writesDue.length > 0 && writesDue[0]!.at === t) {
      const d = writesDue.shift()!;
      d.rec.out = { result: model.write(d.w.index, d.w) };
    }
    t++;
    if (t > 10_000_000) throw new Error('memcheck vector generator did not finish');
  }
  return records;
}

const SHAPES: Record<string, RecordShape> = {
  check: { in: ['op', 'source', 'item', 'key', 'va', 'len', 'access', 'req_vp', 'physical'], out: ['reason', 'vp', 'pages'], cycles: ['issue', 'grant', 'resp'] },
  write: { in: ['op', 'index', 'valid', 'key', 'read', 'write', 'base', 'top', 'vp', 'physical', 'refresh'], out: ['result'], cycles: ['issue', 'applied'] },
};

function replay(cfg: McVecConfig, records: VectorRecord[]): ReplayOutcome[] {
  for (const rec of records) {
    const op = new RecordReader(rec, 'in').str('op', Object.keys(SHAPES));
    checkShape(rec, op, SHAPES[op]!);
  }
  const sim = new Simulator();
  const mc = new MemChecker(sim, 'memcheck', cfg);
  const out: ReplayOutcome[] = records.map((r) => ({ id: r.id, ok: true, mismatches: [] }));
  const miss = (id: number, m: string): void => {
    out[id]!.ok = false;
    out[id]!.mismatches.push(m);
  };
  // decode first (bad records are reported, not driven)
  const stim: { id: number; issue: number; check?: MemCheckReq; write?: ItemWrite }[] = [];
  for (const r of records) {
    try {
      const i = new RecordReader(r, 'in');
      const cy = new RecordReader(r, 'cycles');
      const issue = cy.int('issue', 0);
      const op = i.str('op', ['check', 'write']);
      if (op === 'check') {
        const q = new MemCheckReq();
        q.tag = r.id;
        const src = i.int('source', 0, cfg.sources - 1);
        q.source = src;
        q.item = i.int('item', 0);
        q.key = Number(i.hex('key', 64));
        q.va = Number(i.hex('va', 64));
        q.len = Number(i.hex('len', 64));
        q.write = i.str('access', ['read', 'write']) === 'write';
        q.reqVp = i.int('req_vp', -1, 2 ** 32);
        q.physical = i.bool('physical');
        stim.push({ id: r.id, issue, check: q });
      } else {
        const w = new ItemWrite();
        w.index = i.int('index');
        w.valid = i.bool('valid');
        w.key = Number(i.hex('key', 64));
        w.read = i.bool('read');
        w.write = i.bool('write');
        w.basePage = Number(i.hex('base', 64));
        w.topPage = Number(i.hex('top', 64));
        w.vp = i.int('vp');
        w.physical = i.bool('physical');
        w.refresh = i.bool('refresh');
        stim.push({ id: r.id, issue, write: w });
      }
    } catch (e) {
      miss(r.id, (e as Error).message);
    }
  }
  stim.sort((a, b) => a.issue - b.issue || a.id - b.id);
  const expectFifo: MemCheckReq[][] = Array.from({ length: cfg.sources }, () => []);
  /** the cycle each verdict was seen by the testbench (it pops every verdict as soon as it is visible) */
  const seenAt = new Map<MemCheckReq, number>();
  const writes: { id: number; w: ItemWrite }[] = [];
  const last = stim.length > 0 ? stim[stim.length - 1]!.issue : 0;
  let k = 0;
  const finish = (): boolean => k >= stim.length && expectFifo.every((q) => q.length === 0) && writes.every((x) => x.w.result !== -1);
  const pop = (): void => {
    for (let s = 0; s < cfg.sources; s++) {
      const ch = mc.respOut[s]!;
      while (ch.canPop()) {
        const r = ch.pop();
        if (seenAt.has(r)) {
          miss(r.tag, `verdict returned twice (cycles ${seenAt.get(r)} and ${sim.cycle})`);
          continue;
        }
        seenAt.set(r, sim.cycle);
        const want = expectFifo[s]!.shift();
        if (want !== r) miss(r.tag, `verdict out of order on source ${s}`);
      }
    }
  };
  for (let guard = 0; sim.cycle <= last + 100000 && !finish(); guard++) {
    while (k < stim.length && stim[k]!.issue === sim.cycle) {
      const s = stim[k++]!;
      if (s.check) {
        const ch = mc.reqIn[s.check.source]!;
        if (!ch.canPush()) {
          miss(s.id, `cycles.issue: source ${s.check.source} request channel full in cycle ${sim.cycle}`);
          continue;
        }
        expectFifo[s.check.source]!.push(s.check);
        ch.push(s.check);
      } else if (s.write) {
        if (!mc.writeIn.canPush()) {
          miss(s.id, `cycles.issue: write port full in cycle ${sim.cycle}`);
          continue;
        }
        writes.push({ id: s.id, w: s.write });
        mc.writeIn.push(s.write);
      }
    }
    if (k < stim.length && stim[k]!.issue < sim.cycle) {
      miss(stim[k]!.id, `records not in issue order`);
      k++;
      continue;
    }
    sim.step(1);
    pop();
  }
  // anything more after the end is a duplicate
  for (let i = 0; i < 2 * cfg.latency + 4; i++) {
    sim.step(1);
    pop();
  }
  const byId = new Map<number, VectorRecord>(records.map((r) => [r.id, r]));
  for (const s of stim) {
    const rec = byId.get(s.id)!;
    const o = new RecordReader(rec, 'out');
    const cy = new RecordReader(rec, 'cycles');
    try {
      if (s.check) {
        const q = s.check;
        const seen = seenAt.get(q);
        if (seen === undefined) {
          miss(s.id, `cycles.resp: expected ${cy.int('resp')}, no verdict (lost)`);
          continue;
        }
        const reason = MC_REASON_NAMES[q.reason];
        if (reason !== o.str('reason')) miss(s.id, `out.reason: expected ${o.str('reason')}, got ${reason}`);
        if (q.vp !== o.int('vp')) miss(s.id, `out.vp: expected ${o.int('vp')}, got ${q.vp}`);
        if (q.pages !== o.int('pages', 0)) miss(s.id, `out.pages: expected ${o.int('pages', 0)}, got ${q.pages}`);
        // grant is the checker's own report (an internal event); resp is what the testbench saw
        if (q.grantCycle !== cy.int('grant')) miss(s.id, `cycles.grant: expected ${cy.int('grant')}, got ${q.grantCycle}`);
        if (seen !== cy.int('resp')) miss(s.id, `cycles.resp: expected ${cy.int('resp')}, the verdict was visible in cycle ${seen} (${seen < cy.int('resp') ? 'early' : 'late'})`);
      } else if (s.write) {
        const w = s.write;
        const result = MC_WRITE_RESULT_NAMES[w.result] ?? 'not taken';
        if (result !== o.str('result')) miss(s.id, `out.result: expected ${o.str('result')}, got ${result}`);
        if (w.appliedCycle !== cy.int('applied')) miss(s.id, `cycles.applied: expected ${cy.int('applied')}, got ${w.appliedCycle}`);
      }
    } catch (e) {
      miss(s.id, (e as Error).message);
    }
  }
  return out;
}

const PARSE_KEYS: (keyof McVecConfig)[] = ['items', 'sources', 'latency', 'vaBits', 'maxLen', 'reqCapacity'];

function rowsOf(file: VectorFile, op: 'check' | 'write'): VectorRecord[] {
  return file.records.filter((r) => r.in.op === op);
}

export const block: VectorBlock<McVecConfig> = {
  name: 'memcheck',
  description: 'NIC memory checker: item writes and checks from several sources (round-robin), cycle-exact',
  generatorVersion: '2',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig(raw) {
    for (const k of Object.keys(raw)) if (!PARSE_KEYS.includes(k as keyof McVecConfig)) throw new InputError(`config: unknown field '${k}' (fields: ${PARSE_KEYS.join(', ')})`);
    const c = { ...DEFAULTS };
    for (const k of PARSE_KEYS) if (raw[k] !== undefined) c[k] = cfgInt(raw, k);
    try {
      memCheckConfig(c);
    } catch (e) {
      throw new InputError((e as Error).message);
    }
    if (c.items > 65536) throw new InputError('config.items must be at most 65536 for vectors');
    return c;
  },
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [
    {
      name: 'checks',
      layout: [
        { name: 'source', width: 8 },
        { name: 'item', width: 21 },
        { name: 'key', width: 32 },
        { name: 'va', width: 56 },
        { name: 'len', width: 56 },
        { name: 'write', width: 1 },
        { name: 'issue', width: 32 },
        { name: 'grant', width: 32 },
        { name: 'resp', width: 32 },
        { name: 'reason', width: 3, codes: MC_REASON_NAMES },
        { name: 'vp', width: 17 },
        { name: 'req_vp', width: 17 },
        { name: 'physical', width: 1 },
        { name: 'pages', width: 21 },
      ],
      rows: (file) =>
        rowsOf(file, 'check').map((r) => {
          const i = new RecordReader(r, 'in');
          const o = new RecordReader(r, 'out');
          const c = new RecordReader(r, 'cycles');
          const vp17 = (v: number): bigint => (v < 0 || v > 0x1ffff ? (1n << 17n) - 1n : BigInt(v));
          return [
            BigInt(i.int('source')),
            BigInt(i.int('item')),
            i.hex('key', 32),
            i.hex('va', 56),
            i.hex('len', 56),
            i.str('access') === 'write' ? 1n : 0n,
            BigInt(c.int('issue')),
            BigInt(c.int('grant')),
            BigInt(c.int('resp')),
            codeOf(MC_REASON_NAMES, 'out.reason', o.str('reason')),
            vp17(o.int('vp')),
            vp17(i.int('req_vp')),
            i.bool('physical') ? 1n : 0n,
            BigInt(o.int('pages', 0)),
          ];
        }),
    },
    {
      name: 'writes',
      layout: [
        { name: 'index', width: 21 },
        { name: 'valid', width: 1 },
        { name: 'key', width: 33 },
        { name: 'read', width: 1 },
        { name: 'write', width: 1 },
        { name: 'base', width: 40 },
        { name: 'top', width: 40 },
        { name: 'vp', width: 17 },
        { name: 'physical', width: 1 },
        { name: 'refresh', width: 1 },
        { name: 'issue', width: 32 },
        { name: 'applied', width: 32 },
        { name: 'result', width: 2, codes: MC_WRITE_RESULT_NAMES },
      ],
      rows: (file) =>
        rowsOf(file, 'write').map((r) => {
          const i = new RecordReader(r, 'in');
          const o = new RecordReader(r, 'out');
          const c = new RecordReader(r, 'cycles');
          const b = (k: string): bigint => (i.bool(k) ? 1n : 0n);
          return [BigInt(i.int('index', 0)), b('valid'), i.hex('key', 33), b('read'), b('write'), i.hex('base', 40), i.hex('top', 40), BigInt(i.int('vp', 0)), b('physical'), b('refresh'), BigInt(c.int('issue')), BigInt(c.int('applied')), codeOf(MC_WRITE_RESULT_NAMES, 'out.result', o.str('result'))];
        }),
    },
  ],
};
