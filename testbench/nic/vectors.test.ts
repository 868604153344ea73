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
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';

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
