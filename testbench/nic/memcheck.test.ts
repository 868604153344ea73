/**
 * Memory checker: random command sequences against the golden checker model (verdicts, reason
 * codes, owning VP, item-write results), per-source order, exact latency, no loss or duplication,
 * arbiter fairness, backpressure, bad-input isolation and activity-skipping equivalence.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator, type SimulatorOptions } from '../../rtl/kernel/index.ts';
import { buildAtcWithHost } from '../../rtl/nic/atc/index.ts';
import {
  ItemWrite,
  MC_BAD_REQUEST,
  MC_KEY_MISMATCH,
  MC_OK,
  MC_OUT_OF_RANGE,
  MC_REASON_NAMES,
  MC_WRITE_RESULT_NAMES,
  MemChecker,
  MemCheckReq,
  memCheckConfig,
} from '../../rtl/nic/memcheck/index.ts';
import { MemCheckerModel, type ModelItem } from '../../models/nic/memcheckModel.ts';

const ITEMS = 16;
const INVALID_ITEM: ModelItem = { valid: false, key: 0, read: false, write: false, basePage: 0, topPage: 0, vp: 0, physical: false };

interface WorldCfg {
  sources: number;
  latency: number;
  reqCapacity: number;
  sim?: SimulatorOptions;
}

/** Testbench around one checker: software pushes between cycles; every response is judged when popped. */
class McWorld {
  readonly sim: Simulator;
  readonly checker: MemChecker;
  readonly model: MemCheckerModel;
  /** software's view of the table (what it wrote successfully) */
  readonly soft = new Map<number, ModelItem>();
  /** applied writes per item, in order */
  private readonly history = new Map<number, { cycle: number; item: ModelItem }[]>();
  private readonly pendingWrites: { w: ItemWrite; v: ModelItem; pushed: number }[] = [];
  readonly outstanding: MemCheckReq[][];
  private readonly pushedAt = new Map<MemCheckReq, number>();
  readonly paused: number[];
  readonly log: string[] = [];
  readonly grants: { cycle: number; source: number; pushed: number }[] = [];
  private nextTag = 0;
  private lastWritePort = -1;
  counts = { checks: 0, ok: 0, fails: 0, writes: 0, rejected: 0 };

  constructor(readonly cfg: WorldCfg) {
    this.sim = new Simulator(cfg.sim ?? {});
    this.checker = new MemChecker(this.sim, 'mc', { items: ITEMS, sources: cfg.sources, latency: cfg.latency, reqCapacity: cfg.reqCapacity });
    this.model = new MemCheckerModel(ITEMS, 48, 2 ** 32);
    this.outstanding = Array.from({ length: cfg.sources }, () => []);
    this.paused = new Array<number>(cfg.sources).fill(0);
  }

  private fail(msg: string): never {
    throw new Error(`cycle ${this.sim.cycle}: ${msg}`);
  }

  check(source: number, q: { item: number; key: number; va: number; len: number; write: boolean; reqVp?: number; physical?: boolean }): void {
    const ch = this.checker.reqIn[source]!;
    for (let i = 0; i < 1000 && !ch.canPush(); i++) this.step();
    if (!ch.canPush()) this.fail(`source ${source} request channel stays full`);
    const r = new MemCheckReq();
    r.tag = this.nextTag++;
    Object.assign(r, q);
    this.outstanding[source]!.push(r);
    this.pushedAt.set(r, this.sim.cycle);
    ch.push(r);
  }

