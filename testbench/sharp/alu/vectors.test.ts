/**
 * ALU golden vectors (vectors/blocks/alu.ts, vectors/golden/alu.jsonl): the checked-in set replays
 * through the RTL (data, flags, accept and result cycles), regenerates byte for byte from its
 * header, other configurations replay too, a tampered record fails, and the $readmemh export
 * packs every operand and result row so that the fields read back.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Json, parse, parseHexBytes, serialize, type VectorFile } from '../../../vectors/format.ts';
import { exportTable } from '../../../vectors/readmemh.ts';
import { checkFile, generateFile, getBlock } from '../../../vectors/registry.ts';
import { ALU_ERROR_NAMES, DATA_TYPES } from '../../../rtl/sharp/alu/types.ts';

const here = dirname(fileURLToPath(import.meta.url));
const GOLDEN = join(here, '../../../vectors/golden/alu.jsonl');

function load(): { text: string; file: VectorFile } {
  const text = readFileSync(GOLDEN, 'utf8');
  return { text, file: parse(text, GOLDEN) };
}

describe('ALU golden vectors', () => {
  it('the checked-in set replays through the RTL', async () => {
    const { file } = load();
    expect(file.header.block).toBe('alu');
    expect(file.records.length).toBeGreaterThanOrEqual(300);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(file.records.length);
    // the set covers results and every error code
    const statuses = new Set(file.records.map((r) => r.out.status));
    for (const name of ['OK', 'TYPE_OP', 'PAYLOAD_TOO_LARGE', 'SLOT_RANGE', 'DUPLICATE_OPERAND', 'HEADER_MISMATCH', 'BAD_CHILDREN', 'BAD_INDEX_TYPE', 'BAD_LENGTH']) expect(statuses.has(name), name).toBe(true);
  });

  it('regenerates byte for byte from its header seed, configuration and count', async () => {
    const { text, file } = load();
    const block = await getBlock('alu');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count);
    expect(serialize(again) === text).toBe(true);
  });

  it('other configurations (tree order, narrow datapath, slow writes, deep pipelines, capacity-1 channels) replay', async () => {
    const block = await getBlock('alu');
    const configs: { [k: string]: Json }[] = [
      { order: 'tree', errors: 0.2 },
      { order: 'tree', widthBytes: 4, writeBytesPerCycle: 3, depthInt: 2, depthFadd: 9, depthFmul: 3, channelCapacity: 1, aluSeed: 12345 },
      { order: 'linear', widthBytes: 100, writeBytesPerCycle: 7, depthFadd: 1, depthFmul: 1, channelCapacity: 2, errors: 0.5 },
    ];
    for (const [i, c] of configs.entries()) {
      const f = generateFile(block, block.parseConfig({ ...block.configToJson(block.defaultConfig()), ...c }), 100 + i, 60);
      const res = await checkFile(parse(serialize(f)));
      expect(res.failures.slice(0, 2), JSON.stringify(c)).toEqual([]);
    }
  });

  it('a tampered record fails its replay and names the field', async () => {
    const { file } = load();
    const ok = file.records.findIndex((r) => r.out.status === 'OK' && r.out.result !== '0x');
    const tamper = (f: (r: VectorFile['records'][number]) => void): VectorFile => {
      const copy = JSON.parse(JSON.stringify(file)) as VectorFile;
      copy.records = [copy.records[ok]!];
      copy.records[0]!.id = 0;
      copy.header.count = 1;
      f(copy.records[0]!);
      return copy;
    };
    const cases: [(r: VectorFile['records'][number]) => void, RegExp][] = [
      [(r) => ((r.cycles as { result: number }).result += 1), /cycles\.result/],
      [(r) => ((r.cycles as { accept: number[] }).accept[0]! += 1), /cycles\.accept/],
      [(r) => (r.out.flags = r.out.flags === '0x0' ? '0x1' : '0x0'), /out\.flags/],
      [(r) => (r.out.result = (r.out.result as string).slice(0, -2) + ((r.out.result as string).endsWith('00') ? '01' : '00')), /out\.result/],
      [(r) => (r.out.status = 'TYPE_OP'), /out\.status/],
      [(r) => ((r.in.operands as { at: number }[])[0]!.at = -5), /at/],
    ];
    for (const [f, msg] of cases) {
      const res = await checkFile(tamper(f));
      expect(res.failed).toBe(1);
      expect(res.failures[0]!.mismatches.join('; ')).toMatch(msg);
    }
    expect((await checkFile(tamper(() => {}))).failed).toBe(0);
  });

  it('$readmemh export: one row per operand and per result, fields read back', async () => {
    const { file } = load();
    const block = await getBlock('alu');
    const [opT, resT] = block.tables;
    const ops = exportTable(opT!, file);
    const res = exportTable(resT!, file);
    const nOperands = file.records.reduce((a, r) => a + (r.in.operands as unknown[]).length, 0);
    expect(ops.rows).toBe(nOperands);
    expect(res.rows).toBe(file.records.length);
    const slice = (memText: string, layoutText: string, row: number, name: string): bigint => {
      const line = memText.split('\n')[row + 1]!;
      const word = BigInt('0x' + line);
      const f = layoutText.split('\n').find((l) => l.startsWith(name + ' '))!.split(' ');
      const msb = Number(f[1]);
      const lsb = Number(f[2]);
      return (word >> BigInt(lsb)) & ((1n << BigInt(msb - lsb + 1)) - 1n);
    };
    // every row of the mem file has the full width in hex
    for (const line of ops.memText.split('\n').slice(1, -1)) expect(line.length).toBe(Math.ceil(ops.width / 4));
    // spot-check rows against their records
    let row = 0;
    for (const r of file.records) {
      const operands = r.in.operands as { slot: number; data: string; at: number }[];
      for (const [j, o] of operands.entries()) {
        if (r.id % 7 === 0) {
          expect(slice(ops.memText, ops.layoutText, row, 'record')).toBe(BigInt(r.id));
          expect(slice(ops.memText, ops.layoutText, row, 'entry')).toBe(BigInt(j));
          expect(slice(ops.memText, ops.layoutText, row, 'slot')).toBe(BigInt(o.slot));
          expect(slice(ops.memText, ops.layoutText, row, 'at')).toBe(BigInt(o.at));
          expect(slice(ops.memText, ops.layoutText, row, 'accept')).toBe(BigInt((r.cycles!.accept as number[])[j]!));
          expect(slice(ops.memText, ops.layoutText, row, 'type')).toBe(BigInt(DATA_TYPES.indexOf(((o as { hdr?: { type: string } }).hdr?.type ?? r.in.type) as (typeof DATA_TYPES)[number])));
          const bytes = parseHexBytes(o.data, 256, 'data');
          expect(slice(ops.memText, ops.layoutText, row, 'length')).toBe(BigInt(bytes.length));
          const data = slice(ops.memText, ops.layoutText, row, 'data');
          for (let b = 0; b < bytes.length; b++) expect(Number((data >> BigInt(8 * b)) & 0xffn)).toBe(bytes[b]);
        }
        row++;
      }
      if (r.id % 5 === 0) {
        const status = Number(slice(res.memText, res.layoutText, r.id, 'status'));
        expect(ALU_ERROR_NAMES[status]).toBe(r.out.status);
        expect(slice(res.memText, res.layoutText, r.id, 'flags')).toBe(BigInt(r.out.flags as string));
        expect(slice(res.memText, res.layoutText, r.id, 'result_cycle')).toBe(BigInt(r.cycles!.result as number));
        const bytes = parseHexBytes(r.out.result, 256, 'result');
        const data = slice(res.memText, res.layoutText, r.id, 'data');
        for (let b = 0; b < bytes.length; b++) expect(Number((data >> BigInt(8 * b)) & 0xffn)).toBe(bytes[b]);
      }
    }
  });

  it('bad configurations are input errors naming the field', async () => {
    const block = await getBlock('alu');
    const base = block.configToJson(block.defaultConfig());
    expect(() => block.parseConfig({ ...base, order: 'random' })).toThrow(/config\.order/);
    expect(() => block.parseConfig({ ...base, widthBytes: 0 })).toThrow(/widthBytes/);
    expect(() => block.parseConfig({ ...base, errors: 2 })).toThrow(/config\.errors/);
    expect(() => block.parseConfig({ ...base, colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});
