/**
 * Golden vectors for whole RDMA transfers between two TH Express-2 NICs (docs/nic-rdma.md,
 * "Golden vectors"; connectless mode). Not cycle-based: each record is one scenario, a list of
 * operations software performs one after the other on the two nodes (memory-checker item writes,
 * each with an optional fill of the item's pages, and descriptors posted on a VP: IMM_PUT, PUT,
 * GET, MP, collective, or bytes that do not decode), each run to completion before the next. The
 * expected outcome comes from the golden model (models/nic/rdmaModel.ts with its queue and
 * collective models): the bytes the NICs wrote to each host's data pages (as written ranges, each
 * with its bytes when short or a SHA-256 prefix), every EQ, MPQ and INTQ entry, each queue's
 * producer count and overflows, and every error event. The replayer builds the two-NIC RTL
 * (rtl/nic/nicPair.ts through experiments/nic/rdmaRig.ts), does what each operation says the
 * software way (PIO VPs store descriptors into their HDQ window, DMA VPs write them into their SDQ
 * ring and ring the doorbell), and compares what lands in host memory with the record.
 */
import { createHash } from 'node:crypto';
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { blankDesc, COLL_MAX_CHILDREN, DESC_COLL, DESC_GET, DESC_IMM_PUT, DESC_MP, DESC_PUT, encodeDescriptor, type NicDesc } from '../../rtl/nic/desc/index.ts';
import { Q_ENTRY_BYTES, Q_EQ, Q_INTQ, Q_MPQ } from '../../rtl/nic/queues/index.ts';
import { queueBase, RdmaRig, type RigItem } from '../../experiments/nic/rdmaRig.ts';
import type { ModelItem } from '../../models/nic/memcheckModel.ts';
import { defaultPa, RdmaModel } from '../../models/nic/rdmaModel.ts';
import { checkShape, lineOf, type RecordShape } from '../fields.ts';
import { hexBytes, type Json, parseHexBytes, type VectorRecord } from '../format.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export interface NicRdmaConfig {
  /** VPs per NIC; the first pioVps post through the HDQ, the others through the SDQ */
  vps: number;
  pioVps: number;
  /** memory-checker items per NIC */
  items: number;
  /** largest packet payload (bytes) and transfer (bytes) of the RDMA engine */
  maxPayload: number;
  maxTransfer: number;
  /** entries of each EQ, each MPQ and the INTQ */
  eqSize: number;
  mpqSize: number;
  intqSize: number;
  /** link latency and ATT read latency (cycles) */
  linkLatency: number;
  attLatency: number;
}

const DEFAULTS: NicRdmaConfig = { vps: 4, pioVps: 2, items: 16, maxPayload: 256, maxTransfer: 65536, eqSize: 64, mpqSize: 4, intqSize: 64, linkLatency: 60, attLatency: 40 };
const FIELDS = Object.keys(DEFAULTS);
/** bytes of a written range given as bytes; longer ranges are given as a digest */
export const SHORT_RANGE = 32;
const SHAPE: RecordShape = { in: ['ops'], out: ['data', 'eq', 'mpq', 'intq', 'queues', 'errors'], cycles: [] };

/** An operation of a scenario. */
export type Op =
  | { op: 'item'; node: number; index: number; item: RigItem; fill: number }
  | { op: 'desc'; node: number; vp: number; bytes: Uint8Array };

/** Software's initial contents of a filled item's page byte at virtual (or physical) address va. */
export function fillByte(fill: number, va: number): number {
  return (fill * 131 + va * 7 + Math.floor(va / 256)) & 0xff;
}

/** Physical address of page byte va of an item (the ATT's default mapping for a virtual item). */
function itemPa(it: RigItem, va: number): number {
  return it.physical ? va : defaultPa(va, it.vp);
}

// ---------------------------------------------------------------- JSON form of the stimulus

const b01 = (b: boolean): number => (b ? 1 : 0);

function opToJson(o: Op): Json {
  if (o.op === 'desc') return ['desc', o.node, o.vp, hexBytes(o.bytes)];
  const it = o.item;
  return ['item', o.node, o.index, b01(it.valid), it.key, b01(it.read), b01(it.write), it.basePage, it.topPage, it.vp, b01(it.physical), o.fill];
}