  write(v: ModelItem & { index: number; refresh: boolean }): void {
    const ch = this.checker.writeIn;
    for (let i = 0; i < 1000 && !ch.canPush(); i++) this.step();
    const w = new ItemWrite();
    Object.assign(w, v);
    const item: ModelItem = { valid: v.valid, key: v.key, read: v.read, write: v.write, basePage: v.basePage, topPage: v.topPage, vp: v.vp, physical: v.physical ?? false };
    this.pendingWrites.push({ w, v: item, pushed: this.sim.cycle });
    if (this.model.classifyWrite(v.index, item) === 'ok') this.soft.set(v.index, item);
    ch.push(w);
  }

  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.sim.step(1);
      this.collect();
    }
  }

  get idle(): boolean {
    return this.outstanding.every((q) => q.length === 0) && this.pendingWrites.length === 0;
  }

  drain(): void {
    this.paused.fill(0);
    for (let i = 0; i < 10000 && !this.idle; i++) this.step();
    if (!this.idle) this.fail(`not idle: ${this.outstanding.map((q) => q.length).join('/')} checks outstanding (lost?)`);
  }

  private itemAt(index: number, cycle: number): ModelItem {
    const h = this.history.get(index);
    let v = INVALID_ITEM;
    if (h) for (const e of h) if (e.cycle < cycle) v = e.item;
    return v;
  }

  private collect(): void {
    while (this.pendingWrites.length > 0 && this.pendingWrites[0]!.w.result !== -1) {
      const { w, v, pushed } = this.pendingWrites.shift()!;
      const want = this.model.classifyWrite(w.index, v);
      const got = MC_WRITE_RESULT_NAMES[w.result];
      if (got !== want) this.fail(`item write ${w.index}: RTL ${got} (${w.error}), model ${want}`);
      this.log.push(`w${w.index}:${got}@${w.appliedCycle}`);
      // the write port takes one write per cycle, as soon as it is visible
      const when = Math.max(pushed + 1, this.lastWritePort + 1);
      if (w.appliedCycle !== when) this.fail(`item write pushed in ${pushed} taken in ${w.appliedCycle}, expected ${when}`);
      this.lastWritePort = w.appliedCycle;
      if (want === 'ok') {
        let h = this.history.get(w.index);
        if (!h) this.history.set(w.index, (h = []));
        h.push({ cycle: w.appliedCycle, item: v });
        this.counts.writes++;
      } else {
        if (w.error === '') this.fail('rejected write without an error message');
        this.counts.rejected++;
      }
    }
    for (let s = 0; s < this.cfg.sources; s++) {
      if (this.paused[s]! > 0) {
        this.paused[s]!--;
        continue;
      }
      const ch = this.checker.respOut[s]!;
      while (ch.canPop()) {
        const r = ch.pop();
        const head = this.outstanding[s]!.shift();
        if (head !== r) this.fail(`source ${s}: got verdict for tag ${r.tag}, expected tag ${head?.tag ?? 'none'} (order, loss or duplication)`);
        const pushed = this.pushedAt.get(r)!;
        this.pushedAt.delete(r);
        if (r.source !== s) this.fail(`tag ${r.tag} answered on source ${s} but marked source ${r.source}`);
        if (r.grantCycle < pushed + 1) this.fail(`tag ${r.tag} granted in ${r.grantCycle} before it was visible (${pushed + 1})`);
        if (r.doneCycle !== r.grantCycle + this.cfg.latency) this.fail(`tag ${r.tag}: granted ${r.grantCycle}, done ${r.doneCycle}, latency should be ${this.cfg.latency}`);
        const want = this.model.checkAgainst(r, (i) => this.itemAt(i, r.grantCycle));
        const got = MC_REASON_NAMES[r.reason];
        if (got !== want.reason || r.vp !== want.vp) this.fail(`tag ${r.tag} (item ${r.item} key ${r.key} va ${r.va} len ${r.len} ${r.write ? 'write' : 'read'}): RTL ${got} vp ${r.vp}, model ${want.reason} vp ${want.vp}`);
        this.grants.push({ cycle: r.grantCycle, source: s, pushed });
        this.log.push(`${s}:${r.tag}:${got}:${r.grantCycle}:${r.doneCycle}`);
        this.counts.checks++;
        if (r.reason === MC_OK) this.counts.ok++;
        else this.counts.fails++;
      }
    }
  }
}

