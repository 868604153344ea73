/**
 * Golden vectors for the CORE-Direct MQ/MWR task machine (docs/coredirect.md). Not cycle-exact:
 * each record is one scenario whose outcome does not depend on timing.
 *
 * A two-node system, one process each, `qps` QPs connected QP j <-> QP j. In a record, the DUT
 * (node 0) first has `recvs[j]` receives pre-posted on each QP j, the peer (node 1) posts
 * `peer_sends[j]` sends (or RDMA writes with immediate, `peer_kind`) on its QP j, and the DUT posts
 * one MWR (`mwr`: tasks {op, qp, cq, count, index, signal}; op one of send, rdma_write_imm, recv,
 * wait, send_enable, recv_enable, or an unknown name to exercise the error path). Expected, from
 * the golden model (models/coredirect/golden.ts): `rejected` (null, or why the driver refused the
 * MWR: empty, too_long, unknown_kind, bad_field), `posted` (per queue, the entries the posting
 * rule wrote), `consumed` (per queue, entries executed or consumed once everything has settled),
 * `signals` (MWR completions), `mq_error` (an enable named an entry never posted), `sent`
 * (packets the DUT sent per QP). The replayer drives the RTL (driver + HCA) the same way.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { MwrError, postMwr, postReceives, postSend, QueueHeads } from '../../rtl/coredirect/driver.ts';
import { Hca, N_ERROR, N_MWR_DONE, noteKind } from '../../rtl/coredirect/hca.ts';
import { hcaParams } from '../../rtl/coredirect/params.ts';
import { F_DISABLED, F_SIGNAL, type MwrTask, type PostedEntry, queueName, T_RDMA_WRITE_IMM, T_SEND, TASK_NAMES } from '../../rtl/coredirect/tasks.ts';
import { type GEntry, goldenOrder, goldenPost, type GQueues, goldenReject, type GRank, goldenRun, type GTask } from '../../models/coredirect/golden.ts';
import type { Json, VectorRecord } from '../format.ts';
import { lineOf } from '../fields.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export interface MwrVecConfig {
  qps: number;
  /** send-queue length = MWR length limit (small, so the limit is exercised) */
  sqLength: number;
}

const DEFAULTS: MwrVecConfig = { qps: 3, sqLength: 24 };
const OPS = ['send', 'rdma_write_imm', 'recv', 'wait', 'send_enable', 'recv_enable'] as const;

interface VTask {
  op: string;
  qp: number;
  cq: number;
  count: number;
  index: number;
  signal: boolean;
}

interface Scenario {
  recvs: number[];
  peerSends: number[];
  peerKind: 'send' | 'rdma_write_imm';
  mwr: VTask[];
}

function genScenario(cfg: MwrVecConfig, r: Rng, id: number): Scenario {
  const Q = cfg.qps;
  const recvs = Array.from({ length: Q }, () => r.int(3));
  const peerSends = Array.from({ length: Q }, () => r.int(3));
  const peerKind = r.bool() ? 'send' : 'rdma_write_imm';
  const n = id % 40 === 7 ? cfg.sqLength + 1 + r.int(3) : 1 + r.int(10);
  const mwr: VTask[] = [];
  // waits on one CQ all sit in one queue: waits in different queues racing for the same
  // completions would make the outcome depend on timing (in the hardware too)
  const owner = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const op = id % 23 === 5 && i === n - 1 ? 'fetch_add' : OPS[r.int(OPS.length)]!;
    const cq = r.int(Q + 2);
    let qp = op === 'wait' ? r.int(Q + 1) - 1 : r.int(60) === 0 ? Q : r.int(Q);
    if (op === 'wait') {
      qp = owner.get(cq) ?? qp;
      owner.set(cq, qp);
    }
    mwr.push({ op, qp, cq, count: 1 + r.int(2), index: r.int(4), signal: r.int(4) === 0 || i === n - 1 });
  }
  return { recvs, peerSends, peerKind, mwr };
}