/** The operations of a record, checked (InputError naming the line and field). */
export function opsFromJson(rec: VectorRecord, cfg: NicRdmaConfig): Op[] {
  checkShape(rec, 'scenario', SHAPE);
  const at = (i: number): string => `line ${lineOf(rec)}: in.ops[${i}]`;
  const ops = rec.in.ops;
  if (!Array.isArray(ops) || ops.length === 0) throw new InputError(`line ${lineOf(rec)}: in.ops must be a non-empty list`);
  const int = (x: Json | undefined, lo: number, hi: number, where: string, name: string): number => {
    if (typeof x !== 'number' || !Number.isInteger(x) || x < lo || x > hi) throw new InputError(`${where}: ${name} must be an integer in [${lo}, ${hi}], got ${JSON.stringify(x ?? null)}`);
    return x;
  };
  return ops.map((o, i) => {
    const w = at(i);
    if (!Array.isArray(o) || (o[0] !== 'desc' && o[0] !== 'item')) throw new InputError(`${w} must be a list starting with "desc" or "item"`);
    if (o[0] === 'desc') {
      if (o.length !== 4) throw new InputError(`${w}: a desc operation is ["desc", node, vp, bytes], got ${o.length} elements`);
      const bytes = parseHexBytes(o[3], 256, `${w}: bytes`);
      return { op: 'desc', node: int(o[1], 0, 1, w, 'node'), vp: int(o[2], 0, cfg.vps - 1, w, 'vp'), bytes };
    }
    if (o.length !== 12) throw new InputError(`${w}: an item operation is ["item", node, index, valid, key, read, write, basePage, topPage, vp, physical, fill], got ${o.length} elements`);
    const bit = (k: number, name: string): boolean => int(o[k], 0, 1, w, name) === 1;
    const item: RigItem = {
      valid: bit(3, 'valid'),
      key: int(o[4], 0, 2 ** 32 - 1, w, 'key'),
      read: bit(5, 'read'),
      write: bit(6, 'write'),
      basePage: int(o[7], 0, 2 ** 36 - 1, w, 'basePage'),
      topPage: int(o[8], 0, 2 ** 36 - 1, w, 'topPage'),
      vp: int(o[9], 0, cfg.vps - 1, w, 'vp'),
      physical: bit(10, 'physical'),
    };
    if (item.topPage < item.basePage) throw new InputError(`${w}: topPage ${item.topPage} is below basePage ${item.basePage}`);
    const fill = int(o[11], -1, 255, w, 'fill');
    if (fill >= 0 && item.topPage - item.basePage >= 64) throw new InputError(`${w}: a filled item spans at most 64 pages`);
    return { op: 'item', node: int(o[1], 0, 1, w, 'node'), index: int(o[2], 0, cfg.items - 1, w, 'index'), item, fill };
  });
}

// ---------------------------------------------------------------- outcome (model or RTL) in JSON form

export interface Outcome {
  data: Json[];
  eq: Json[];
  mpq: Json[];
  intq: Json[];
  queues: Json[];
  errors: Json[];
}

/** Written bytes (address -> value) as contiguous ranges [address, length, bytes or "sha256:<32 hex digits>"]. */
export function ranges(w: Map<number, number>): Json[] {
  const addrs = [...w.keys()].sort((a, b) => a - b);
  const out: Json[] = [];
  for (let i = 0; i < addrs.length; ) {
    let j = i + 1;
    while (j < addrs.length && addrs[j] === addrs[j - 1]! + 1) j++;
    const bytes = Uint8Array.from(addrs.slice(i, j), (a) => w.get(a)!);
    const content = bytes.length <= SHORT_RANGE ? hexBytes(bytes) : `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}`;
    out.push([`0x${addrs[i]!.toString(16)}`, j - i, content]);
    i = j;
  }
  return out;
}

/** What a queue holds: entries [0, prod) as read from memory (no software consumes them), its producer count and overflows. */
interface QueueView {
  prod: number;
  overflows: number;
  entry(i: number): Uint8Array;
}

