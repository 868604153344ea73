/**
 * Golden vectors for the Gemini AMO unit (docs/gemini.md, field layout in docs/vectors.md).
 * Cycle-exact, serial stimulus: each operation is pushed on a request port after the previous
 * response is visible (plus a gap of 0 to 3 cycles), so every response and its cycle follow from
 * the documented latencies.
 *
 * Record: in {port, op: ADD|...|FAX or a bad code as a number, addr: hex byte address, size,
 * a: hex, b: hex}; out {status: ok|misaligned|bad_size|bad_op|out_of_range, old: hex (the word's
 * value before the operation; "0x0" on an error), hit (the word was in the atomic cache),
 * wb_addr: hex | null and wb_value: hex | null (a dirty word the miss evicted and wrote back to
 * memory)}; cycles {issue (pushed), accept (taken by the unit: issue + 1), resp (response visible)}.
 *
 * Expected values come from the BigInt golden model (models/gemini/amoModel.ts), cycles from its
 * timing function (goldenAmoLatency: an error or a hit answers opCycles after acceptance; a miss
 * adds readCycles + 2 (the fill read pushed the cycle after acceptance, one cycle into memory, the
 * read, one cycle back), and one more cycle when a dirty victim's write-back goes out first).
 * The replayer judges the RTL from the vector alone (see replay).
 * Memory starts all zero; the unit's memory is memBytes long.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { AMO_FCSWAP, AMO_NAMES, AMO_STATUS_NAMES } from '../../rtl/gemini/amo/ops.ts';
import { AmoUnit, amoUnitConfig } from '../../rtl/gemini/amo/unit.ts';
import { HostMemory } from '../../rtl/gemini/hostMemory.ts';
import { AmoReq } from '../../rtl/gemini/types.ts';
import { GoldenAmoUnit, goldenAmoLatency } from '../../models/gemini/amoModel.ts';
import { hexBits, type Json, RecordReader, type VectorFile, type VectorRecord } from '../format.ts';
import { checkShape, type RecordShape } from '../fields.ts';
import type { RecordProduced, ReplayOutcome, VectorBlock } from '../registry.ts';

export interface AmoVecConfig {
  ports: number;
  cacheLines: number;
  cacheWays: number;
  replacement: 'lru' | 'fifo';
  writePolicy: 'write-back' | 'write-through';
  opCycles: number;
  readCycles: number;
  memBytes: number;
}

const DEFAULTS: AmoVecConfig = { ports: 4, cacheLines: 8, cacheWays: 2, replacement: 'lru', writePolicy: 'write-back', opCycles: 4, readCycles: 20, memBytes: 4096 };
const INT_KEYS = ['ports', 'cacheLines', 'cacheWays', 'opCycles', 'readCycles', 'memBytes'] as const;
const M64 = (1n << 64n) - 1n;

function opName(op: number): Json {
  return AMO_NAMES[op] ?? op;
}

function generate(cfg: AmoVecConfig, seed: number, count: number, produced?: RecordProduced): VectorRecord[] {
  const g = new GoldenAmoUnit({ ...cfg });
  const rng = new Rng(seed);
  // a pool of words a little larger than the cache (conflicts, evictions), and the extremes
  const words = Math.min(cfg.memBytes / 8, cfg.cacheLines + 2 * cfg.cacheWays + 2);
  const operand = (): bigint => [rng.u64(), BigInt(rng.int(16)), M64, 1n << 63n, 0xffffffffn][rng.int(5)]!;
  const records: VectorRecord[] = [];
  let t = 0;
  for (let id = 0; id < count; id++) {
    const port = rng.int(cfg.ports);
    let op = rng.int(AMO_NAMES.length);
    let addr = rng.int(words) * 8;
    let size = 8;
    const bad = rng.int(16);
    if (bad === 0) addr += 1 + rng.int(7);
    else if (bad === 1) size = [1, 2, 4, 16][rng.int(4)]!;
    else if (bad === 2) op = AMO_NAMES.length + rng.int(6);
    else if (bad === 3) addr = cfg.memBytes + 8 * rng.int(4);
    const a = operand();
    // FCSWAP: compare with the current value half of the time, so swaps happen
    const b = op === AMO_FCSWAP && rng.bool() && addr % 8 === 0 && addr < cfg.memBytes ? g.current(BigInt(addr)) : operand();
    const r = g.op(op, addr, size, a, b);
    const accept = t + 1;
    const resp = accept + goldenAmoLatency(r, cfg);
    records.push({
      id,
      in: { port, op: opName(op), addr: hexBits(addr), size, a: hexBits(a), b: hexBits(b) },
      out: { status: AMO_STATUS_NAMES[r.status]!, old: hexBits(r.old), hit: r.hit, wb_addr: r.writeBack ? hexBits(r.writeBack.addr) : null, wb_value: r.writeBack ? hexBits(r.writeBack.value) : null },
      cycles: { issue: t, accept, resp },
    });
    produced?.(records.length);
    t = resp + rng.int(4);
  }
  return records;
}

function decodeOp(i: RecordReader): number {
  const v = i.json('op');
  if (typeof v === 'string') return AMO_NAMES.indexOf(i.str('op', AMO_NAMES) as never);
  return i.int('op', 0, 255);
}

const SHAPE: RecordShape = { in: ['port', 'op', 'addr', 'size', 'a', 'b'], out: ['status', 'old', 'hit', 'wb_addr', 'wb_value'], cycles: ['issue', 'accept', 'resp'] };
/** cycles the replayer waits past the expected cycle before calling a response missing */
const LATE_SLACK = 64;

