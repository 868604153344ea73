/**
 * Golden vectors for the SDQ's VP scheduler and buffer and the readout across HDQ and SDQ
 * (docs/nic-frontend.md, "SDQ", "Readout", "Vectors"). Cycle-exact: each record is one scenario
 * (ring sizes, doorbells at given cycles, PIO descriptors appearing at their VP's head, the
 * latency of each descriptor read, consumer stall windows, a run length) and its expected outcome
 * from the cycle model (models/nic/sdqCycleModel.ts): every read issued (cycle, VP, first ring
 * index, entries), every descriptor dispatched by the readout (grant cycle, VP, per-VP sequence
 * number, ring index) and every refused doorbell (cycle, VP, code). The replayer builds the RTL
 * (rtl/nic/vp/sdq.ts + readout.ts) with a responder and a consumer that do what the scenario
 * says, and compares what it observes with the record, naming the first differing entry.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Channel, Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { descConfig } from '../../rtl/nic/desc/index.ts';
import { type DmaRead, ReadChunk } from '../../rtl/nic/pcie/tlp.ts';
import { type DispatchedDesc, type QueuedDesc, Readout } from '../../rtl/nic/vp/readout.ts';
import type { VpError } from '../../rtl/nic/vp/regfile.ts';
import { SCHED_POLICIES, type SchedPolicy } from '../../rtl/nic/vp/scheduler.ts';
import { Sdq } from '../../rtl/nic/vp/sdq.ts';
import { type SdqConfig, sdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';
import { runSchedModel, type SchedOutcome, type SchedScenario } from '../../models/nic/sdqCycleModel.ts';
import type { Json, VectorRecord } from '../format.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export type NicSchedConfig = Omit<SdqConfig, 'entryBytes'>;

const DEFAULTS: NicSchedConfig = { pioVps: 2, dmaVps: 6, depth: 8, maxReads: 3, batch: 2, policy: 'round-robin' };
const ENTRY = 64;
const RING_SPACING = 2 ** 20;

export type Scenario = Omit<SchedScenario, keyof NicSchedConfig>;

/** Drives doorbells into the SDQ and PIO descriptors into the PIO VPs' head channels. */
class Driver extends Component {
  readonly pioHeads: Channel<QueuedDesc>[];
  private di = 0;
  private pi = 0;
  private readonly waiting: number[];
  private readonly seq: number[];
  constructor(
    parent: Scope,
    private readonly s: Scenario,
    private readonly sdq: Sdq,
    pioVps: number,
  ) {
    super(parent, 'driver');
    sdq.doorbellIn.bindProducer(this);
    this.pioHeads = Array.from({ length: pioVps }, (_, v) => new Channel<QueuedDesc>(this, `pio${v}`, { capacity: 2, latency: 1 }).bindProducer(this));
    this.waiting = Array.from({ length: pioVps }, () => 0);
    this.seq = Array.from({ length: pioVps }, () => 0);
  }
  tick(t: number): number {
    const s = this.s;
    while (this.di < s.doorbells.length && s.doorbells[this.di]!.cycle === t) {
      const d = s.doorbells[this.di++]!;
      this.sdq.doorbellIn.push(d.vp * 2 ** 17 + d.count);
    }
    while (this.pi < s.pio.length && s.pio[this.pi]!.cycle === t) this.waiting[s.pio[this.pi++]!.vp]!++;
    let busy = false;
    for (let v = 0; v < this.pioHeads.length; v++) {
      if (this.waiting[v]! > 0 && this.pioHeads[v]!.canPush()) {
        const b = new Uint8Array(64);
        b[0] = 0x01;
        b[2] = this.seq[v]! & 0xff;
        this.pioHeads[v]!.push({ vp: v, bytes: b, seq: this.seq[v]!++ });
        this.waiting[v]!--;
      }
      if (this.waiting[v]! > 0 && this.pioHeads[v]!.canPush()) busy = true;
    }
    let next = NEVER;
    if (this.di < s.doorbells.length) next = s.doorbells[this.di]!.cycle;
    if (this.pi < s.pio.length) next = Math.min(next, s.pio[this.pi]!.cycle);
    return busy ? t + 1 : next;
  }
}

