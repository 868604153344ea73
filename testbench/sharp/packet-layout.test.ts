/**
 * The encoder's bytes against the bit-field tables of docs/sharp-packets.md: the tables are parsed
 * from the document and every field of every packet type is read back from encoded packets with a
 * bit reader written here, independent of rtl/sharp/packet/fields.ts. Also the hand-derived example
 * packets of the document (CRC computed with node's zlib, not the model's CRC).
 */
import { readFileSync } from 'node:fs';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS, TYPE_BYTES } from '../../rtl/sharp/alu/types.ts';
import { decodePacket, encodePacket, type Packet } from '../../rtl/sharp/packet/index.ts';
import { ARB_BY_TYPE } from './packet-arbitraries.ts';

const DOC = readFileSync(new URL('../../docs/sharp-packets.md', import.meta.url), 'utf8');
const TYPES = ['AGG_REQUEST', 'AGG_RESPONSE', 'GROUP_CREATE', 'GROUP_TRIM', 'ERROR_REPORT', 'JOB_QUOTA', 'JOB_REVOKE'] as const;
const TYPE_CODE: Record<Packet['type'], number> = {
  AGG_REQUEST: 1, AGG_RESPONSE: 2, GROUP_CREATE: 3, GROUP_TRIM: 4, ERROR_REPORT: 5, JOB_QUOTA: 6, JOB_REVOKE: 7,
};

interface Row { bytes: string; word: number; hi: number; lo: number; field: string; width: number }

/** The rows of the bit-field table under "### <type>". */
function tableOf(type: string): Row[] {
  const start = DOC.indexOf(`\n### ${type}\n`);
  expect(start, `docs section ### ${type}`).toBeGreaterThanOrEqual(0);
  const next = DOC.indexOf('\n## ', start + 1);
  const nextSub = DOC.indexOf('\n### ', start + 1);
  const end = Math.min(next < 0 ? DOC.length : next, nextSub < 0 ? DOC.length : nextSub);
  const rows: Row[] = [];
  const re = /^\| ([0-9–]+) \| W(\d)\[(\d+)(?::(\d+))?\] \| `(\w+)` \| (\d+) \|/;
  for (const line of DOC.slice(start, end).split('\n')) {
    const m = re.exec(line);
    if (!m) continue;
    const hi = Number(m[3]);
    rows.push({ bytes: m[1]!, word: Number(m[2]), hi, lo: m[4] === undefined ? hi : Number(m[4]), field: m[5]!, width: Number(m[6]) });
  }
  return rows;
}

/** Big-endian word `word` of the header, bits hi..lo. */
function readBits(b: Uint8Array, word: number, hi: number, lo: number): number {
  const o = 4 * word;
  const w = b[o]! * 2 ** 24 + b[o + 1]! * 2 ** 16 + b[o + 2]! * 2 ** 8 + b[o + 3]!;
  return Math.floor(w / 2 ** lo) % 2 ** (hi - lo + 1);
}

/** What the documented field must hold for packet p. */
function expected(p: Packet, field: string): number {
  const q = p as unknown as Record<string, unknown>;
  const num = (k: string, dflt: number): number => (typeof q[k] === 'number' ? (q[k] as number) : dflt);
  const fragIndex = num('fragIndex', 0);
  const fragCount = num('fragCount', 1);
  switch (field) {
    case 'version': return 1;
    case 'type': return TYPE_CODE[p.type];
    case 'status': return num('status', 0);
    case 'job': case 'group': case 'tree': case 'seq': case 'source': case 'msgId': case 'targetId':
    case 'newRoot': case 'level': case 'maxOps': case 'maxBufferBytes': case 'detail': case 'aluFlags':
      return num(field, -1);
    case 'count': return p.type === 'GROUP_CREATE' ? p.children.length : num('count', -1);
    case 'dist': return ['rc', 'ud', 'rc+ud'].indexOf(q.dist as string);
    case 'targetKind': return ['all', 'member', 'external'].indexOf(q.targetKind as string);
    case 'first': return fragIndex === 0 ? 1 : 0;
    case 'last': return fragIndex === fragCount - 1 ? 1 : 0;
    case 'fragIndex': return fragIndex;
    case 'fragCount': return fragCount;
    case 'opcode': return (OPS as readonly string[]).indexOf(q.op as string);
    case 'dtype': return (DATA_TYPES as readonly string[]).indexOf(q.dataType as string);
    case 'indexType': return q.indexType === null ? 0 : (INDEX_TYPES as readonly string[]).indexOf(q.indexType as string);
    case 'rounding': return (ROUNDINGS as readonly string[]).indexOf(q.rounding as string);
    case 'wide': return q.wide ? 1 : 0;
    case 'ftz': return q.ftz ? 1 : 0;
    case 'elemSize': {
      if (p.type !== 'AGG_REQUEST' && p.type !== 'AGG_RESPONSE') return -1;
      return TYPE_BYTES[p.dataType] + (p.indexType === null ? 0 : TYPE_BYTES[p.indexType]);
    }
    case 'payloadLength':
      return p.type === 'AGG_REQUEST' || p.type === 'AGG_RESPONSE' ? p.payload.length : p.type === 'GROUP_CREATE' ? 2 * p.children.length : 0;
    case 'parent': return p.type === 'GROUP_CREATE' ? (p.parent ?? 0) : -1;
    case 'isRoot': return p.type === 'GROUP_CREATE' ? (p.parent === null ? 1 : 0) : -1;
    case 'reserved': return 0;
    default: throw new Error(`docs table names unknown field '${field}'`);
  }
}

