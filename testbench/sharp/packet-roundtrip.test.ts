/**
 * Round trips over arbitrary valid packets of every type: decode(encode(p)) equals p, and
 * encode(decode(b)) equals b; encodePacketInto writes the same bytes in place; the encoder refuses
 * (RangeError naming the field) every object it cannot represent, without writing anything.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CRC32_RESIDUE, crc32, decodePacket, encodePacket, encodePacketInto, packetBytes, payloadBytes, type AggRequest, type Packet,
} from '../../rtl/sharp/packet/index.ts';
import { ARB_BY_TYPE, arbPacket } from './packet-arbitraries.ts';

describe('packet round trip', () => {
  for (const [type, arb] of Object.entries(ARB_BY_TYPE)) {
    it(`${type}: decode(encode(p)) deep-equals p and encode(decode(b)) equals b`, () => {
      fc.assert(
        fc.property(arb(), (p) => {
          const b = encodePacket(p);
          expect(b.length).toBe(packetBytes(p));
          expect(b.length).toBe(36 + payloadBytes(p));
          expect(crc32(b)).toBe(CRC32_RESIDUE);
          const r = decodePacket(b);
          expect(r).toEqual({ ok: true, pkt: p });
          if (!r.ok) return;
          expect(r.pkt.type).toBe(type);
          expect(encodePacket(r.pkt)).toEqual(b);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('decoded payloads and child lists do not alias the input bytes', () => {
    fc.assert(
      fc.property(arbPacket, (p) => {
        const b = encodePacket(p);
        const copy = Uint8Array.from(b);
        const r = decodePacket(b);
        expect(b).toEqual(copy); // decoding never writes its input
        if (!r.ok) throw new Error(r.detail);
        b.fill(0xa5); // clobber the input after decoding: the packet must not change
        expect(r.pkt).toEqual(p);
      }),
    );
  });

  it('a node Buffer decodes to the same packet, with a plain Uint8Array payload copy', () => {
    fc.assert(
      fc.property(arbPacket, (p) => {
        const buf = Buffer.from(encodePacket(p));
        const r = decodePacket(buf);
        expect(r).toEqual({ ok: true, pkt: p });
        buf.fill(0);
        expect(r).toEqual({ ok: true, pkt: p });
        if (r.ok && (r.pkt.type === 'AGG_REQUEST' || r.pkt.type === 'AGG_RESPONSE')) expect(Object.getPrototypeOf(r.pkt.payload)).toBe(Uint8Array.prototype);
      }),
    );
  });

  it('encodePacketInto writes the same bytes at an offset and nothing outside them', () => {
    fc.assert(
      fc.property(arbPacket, fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 40 }), (p, before, after) => {
        const n = packetBytes(p);
        const out = new Uint8Array(before + n + after).fill(0x5a);
        expect(encodePacketInto(p, out, before)).toBe(n);
        expect(out.subarray(before, before + n)).toEqual(encodePacket(p));
        expect(out.subarray(0, before).every((v) => v === 0x5a)).toBe(true);
        expect(out.subarray(before + n).every((v) => v === 0x5a)).toBe(true);
      }),
    );
  });
});

const base: AggRequest = {
  type: 'AGG_REQUEST', job: 1, tree: 2, group: 3, seq: 4, source: 5, msgId: 6, fragIndex: 0, fragCount: 1,
  op: 'sum', dataType: 'f64', indexType: null, rounding: 'rne', wide: false, ftz: false, aluFlags: 0, count: 2,
  dist: 'rc', targetKind: 'all', targetId: 0, status: 0, payload: new Uint8Array(16),
};

function agg(over: Partial<Record<keyof AggRequest, unknown>>): Packet {
  return { ...base, ...over } as unknown as Packet;
}

describe('encoder refuses what it cannot encode', () => {
  const cases: [string, Packet, RegExp][] = [
    ['tree 64', agg({ tree: 64 }), /tree must be an integer in 0\.\.63/],
    ['negative job', agg({ job: -1 }), /job must be an integer in 0\.\.65535/],
    ['fractional seq', agg({ seq: 1.5 }), /seq must be an integer/],
    ['seq 2^32', agg({ seq: 2 ** 32 }), /seq must be an integer in 0\.\.4294967295/],
    ['group as string', agg({ group: '3' }), /group must be an integer/],
    ['unknown op', agg({ op: 'avg' }), /op must be one of/],
    ['unknown data type', agg({ dataType: 'f128' }), /dataType must be one of/],
    ['minloc without index type', agg({ op: 'minloc', indexType: null }), /minloc needs an indexType/],
    ['index type on sum', agg({ indexType: 'i32' }), /indexType must be null for operation sum/],
    ['bad rounding', agg({ rounding: 'nearest' }), /rounding must be one of/],
    ['wide as number', agg({ wide: 1 }), /wide must be a boolean/],
    ['aluFlags 32', agg({ aluFlags: 32 }), /aluFlags must be an integer in 0\.\.31/],
    ['bitwise op on float', agg({ op: 'bxor' }), /TYPE_OP_INVALID/],
    ['payload shorter than count x size', agg({ payload: new Uint8Array(15) }), /PAYLOAD_LENGTH/],
    ['count x size > 256', agg({ count: 33, payload: new Uint8Array(256) }), /PAYLOAD_TOO_LARGE/],
    ['payload > 256 bytes', agg({ dataType: 'u8', count: 257, payload: new Uint8Array(257) }), /payload of 257 bytes > 256/],
    ['payload not bytes', agg({ payload: [1, 2] }), /payload must be a Uint8Array/],
    ['fragIndex >= fragCount', agg({ fragIndex: 3, fragCount: 3 }), /BAD_FRAGMENT/],
    ['fragCount 0', agg({ fragIndex: 0, fragCount: 0 }), /BAD_FRAGMENT/],
    ['unknown dist', agg({ dist: 'mc' }), /dist must be one of rc ud rc\+ud/],
    ['member over ud', agg({ targetKind: 'member', dist: 'ud', targetId: 1 }), /BAD_TARGET/],
    ['all over rc with a target id', agg({ targetId: 9 }), /BAD_TARGET/],
    ['multicast group 0', agg({ dist: 'rc+ud', targetId: 0 }), /BAD_TARGET/],
    ['unknown type', { ...base, type: 'AGG_REQ' } as unknown as Packet, /type must be one of/],
    ['prototype key as type', { ...base, type: 'toString' } as unknown as Packet, /type must be one of/],
    ['response with unknown status', { ...base, type: 'AGG_RESPONSE', status: 200 } as unknown as Packet, /BAD_STATUS/],
    ['error response with data', { ...base, type: 'AGG_RESPONSE', status: 16 } as unknown as Packet, /PAYLOAD_LENGTH/],
    ['no children', { type: 'GROUP_CREATE', job: 1, tree: 0, group: 1, seq: 0, source: 0, parent: null, children: [] }, /children must be an array of 1\.\.64/],
    ['65 children', { type: 'GROUP_CREATE', job: 1, tree: 0, group: 1, seq: 0, source: 0, parent: null, children: Array.from({ length: 65 }, (_, i) => i) }, /children must be an array of 1\.\.64/],
    ['repeated child', { type: 'GROUP_CREATE', job: 1, tree: 0, group: 1, seq: 0, source: 0, parent: null, children: [4, 5, 4] }, /BAD_CHILD_LIST/],
    ['child id 65536', { type: 'GROUP_CREATE', job: 1, tree: 0, group: 1, seq: 0, source: 0, parent: null, children: [65536] }, /children\[0\] must be an integer/],
    ['parent among children', { type: 'GROUP_CREATE', job: 1, tree: 0, group: 1, seq: 0, source: 0, parent: 5, children: [4, 5] }, /BAD_PARENT/],
    ['trim level 16', { type: 'GROUP_TRIM', job: 1, tree: 0, group: 1, seq: 0, source: 0, newRoot: 3, level: 16 }, /level must be an integer in 0\.\.15/],
    ['error report with status 0', { type: 'ERROR_REPORT', status: 0, job: 1, tree: 0, group: 1, seq: 0, source: 0, detail: 0 }, /BAD_STATUS/],
    ['quota maxOps 65536', { type: 'JOB_QUOTA', job: 1, seq: 0, source: 0, maxOps: 65536, maxBufferBytes: 0 }, /maxOps must be an integer in 0\.\.65535/],
    ['null packet', null as unknown as Packet, /not a packet object/],
  ];
  for (const [name, p, msg] of cases) {
    it(`${name}: RangeError naming the problem, nothing written`, () => {
      expect(() => encodePacket(p)).toThrow(RangeError);
      expect(() => encodePacket(p)).toThrow(msg);
      const out = new Uint8Array(400).fill(0x77);
      expect(() => encodePacketInto(p, out, 0)).toThrow(RangeError);
      expect(out.every((v) => v === 0x77)).toBe(true);
    });
  }

  it('a buffer too small for the packet: RangeError, nothing written', () => {
    const out = new Uint8Array(51).fill(0x77);
    expect(() => encodePacketInto(base, out, 0)).toThrow(/52 bytes do not fit/);
    expect(() => encodePacketInto(base, new Uint8Array(100), 49)).toThrow(RangeError);
    expect(() => encodePacketInto(base, new Uint8Array(100), -1)).toThrow(RangeError);
    expect(out.every((v) => v === 0x77)).toBe(true);
  });

  it('a failed encode leaves the encoder able to encode the next packet correctly', () => {
    const good = encodePacket(base);
    expect(() => encodePacket(agg({ op: 'bxor', tree: 63, job: 0xffff }))).toThrow(RangeError);
    expect(encodePacket(base)).toEqual(good);
  });
});