/** Answers descriptor reads after the scenario's latency, one completion (the whole read) per cycle. */
class Responder extends Component {
  private readonly due: { r: DmaRead; due: number; k: number }[] = [];
  private seen = 0;
  readonly reads: [number, number, number, number][] = [];
  constructor(
    parent: Scope,
    private readonly s: Scenario,
    private readonly sdq: Sdq,
    private readonly pioVps: number,
  ) {
    super(parent, 'responder');
    sdq.readIn.bindConsumer(this);
    sdq.readOut.bindProducer(this);
  }
  tick(t: number): number {
    if (this.sdq.readIn.canPop()) {
      const r = this.sdq.readIn.pop();
      const k = this.seen++;
      const lat = this.s.latencies[Math.min(k, this.s.latencies.length - 1)]!;
      const j = Math.floor(r.addr / RING_SPACING);
      const index = (r.addr - j * RING_SPACING) / ENTRY;
      this.reads.push([t - 1, this.pioVps + j, index, r.len / ENTRY]);
      this.due.push({ r, due: t - 1 + lat, k });
    }
    let best = -1;
    for (let i = 0; i < this.due.length; i++) {
      const x = this.due[i]!;
      if (x.due <= t && (best < 0 || x.due < this.due[best]!.due || (x.due === this.due[best]!.due && x.k < this.due[best]!.k))) best = i;
    }
    if (best >= 0 && this.sdq.readOut.canPush()) {
      const { r } = this.due[best]!;
      this.due.splice(best, 1);
      const j = Math.floor(r.addr / RING_SPACING);
      const index = (r.addr - j * RING_SPACING) / ENTRY;
      const data = new Uint8Array(r.len);
      for (let m = 0; m * ENTRY < r.len; m++) {
        data[m * ENTRY] = 0x01;
        data[m * ENTRY + 2] = (index + m) & 0xff;
        data[m * ENTRY + 3] = (index + m) >> 8;
        data[m * ENTRY + 4] = this.pioVps + j;
      }
      r.data = data;
      r.received = r.len;
      r.error = '';
      this.sdq.readOut.push(new ReadChunk(r, 0, r.len, true));
    }
    let next = NEVER;
    for (const x of this.due) next = Math.min(next, Math.max(t + 1, x.due));
    return this.sdq.readIn.canPop() ? t + 1 : next;
  }
}

/** Takes dispatched descriptors outside the stall windows, and every error. */
class Consumer extends Component {
  readonly dispatch: [number, number, number, number][] = [];
  readonly errors: [number, number, number][] = [];
  constructor(
    parent: Scope,
    private readonly s: Scenario,
    private readonly out: Channel<DispatchedDesc>,
    private readonly err: Channel<VpError>,
  ) {
    super(parent, 'consumer');
    out.bindConsumer(this);
    err.bindConsumer(this);
  }
  tick(t: number): number {
    while (this.err.canPop()) {
      const e = this.err.pop();
      this.errors.push([e.cycle, e.vp, e.kind]);
    }
    const w = this.s.stalls.find(([a, b]) => t >= a && t < b);
    if (w) return this.out.canPop() ? w[1] : NEVER;
    if (this.out.canPop()) {
      const d = this.out.pop();
      this.dispatch.push([d.cycle, d.vp, d.seq, d.dma ? d.bytes[2]! | (d.bytes[3]! << 8) : -1]);
      return t + 1;
    }
    return NEVER;
  }
}

/** Run a scenario through the RTL; the outcome as the model reports it. */
export function runSchedRtl(cfg: NicSchedConfig, s: Scenario, skipping = true): SchedOutcome {
  const sim = new Simulator({ skipping });
  const c = sdqConfig({ ...cfg, entryBytes: ENTRY });
  const rings = { sdqBase: (vp: number) => (vp - cfg.pioVps) * RING_SPACING, sdqSize: (vp: number) => s.rings[vp - cfg.pioVps] ?? 0 };
  const sdq = new Sdq(sim, 'sdq', c, rings);
  const driver = new Driver(sim, s, sdq, cfg.pioVps);
  const resp = new Responder(sim, s, sdq, cfg.pioVps);
  const readout = new Readout(sim, 'readout', [...driver.pioHeads, ...sdq.heads], cfg.pioVps, descConfig({ vps: cfg.pioVps + cfg.dmaVps }));
  const cons = new Consumer(sim, s, readout.out, sdq.errOut);
  sim.step(s.cycles);
  return { reads: resp.reads, dispatch: cons.dispatch, errors: cons.errors };
}

