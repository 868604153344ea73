/**
 * The AMO unit's golden vector set replays through the RTL without a mismatch and regenerates byte
 * for byte; other configurations generate and replay; a tampered record is reported; the
 * $readmemh export has the documented layout.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Json, parse, serialize } from '../../vectors/format.ts';
import { exportTable } from '../../vectors/readmemh.ts';
import { type CheckSummary, checkFile, generateFile, getBlock } from '../../vectors/registry.ts';
import { AmoUnit } from '../../rtl/gemini/amo/unit.ts';
import type { AmoReq } from '../../rtl/gemini/types.ts';
import { type BreakMode, withBrokenResponses } from '../lib/brokenResponses.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/amo.jsonl');
const text = readFileSync(path, 'utf8');

describe('golden vectors: amo', () => {
  const file = parse(text, path);

  it('has a few hundred records covering hits, misses, write-backs and every error, and replays without a mismatch', async () => {
    expect(file.header.block).toBe('amo');
    expect(file.records.length).toBeGreaterThanOrEqual(200);
    const outs = file.records.map((r) => r.out);
    for (const s of ['ok', 'misaligned', 'bad_size', 'bad_op', 'out_of_range']) expect(outs.some((o) => o.status === s)).toBe(true);
    expect(outs.some((o) => o.hit === true)).toBe(true);
    expect(outs.some((o) => o.status === 'ok' && o.hit === false)).toBe(true);
    expect(outs.some((o) => o.wb_addr !== null)).toBe(true);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(file.records.length);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const block = await getBlock('amo');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it.each([
    ['old', (r: { out: { [k: string]: Json } }) => (r.out.old = '0x12345'), /out\.old/],
    ['resp', (r: { cycles?: { [k: string]: Json } }) => (r.cycles!.resp = (r.cycles!.resp as number) + 1), /cycles\.resp/],
    ['hit', (r: { out: { [k: string]: Json } }) => (r.out.hit = !(r.out.hit as boolean)), /out\.hit/],
  ])('reports a tampered %s', async (_name, tamper, msg) => {
    const bad = parse(text, path);
    const rec = bad.records.find((r) => r.out.status === 'ok' && r.out.old !== '0x0')!;
    tamper(rec as never);
    const res = await checkFile(bad);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.id).toBe(rec.id);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(msg);
  });

  it('exports to $readmemh with one 478-bit row per operation', async () => {
    const block = await getBlock('amo');
    const ex = exportTable(block.tables[0]!, file);
    expect(ex.width).toBe(478);
    expect(ex.rows).toBe(file.records.length);
    expect(ex.layoutText.split('\n')[1]).toBe('port 477 468');
    expect(ex.layoutText).toMatch(/\nwb_value 63 0\n$/);
  });
});

describe('amo replayer judges from the vector alone (issue 13 item 3)', () => {
  const file = parse(text, path);
  it('rejects an unknown or a missing field naming the line', async () => {
    const extra = parse(text, path);
    extra.records[5]!.in.colour = 'red';
    await expect(checkFile(extra)).rejects.toThrow(/^line 7: unknown field in\.colour/);
    const extraCy = parse(text, path);
    extraCy.records[9]!.cycles!.done = 3;
    await expect(checkFile(extraCy)).rejects.toThrow(/^line 11: unknown field cycles\.done/);
    const missing = parse(text, path);
    delete missing.records[12]!.out.hit;
    await expect(checkFile(missing)).rejects.toThrow(/^line 14: missing field out\.hit/);
    const noResp = parse(text, path);
    delete noResp.records[0]!.cycles!.resp;
    await expect(checkFile(noResp)).rejects.toThrow(/^line 2: missing field cycles\.resp/);
  });

  type P = { execute(t: number, r: AmoReq, i: number): void };
  const proto = AmoUnit.prototype as unknown as P;
  const broken = (mode: BreakMode, id: number) => withBrokenResponses<AmoReq, CheckSummary>(AmoUnit.prototype, (u: AmoUnit) => u.resp, mode, id, () => checkFile(parse(text, path)));

  it('a response visible one cycle later than the vector says fails, although the RTL claims the expected cycle', async () => {
    const res = await broken('late', -1);
    expect(res.failed).toBe(file.records.length);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.resp: expected \d+, the response was visible in cycle \d+ \(late\)/);
  });

  it('a response given twice, or never, fails on that record', async () => {
    const id = file.records.filter((r) => r.out.status === 'ok')[20]!.id;
    const twice = await broken('twice', id);
    expect(twice.failures[0]!.id).toBe(id);
    expect(twice.failures[0]!.mismatches.join(' ')).toMatch(/answered twice/);
    const never = await broken('never', id);
    expect(never.failures[0]!.id).toBe(id);
    expect(never.failures[0]!.mismatches.join(' ')).toMatch(/no response by cycle/);
  });

  it('a wrong result (one fetched value off by one) fails on that record', async () => {
    const rec = file.records.find((r) => r.id > 50 && r.out.status === 'ok' && r.out.old !== '0x0')!;
    const execute = proto.execute;
    proto.execute = function (this: P, t: number, r: AmoReq, i: number) {
      execute.call(this, t, r, i);
      if (r.tag === rec.id) r.oldLo = (r.oldLo ^ 1) >>> 0;
    };
    try {
      const res = await checkFile(parse(text, path));
      expect(res.failed).toBe(1);
      expect(res.failures[0]!.id).toBe(rec.id);
      expect(res.failures[0]!.mismatches.join(' ')).toMatch(/out\.old: expected/);
    } finally {
      proto.execute = execute;
    }
  });

  it('an early or late expected acceptance in the vector is reported', async () => {
    const bad = parse(text, path);
    const rec = bad.records[30]!;
    rec.cycles!.accept = (rec.cycles!.accept as number) + 1;
    const res = await checkFile(bad);
    expect(res.failures.map((f) => f.id)).toEqual([rec.id]);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.accept: expected \d+, the request was taken in cycle \d+ \(early\)/);
  });
});

describe('amo vectors for other configurations', () => {
  const cases: { [k: string]: Json }[] = [{ writePolicy: 'write-through' }, { replacement: 'fifo', cacheLines: 4, cacheWays: 4 }, { cacheLines: 1, cacheWays: 1, ports: 1, opCycles: 2, readCycles: 2 }, { cacheLines: 64, cacheWays: 8, readCycles: 100 }];
  it.each(cases)('%j', async (over) => {
    const block = await getBlock('amo');
    const cfg = block.parseConfig({ ...block.configToJson(block.defaultConfig()), ...over });
    const res = await checkFile(parse(serialize(generateFile(block, cfg, 5, 250))));
    expect(res.failures.slice(0, 3)).toEqual([]);
  });

  it('rejects bad configurations naming the field', async () => {
    const block = await getBlock('amo');
    expect(() => block.parseConfig({ cacheWays: 3 })).toThrow(/cacheWays \(3\) must divide cacheLines \(8\)/);
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
    expect(() => block.parseConfig({ readCycles: 'slow' as unknown as number })).toThrow(/config\.readCycles must be an integer/);
    expect(() => block.parseConfig({ writePolicy: 'lazy' })).toThrow(/writePolicy/);
  });
});