function outcome(cfg: NicRdmaConfig, data: [Map<number, number>, Map<number, number>], q: (n: number, kind: number, vp: number) => QueueView): Outcome {
  const o: Outcome = { data: [], eq: [], mpq: [], intq: [], queues: [], errors: [] };
  for (const n of [0, 1]) {
    o.data.push(ranges(data[n]!));
    const list = (kind: number, vp: number): string[] => {
      const v = q(n, kind, vp);
      return Array.from({ length: v.prod }, (_, i) => hexBytes(v.entry(i)));
    };
    const eqs = Array.from({ length: cfg.vps }, (_, vp) => list(Q_EQ, vp));
    o.eq.push(eqs);
    o.mpq.push(Array.from({ length: cfg.vps }, (_, vp) => list(Q_MPQ, vp)));
    o.intq.push(list(Q_INTQ, 0));
    const qs = (kind: number, vp: number): number[] => {
      const v = q(n, kind, vp);
      return [v.prod, v.overflows];
    };
    o.queues.push({ eq: Array.from({ length: cfg.vps }, (_, vp) => qs(Q_EQ, vp)), mpq: Array.from({ length: cfg.vps }, (_, vp) => qs(Q_MPQ, vp)), intq: qs(Q_INTQ, 0) });
    // every error event: [node, vp, opcode, code, user tag]
    eqs.forEach((l, vp) => {
      for (const e of l) {
        const b = parseHexBytes(e, 32, 'entry');
        if (b[0] === 3) o.errors.push([n, vp, b[1]!, b[2]!, b[4]! | (b[5]! << 8)]);
      }
    });
  }
  return o;
}

// ---------------------------------------------------------------- golden model side

/** The expected outcome of a scenario, from the golden model. */
export function modelOutcome(cfg: NicRdmaConfig, ops: Op[]): Outcome {
  const m = new RdmaModel({ vps: cfg.vps, items: cfg.items, maxPayload: cfg.maxPayload, maxTransfer: cfg.maxTransfer, epqEnabled: false });
  const sizes = [cfg.eqSize, cfg.mpqSize, cfg.intqSize];
  for (const n of [0, 1]) {
    const qm = m.nodes[n]!.queues;
    for (let vp = 0; vp < cfg.vps; vp++) for (const k of [Q_EQ, Q_MPQ]) qm.software({ op: 'register', kind: k, vp, base: queueBase(k, vp, cfg.vps), size: sizes[k]!, count: 0 });
    qm.software({ op: 'register', kind: Q_INTQ, vp: 0, base: queueBase(Q_INTQ, 0, cfg.vps), size: cfg.intqSize, count: 0 });
  }
  for (const o of ops) {
    if (o.op === 'desc') {
      m.run(o.node, o.vp, o.bytes);
      continue;
    }
    const node = m.nodes[o.node]!;
    const it: ModelItem = { ...o.item };
    m.setItem(o.node, o.index, it);
    if (o.fill < 0) continue;
    // the item's pages are contiguous in physical memory too (the default mapping adds a constant frame offset per VP)
    const va0 = it.basePage * 4096;
    const pa0 = itemPa(o.item, va0);
    const pa1 = pa0 + (it.topPage - it.basePage + 1) * 4096;
    // the fill replaces whatever was at these addresses
    for (const a of [...node.mem.keys()]) if (a >= pa0 && a < pa1) node.mem.delete(a);
    const fill = o.fill;
    node.images.unshift({ lo: pa0, hi: pa1, byte: (pa) => fillByte(fill, va0 + pa - pa0) });
  }
  return outcome(cfg, [m.nodes[0].rdmaWrites, m.nodes[1].rdmaWrites], (n, kind, vp) => {
    const r = m.nodes[n]!.queues.ring(kind, vp);
    const E = Q_ENTRY_BYTES[kind]!;
    const mem = m.nodes[n]!.queues.mem;
    return { prod: r.prod, overflows: r.overflows, entry: (i) => Uint8Array.from({ length: E }, (_, k) => mem.get(r.base + (i % r.size) * E + k) ?? 0) };
  });
}

// ---------------------------------------------------------------- RTL side