/** A random scenario: rings of 4-16 entries (sometimes none), doorbells (some overflowing), PIO traffic, reordering latencies, stalls. */
export function randomScenario(cfg: NicSchedConfig, r: Rng): Scenario {
  const N = cfg.pioVps + cfg.dmaVps;
  const rings = Array.from({ length: cfg.dmaVps }, () => (r.int(12) === 0 ? 0 : [4, 8, 16][r.int(3)]!));
  const cycles = 700;
  const doorbells: Scenario['doorbells'] = [];
  const busy = r.int(3); // 0 light, 1 medium, 2 heavy
  for (let t = 0; t < 300; t++) {
    if (r.int(12 - 4 * busy) !== 0) continue;
    const vp = r.int(40) === 0 ? r.int(Math.max(1, cfg.pioVps)) : cfg.pioVps + (r.int(3) === 0 ? 0 : r.int(cfg.dmaVps));
    doorbells.push({ cycle: t, vp: Math.min(vp, N - 1), count: 1 + r.int(6) });
  }
  const pio: Scenario['pio'] = [];
  if (cfg.pioVps > 0) for (let t = 0; t < 300; t++) if (r.int(10) === 0) pio.push({ cycle: t, vp: r.int(cfg.pioVps) });
  const latencies = Array.from({ length: 64 }, () => (r.int(4) === 0 ? 2 + r.int(10) : 20 + r.int(100)));
  const stalls: [number, number][] = [];
  for (let k = r.int(3); k > 0; k--) {
    const a = r.int(500);
    stalls.push([a, a + 1 + r.int(60)]);
  }
  return { rings, doorbells, pio, latencies, stalls, cycles };
}

function toJson(s: Scenario): { [k: string]: Json } {
  return {
    rings: s.rings,
    doorbells: s.doorbells.map((d) => [d.cycle, d.vp, d.count]),
    pio: s.pio.map((p) => [p.cycle, p.vp]),
    latencies: s.latencies,
    stalls: s.stalls,
    cycles: s.cycles,
  };
}

function fromJson(rec: VectorRecord, cfg: NicSchedConfig): Scenario {
  const where = `record ${rec.id}: in`;
  const N = cfg.pioVps + cfg.dmaVps;
  const isInt = (x: Json, lo: number, hi: number): x is number => typeof x === 'number' && Number.isInteger(x) && x >= lo && x <= hi;
  const list = (k: string): Json[] => {
    const v = rec.in[k];
    if (!Array.isArray(v)) throw new InputError(`${where}.${k} must be a list`);
    return v;
  };
  const cycles = rec.in.cycles ?? null;
  if (!isInt(cycles, 1, 1_000_000)) throw new InputError(`${where}.cycles must be an integer in [1, 1000000]`);
  const rings = list('rings');
  if (rings.length !== cfg.dmaVps || !rings.every((x) => isInt(x, 0, 65536))) throw new InputError(`${where}.rings must be ${cfg.dmaVps} ring sizes in [0, 65536]`);
  const tuples = (k: string, n: number, check: (t: number[]) => string): number[][] =>
    list(k).map((x, i) => {
      if (!Array.isArray(x) || x.length !== n || !x.every((y) => isInt(y, 0, 1_000_000))) throw new InputError(`${where}.${k}[${i}] must be a list of ${n} non-negative integers`);
      const bad = check(x as number[]);
      if (bad !== '') throw new InputError(`${where}.${k}[${i}]: ${bad}`);
      return x as number[];
    });
  let last = -1;
  const doorbells = tuples('doorbells', 3, ([c, vp, n]) => {
    if (c! <= last) return 'cycles must increase (one doorbell per cycle)';
    last = c!;
    return vp! >= N ? `vp ${vp} is not below ${N}` : n! < 1 || n! >= 2 ** 17 ? `count ${n} is not in [1, 2^17)` : '';
  }).map(([cycle, vp, count]) => ({ cycle: cycle!, vp: vp!, count: count! }));
  let lastP = -1;
  const pio = tuples('pio', 2, ([c, vp]) => {
    if (c! < lastP) return 'cycles must not decrease';
    lastP = c!;
    return vp! >= cfg.pioVps ? `vp ${vp} is not a PIO VP (below ${cfg.pioVps})` : '';
  }).map(([cycle, vp]) => ({ cycle: cycle!, vp: vp! }));
  const latencies = list('latencies');
  if (latencies.length < 1 || !latencies.every((x) => isInt(x, 2, 100000))) throw new InputError(`${where}.latencies must be a non-empty list of integers in [2, 100000]`);
  const stalls = tuples('stalls', 2, ([a, b]) => (b! <= a! ? 'a window must end after it starts' : '')) as [number, number][];
  return { rings: rings as number[], doorbells, pio, latencies: latencies as number[], stalls, cycles };
}