function toJson(s: Scenario): { [k: string]: Json } {
  return { recvs: s.recvs, peer_sends: s.peerSends, peer_kind: s.peerKind, mwr: s.mwr.map((t) => ({ ...t })) };
}

function fromJson(rec: VectorRecord, cfg: MwrVecConfig): Scenario {
  const where = `record ${rec.id}: in`;
  const arr = (k: string, n: number): number[] => {
    const v = rec.in[k];
    if (!Array.isArray(v) || v.length !== n || !v.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 1000)) throw new InputError(`${where}.${k} must be a list of ${n} integers in [0, 1000]`);
    return v as number[];
  };
  const kind = rec.in.peer_kind;
  if (kind !== 'send' && kind !== 'rdma_write_imm') throw new InputError(`${where}.peer_kind must be send or rdma_write_imm, got ${JSON.stringify(kind)}`);
  const m = rec.in.mwr;
  if (!Array.isArray(m) || m.length > 100000) throw new InputError(`${where}.mwr must be a list of tasks`);
  const mwr = m.map((t, i) => {
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw new InputError(`${where}.mwr[${i}] must be an object`);
    const o = t as { [k: string]: Json };
    if (typeof o.op !== 'string') throw new InputError(`${where}.mwr[${i}].op must be a string`);
    for (const k of ['qp', 'cq', 'count', 'index']) if (typeof o[k] !== 'number' || !Number.isSafeInteger(o[k])) throw new InputError(`${where}.mwr[${i}].${k} must be an integer`);
    if (typeof o.signal !== 'boolean') throw new InputError(`${where}.mwr[${i}].signal must be true or false`);
    return { op: o.op, qp: o.qp as number, cq: o.cq as number, count: o.count as number, index: o.index as number, signal: o.signal };
  });
  return { recvs: arr('recvs', cfg.qps), peerSends: arr('peer_sends', cfg.qps), peerKind: kind, mwr };
}

/** The expected outcome, from the golden model only. */
function expected(cfg: MwrVecConfig, s: Scenario): { [k: string]: Json } {
  const gOp = (op: string): string => (op === 'rdma_write_imm' ? 'write_imm' : op);
  const tasks = s.mwr.map((t) => ({ op: gOp(t.op), qp: t.qp, cq: t.cq, count: t.count, upTo: t.index }));
  const rejected = goldenReject(tasks, cfg.qps, cfg.sqLength);
  const dut: GQueues = new Map();
  const peer: GQueues = new Map();
  // receives pre-posted and the peer's sends are plain posts (enabled, outside any MWR)
  for (let j = 0; j < cfg.qps; j++) {
    if (s.recvs[j]! > 0) dut.set(`rq${j}`, Array.from({ length: s.recvs[j]! }, () => ({ op: 'recv', qp: j, enabledAtPost: true, signal: false })));
    if (s.peerSends[j]! > 0) peer.set(`sq${j}`, Array.from({ length: s.peerSends[j]! }, () => ({ op: gOp(s.peerKind), qp: j, enabledAtPost: true, signal: false })));
  }
  const before = new Map([...dut].map(([k, v]) => [k, v.length]));
  if (rejected === null)
    goldenPost(
      s.mwr.map((t): GTask => {
        const signal = t.signal;
        if (t.op === 'wait') return { op: 'wait', queue: t.qp === -1 ? null : t.qp, cq: t.cq, count: t.count, signal };
        if (t.op === 'send_enable' || t.op === 'recv_enable') return { op: t.op, qp: t.qp, upTo: t.index, signal };
        return { op: gOp(t.op) as 'send' | 'write_imm' | 'recv', qp: t.qp, signal };
      }),
      dut,
    );
  const link = new Map(Array.from({ length: cfg.qps }, (_, j) => [j, [0, j] as [number, number]]));
  const ranks: GRank[] = [
    { queues: dut, link: new Map(Array.from({ length: cfg.qps }, (_, j) => [j, [1, j] as [number, number]])), sendCq: cfg.qps },
    { queues: peer, link, sendCq: cfg.qps },
  ];
  const out = goldenRun(ranks, () => 0);
  const posted: { [k: string]: Json } = {};
  for (const [name, list] of [...dut].sort()) {
    const from = before.get(name) ?? 0;
    const mine = list.slice(from).map((e: GEntry) => `${e.op === 'write_imm' ? 'rdma_write_imm' : e.op}${e.op === 'wait' ? ` cq${e.cq}x${e.count}` : e.upTo !== undefined ? ` qp${e.qp}<=${e.upTo}` : ''}${e.enabledAtPost ? '' : ' disabled'}${e.signal ? ' signal' : ''}`);
    if (mine.length > 0) posted[name] = mine;
  }
  const consumed: { [k: string]: Json } = {};
  for (const [name, n] of [...out.consumed[0]!].sort()) if (n > 0) consumed[name] = n;
  const sent = Array.from({ length: cfg.qps }, (_, j) => countSent(dut.get(`sq${j}`) ?? [], out.consumed[0]!.get(`sq${j}`) ?? 0));
  const order: { [k: string]: Json } = {};
  for (const [k, v] of goldenOrder(dut, out.consumed[0]!)) order[k] = v;
  const completions: { [k: string]: Json } = {};
  for (const [c, n] of [...out.completions[0]!].sort((x, y) => x[0] - y[0])) if (n > 0) completions[`cq${c}`] = n;
  return { rejected, posted, consumed, signals: out.signals[0]!, mq_error: out.errors[0] !== null, sent, order, completions };
}