/**
 * Replays the records through the RTL. Expectations come from the vector alone: the testbench
 * steps the design one cycle at a time, pops every port's response channel every cycle and notes
 * the cycle a response became visible, and notes the cycle the unit took the request off its
 * request channel (accept). A response earlier or later than `cycles.resp`, a second response, a
 * response on another port or while idle, or none within LATE_SLACK cycles of the expected cycle is
 * a mismatch; the RTL's own acceptCycle/doneCycle fields are not read. Records are checked for
 * unknown and missing fields first (InputError naming the line).
 */
function replay(cfg: AmoVecConfig, records: VectorRecord[]): ReplayOutcome[] {
  for (const rec of records) checkShape(rec, 'vector', SHAPE);
  const sim = new Simulator();
  const mem = new HostMemory(sim, 'mem', { bytes: cfg.memBytes, readCycles: cfg.readCycles });
  const unit = new AmoUnit(sim, 'amo', { ...cfg }, { req: mem.req, resp: mem.resp });
  const out: ReplayOutcome[] = [];
  const got: { port: number; r: AmoReq }[] = [];
  /** one cycle; returns the responses that became poppable on any port (the testbench pops every cycle) */
  const cycle = (): { port: number; r: AmoReq }[] => {
    sim.step(1);
    got.length = 0;
    for (let p = 0; p < unit.resp.length; p++) while (unit.resp[p]!.canPop()) got.push({ port: p, r: unit.resp[p]!.pop() });
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
      if (issue < sim.cycle) {
        miss(`cycles.issue: ${issue} is before the previous response (cycle ${sim.cycle})`);
        continue;
      }
      const q = new AmoReq();
      q.tag = rec.id;
      q.port = i.int('port', 0, cfg.ports - 1);
      q.op = decodeOp(i);
      q.addr = Number(i.hex('addr', 48));
      q.size = i.int('size', 0, 64);
      const a = i.hex('a', 64);
      const b = i.hex('b', 64);
      q.aHi = Number(a >> 32n);
      q.aLo = Number(a & 0xffffffffn);
      q.bHi = Number(b >> 32n);
      q.bLo = Number(b & 0xffffffffn);
      const wantAccept = cy.int('accept', issue + 1);
      const want = cy.int('resp', wantAccept + 1);
      // nothing may come out between operations (a late or duplicated response of an earlier one)
      while (sim.cycle < issue) for (const x of cycle()) miss(`unexpected response (tag ${x.r.tag}, port ${x.port}) in cycle ${sim.cycle} while idle: answered twice or late`);
      const reqCh = unit.req[q.port]!;
      reqCh.push(q);
      let accepted = -1;
      let seen = -1;
      let resp: AmoReq | null = null;
      while (seen < 0 && sim.cycle < want + LATE_SLACK) {
        for (const x of cycle()) {
          if (x.r !== q) miss(`response for another request (tag ${x.r.tag}, port ${x.port}) in cycle ${sim.cycle}`);
          else if (x.port !== q.port) miss(`response on port ${x.port}, expected port ${q.port}`);
          else if (seen >= 0) miss(`answered twice (cycles ${seen} and ${sim.cycle})`);
          else {
            seen = sim.cycle;
            resp = x.r;
          }
        }
        // taken off the request channel in the cycle just simulated
        if (accepted < 0 && reqCh.occupancy() === 0) accepted = sim.cycle - 1;
      }
      if (accepted < 0) miss(`cycles.accept: expected ${wantAccept}, the request was never taken`);
      else if (accepted !== wantAccept) miss(`cycles.accept: expected ${wantAccept}, the request was taken in cycle ${accepted} (${accepted < wantAccept ? 'early' : 'late'})`);
      if (seen < 0 || resp === null) {
        miss(`cycles.resp: expected ${want}, no response by cycle ${sim.cycle}`);
        continue;
      }
      if (seen !== want) miss(`cycles.resp: expected ${want}, the response was visible in cycle ${seen} (${seen < want ? 'early' : 'late'})`);
      const status = AMO_STATUS_NAMES[resp.status] ?? `code ${resp.status}`;
      if (status !== exp.str('status')) miss(`out.status: expected ${exp.str('status')}, got ${status}`);
      const old = resp.status === 0 ? (BigInt(resp.oldHi >>> 0) << 32n) | BigInt(resp.oldLo >>> 0) : 0n;
      if (old !== exp.hex('old', 64)) miss(`out.old: expected ${hexBits(exp.hex('old', 64))}, got ${hexBits(old)}`);
      if (resp.hit !== exp.bool('hit')) miss(`out.hit: expected ${exp.bool('hit')}, got ${resp.hit}`);
      if (exp.json('wb_addr') !== null) {
        const w = mem.load64(Number(exp.hex('wb_addr', 48)));
        const v = (BigInt(w.hi) << 32n) | BigInt(w.lo);
        if (v !== exp.hex('wb_value', 64)) miss(`out.wb_value: memory at ${hexBits(exp.hex('wb_addr', 48))} holds ${hexBits(v)}, expected ${hexBits(exp.hex('wb_value', 64))}`);
      }
    } catch (e) {
      miss((e as Error).message);
    }
  }
  // a response after the last operation is a duplicate or a late one
  for (let k = 0; k < LATE_SLACK; k++)
    for (const x of cycle())
      if (out.length > 0) {
        const last = out[out.length - 1]!;
        last.ok = false;
        last.mismatches.push(`unexpected response (tag ${x.r.tag}, port ${x.port}) in cycle ${sim.cycle} after the last operation`);
      }
  return out;
}