describe('docs/sharp-packets.md bit-field tables', () => {
  for (const type of TYPES) {
    const rows = tableOf(type);

    it(`${type}: the table covers the 256 header bits exactly once, widths and byte columns agree`, () => {
      expect(rows.length).toBeGreaterThan(10);
      const cover = new Array<number>(256).fill(0);
      for (const r of rows) {
        expect(r.width, `${r.field} width`).toBe(r.hi - r.lo + 1);
        const b0 = 4 * r.word + 3 - Math.floor(r.hi / 8);
        const b1 = 4 * r.word + 3 - Math.floor(r.lo / 8);
        expect(r.bytes, `${r.field} bytes`).toBe(b0 === b1 ? `${b0}` : `${b0}–${b1}`);
        for (let bit = r.lo; bit <= r.hi; bit++) cover[32 * r.word + bit]!++;
      }
      expect(cover.every((c) => c === 1)).toBe(true);
    });

    it(`${type}: every documented field holds the packet's value in encoded packets`, () => {
      fc.assert(
        fc.property(ARB_BY_TYPE[type](), (p) => {
          const b = encodePacket(p);
          for (const r of rows) expect(readBits(b, r.word, r.hi, r.lo), `${type}.${r.field} W${r.word}[${r.hi}:${r.lo}]`).toBe(expected(p, r.field));
          const len = expected(p, 'payloadLength');
          expect(b.length).toBe(32 + len + 4);
          if (p.type === 'AGG_REQUEST' || p.type === 'AGG_RESPONSE') expect(b.subarray(32, 32 + len)).toEqual(p.payload);
          if (p.type === 'GROUP_CREATE') {
            p.children.forEach((c, i) => expect(b[32 + 2 * i]! * 256 + b[33 + 2 * i]!).toBe(c));
          }
          const crc = zlibCrc32(b.subarray(0, 32 + len)) >>> 0;
          expect(b[32 + len]! + b[33 + len]! * 2 ** 8 + b[34 + len]! * 2 ** 16 + b[35 + len]! * 2 ** 24).toBe(crc);
        }),
        { numRuns: 150 },
      );
    });
  }

  it('the example AGG_REQUEST of the document encodes to its hex dump', () => {
    const p: Packet = {
      type: 'AGG_REQUEST', job: 0x0102, tree: 5, group: 0x0304, seq: 0x0a0b0c0d, source: 0x0011, msgId: 0x0022, fragIndex: 0, fragCount: 1,
      op: 'sum', dataType: 'f32', indexType: null, rounding: 'rne', wide: false, ftz: false, aluFlags: 0, count: 2,
      dist: 'rc', targetKind: 'all', targetId: 0, status: 0, payload: Uint8Array.from([0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]),
    };
    const hex = '11000102030414300a0b0c0d0a000400000200080000000000110022000000010000803f000000403f2ed07d';
    expect(Buffer.from(encodePacket(p)).toString('hex')).toBe(hex);
    expect(decodePacket(Uint8Array.from(Buffer.from(hex, 'hex')))).toEqual({ ok: true, pkt: p });
    for (const word of ['11000102', '03041430', '0a0b0c0d', '0a000400', '00020008', '00110022', '3f2ed07d']) expect(DOC).toContain(word);
  });

  it('the example GROUP_CREATE of the document encodes to its hex dump', () => {
    const p: Packet = { type: 'GROUP_CREATE', job: 0x0102, tree: 5, group: 0x0304, seq: 7, source: 0xfffe, parent: 0x40, children: [0x10, 0x11, 0x12] };
    const hex = '130001020304143000000007004000000003000600000000fffe0000000000010010001100121d0df3fa';
    expect(Buffer.from(encodePacket(p)).toString('hex')).toBe(hex);
    expect(decodePacket(Uint8Array.from(Buffer.from(hex, 'hex')))).toEqual({ ok: true, pkt: p });
    expect(DOC).toContain('13000102 03041430 00000007 00400000 00030006 00000000 fffe0000 00000001');
    expect(DOC).toContain('1d0df3fa');
  });
});