// ---------------------------------------------------------------- commands

type Cmd = fc.Command<object, McWorld>;

interface CheckSpec {
  source: number;
  item: number;
  /** use an item software has written (valid or not) */
  written: boolean;
  keyOk: boolean;
  permOk: boolean;
  inRange: boolean;
  frac: number;
  pageDelta: number;
  off: number;
  len: number;
  write: boolean;
  special: number;
  /** 0: NIC-internal (no VP), 1: the item's VP, 2: another VP, 3: a malformed VP */
  vpSel: number;
  /** the request's address kind matches the item's */
  modeOk: boolean;
}

class CheckCmd implements Cmd {
  constructor(readonly c: CheckSpec) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: McWorld): void {
    const c = this.c;
    const src = c.source % w.cfg.sources;
    let item = c.item;
    const known = [...w.soft.keys()].sort((a, b) => a - b);
    if (c.written && known.length > 0) item = known[c.item % known.length]!;
    const it = w.soft.get(item) ?? INVALID_ITEM;
    const key = c.keyOk ? it.key : (it.key + 1 + c.off) % 2 ** 32;
    const write = c.permOk ? (it.read ? (it.write ? c.write : false) : true) : c.write;
    let va: number;
    let len = c.len;
    if (c.inRange) {
      // a range inside the item's pages (len cut to what is left)
      const bytes = (it.topPage - it.basePage + 1) * 4096;
      const start = Math.floor(c.frac * bytes);
      va = it.basePage * 4096 + start;
      len = Math.max(1, Math.min(len, bytes - start));
    } else va = Math.max(0, (it.basePage + c.pageDelta) * 4096 + c.off);
    // bad requests: zero length, wrap past the top, item out of range, address or length too large
    if (c.special === 1) len = 0;
    else if (c.special === 2) (va = 2 ** 48 - 8), (len = 64);
    else if (c.special === 3) item = ITEMS + (c.off % 3);
    else if (c.special === 4) va = 2 ** 48 + c.off;
    else if (c.special === 5) len = 2 ** 32 + 1;
    else if (c.special === 6) va = 2 ** 48 - len; // ends exactly at the top: not a wrap
    else if (c.special === 7) va = 2 ** 48 - len + 1; // one byte past the top: wraps
    const reqVp = c.vpSel === 0 ? -1 : c.vpSel === 1 ? it.vp : c.vpSel === 2 ? (it.vp + 1 + (c.off % 7)) % 65536 : 65536 + c.off;
    const physical = c.modeOk ? (it.physical ?? false) : !(it.physical ?? false);
    w.check(src, { item, key, va, len, write, reqVp, physical });
  }
  toString(): string {
    return `check(${JSON.stringify(this.c)})`;
  }
}

class WriteCmd implements Cmd {
  constructor(readonly v: ModelItem & { index: number; refresh: boolean }) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: McWorld): void {
    w.write(this.v);
  }
  toString(): string {
    return `write(${JSON.stringify(this.v)})`;
  }
}

class StepCmd implements Cmd {
  constructor(readonly n: number) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: McWorld): void {
    w.step(this.n);
  }
  toString(): string {
    return `step(${this.n})`;
  }
}

class PauseCmd implements Cmd {
  constructor(
    readonly source: number,
    readonly n: number,
  ) {}
  check(): boolean {
    return true;
  }
  run(_m: object, w: McWorld): void {
    w.paused[this.source % w.cfg.sources] = this.n;
  }
  toString(): string {
    return `pause(${this.source}, ${this.n})`;
  }
}