function opCode(v: Json): bigint {
  return BigInt(typeof v === 'string' ? AMO_NAMES.indexOf(v as never) : (v as number));
}

export const block: VectorBlock<AmoVecConfig> = {
  name: 'amo',
  description: 'Gemini AMO unit: 64-bit atomics through the atomic cache (hits, misses, write-backs, bad requests), cycle-exact',
  generatorVersion: '1',
  defaultConfig: () => ({ ...DEFAULTS }),
  parseConfig(raw) {
    const keys = [...INT_KEYS, 'replacement', 'writePolicy'];
    for (const k of Object.keys(raw)) if (!keys.includes(k)) throw new InputError(`config: unknown field '${k}' (fields: ${keys.join(', ')})`);
    const c = { ...DEFAULTS };
    for (const k of INT_KEYS) {
      const v = raw[k];
      if (v === undefined) continue;
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InputError(`config.${k} must be an integer, got ${JSON.stringify(v)}`);
      c[k] = v;
    }
    if (raw.replacement !== undefined) c.replacement = raw.replacement as AmoVecConfig['replacement'];
    if (raw.writePolicy !== undefined) c.writePolicy = raw.writePolicy as AmoVecConfig['writePolicy'];
    amoUnitConfig({ ...c });
    if (!Number.isInteger(c.readCycles) || c.readCycles < 2 || c.readCycles > 100000) throw new InputError(`config.readCycles must be an integer in [2, 100000], got ${c.readCycles}`);
    if (c.memBytes > 2 ** 40) throw new InputError('config.memBytes must be at most 2^40');
    return c;
  },
  configToJson: (c) => ({ ...c }),
  generate,
  replay,
  tables: [
    {
      name: 'ops',
      layout: [
        { name: 'port', width: 10 },
        { name: 'op', width: 8, codes: AMO_NAMES },
        { name: 'addr', width: 48 },
        { name: 'size', width: 7 },
        { name: 'a', width: 64 },
        { name: 'b', width: 64 },
        { name: 'issue', width: 32 },
        { name: 'accept', width: 32 },
        { name: 'resp', width: 32 },
        { name: 'status', width: 3, codes: AMO_STATUS_NAMES },
        { name: 'old', width: 64 },
        { name: 'hit', width: 1 },
        { name: 'wb_valid', width: 1 },
        { name: 'wb_addr', width: 48 },
        { name: 'wb_value', width: 64 },
      ],
      rows: (file: VectorFile) =>
        file.records.map((r) => {
          const i = new RecordReader(r, 'in');
          const o = new RecordReader(r, 'out');
          const c = new RecordReader(r, 'cycles');
          const wb = o.json('wb_addr') !== null;
          return [
            BigInt(i.int('port', 0)),
            opCode(i.json('op') ?? null),
            i.hex('addr', 48),
            BigInt(i.int('size', 0, 64)),
            i.hex('a', 64),
            i.hex('b', 64),
            BigInt(c.int('issue')),
            BigInt(c.int('accept')),
            BigInt(c.int('resp')),
            BigInt(AMO_STATUS_NAMES.indexOf(o.str('status') as never)),
            o.hex('old', 64),
            o.bool('hit') ? 1n : 0n,
            wb ? 1n : 0n,
            wb ? o.hex('wb_addr', 48) : 0n,
            wb ? o.hex('wb_value', 64) : 0n,
          ];
        }),
    },
  ],
};