export function rigFor(cfg: NicRdmaConfig): RdmaRig {
  return new RdmaRig({
    vps: cfg.vps,
    pioVps: cfg.pioVps,
    eqSize: cfg.eqSize,
    mpqSize: cfg.mpqSize,
    intqSize: cfg.intqSize,
    epq: false,
    sdqRing: 16,
    nic: { hdqSlots: 4, items: cfg.items, att: { readLatency: cfg.attLatency, jitter: 0 }, atc: { entries: 256, ways: 4 }, rdma: { maxPayload: cfg.maxPayload, maxTransfer: cfg.maxTransfer } },
    link: { latency: cfg.linkLatency },
  });
}

/**
 * Run a scenario on the two-NIC RTL: every operation the software way, each settled before the
 * next. `tweak` (tests) may alter the rig before the first operation.
 */
export function rtlOutcome(cfg: NicRdmaConfig, ops: Op[], tweak?: (rig: RdmaRig) => void): Outcome {
  const rig = rigFor(cfg);
  const data: [Map<number, number>, Map<number, number>] = [new Map(), new Map()];
  rig.onHostWrite = (n, addr, bytes) => {
    if (rig.inQueue(addr)) return;
    for (let i = 0; i < bytes.length; i++) data[n]!.set(addr + i, bytes[i]!);
  };
  tweak?.(rig);
  for (const o of ops) {
    if (o.op === 'desc') {
      rig.post(o.node, o.vp, o.bytes);
      rig.settle();
      continue;
    }
    rig.setItem(o.node, o.index, o.item);
    if (o.fill < 0) continue;
    const page = new Uint8Array(4096);
    for (let p = o.item.basePage; p <= o.item.topPage; p++) {
      for (let i = 0; i < 4096; i++) page[i] = fillByte(o.fill, p * 4096 + i);
      rig.pair.nics[o.node]!.pcie.mem.write(itemPa(o.item, p * 4096), page);
    }
  }
  return outcome(cfg, data, (n, kind, vp) => {
    const s = rig.pair.nics[n]!.queues.state(kind, vp);
    const E = Q_ENTRY_BYTES[kind]!;
    return { prod: s.prod, overflows: s.overflows, entry: (i) => rig.pair.nics[n]!.pcie.mem.read(s.base + (i % s.size) * E, E) };
  });
}

// ---------------------------------------------------------------- generator