const itemArb = fc.oneof(fc.nat(3), fc.nat(ITEMS - 1));
const likely = fc.oneof({ weight: 7, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
const commands = [
  fc
    .record({
      source: fc.nat(7),
      item: itemArb,
      written: likely,
      keyOk: likely,
      permOk: likely,
      inRange: likely,
      frac: fc.nat(999).map((x) => x / 1000),
      pageDelta: fc.integer({ min: -1, max: 12 }),
      off: fc.nat(4095),
      len: fc.oneof(fc.constantFrom(1, 64, 4096, 4097, 8192), fc.integer({ min: 1, max: 40000 })),
      write: fc.boolean(),
      special: fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 7 }) }),
      vpSel: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(0, 1) }, { weight: 1, arbitrary: fc.constantFrom(2, 3) }),
      modeOk: likely,
    })
    .map((c) => new CheckCmd(c)),
  fc
    .record({
      index: fc.oneof({ weight: 9, arbitrary: itemArb }, { weight: 1, arbitrary: fc.constantFrom(ITEMS, -1, 2.5) }),
      valid: likely,
      key: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(1, 2, 0xffffffff) }, { weight: 1, arbitrary: fc.constantFrom(2 ** 32, -1) }),
      read: fc.boolean(),
      write: fc.boolean(),
      basePage: fc.nat(40),
      topDelta: fc.oneof({ weight: 9, arbitrary: fc.nat(10) }, { weight: 1, arbitrary: fc.constant(-1) }),
      vp: fc.oneof({ weight: 9, arbitrary: fc.nat(39) }, { weight: 1, arbitrary: fc.constant(70000) }),
      physical: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      refresh: fc.boolean(),
    })
    .map(({ topDelta, ...v }) => new WriteCmd({ ...v, topPage: v.basePage + topDelta })),
  fc.integer({ min: 1, max: 12 }).map((n) => new StepCmd(n)),
  fc.tuple(fc.nat(7), fc.integer({ min: 1, max: 15 })).map(([s, n]) => new PauseCmd(s, n)),
];

const cfgArb = fc.record({ sources: fc.integer({ min: 1, max: 6 }), latency: fc.integer({ min: 2, max: 5 }), reqCapacity: fc.integer({ min: 1, max: 3 }) });

describe('memory checker against the golden model, random command sequences', () => {
  it('verdicts, reason codes, VPs, write results, per-source order and latency', () => {
    const tot = { ok: 0, fails: 0, rejected: 0, writes: 0 };
    const reasons = new Set<string>();
    fc.assert(
      fc.property(cfgArb, fc.commands(commands, { maxCommands: 100, size: 'max' }), (cfg, cmds) => {
        const w = new McWorld(cfg);
        fc.modelRun(() => ({ model: {}, real: w }), cmds);
        w.drain();
        for (const k of Object.keys(tot) as (keyof typeof tot)[]) tot[k] += w.counts[k];
        for (const l of w.log) if (!l.startsWith('w')) reasons.add(l.split(':')[2]!);
        // statistics agree with what was observed
        expect(w.checker.stats.checks.value).toBe(w.counts.checks);
        expect(w.checker.stats.rejectedWrites.value).toBe(w.counts.rejected);
      }),
      { numRuns: 200 },
    );
    for (const [k, v] of Object.entries(tot)) expect(v, k).toBeGreaterThan(0);
    expect([...reasons].sort()).toEqual([...MC_REASON_NAMES].sort());
  });
});