/** packets sent by the first n executed entries of a send queue (waits send nothing) */
function countSent(list: GEntry[], n: number): number {
  return list.slice(0, n).filter((e) => e.op !== 'wait').length;
}

const KIND_OF: Record<string, number> = Object.fromEntries(TASK_NAMES.map((n, i) => [n, i]));

/** Run the scenario through the RTL driver and HCA; the same fields as expected(). */
function run(cfg: MwrVecConfig, s: Scenario): { [k: string]: Json } {
  const sim = new Simulator({ freqHz: 1e9 });
  const p = hcaParams({ sqLength: cfg.sqLength });
  const a = new Hca(sim, 'dut', p, { qps: [cfg.qps], ranks: [0], recvCqToHost: false, log: true });
  const b = new Hca(sim, 'peer', p, { qps: [cfg.qps], ranks: [1], recvCqToHost: false });
  for (let j = 0; j < cfg.qps; j++) Hca.connect(a, 0, j, b, 0, j);
  a.finish();
  b.finish();
  const ha = new QueueHeads(cfg.qps);
  const hb = new QueueHeads(cfg.qps);
  const pre: PostedEntry[] = [];
  const peer: PostedEntry[] = [];
  for (let j = 0; j < cfg.qps; j++) {
    pre.push(...postReceives(j, s.recvs[j]!, ha));
    for (let k = 0; k < s.peerSends[j]!; k++) peer.push(postSend(s.peerKind === 'send' ? T_SEND : T_RDMA_WRITE_IMM, j, hb));
  }
  if (pre.length > 0) a.ports[0]!.doorbell.push(pre);
  if (peer.length > 0) b.ports[0]!.doorbell.push(peer);
  let rejected: string | null = null;
  let posted: PostedEntry[] = [];
  const tasks: MwrTask[] = s.mwr.map((t) => ({ kind: KIND_OF[t.op] ?? 99, qp: t.qp, cq: t.cq, count: t.count, index: t.index, flags: t.signal ? F_SIGNAL : 0 }));
  try {
    posted = postMwr(tasks, ha, cfg.sqLength);
  } catch (e) {
    if (!(e instanceof MwrError)) throw e;
    const m = e.message;
    rejected = /empty MWR/.test(m) ? 'empty' : /exceed the MWR length limit/.test(m) ? 'too_long' : /unknown task kind/.test(m) ? 'unknown_kind' : 'bad_field';
  }
  sim.step(1);
  if (posted.length > 0) a.ports[0]!.doorbell.push(posted);
  sim.step(100000);
  const out: { [k: string]: Json } = {};
  for (const e of posted) {
    const name = queueName(e.queue);
    const what = `${TASK_NAMES[e.kind]}${TASK_NAMES[e.kind] === 'wait' ? ` cq${e.cq}x${e.count}` : e.target >= 0 ? ` qp${e.qp}<=${e.target}` : ''}${e.flags & F_DISABLED ? ' disabled' : ''}${e.flags & F_SIGNAL ? ' signal' : ''}`;
    ((out[name] ??= []) as Json[]).push(what);
  }
  const posted2: { [k: string]: Json } = {};
  for (const k of Object.keys(out).sort()) posted2[k] = out[k]!;
  const consumed: { [k: string]: Json } = {};
  const names: [string, number][] = [['mq', a.mq[0]!.ci.q]];
  for (let j = 0; j < cfg.qps; j++) names.push([`rq${j}`, a.rq[0]![j]!.ci.q], [`sq${j}`, a.sq[0]![j]!.ci.q]);
  for (const [n, c] of names.sort((x, y) => (x[0] < y[0] ? -1 : 1))) if (c > 0) consumed[n] = c;
  let signals = 0;
  let mqError = false;
  const ch = a.ports[0]!.notify;
  while (ch.canPop()) {
    const k = noteKind(ch.pop());
    if (k === N_MWR_DONE) signals++;
    if (k === N_ERROR) mqError = true;
  }
  const sent = Array.from({ length: cfg.qps }, (_, j) => a.events.filter((e) => e.queue === `sq${j}` && e.kind !== 'wait').length);
  const completions: { [k: string]: Json } = {};
  for (let c = 0; c < a.cqProduced[0]!.length; c++) if (a.cqProduced[0]![c]!.q > 0) completions[`cq${c}`] = a.cqProduced[0]![c]!.q;
  return { rejected, posted: posted2, consumed, signals, mq_error: mqError, sent, completions, events: a.events.map((e) => ({ cycle: e.cycle, queue: e.queue, index: e.index, kind: e.kind })) };
}

