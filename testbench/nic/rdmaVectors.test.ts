/**
 * The whole-transfer golden vector set (vectors/golden/nicrdma.jsonl): every scenario replays
 * through the two-NIC RTL without a mismatch, the file regenerates byte for byte, a tampered
 * expected field or stimulus is reported naming the field, an RTL that writes one byte off is
 * caught, and malformed records and configurations are refused naming the line and field.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Json, parse, parseHexBytes, serialize } from '../../vectors/format.ts';
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';
import { judge, type NicRdmaConfig, opsFromJson, parseNicRdmaConfig, ranges, rtlOutcome } from '../../vectors/blocks/nicrdma.ts';
import type { DmaWrite } from '../../rtl/nic/pcie/tlp.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/nicrdma.jsonl');
const text = readFileSync(path, 'utf8');

type Op = [string, ...Json[]];

describe('golden vectors: nicrdma', () => {
  it('has 200 scenarios covering every descriptor kind, both paths and errors, and replays through the RTL without a mismatch', async () => {
    const file = parse(text, path);
    expect(file.header.block).toBe('nicrdma');
    expect(file.records.length).toBe(200);
    const cfg = parseNicRdmaConfig(file.header.config);
    const kinds = new Map<number, number>();
    let dma = 0;
    let physical = 0;
    let errors = 0;
    let mpq = 0;
    let written = 0;
    for (const r of file.records) {
      for (const o of r.in.ops as Op[]) {
        if (o[0] !== 'desc') continue;
        const b = parseHexBytes(o[3], 256, 'desc');
        kinds.set(Math.min(5, b[0]! & 15), (kinds.get(Math.min(5, b[0]! & 15)) ?? 0) + 1);
        if ((o[2] as number) >= cfg.pioVps) dma++;
        if ((b[1]! & 2) !== 0) physical++;
      }
      errors += (r.out.errors as Json[]).length;
      for (const n of [0, 1]) {
        for (const l of (r.out.mpq as Json[][][])[n]!) mpq += l.length;
        for (const x of (r.out.data as Json[][][])[n]!) written += x[1] as number;
      }
    }
    // IMM_PUT, PUT, GET, MP, collective, undecodable opcodes
    for (const k of [0, 1, 2, 3, 4, 5]) expect(kinds.get(k), `kind ${k}`).toBeGreaterThan(50);
    expect(dma).toBeGreaterThan(300);
    expect(physical).toBeGreaterThan(100);
    expect(errors).toBeGreaterThan(300);
    expect(mpq).toBeGreaterThan(50);
    expect(written).toBeGreaterThan(300_000);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(200);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const file = parse(text, path);
    const block = await getBlock('nicrdma');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it('reports a tampered EQ entry, data digest, queue count or error, naming the record and the field', async () => {
    const file = parse(text, path);
    const withEq = file.records.find((r) => (r.out.eq as string[][][])[1]!.some((l) => l.length > 0))!;
    const l = (withEq.out.eq as string[][][])[1]!.find((x) => x.length > 0)!;
    l[0] = l[0]!.slice(0, -1) + (l[0]!.endsWith('0') ? '1' : '0');
    const withData = file.records.find((r) => r.id > withEq.id && (r.out.data as Json[][][])[0]!.some((x) => (x[1] as number) > 32))!;
    const x = (withData.out.data as Json[][][])[0]!.find((y) => (y[1] as number) > 32)!;
    x[2] = `sha256:${'0'.repeat(32)}`;
    const withErr = file.records.find((r) => r.id > withData.id && (r.out.errors as Json[]).length > 0)!;
    ((withErr.out.errors as number[][])[0]!)[3]! += 1;
    const q = file.records.find((r) => r.id > withErr.id)!;
    ((q.out.queues as { intq: number[] }[])[0]!.intq)[0]! += 1;
    file.records = [withEq, withData, withErr, q];
    file.header.count = 4;
    file.records.forEach((r, i) => (r.id = i));
    const res = await checkFile(file);
    expect(res.failed).toBe(4);
    expect(res.failures.map((f) => f.mismatches.join(' '))).toEqual([
      expect.stringMatching(/^out\.eq\[1\]\[\d\]\[0\]: expected "0x/),
      expect.stringMatching(/^out\.data\[0\]\[\d+\]\[2\]: expected "sha256:0{32}", got "sha256:[0-9a-f]{32}"/),
      expect.stringMatching(/^out\.errors\[0\]\[3\]: expected \d+, got \d+/),
      expect.stringMatching(/^out\.queues\[0\]\.intq\[0\]: expected \d+, got \d+/),
    ]);
  });

  it('a mutated stimulus (a PUT one byte longer) no longer matches its expected outcome', async () => {
    const file = parse(text, path);
    const rec = file.records.find((r) => (r.in.ops as Op[]).some((o) => o[0] === 'desc' && (parseHexBytes(o[3], 256, 'd')[0]! & 15) === 1 && (r.out.errors as Json[]).length === 0))!;
    const o = (rec.in.ops as Op[]).find((x) => x[0] === 'desc' && (parseHexBytes(x[3], 256, 'd')[0]! & 15) === 1)!;
    const b = parseHexBytes(o[3], 256, 'd');
    b[8] = (b[8]! + 1) & 0xff; // length, low byte
    o[3] = '0x' + Buffer.from(b).toString('hex');
    file.records = [rec];
    file.header.count = 1;
    rec.id = 0;
    const res = await checkFile(file);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/out\.(data|eq)/);
  });

  it('an RTL whose DMA writes land one byte off is caught (data ranges differ); the same records pass unbroken', () => {
    const file = parse(text, path);
    const cfg: NicRdmaConfig = parseNicRdmaConfig(file.header.config);
    const recs = file.records.filter((r) => (r.out.data as Json[][]).some((d) => d.length > 0)).slice(0, 3);
    expect(recs.length).toBe(3);
    for (const rec of recs) {
      const ops = opsFromJson(rec, cfg);
      expect(judge(rec, rtlOutcome(cfg, ops))).toEqual([]);
      const broken = rtlOutcome(cfg, ops, (rig) => {
        for (const nic of rig.pair.nics) {
          const ch = nic.pcie.ep.writeIn;
          const push = ch.push.bind(ch);
          ch.push = (w: DmaWrite) => {
            if (!rig.inQueue(w.addr)) w.addr += 1;
            return push(w);
          };
        }
      });
      expect(judge(rec, broken).join(' ')).toMatch(/^out\.data\[[01]\]\[\d+\]\[0\]: expected "0x[0-9a-f]+", got "0x/);
    }
  });

  it('ranges: contiguous bytes become one range, short ranges keep their bytes, long ones a digest', () => {
    const w = new Map<number, number>([
      [0x10, 1],
      [0x11, 2],
      [0x20, 3],
    ]);
    for (let i = 0; i < 40; i++) w.set(0x100 + i, i);
    const r = ranges(w);
    expect(r.slice(0, 2)).toEqual([
      ['0x10', 2, '0x0102'],
      ['0x20', 1, '0x03'],
    ]);
    expect(r[2]).toEqual(['0x100', 40, expect.stringMatching(/^sha256:[0-9a-f]{32}$/)]);
  });

  it('malformed records and configurations are refused naming the line and field', async () => {
    const bad = (mut: (r: { in: Record<string, Json>; out: Record<string, Json> }) => void): Promise<unknown> => {
      const f = parse(text, path);
      f.records = f.records.slice(0, 3);
      f.header.count = 3;
      mut(f.records[2]! as unknown as { in: Record<string, Json>; out: Record<string, Json> });
      return checkFile(f);
    };
    await expect(bad((r) => (r.out.colour = 1))).rejects.toThrow(/^line 4: unknown field out\.colour in a scenario record/);
    await expect(bad((r) => delete r.out.mpq)).rejects.toThrow(/^line 4: missing field out\.mpq/);
    await expect(bad((r) => delete r.in.ops)).rejects.toThrow(/^line 4: missing field in\.ops/);
    await expect(bad((r) => (r.in.ops = []))).rejects.toThrow(/line 4: in\.ops must be a non-empty list/);
    await expect(bad((r) => ((r.in.ops as Json[])[0] = ['poke', 0]))).rejects.toThrow(/line 4: in\.ops\[0\] must be a list starting with "desc" or "item"/);
    await expect(bad((r) => ((r.in.ops as Json[])[0] = ['desc', 0, 9, '0x00']))).rejects.toThrow(/line 4: in\.ops\[0\]: vp must be an integer in \[0, 3\], got 9/);
    await expect(bad((r) => ((r.in.ops as Json[])[0] = ['desc', 0, 1, '0x0']))).rejects.toThrow(/line 4: in\.ops\[0\]: bytes must be a hex byte string/);
    await expect(bad((r) => ((r.in.ops as Json[])[1] = ['item', 0, 1, 1, 5, 1, 1, 9, 8, 0, 0, 3]))).rejects.toThrow(/line 4: in\.ops\[1\]: topPage 8 is below basePage 9/);
    await expect(bad((r) => ((r.in.ops as Json[])[1] = ['item', 0, 1, 1, 5, 1, 1, 9, 9, 0, 0]))).rejects.toThrow(/line 4: in\.ops\[1\]: an item operation is \["item", .*got 11 elements/);
    await expect(bad((r) => ((r.in.ops as Json[])[1] = ['item', 0, 99, 1, 5, 1, 1, 9, 9, 0, 0, 3]))).rejects.toThrow(/line 4: in\.ops\[1\]: index must be an integer in \[0, 15\], got 99/);
    const block = await getBlock('nicrdma');
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/config: unknown field 'colour'/);
    expect(() => block.parseConfig({ vps: 4, pioVps: 5 })).toThrow(/config\.pioVps must be an integer in \[0, 4\], got 5/);
    expect(() => block.parseConfig({ items: 2 })).toThrow(/config\.items must be an integer in \[4, 4096\]/);
  });

  it('another configuration (every VP a DMA VP, small packets) generates and replays', async () => {
    const block = await getBlock('nicrdma');
    const cfg = block.parseConfig({ ...block.configToJson(block.defaultConfig()), pioVps: 0, maxPayload: 64, vps: 6, items: 12 });
    const res = await checkFile(parse(serialize(generateFile(block, cfg, 9, 6))));
    expect(res.failures.slice(0, 2)).toEqual([]);
    expect(res.passed).toBe(6);
  });
});