function expected(cfg: NicSchedConfig, s: Scenario): SchedOutcome {
  return runSchedModel({ ...cfg, ...s });
}

function generate(cfg: NicSchedConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const r = new Rng(seed);
  const recs: VectorRecord[] = [];
  for (let id = 0; id < count; id++) {
    const s = randomScenario(cfg, r.fork(id));
    const e = expected(cfg, s);
    recs.push({ id, in: toJson(s), out: { errors: e.errors }, cycles: { reads: e.reads, dispatch: e.dispatch } });
    produced?.(id + 1);
  }
  return recs;
}

/** The first difference between two lists of tuples, or ''. */
function firstDiff(name: string, exp: Json, got: number[][]): string {
  if (!Array.isArray(exp)) return `${name}: the record has no list`;
  const n = Math.max(exp.length, got.length);
  for (let i = 0; i < n; i++) {
    const e = JSON.stringify(exp[i] ?? null);
    const g = JSON.stringify(got[i] ?? null);
    if (e !== g) return `${name}[${i}]: expected ${e}, got ${g}`;
  }
  return '';
}

function replay(cfg: NicSchedConfig, records: VectorRecord[]): ReplayOutcome[] {
  return records.map((rec) => {
    const s = fromJson(rec, cfg);
    try {
      const got = runSchedRtl(cfg, s);
      const mismatches = [firstDiff('cycles.reads', rec.cycles?.reads ?? null, got.reads), firstDiff('cycles.dispatch', rec.cycles?.dispatch ?? null, got.dispatch), firstDiff('out.errors', rec.out.errors ?? null, got.errors)].filter((m) => m !== '');
      return { id: rec.id, ok: mismatches.length === 0, mismatches };
    } catch (e) {
      return { id: rec.id, ok: false, mismatches: [(e as Error).message] };
    }
  });
}

const FIELDS = Object.keys(DEFAULTS);

export const block: VectorBlock<NicSchedConfig> = {
  name: 'nicsched',
  description: 'TH Express-2 SDQ VP scheduler, SDQ buffer and readout across HDQ and SDQ: reads issued, descriptors dispatched and refused doorbells, cycle by cycle',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig(raw) {
    for (const k of Object.keys(raw)) if (!FIELDS.includes(k)) throw new InputError(`config: unknown field '${k}' (fields: ${FIELDS.join(', ')})`);
    const c = { ...DEFAULTS, ...(raw as Partial<NicSchedConfig>) };
    if (!(SCHED_POLICIES as readonly string[]).includes(c.policy as string)) throw new InputError(`config.policy must be one of ${SCHED_POLICIES.join(', ')}, got ${JSON.stringify(c.policy)}`);
    try {
      sdqConfig({ ...c, policy: c.policy as SchedPolicy, entryBytes: ENTRY });
    } catch (e) {
      throw new InputError((e as Error).message.replace('SDQ config: ', 'config.'));
    }
    return c;
  },
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [],
};