/** A random scenario: both nodes' items (filled), then 2-9 descriptors with the odd item change between them. */
export function randomScenario(cfg: NicRdmaConfig, r: Rng): Op[] {
  const ops: Op[] = [];
  const items: RigItem[][] = [[], []];
  const perVp = Math.max(1, Math.floor(cfg.items / cfg.vps));
  const physicalFrom = cfg.items - Math.max(1, Math.floor(cfg.items / 4));
  for (const n of [0, 1]) {
    for (let i = 0; i < cfg.items; i++) {
      const physical = i >= physicalFrom;
      const base = physical ? 0x20000 + i * 8 : 0x40 * (i + 1) + r.int(16);
      const u = r.int(24);
      const it: RigItem = { valid: u !== 0, key: r.u32(), read: u !== 1, write: u !== 2, basePage: base, topPage: base + r.int(5), vp: i % cfg.vps, physical };
      items[n]!.push(it);
      ops.push({ op: 'item', node: n, index: i, item: it, fill: r.int(256) });
    }
  }
  /** an item of VP vp, physical or virtual as asked when the VP has such an item (what a correct library picks) */
  const itemOf = (vp: number, physical: boolean): number => {
    const ks = Array.from({ length: perVp }, (_, k) => vp + cfg.vps * k).filter((i) => i < cfg.items && i >= physicalFrom === physical);
    return ks.length > 0 ? r.pick(ks) : Math.min(cfg.items - 1, vp + cfg.vps * r.int(perVp));
  };
  const descs = 2 + r.int(8);
  for (let k = 0; k < descs; k++) {
    if (r.int(6) === 0) {
      // a memory-checker change between operations: invalid, read-only, write-only, one page, new key or another owner
      const n = r.int(2);
      const index = r.int(cfg.items);
      const it = { ...items[n]![index]! };
      const c = r.int(6);
      if (c === 0) it.valid = !it.valid;
      if (c === 1) it.write = false;
      if (c === 2) it.read = false;
      if (c === 3) it.topPage = it.basePage;
      if (c === 4) it.key = r.u32();
      if (c === 5) it.vp = (it.vp + 1) % cfg.vps;
      items[n]![index] = it;
      ops.push({ op: 'item', node: n, index, item: it, fill: c === 5 ? r.int(256) : -1 });
    }
    const me = r.int(2);
    const vp = r.int(cfg.vps);
    const dstVp = r.int(cfg.vps);
    const kind = r.pick(['imm_put', 'imm_put', 'put', 'put', 'put', 'put', 'get', 'get', 'get', 'get', 'mp', 'coll', 'garbage'] as const);
    if (kind === 'garbage') {
      // random bytes (half of them with an opcode above 4); the size field (byte 0, bits 5:4) says the
      // buffer's true length, as the HDQ and SDQ need it to take the descriptor in whole
      const b = new Uint8Array(r.bool() ? 64 : 128);
      for (let i = 0; i < b.length; i++) b[i] = r.int(256);
      if (r.bool()) b[0] = (b[0]! & 0xf0) | (5 + r.int(11));
      b[0] = (b[0]! & 0xcf) | (b.length === 128 ? 0x10 : 0);
      ops.push({ op: 'desc', node: me, vp, bytes: b });
      continue;
    }
    // mostly an item of the VP itself and one of the same addressing mode at the target; now and then any item, or the other mode
    const physical = r.int(4) === 0;
    const li = r.int(16) === 0 ? r.int(cfg.items) : itemOf(vp, physical);
    const ri = r.int(16) === 0 ? r.int(cfg.items) : itemOf(dstVp, r.int(16) === 0 ? !physical : physical);
    const L = items[me]![li]!;
    const R = items[1 - me]![ri]!;
    const small = kind === 'imm_put' || kind === 'mp';
    const smallLen = 1 + r.int(80);
    const d: NicDesc = blankDesc({ imm_put: DESC_IMM_PUT, put: DESC_PUT, get: DESC_GET, mp: DESC_MP, coll: DESC_COLL }[kind], kind === 'imm_put' && smallLen > 16 ? 128 : undefined);
    d.dstNode = 1 - me;
    d.dstVp = dstVp;
    d.userTag = r.int(0x10000);
    d.eventData = r.u32();
    d.localEvent = r.bool() || kind === 'get';
    d.remoteEvent = r.bool() && kind !== 'mp';
    d.interrupt = r.int(4) === 0;
    const len = [() => 1 + r.int(300), () => 1 + r.int(5000), () => 1 + r.int(12000)][r.pick([0, 0, 0, 1, 1, 1, 2])]!();
    // an address in an item: aligned to 64 bytes or a page, or anywhere; now and then running past its end
    const addr = (it: RigItem, n: number): number => {
      const span = (it.topPage - it.basePage + 1) * 4096;
      const a = r.int(3);
      let off = a === 0 ? 64 * r.int(span / 64) : a === 1 ? 4096 * r.int(span / 4096) : r.int(span);
      if (r.int(8) !== 0) off = Math.max(0, Math.min(off, span - n));
      return it.basePage * 4096 + off;
    };
    const key = (it: RigItem): number => (r.int(16) === 0 ? (it.key + 1) >>> 0 : it.key);
    if (small) {
      d.length = smallLen;
      d.data = Uint8Array.from({ length: smallLen }, () => r.int(256));
    } else {
      d.length = len;
      d.localItem = li;
      d.localKey = key(L);
      d.localAddr = addr(L, len);
      d.physical = L.physical;
    }
    if (kind === 'coll') {
      const nc = 1 + r.int(COLL_MAX_CHILDREN);
      for (let c = 0; c < nc; c++) {
        const cvp = r.int(cfg.vps);
        const ci = itemOf(cvp, r.int(16) === 0 ? !physical : physical);
        const C = items[1 - me]![ci]!;
        d.children.push({ node: 1 - me, vp: cvp, key: key(C), addr: addr(C, len), item: ci });
      }
    } else if (kind !== 'mp') {
      d.remoteItem = ri;
      d.remoteKey = key(R);
      d.remoteAddr = addr(R, len);
      if (small && R.physical) d.physical = true;
    }
    ops.push({ op: 'desc', node: me, vp, bytes: encodeDescriptor(d) });
  }
  return ops;
}

