/**
 * The scheduler/readout golden vector set (vectors/golden/nicsched.jsonl): replays through the RTL
 * cycle for cycle, regenerates byte for byte, reports a tampered record, fails when the scheduler
 * differs from the one the vectors were made for, and refuses malformed records naming the field.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Json, parse, serialize } from '../../vectors/format.ts';
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/nicsched.jsonl');
const text = readFileSync(path, 'utf8');

describe('golden vectors: nicsched', () => {
  it('has 200 scenarios and replays through the RTL without a mismatch', async () => {
    const file = parse(text, path);
    expect(file.header.block).toBe('nicsched');
    expect(file.records.length).toBe(200);
    const reads = file.records.reduce((a, r) => a + (r.cycles!.reads as unknown[]).length, 0);
    const dispatched = file.records.reduce((a, r) => a + (r.cycles!.dispatch as unknown[]).length, 0);
    const errors = file.records.reduce((a, r) => a + (r.out.errors as unknown[]).length, 0);
    expect(reads).toBeGreaterThan(2000);
    expect(dispatched).toBeGreaterThan(5000);
    expect(errors).toBeGreaterThan(100);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(200);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const file = parse(text, path);
    const block = await getBlock('nicsched');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it('reports a tampered dispatch cycle, naming the record and the entry', async () => {
    const file = parse(text, path);
    const rec = file.records[7]!;
    const d = rec.cycles!.dispatch as number[][];
    d[0]![0] = d[0]![0]! + 1;
    const res = await checkFile(file);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.id).toBe(7);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.dispatch\[0\]: expected \[/);
  });

  it.each(['fixed-priority', 'oldest-first'])('fails when replayed on a %s scheduler (a broken scheduler is caught)', async (policy) => {
    const file = parse(text, path);
    file.header.config = { ...file.header.config, policy };
    const res = await checkFile(file);
    expect(res.failed).toBeGreaterThan(20);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.(reads|dispatch)\[\d+\]/);
  });

  it('other configurations generate and replay', async () => {
    const block = await getBlock('nicsched');
    const overs: { [k: string]: Json }[] = [{ policy: 'oldest-first' }, { policy: 'fixed-priority', depth: 3, maxReads: 1 }, { pioVps: 0, dmaVps: 12, batch: 4, depth: 32, maxReads: 8 }];
    for (const over of overs) {
      const cfg = block.parseConfig({ ...block.configToJson(block.defaultConfig()), ...over });
      const res = await checkFile(parse(serialize(generateFile(block, cfg, 5, 20))));
      expect(res.failures.slice(0, 2)).toEqual([]);
    }
  });

  it('malformed records and configurations are refused naming the field', async () => {
    const block = await getBlock('nicsched');
    const file = parse(text, path);
    const bad = (mut: (i: Record<string, unknown>) => void): Promise<unknown> => {
      const f = parse(text, path);
      f.records = [f.records[0]!];
      mut(f.records[0]!.in as Record<string, unknown>);
      return checkFile(f);
    };
    await expect(bad((i) => (i.latencies = [1]))).rejects.toThrow(/record 0: in.latencies must be a non-empty list of integers in \[2, 100000\]/);
    await expect(bad((i) => (i.doorbells = [[5, 99, 1]]))).rejects.toThrow(/in.doorbells\[0\]: vp 99 is not below 8/);
    await expect(bad((i) => (i.doorbells = [[5, 3, 1], [5, 4, 1]]))).rejects.toThrow(/cycles must increase/);
    await expect(bad((i) => (i.rings = [1, 2]))).rejects.toThrow(/in.rings must be 6 ring sizes/);
    await expect(bad((i) => (i.pio = [[3, 2]]))).rejects.toThrow(/in.pio\[0\]: vp 2 is not a PIO VP/);
    expect(() => block.parseConfig({ ...file.header.config, policy: 'lottery' })).toThrow(/config.policy must be one of/);
    expect(() => block.parseConfig({ depth: 0 })).toThrow(/config.depth must be an integer/);
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});