describe('memory checker arbitration', () => {
  it('every requesting source is granted within the number of sources (round-robin fairness)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), { minLength: 20, maxLength: 150 }),
        (sources, latency, pattern) => {
          const w = new McWorld({ sources, latency, reqCapacity: 2 });
          for (const row of pattern) {
            for (let s = 0; s < sources; s++) if (row[s] && w.checker.reqIn[s]!.canPush()) w.check(s, { item: 0, key: 0, va: 0, len: 1, write: false });
            w.step();
          }
          w.drain();
          // a request is eligible from the cycle it is visible at the head of its channel
          const g = [...w.grants].sort((a, b) => a.cycle - b.cycle);
          const lastGrant = new Map<number, number>();
          for (let i = 0; i < g.length; i++) {
            const e = g[i]!;
            const eligible = Math.max(e.pushed + 1, (lastGrant.get(e.source) ?? -1) + 1);
            const others = g.filter((x) => x.cycle >= eligible && x.cycle < e.cycle).length;
            expect(others).toBeLessThanOrEqual(sources - 1);
            lastGrant.set(e.source, e.cycle);
            if (i > 0) expect(e.cycle).toBeGreaterThan(g[i - 1]!.cycle); // one grant per cycle
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('under saturation the grants rotate: each source gets exactly its share', () => {
    const w = new McWorld({ sources: 5, latency: 3, reqCapacity: 2 });
    for (let c = 0; c < 500; c++) {
      for (let s = 0; s < 5; s++) if (w.checker.reqIn[s]!.canPush()) w.check(s, { item: 1, key: 0, va: 0, len: 1, write: false });
      w.step();
    }
    w.drain();
    const per = w.checker.stats.grants.map((c) => c.value);
    expect(Math.max(...per) - Math.min(...per)).toBeLessThanOrEqual(1);
    const first = w.grants.slice(0, 20).map((x) => x.source);
    expect(first).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
  });
});

describe('memory checker bad input', () => {
  it('bad requests get bad_request / key_mismatch and the others are unaffected', () => {
    const w = new McWorld({ sources: 2, latency: 3, reqCapacity: 2 });
    w.write({ index: 3, valid: true, key: 42, read: true, write: false, basePage: 10, topPage: 11, vp: 7, refresh: false });
    w.step(2);
    const good = { item: 3, key: 42, va: 10 * 4096, len: 8192, write: false };
    const cases = [
      { item: 4096, key: 42, va: 10 * 4096, len: 1, write: false },
      { ...good, key: 43 },
      { ...good, len: 0 },
      { ...good, va: 2 ** 48 - 4, len: 5 },
      { ...good, len: 8193 },
      good,
    ];
    for (const c of cases) {
      w.check(0, c);
      w.check(1, good);
      w.step();
    }
    w.drain();
    const s0 = w.log.filter((l) => l.startsWith('0:')).map((l) => l.split(':')[2]);
    const s1 = w.log.filter((l) => l.startsWith('1:')).map((l) => l.split(':')[2]);
    expect(s0).toEqual(['bad_request', 'key_mismatch', 'bad_request', 'bad_request', 'out_of_range', 'ok']);
    expect(s1).toEqual(new Array(6).fill('ok'));
    expect(w.checker.stats.reasons[MC_BAD_REQUEST]!.value).toBe(3);
    expect(w.checker.stats.reasons[MC_KEY_MISMATCH]!.value).toBe(1);
    expect(w.checker.stats.reasons[MC_OUT_OF_RANGE]!.value).toBe(1);
  });

  it('bad item writes are rejected with a message naming the field and change nothing', () => {
    const sim = new Simulator();
    const mc = new MemChecker(sim, 'mc', { items: 8 });
    const mk = (p: Partial<ItemWrite>): ItemWrite => Object.assign(new ItemWrite(), { index: 1, key: 5, basePage: 2, topPage: 3 }, p);
    const ws = [mk({}), mk({ index: 8 }), mk({ topPage: 1 }), mk({ key: 2 ** 32 }), mk({ vp: -1 }), mk({ index: 1, key: 6, basePage: 2 ** 36 })];
    for (const w of ws) {
      mc.writeIn.push(w);
      sim.step(1);
    }
    sim.step(2);
    expect(ws.map((w) => MC_WRITE_RESULT_NAMES[w.result])).toEqual(['ok', 'bad_index', 'bad_field', 'bad_field', 'bad_field', 'bad_field']);
    expect(ws[1]!.error).toMatch(/item index 8 out of range \[0, 8\)/);
    expect(ws[2]!.error).toMatch(/top page 1/);
    expect(ws[3]!.error).toMatch(/key/);
    expect(ws[4]!.error).toMatch(/virtual port/);
    expect(ws[5]!.error).toMatch(/base page/);
    expect(mc.table.peek(1, 1)).toBe(5); // the first (good) write stands
    expect(() => mc.loadItem(mk({ index: 99 }))).toThrow(/out of range/);
  });

  it('rejects invalid configurations with a clear message', () => {
    expect(() => memCheckConfig({ sources: 0 })).toThrow(/sources must be an integer in \[1, 64\]/);
    expect(() => memCheckConfig({ items: 0 })).toThrow(/items/);
    expect(() => memCheckConfig({ latency: 1 })).toThrow(/latency/);
  });
});

describe('memory checker with an ATC behind it', () => {
  it('passing checks go on to the ATC; a full ATC input stalls the pipeline without loss or reordering', () => {
    const sim = new Simulator();
    const { atc } = buildAtcWithHost(sim, { entries: 64, ways: 4, mshrs: 1, mshrTargets: 1 }, { readLatency: 30, jitter: 0 });
    const mc = new MemChecker(sim, 'mc', { items: 4, sources: 3 }, atc);
    mc.loadItem(Object.assign(new ItemWrite(), { index: 0, key: 9, basePage: 0, topPage: 1000 }));
    const sent: MemCheckReq[][] = [[], [], []];
    const verdicts: MemCheckReq[][] = [[], [], []];
    const xl: number[] = [];
    let tag = 0;
    for (let c = 0; c < 5000; c++) {
      for (let s = 0; s < 3; s++) {
        if (c < 400 && mc.reqIn[s]!.canPush()) {
          const r = new MemCheckReq();
          Object.assign(r, { tag: tag++, item: 0, key: s === 2 && c % 3 === 0 ? 1 : 9, va: ((c * 7 + s) % 20) * 4096, len: 16 });
          sent[s]!.push(r);
          mc.reqIn[s]!.push(r);
        }
      }
      sim.step(1);
      for (let s = 0; s < 3; s++) while (mc.respOut[s]!.canPop()) verdicts[s]!.push(mc.respOut[s]!.pop());
      while (atc.resp.canPop()) xl.push(atc.resp.pop().tag);
    }
    for (let s = 0; s < 3; s++) expect(verdicts[s]).toEqual(sent[s]);
    const passing = sent.flat().filter((r) => r.reason === MC_OK).map((r) => r.tag);
    expect(passing.length).toBeGreaterThan(20);
    expect([...xl].sort((a, b) => a - b)).toEqual([...passing].sort((a, b) => a - b));
    expect(mc.stats.atcStallCycles.value).toBeGreaterThan(100);
    expect(sent[2]!.some((r) => r.reason === MC_KEY_MISMATCH)).toBe(true);
  });
});

describe('memory checker results do not depend on activity skipping or evaluation order', () => {
  it('skipping on, off and shuffled give identical verdicts, cycles and statistics', () => {
    fc.assert(
      fc.property(cfgArb, fc.commands(commands, { maxCommands: 60, size: 'max' }), fc.nat(), (cfg, cmds, shuffle) => {
        const runs = [{ skipping: true }, { skipping: false }, { skipping: true, shuffleSeed: shuffle }].map((sim) => {
          const w = new McWorld({ ...cfg, sim });
          for (const c of cmds) c.run({}, w);
          w.drain();
          return { log: w.log.join(' '), stats: JSON.stringify(w.sim.stats.toJSON()), evals: w.sim.evaluations };
        });
        expect(runs[1]!.log).toBe(runs[0]!.log);
        expect(runs[1]!.stats).toBe(runs[0]!.stats);
        expect(runs[2]!.log).toBe(runs[0]!.log);
        expect(runs[2]!.stats).toBe(runs[0]!.stats);
        expect(runs[0]!.evals).toBeLessThanOrEqual(runs[1]!.evals);
      }),
      { numRuns: 40 },
    );
  });
});