interface SeenEvent {
  cycle: number;
  queue: string;
  index: number;
  kind: string;
}

/**
 * Checks the DUT's executions against `out.order` (from the golden model): every entry named there
 * ran exactly once and nothing else ran; each ran strictly after every event it names (an earlier
 * entry, an MQ enable, the n-th completion of a CQ). Completions are read off the HCA's execution
 * log: a receive CQ j gets one per send or RDMA write with immediate taken on QP j, the send CQ one
 * per send or RDMA write the DUT's send queues executed.
 */
function checkOrder(cfg: MwrVecConfig, order: { [k: string]: Json }, events: SeenEvent[], miss: (m: string) => void): void {
  const ran = new Map<string, number>();
  const done = new Map<number, number[]>();
  const complete = (cq: number, cycle: number): void => {
    let l = done.get(cq);
    if (!l) done.set(cq, (l = []));
    l.push(cycle);
  };
  for (const e of events) {
    if (e.queue.startsWith('in')) {
      if (e.kind !== 'rdma_write') complete(Number(e.queue.slice(2)), e.cycle);
      continue;
    }
    const key = `${e.queue}.${e.index}`;
    const prev = ran.get(key);
    if (prev !== undefined) miss(`order: ${key} ran twice (cycles ${prev} and ${e.cycle})`);
    else ran.set(key, e.cycle);
    if (!(key in order)) miss(`order: ${key} (${e.kind}) ran in cycle ${e.cycle}, which the golden model does not run`);
    if (e.queue.startsWith('sq') && e.kind !== 'wait') complete(cfg.qps, e.cycle);
  }
  const cycleOf = (ev: string): number | string => {
    const m = /^cq(\d+)#(\d+)$/.exec(ev);
    if (m) {
      const l = done.get(Number(m[1])) ?? [];
      const n = Number(m[2]);
      return n <= l.length ? l[n - 1]! : `CQ ${m[1]} got only ${l.length} completions`;
    }
    return ran.get(ev) ?? `${ev} never ran`;
  };
  for (const key of Object.keys(order).sort()) {
    const t = ran.get(key);
    if (t === undefined) {
      miss(`order: ${key} never ran`);
      continue;
    }
    const before = order[key];
    if (!Array.isArray(before) || !before.every((x) => typeof x === 'string')) throw new InputError(`out.order.${key} must be a list of event names`);
    for (const ev of before as string[]) {
      const c = cycleOf(ev);
      if (typeof c === 'string') miss(`order: ${key} ran in cycle ${t} but must follow ${ev}: ${c}`);
      else if (c >= t) miss(`order: ${key} ran in cycle ${t}, not after ${ev} (cycle ${c})`);
    }
  }
}

