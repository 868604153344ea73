/**
 * The checked-in golden vector sets of the ATC and the memory checker: they replay through the RTL
 * without a mismatch, and regenerating each from its recorded seed, configuration and count gives
 * the same bytes. Other configurations are generated and replayed on the fly, and a tampered
 * record must be reported.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Json, parse, serialize } from '../../vectors/format.ts';
import { type CheckSummary, checkFile, generateFile, getBlock } from '../../vectors/registry.ts';
import { type BreakMode, withBrokenResponses } from '../lib/brokenResponses.ts';
import { Atc, type AtcReq } from '../../rtl/nic/atc/index.ts';
import { MemChecker, type MemCheckReq } from '../../rtl/nic/memcheck/index.ts';

const golden = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden');

describe.each(['atc', 'memcheck'])('golden vectors: %s', (name) => {
  const path = join(golden, `${name}.jsonl`);
  const text = readFileSync(path, 'utf8');
  const file = parse(text, path);

  it('has a few hundred records and replays through the RTL without a mismatch', async () => {
    expect(file.header.block).toBe(name);
    expect(file.records.length).toBeGreaterThanOrEqual(200);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(file.records.length);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const block = await getBlock(name);
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const cfg = block.parseConfig(file.header.config);
    const again = serialize(generateFile(block, cfg, file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it('reports a tampered record', async () => {
    const bad = parse(text, path);
    const rec = bad.records.find((r) => (name === 'atc' ? r.in.op === 'lookup' : r.in.op === 'check'))!;
    if (rec.cycles) rec.cycles.resp = (rec.cycles.resp as number) + 1;
    const res = await checkFile(bad);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.id).toBe(rec.id);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.resp/);
  });
});

describe('vectors for other configurations generate and replay', () => {
  const cases: [string, { [k: string]: Json }][] = [
    ['atc', { replacement: 'plru', ways: 8, entries: 64 }],
    ['atc', { mode: 'buffer', entries: 32, ways: 4, bufferBasePage: 4096 }],
    ['atc', { ways: 1, entries: 8, refreshProbeMax: 0, hitLatency: 2, readLatency: 2 }],
    ['memcheck', { sources: 1 }],
    ['memcheck', { sources: 8, latency: 2, items: 8 }],
    ['memcheck', { latency: 7, reqCapacity: 1 }],
  ];
  it.each(cases)('%s %j', async (name, over) => {
    const block = await getBlock(name);
    const cfg = block.parseConfig({ ...block.configToJson(block.defaultConfig()), ...over });
    const file = generateFile(block, cfg, 11, 250);
    const res = await checkFile(parse(serialize(file)));
    expect(res.failures.slice(0, 3)).toEqual([]);
  });

  it('rejects bad configurations naming the field', async () => {
    const atc = await getBlock('atc');
    expect(() => atc.parseConfig({ ways: 3, entries: 64 })).toThrow(/ways \(3\) must divide entries \(64\)/);
    expect(() => atc.parseConfig({ mshrs: 0 })).toThrow(/mshrs/);
    expect(() => atc.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
    const mc = await getBlock('memcheck');
    expect(() => mc.parseConfig({ sources: 'five' as unknown as number })).toThrow(/config.sources must be an integer/);
  });
});

describe('replayers judge from the vector and what they observe (issue 10 item 3)', () => {
  const load = (name: string) => {
    const path = join(golden, `${name}.jsonl`);
    return { path, text: readFileSync(path, 'utf8') };
  };

  it.each(['atc', 'memcheck'])('%s: an unknown or a missing record field is an input error naming the line', async (name) => {
    const { path, text } = load(name);
    const extra = parse(text, path);
    extra.records[5]!.in.colour = 'red';
    await expect(checkFile(extra)).rejects.toThrow(/^line 7: unknown field in\.colour/);
    const extraOut = parse(text, path);
    extraOut.records[9]!.out.bonus = 1;
    await expect(checkFile(extraOut)).rejects.toThrow(/^line 11: unknown field out\.bonus/);
    const missing = parse(text, path);
    const rec = missing.records.find((r) => (name === 'atc' ? r.in.op === 'lookup' : r.in.op === 'check'))!;
    delete rec.out.status;
    delete rec.out.reason;
    await expect(checkFile(missing)).rejects.toThrow(new RegExp(`^line ${rec.id + 2}: missing field out\\.(status|reason)`));
  });

  /** Make the ATC under test answer one cycle late while its doneCycle field claims the documented cycle. */
  function withLateAtc<T>(f: () => Promise<T>): Promise<T> {
    type P = { respond(t: number, r: AtcReq): void; tick(t: number): number; resp: { push(r: AtcReq): void }; __late?: AtcReq[] };
    const proto = Atc.prototype as unknown as P;
    const respond = proto.respond;
    const tick = proto.tick;
    proto.respond = function (this: P, t: number, r: AtcReq) {
      r.doneCycle = t + 1; // the claim
      (this.__late ??= []).push(r); // pushed next cycle: visible one cycle later than claimed
    };
    proto.tick = function (this: P, t: number) {
      const q = this.__late;
      if (q && q.length > 0) for (const r of q.splice(0)) this.resp.push(r);
      const n = tick.call(this, t);
      return this.__late && this.__late.length > 0 ? Math.min(n, t + 1) : n;
    };
    return f().finally(() => {
      proto.respond = respond;
      proto.tick = tick;
    });
  }

  it('atc: a response visible later than the vector says fails, even when the RTL reports the expected cycle', async () => {
    const { path, text } = load('atc');
    const res = await withLateAtc(() => checkFile(parse(text, path)));
    expect(res.failed).toBeGreaterThan(100);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.resp: expected \d+, the response was visible in cycle \d+ \(late\)/);
  });

  it('atc: a response given twice, or never, fails', async () => {
    const { path, text } = load('atc');
    const id = parse(text, path).records.filter((r) => r.in.op === 'lookup')[20]!.id;
    type P = { respond(t: number, r: AtcReq): void; resp: { push(r: AtcReq): void } };
    const proto = Atc.prototype as unknown as P;
    const respond = proto.respond;
    try {
      proto.respond = function (this: P, t: number, r: AtcReq) {
        respond.call(this, t, r);
        if (r.tag === id) this.resp.push(r);
      };
      let res = await checkFile(parse(text, path));
      expect(res.failures[0]!.id).toBe(id);
      expect(res.failures[0]!.mismatches.join(' ')).toMatch(/answered twice|unexpected response/);
      proto.respond = function (this: P, t: number, r: AtcReq) {
        if (r.tag !== id) respond.call(this, t, r);
      };
      res = await checkFile(parse(text, path));
      expect(res.failures[0]!.id).toBe(id);
      expect(res.failures[0]!.mismatches.join(' ')).toMatch(/no response by cycle/);
    } finally {
      proto.respond = respond;
    }
  });

  it('memcheck: a verdict visible later than the vector says, twice or never, fails even when the RTL reports the expected cycle', async () => {
    const { path, text } = load('memcheck');
    const id = parse(text, path).records.filter((r) => r.in.op === 'check')[20]!.id;
    const run = (mode: BreakMode) => withBrokenResponses<MemCheckReq, CheckSummary>(MemChecker.prototype, (m: MemChecker) => m.respOut, mode, id, () => checkFile(parse(text, path)));
    const late = await run('late');
    expect(late.failed).toBeGreaterThan(100);
    expect(late.failures.flatMap((f) => f.mismatches).join(' ')).toMatch(/cycles\.resp: expected \d+, the verdict was visible in cycle \d+ \(late\)/);
    const twice = await run('twice');
    expect(twice.failures.map((f) => f.id)).toContain(id);
    expect(twice.failures.find((f) => f.id === id)!.mismatches.join(' ')).toMatch(/twice/);
    const never = await run('never');
    expect(never.failures.map((f) => f.id)).toContain(id);
    expect(never.failures.find((f) => f.id === id)!.mismatches.join(' ')).toMatch(/no verdict \(lost\)/);
  });
});
