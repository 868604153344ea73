/**
 * The MWR / MQ task-machine golden vectors (vectors/blocks/mwr.ts): the checked-in set replays
 * through the RTL, regenerates byte for byte, a tampered record is reported, another configuration
 * generates and replays, and bad configurations are refused naming the field.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, serialize } from '../../vectors/format.ts';
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/mwr.jsonl');

describe('golden vectors: mwr', () => {
  const text = readFileSync(path, 'utf8');
  const file = parse(text, path);

  it('has a few hundred records covering completions, MQ errors and refused MWRs, and replays without a mismatch', async () => {
    expect(file.header.block).toBe('mwr');
    expect(file.records.length).toBeGreaterThanOrEqual(200);
    const outs = file.records.map((r) => r.out);
    expect(outs.some((o) => (o.signals as number) >= 2)).toBe(true);
    expect(outs.some((o) => o.mq_error === true)).toBe(true);
    for (const why of ['too_long', 'unknown_kind', 'bad_field']) expect(outs.some((o) => o.rejected === why)).toBe(true);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(file.records.length);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const block = await getBlock('mwr');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it('reports a tampered record', async () => {
    const bad = parse(text, path);
    const rec = bad.records.find((r) => r.out.rejected === null && (r.out.signals as number) > 0)!;
    rec.out.signals = (rec.out.signals as number) + 1;
    const res = await checkFile(bad);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.id).toBe(rec.id);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/out\.signals/);
  });

  it('another configuration generates and replays; bad configurations are refused', async () => {
    const block = await getBlock('mwr');
    const cfg = block.parseConfig({ qps: 5, sqLength: 40 });
    const res = await checkFile(parse(serialize(generateFile(block, cfg, 7, 120))));
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(() => block.parseConfig({ qps: 0 })).toThrow(/config.qps must be an integer in \[1, 16\]/);
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});