function generate(cfg: MwrVecConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const r = new Rng(seed);
  const recs: VectorRecord[] = [];
  for (let id = 0; id < count; id++) {
    const s = genScenario(cfg, r, id);
    recs.push({ id, in: toJson(s), out: expected(cfg, s) });
    produced?.(id + 1);
  }
  return recs;
}

const OUT_FIELDS = ['rejected', 'posted', 'consumed', 'signals', 'mq_error', 'sent', 'order', 'completions'];

function replay(cfg: MwrVecConfig, records: VectorRecord[]): ReplayOutcome[] {
  return records.map((rec) => {
    try {
      for (const k of Object.keys(rec.out)) if (!OUT_FIELDS.includes(k)) throw new InputError(`line ${lineOf(rec)}: unknown field out.${k} (fields: ${OUT_FIELDS.join(', ')})`);
      for (const k of OUT_FIELDS) if (rec.out[k] === undefined) throw new InputError(`line ${lineOf(rec)}: missing field out.${k}`);
      const order = rec.out.order;
      if (typeof order !== 'object' || order === null || Array.isArray(order)) throw new InputError(`line ${lineOf(rec)}: out.order must be an object`);
      const got = run(cfg, fromJson(rec, cfg));
      const mismatches: string[] = [];
      for (const k of ['rejected', 'posted', 'consumed', 'signals', 'mq_error', 'sent', 'completions']) {
        const e = JSON.stringify(rec.out[k]);
        const g = JSON.stringify(got[k]);
        if (e !== g) mismatches.push(`out.${k}: expected ${e}, got ${g}`);
      }
      checkOrder(cfg, order, got.events as unknown as SeenEvent[], (m) => mismatches.push(m));
      return { id: rec.id, ok: mismatches.length === 0, mismatches };
    } catch (e) {
      if (e instanceof InputError) throw e;
      return { id: rec.id, ok: false, mismatches: [(e as Error).message] };
    }
  });
}

export const block: VectorBlock<MwrVecConfig> = {
  name: 'mwr',
  description: 'CORE-Direct MWR posting rule and MQ task machine (two nodes): posted entries, executed counts, completions, errors',
  generatorVersion: '2',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig(raw) {
    for (const k of Object.keys(raw)) if (k !== 'qps' && k !== 'sqLength') throw new InputError(`config: unknown field '${k}' (fields: qps, sqLength)`);
    const c = { ...DEFAULTS };
    if (raw.qps !== undefined) {
      if (typeof raw.qps !== 'number' || !Number.isInteger(raw.qps) || raw.qps < 1 || raw.qps > 16) throw new InputError(`config.qps must be an integer in [1, 16], got ${JSON.stringify(raw.qps)}`);
      c.qps = raw.qps;
    }
    if (raw.sqLength !== undefined) {
      if (typeof raw.sqLength !== 'number' || !Number.isInteger(raw.sqLength) || raw.sqLength < 1 || raw.sqLength > 16000) throw new InputError(`config.sqLength must be an integer in [1, 16000], got ${JSON.stringify(raw.sqLength)}`);
      c.sqLength = raw.sqLength;
    }
    return c;
  },
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [],
};
