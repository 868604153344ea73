/**
 * Descriptor formats: encoder/decoder round trip, the decoder against the golden model on valid,
 * broken and random descriptors (reason, failing field, every decoded field), each reason code
 * reachable with its field named, encoder refusals, and the golden vector set.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_COLL, DESC_GET, DESC_IMM_PUT, DESC_KIND_NAMES, DESC_MP, DESC_PUT, DESC_REASON_NAMES, descConfig, decodeDescriptor, encodeDescriptor, type NicDesc, OFF } from '../../rtl/nic/desc/index.ts';
import { type ModelDesc, modelDecode } from '../../models/nic/descModel.ts';
import { randomDescBytes, randomValidDesc } from '../../vectors/blocks/nicdesc.ts';
import { parse, serialize } from '../../vectors/format.ts';
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';

const CFG = descConfig({ vps: 40, nodes: 1024, items: 1024 });

function norm(d: NicDesc | ModelDesc): unknown {
  return { ...d, kind: typeof d.kind === 'number' ? DESC_KIND_NAMES[d.kind] : d.kind, data: [...d.data] };
}

function agree(b: Uint8Array, cfg = CFG): string {
  const r = decodeDescriptor(b, cfg);
  const m = modelDecode(b, cfg);
  expect({ reason: DESC_REASON_NAMES[r.reason], field: r.field }).toEqual({ reason: m.reason, field: m.field });
  if (m.desc) expect(norm(r.desc)).toEqual(norm(m.desc));
  return m.reason;
}

describe('descriptor decoder vs golden model', () => {
  it('valid descriptors of every kind round-trip through the encoder and decoder', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        const rng = new Rng(seed);
        const d = randomValidDesc(rng, CFG);
        const b = encodeDescriptor(d);
        const r = decodeDescriptor(b, CFG);
        expect(DESC_REASON_NAMES[r.reason]).toBe('ok');
        expect(norm(r.desc)).toEqual(norm(d));
        expect(agree(b)).toBe('ok');
      }),
      { numRuns: 400 },
    );
  });

  it('broken descriptors: same reason, field and fields as the model; every reason occurs', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        const rng = new Rng(seed);
        for (let i = 0; i < 20; i++) seen.add(agree(randomDescBytes(rng, CFG)));
      }),
      { numRuns: 200 },
    );
    expect([...seen].sort()).toEqual([...DESC_REASON_NAMES].sort());
  });

  it('random bytes and other configurations', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 130 }),
        fc.record({ vps: fc.integer({ min: 1, max: 256 }), nodes: fc.integer({ min: 1, max: 65536 }), items: fc.integer({ min: 1, max: 4096 }), vaBits: fc.integer({ min: 13, max: 48 }) }),
        fc.integer({ min: 0, max: 4 }),
        (bytes, c, kind) => {
          const cfg = descConfig(c);
          agree(bytes, cfg);
          // the same bytes with a plausible header, so the checks past the opcode run too
          const b = bytes.length >= 64 ? bytes.slice(0, bytes.length >= 128 ? 128 : 64) : new Uint8Array(64);
          b[OFF.ctl] = kind | ((b.length === 64 ? 0 : 1) << 4) | (b[OFF.ctl]! & 0xc0);
          agree(b, cfg);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('each reason code, with the field it names', () => {
  const put = (): NicDesc => ({ ...blankDesc(DESC_PUT), length: 100, localAddr: 0x1000, remoteAddr: 0x2000, dstVp: 3 });
  const cases: [string, () => Uint8Array, string, string][] = [
    ['short buffer', () => encodeDescriptor(put()).slice(0, 63), 'bad_buffer', 'buffer'],
    ['opcode 9', () => Object.assign(encodeDescriptor(put()), { [OFF.ctl]: 0x09 }), 'bad_opcode', 'opcode'],
    ['PUT with size 128', () => Uint8Array.from([...encodeDescriptor(put()), ...new Uint8Array(64)]), 'bad_size', 'size'],
    ['size field says 128 in a 64-byte PUT', () => Object.assign(encodeDescriptor(put()), { [OFF.ctl]: 0x11 }), 'bad_size', 'size'],
    ['reserved byte 5', () => Object.assign(encodeDescriptor(put()), { 5: 1 }), 'reserved', 'byte 5'],
    ['reserved top bits of an item', () => Object.assign(encodeDescriptor(put()), { 21: 0x10 }), 'reserved', 'byte 21'],
    ['physical MP', () => Object.assign(encodeDescriptor({ ...blankDesc(DESC_MP), length: 8, data: new Uint8Array(8) }), { [OFF.flags]: 2 }), 'bad_flags', 'physical'],
    ['remote event on MP', () => encodeDescriptor({ ...blankDesc(DESC_MP), length: 8, data: new Uint8Array(8), remoteEvent: true }), 'bad_flags', 'remoteEvent'],
    ['collective with no children', () => encodeDescriptor({ ...blankDesc(DESC_COLL), length: 8 }), 'bad_children', 'childCount'],
    ['collective garbage beyond the count', () => Object.assign(encodeDescriptor({ ...blankDesc(DESC_COLL), length: 8, children: [{ node: 1, vp: 1, key: 1, addr: 0, item: 0 }] }), { 70: 1 }), 'bad_children', 'child 1 (beyond the count)'],
    ['VP 40 of 40', () => encodeDescriptor({ ...put(), dstVp: 40 }), 'bad_dest', 'dstVp'],
    ['node 1024 of 1024', () => encodeDescriptor({ ...put(), dstNode: 1024 }), 'bad_dest', 'dstNode'],
    ['child VP', () => encodeDescriptor({ ...blankDesc(DESC_COLL), length: 8, children: [{ node: 1, vp: 1, key: 1, addr: 0, item: 0 }, { node: 1, vp: 99, key: 1, addr: 0, item: 0 }] }), 'bad_dest', 'child 1 vp'],
    ['remote item 1024', () => encodeDescriptor({ ...blankDesc(DESC_GET), length: 1, remoteItem: 1024 }), 'bad_item', 'remoteItem'],
    ['PUT length 0', () => encodeDescriptor({ ...put(), length: 0 }), 'bad_length', 'length'],
    ['IMM_PUT 17 bytes in 64', () => Object.assign(encodeDescriptor({ ...blankDesc(DESC_IMM_PUT), length: 16, data: new Uint8Array(16) }), { [OFF.len]: 17 }), 'bad_length', 'length'],
    ['local range past 2^48', () => encodeDescriptor({ ...put(), localAddr: 2 ** 48 - 99 }), 'bad_address', 'localAddr'],
    ['remote range past 2^48', () => encodeDescriptor({ ...put(), remoteAddr: 2 ** 48 - 50 }), 'bad_address', 'remoteAddr'],
  ];
  it.each(cases)('%s', (_name, make, reason, field) => {
    const b = make();
    const r = decodeDescriptor(b, CFG);
    expect([DESC_REASON_NAMES[r.reason], r.field]).toEqual([reason, field]);
    agree(b);
  });
  it('a range ending exactly at 2^48 is fine', () => {
    expect(agree(encodeDescriptor({ ...put(), localAddr: 2 ** 48 - 100 }))).toBe('ok');
  });
});

describe('encoder refusals', () => {
  it('names the field the format cannot hold', () => {
    expect(() => encodeDescriptor({ ...blankDesc(DESC_PUT), localItem: 4096 })).toThrow(/localItem must be an integer in \[0, 2\^12\)/);
    expect(() => encodeDescriptor({ ...blankDesc(DESC_PUT), localAddr: 2 ** 48 })).toThrow(/localAddr/);
    expect(() => encodeDescriptor({ ...blankDesc(DESC_PUT), bytes: 128 })).toThrow(/put descriptor cannot be 128 bytes/);
    expect(() => encodeDescriptor({ ...blankDesc(DESC_IMM_PUT), length: 17, data: new Uint8Array(17) })).toThrow(/17 data bytes do not fit a 64-byte imm_put/);
    expect(() => encodeDescriptor({ ...blankDesc(DESC_PUT), kind: 5 })).toThrow(/kind 5/);
    expect(() => encodeDescriptor({ ...blankDesc(DESC_COLL), children: new Array(6).fill({ node: 0, vp: 0, key: 0, addr: 0, item: 0 }) })).toThrow(/6 children/);
    expect(() => descConfig({ vps: 0 })).toThrow(/vps/);
  });
});

describe('golden vectors: nicdesc', () => {
  const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/nicdesc.jsonl');
  const text = readFileSync(path, 'utf8');
  it('replays through the RTL decoder without a mismatch and regenerates byte for byte', async () => {
    const file = parse(text, path);
    expect(file.records.length).toBeGreaterThanOrEqual(300);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    const block = await getBlock('nicdesc');
    expect(serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count)) === text).toBe(true);
    const reasons = new Set(file.records.map((r) => r.out.reason));
    expect(reasons.size).toBe(DESC_REASON_NAMES.length);
  });
  it('reports a tampered record', async () => {
    const file = parse(text, path);
    const rec = file.records.find((r) => r.out.reason === 'ok')!;
    rec.out.reason = 'bad_item';
    const res = await checkFile(file);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/out\.reason: expected "bad_item", got "ok"/);
  });
  it('rejects a bad configuration naming the field', async () => {
    const block = await getBlock('nicdesc');
    expect(() => block.parseConfig({ vps: 0 })).toThrow(/vps/);
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});