function generate(cfg: NicRdmaConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const r = new Rng(seed);
  const recs: VectorRecord[] = [];
  for (let id = 0; id < count; id++) {
    const ops = randomScenario(cfg, r.fork(id));
    recs.push({ id, in: { ops: ops.map(opToJson) }, out: { ...modelOutcome(cfg, ops) } });
    produced?.(id + 1);
  }
  return recs;
}

// ---------------------------------------------------------------- replayer

/** The first place two JSON values differ, as "path: expected X, got Y", or ''. */
export function firstDiff(path: string, exp: Json | undefined, got: Json | undefined): string {
  if (Array.isArray(exp) && Array.isArray(got)) {
    for (let i = 0; i < Math.max(exp.length, got.length); i++) {
      const d = firstDiff(`${path}[${i}]`, exp[i], got[i]);
      if (d !== '') return d;
    }
    return '';
  }
  if (exp !== null && got !== null && typeof exp === 'object' && typeof got === 'object' && !Array.isArray(exp) && !Array.isArray(got)) {
    for (const k of [...new Set([...Object.keys(exp), ...Object.keys(got)])].sort()) {
      const d = firstDiff(`${path}.${k}`, exp[k], got[k]);
      if (d !== '') return d;
    }
    return '';
  }
  const e = JSON.stringify(exp ?? null);
  const g = JSON.stringify(got ?? null);
  return e === g ? '' : `${path}: expected ${e}, got ${g}`;
}

/** Differences between a record's expected outcome and an observed one, one per out field. */
export function judge(rec: VectorRecord, got: Outcome): string[] {
  return SHAPE.out.map((k) => firstDiff(`out.${k}`, rec.out[k], got[k as keyof Outcome])).filter((m) => m !== '');
}

function replay(cfg: NicRdmaConfig, records: VectorRecord[]): ReplayOutcome[] {
  // every record is checked before anything runs: a malformed file is refused as a whole
  const scenarios = records.map((rec) => opsFromJson(rec, cfg));
  return records.map((rec, i) => {
    try {
      const mismatches = judge(rec, rtlOutcome(cfg, scenarios[i]!));
      return { id: rec.id, ok: mismatches.length === 0, mismatches };
    } catch (e) {
      return { id: rec.id, ok: false, mismatches: [(e as Error).message] };
    }
  });
}

export function parseNicRdmaConfig(raw: { [k: string]: Json }): NicRdmaConfig {
  for (const k of Object.keys(raw)) if (!FIELDS.includes(k)) throw new InputError(`config: unknown field '${k}' (fields: ${FIELDS.join(', ')})`);
  const c = { ...DEFAULTS, ...(raw as Partial<NicRdmaConfig>) };
  const int = (k: keyof NicRdmaConfig, lo: number, hi: number): void => {
    const v = c[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new InputError(`config.${k} must be an integer in [${lo}, ${hi}], got ${JSON.stringify(v)}`);
  };
  int('vps', 1, 64);
  int('pioVps', 0, c.vps);
  int('items', c.vps, 4096);
  int('maxPayload', 16, 4096);
  int('maxTransfer', 1, 1 << 24);
  for (const k of ['eqSize', 'mpqSize', 'intqSize'] as const) {
    int(k, 1, 4096);
    if ((c[k] & (c[k] - 1)) !== 0) throw new InputError(`config.${k} must be a power of two, got ${c[k]}`);
  }
  int('linkLatency', 1, 100000);
  int('attLatency', 1, 100000);
  return c;
}

export const block: VectorBlock<NicRdmaConfig> = {
  name: 'nicrdma',
  description: 'TH Express-2 two-NIC RDMA transfers (connectless): item writes and descriptors per scenario; data written to each host, every EQ/MPQ/INTQ entry, queue counts and error events, from the golden model',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig: parseNicRdmaConfig,
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [],
};
