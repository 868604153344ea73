/**
 * Every decode error code, each triggered by a targeted malformation of a valid packet. Header bits
 * are patched with a bit writer written here and the CRC trailer is recomputed with node's zlib, so
 * each malformation reaches the check it targets (the CRC is not what rejects it).
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DECODE_ERROR_NAMES, DecodeError, decodePacket, encodePacket, type Packet } from '../../rtl/sharp/packet/index.ts';

type Edit = [word: number, hi: number, lo: number, value: number];

function setBits(h: Uint8Array, word: number, hi: number, lo: number, value: number): void {
  for (let bit = lo; bit <= hi; bit++) {
    const byte = 4 * word + 3 - (bit >> 3);
    const m = 1 << (bit & 7);
    if (Math.floor(value / 2 ** (bit - lo)) % 2 === 1) h[byte]! |= m;
    else h[byte]! &= ~m;
  }
}

/** Encode p, patch header fields, optionally replace the payload (length field follows it unless edited), re-CRC. */
function forge(p: Packet, edits: Edit[], payload?: Uint8Array): Uint8Array {
  const b = encodePacket(p);
  const header = b.slice(0, 32);
  const body = payload ?? b.slice(32, b.length - 4);
  if (payload) setBits(header, 4, 15, 0, payload.length);
  for (const [w, hi, lo, v] of edits) setBits(header, w, hi, lo, v);
  return withCrc(header, body);
}

function withCrc(header: Uint8Array, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(header.length + body.length + 4);
  out.set(header);
  out.set(body, header.length);
  const c = zlibCrc32(out.subarray(0, header.length + body.length)) >>> 0;
  out.set([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, c >>> 24], header.length + body.length);
  return out;
}

const req: Packet = {
  type: 'AGG_REQUEST', job: 7, tree: 3, group: 9, seq: 1000, source: 12, msgId: 4, fragIndex: 1, fragCount: 3,
  op: 'sum', dataType: 'f32', indexType: null, rounding: 'rne', wide: false, ftz: false, aluFlags: 0, count: 4,
  dist: 'rc', targetKind: 'all', targetId: 0, status: 0, payload: Uint8Array.from({ length: 16 }, (_, i) => i),
};
const loc: Packet = { ...req, op: 'maxloc', dataType: 'f64', indexType: 'i32', count: 2, payload: new Uint8Array(24) };
const u8req: Packet = { ...req, dataType: 'u8', op: 'bor', count: 4, payload: new Uint8Array(4) };
const resp: Packet = { ...req, type: 'AGG_RESPONSE', status: 0 };
const gc: Packet = { type: 'GROUP_CREATE', job: 7, tree: 3, group: 9, seq: 1, source: 0xfffe, parent: 40, children: [10, 11, 12] };
const trim: Packet = { type: 'GROUP_TRIM', job: 7, tree: 3, group: 9, seq: 2, source: 0xfffe, newRoot: 40, level: 1 };
const er: Packet = { type: 'ERROR_REPORT', status: 25, job: 7, tree: 3, group: 9, seq: 1000, source: 40, detail: 41 };
const quota: Packet = { type: 'JOB_QUOTA', job: 7, seq: 3, source: 0xfffe, maxOps: 32, maxBufferBytes: 8192 };
const revoke: Packet = { type: 'JOB_REVOKE', job: 7, seq: 4, source: 0xfffe };

const be16 = (...ids: number[]): Uint8Array => Uint8Array.from(ids.flatMap((v) => [v >> 8, v & 0xff]));

/** [description, bytes, expected error]. */
const CASES: [string, Uint8Array, DecodeError][] = [
  ['empty input', new Uint8Array(0), DecodeError.TRUNCATED],
  ['35 bytes', encodePacket(req).subarray(0, 35), DecodeError.TRUNCATED],
  ['payload cut short by one byte', encodePacket(req).subarray(0, 51), DecodeError.TRUNCATED],
  ['payload length field larger than the bytes', forge(req, [[4, 15, 0, 20]]), DecodeError.TRUNCATED],
  ['version 0', forge(req, [[0, 31, 28, 0]]), DecodeError.BAD_VERSION],
  ['version 2', forge(req, [[0, 31, 28, 2]]), DecodeError.BAD_VERSION],
  ['version 15', forge(req, [[0, 31, 28, 15]]), DecodeError.BAD_VERSION],
  ['one byte appended', Uint8Array.from([...encodePacket(req), 0]), DecodeError.LENGTH_MISMATCH],
  ['payload length field smaller than the bytes', forge(req, [[4, 15, 0, 12]]), DecodeError.LENGTH_MISMATCH],
  ['payload bit flipped', (() => { const b = encodePacket(req); b[40]! ^= 0x10; return b; })(), DecodeError.BAD_CRC],
  ['header bit flipped (job)', (() => { const b = encodePacket(req); b[3]! ^= 1; return b; })(), DecodeError.BAD_CRC],
  ['CRC trailer bit flipped', (() => { const b = encodePacket(req); b[b.length - 1]! ^= 0x80; return b; })(), DecodeError.BAD_CRC],
  ['type 0', forge(req, [[0, 27, 24, 0]]), DecodeError.BAD_TYPE],
  ['type 8', forge(req, [[0, 27, 24, 8]]), DecodeError.BAD_TYPE],
  ['type 15', forge(req, [[0, 27, 24, 15]]), DecodeError.BAD_TYPE],
  ['W1[3:0] reserved', forge(req, [[1, 0, 0, 1]]), DecodeError.RESERVED_NONZERO],
  ['W4[31:25] reserved', forge(req, [[4, 31, 31, 1]]), DecodeError.RESERVED_NONZERO],
  ['W3[7:5] reserved (agg)', forge(req, [[3, 7, 5, 4]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_CREATE W3[15:1] reserved', forge(gc, [[3, 8, 8, 1]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_CREATE with a message id', forge(gc, [[6, 15, 0, 1]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_CREATE with parameter word B', forge(gc, [[5, 31, 0, 1]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_TRIM with a distribution mode', forge(trim, [[1, 9, 8, 1]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_TRIM W3[15:4] reserved', forge(trim, [[3, 4, 4, 1]]), DecodeError.RESERVED_NONZERO],
  ['GROUP_TRIM with an element count', forge(trim, [[4, 16, 16, 1]]), DecodeError.RESERVED_NONZERO],
  ['ERROR_REPORT with parameter word A', forge(er, [[3, 31, 0, 0x0a000400]]), DecodeError.RESERVED_NONZERO],
  ['ERROR_REPORT with a target kind', forge(er, [[1, 7, 6, 1]]), DecodeError.RESERVED_NONZERO],
  ['JOB_QUOTA with a tree id', forge(quota, [[1, 15, 10, 5]]), DecodeError.RESERVED_NONZERO],
  ['JOB_QUOTA with a group id', forge(quota, [[1, 31, 16, 5]]), DecodeError.RESERVED_NONZERO],
  ['JOB_QUOTA W3[31:16] reserved', forge(quota, [[3, 31, 16, 1]]), DecodeError.RESERVED_NONZERO],
  ['JOB_REVOKE with parameter word B', forge(revoke, [[5, 31, 0, 0xffffffff]]), DecodeError.RESERVED_NONZERO],
  ['request with unassigned status 200', forge(req, [[0, 23, 16, 200]], new Uint8Array(0)), DecodeError.BAD_STATUS],
  ['error request (status 16) still carrying data', forge(req, [[0, 23, 16, 16]]), DecodeError.PAYLOAD_LENGTH],
  ['GROUP_CREATE with status 16', forge(gc, [[0, 23, 16, 16]]), DecodeError.BAD_STATUS],
  ['response with unassigned status 200', forge(resp, [[0, 23, 16, 200]], new Uint8Array(0)), DecodeError.BAD_STATUS],
  ['response with unassigned status 10', forge(resp, [[0, 23, 16, 10]], new Uint8Array(0)), DecodeError.BAD_STATUS],
  ['ERROR_REPORT with status 0', forge(er, [[0, 23, 16, 0]]), DecodeError.BAD_STATUS],
  ['fragment count 0', forge(req, [[7, 15, 0, 0]]), DecodeError.BAD_FRAGMENT],
  ['fragment index = count', forge(req, [[7, 31, 16, 3], [1, 4, 4, 1]]), DecodeError.BAD_FRAGMENT],
  ['FIRST flag on fragment 1', forge(req, [[1, 5, 5, 1]]), DecodeError.BAD_FRAGMENT],
  ['FIRST flag missing on fragment 0', forge(req, [[7, 31, 16, 0]]), DecodeError.BAD_FRAGMENT],
  ['LAST flag on fragment 1 of 3', forge(req, [[1, 4, 4, 1]]), DecodeError.BAD_FRAGMENT],
  ['LAST flag missing on fragment 2 of 3', forge(req, [[7, 31, 16, 2]]), DecodeError.BAD_FRAGMENT],
  ['management packet in two fragments', forge(revoke, [[7, 15, 0, 2], [1, 4, 4, 0]]), DecodeError.BAD_FRAGMENT],
  ['opcode 12', forge(req, [[3, 31, 28, 12]]), DecodeError.BAD_OPCODE],
  ['opcode 15', forge(req, [[3, 31, 28, 15]]), DecodeError.BAD_OPCODE],
  ['data type 12', forge(req, [[3, 27, 24, 12]]), DecodeError.BAD_DTYPE],
  ['data type 15', forge(req, [[3, 27, 24, 15]]), DecodeError.BAD_DTYPE],
  ['rounding 5', forge(req, [[3, 20, 18, 5]]), DecodeError.BAD_ROUNDING],
  ['rounding 7', forge(req, [[3, 20, 18, 7]]), DecodeError.BAD_ROUNDING],
  ['band on f32', forge(req, [[3, 31, 28, 6]]), DecodeError.TYPE_OP_INVALID],
  ['lxor on bf16', forge(req, [[3, 31, 28, 11], [3, 27, 24, 9], [3, 15, 8, 2], [4, 24, 16, 8]]), DecodeError.TYPE_OP_INVALID],
  ['index type on sum', forge(req, [[3, 23, 21, 4]]), DecodeError.BAD_INDEX_TYPE],
  ['element size 8 for f32 sum', forge(req, [[3, 15, 8, 8]]), DecodeError.ELEM_SIZE_MISMATCH],
  ['element size without the index for maxloc f64/i32', forge(loc, [[3, 15, 8, 8]]), DecodeError.ELEM_SIZE_MISMATCH],
  ['element size for the wrong index type', forge(loc, [[3, 23, 21, 6]]), DecodeError.ELEM_SIZE_MISMATCH],
  ['payload length field 257', forge(req, [[4, 15, 0, 257]]), DecodeError.PAYLOAD_TOO_LARGE],
  ['payload length field 65535', forge(req, [[4, 15, 0, 0xffff]]), DecodeError.PAYLOAD_TOO_LARGE],
  ['65 f32 elements (260 bytes) in a 16-byte packet', forge(req, [[4, 24, 16, 65]]), DecodeError.PAYLOAD_TOO_LARGE],
  ['count 511 of u8', forge(u8req, [[4, 24, 16, 511]]), DecodeError.PAYLOAD_TOO_LARGE],
  ['payload 4 bytes short of count x size', forge(req, [], new Uint8Array(12)), DecodeError.PAYLOAD_LENGTH],
  ['count 3 with 16 bytes of f32', forge(req, [[4, 24, 16, 3]]), DecodeError.PAYLOAD_LENGTH],
  ['error response with data', forge(resp, [[0, 23, 16, 16]]), DecodeError.PAYLOAD_LENGTH],
  ['GROUP_CREATE payload not 2 x count', forge(gc, [], be16(10, 11)), DecodeError.PAYLOAD_LENGTH],
  ['GROUP_TRIM with payload', forge(trim, [], new Uint8Array(4)), DecodeError.PAYLOAD_LENGTH],
  ['JOB_REVOKE with payload', forge(revoke, [], new Uint8Array(1)), DecodeError.PAYLOAD_LENGTH],
  ['distribution mode 3', forge(req, [[1, 9, 8, 3]]), DecodeError.BAD_DIST_MODE],
  ['target kind 3', forge(req, [[1, 7, 6, 3]]), DecodeError.BAD_TARGET],
  ['all over rc with target id 5', forge(req, [[5, 31, 0, 5]]), DecodeError.BAD_TARGET],
  ['all over ud with multicast group 0', forge(req, [[1, 9, 8, 1]]), DecodeError.BAD_TARGET],
  ['all over rc+ud with multicast group 0', forge(req, [[1, 9, 8, 2]]), DecodeError.BAD_TARGET],
  ['member over ud', forge(req, [[1, 7, 6, 1], [1, 9, 8, 1], [5, 31, 0, 3]]), DecodeError.BAD_TARGET],
  ['member rank 65536', forge(req, [[1, 7, 6, 1], [5, 31, 0, 65536]]), DecodeError.BAD_TARGET],
  ['external node id 2^32-1 over rc', forge(req, [[1, 7, 6, 2], [5, 31, 0, 0xffffffff]]), DecodeError.BAD_TARGET],
  ['external over ud to group 0', forge(req, [[1, 7, 6, 2], [1, 9, 8, 1]]), DecodeError.BAD_TARGET],
  ['external over rc+ud', forge(req, [[1, 7, 6, 2], [1, 9, 8, 2], [5, 31, 0, 9]]), DecodeError.BAD_TARGET],
  ['GROUP_CREATE with 0 children', forge(gc, [[4, 24, 16, 0]], new Uint8Array(0)), DecodeError.BAD_CHILD_LIST],
  ['GROUP_CREATE with 65 children', forge(gc, [[4, 24, 16, 65]], be16(...Array.from({ length: 65 }, (_, i) => i + 100))), DecodeError.BAD_CHILD_LIST],
  ['GROUP_CREATE with a repeated child', forge(gc, [], be16(10, 11, 10)), DecodeError.BAD_CHILD_LIST],
  ['GROUP_CREATE root with a parent', forge(gc, [[3, 0, 0, 1]]), DecodeError.BAD_PARENT],
  ['GROUP_CREATE parent listed as child', forge(gc, [[3, 31, 16, 11]]), DecodeError.BAD_PARENT],
];

describe('every decode error code from a targeted malformation', () => {
  for (const [name, bytes, code] of CASES) {
    it(`${name} -> ${DECODE_ERROR_NAMES[code]}`, () => {
      const r = decodePacket(bytes);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(DECODE_ERROR_NAMES[r.error], r.detail).toBe(DECODE_ERROR_NAMES[code]);
      expect(r.detail.length).toBeGreaterThan(5);
    });
  }

  it('the cases cover every DecodeError code', () => {
    const hit = new Set(CASES.map(([, , c]) => c));
    for (const code of Object.values(DecodeError)) expect(hit.has(code), DECODE_ERROR_NAMES[code]).toBe(true);
  });

  it('the unmodified base packets decode (the malformations are what fails)', () => {
    for (const p of [req, loc, u8req, resp, gc, trim, er, quota, revoke]) {
      expect(decodePacket(encodePacket(p))).toEqual({ ok: true, pkt: p });
      expect(decodePacket(forge(p, []))).toEqual({ ok: true, pkt: p });
    }
    // a root GROUP_CREATE: root flag and parent 0
    const root: Packet = { ...gc, parent: null };
    expect(decodePacket(forge(gc, [[3, 31, 16, 0], [3, 0, 0, 1]]))).toEqual({ ok: true, pkt: root });
  });

  it('non-byte-array input is rejected, not thrown on', () => {
    for (const v of [null, undefined, 'abc', 42, [1, 2, 3], {}]) {
      const r = decodePacket(v as unknown as Uint8Array);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toBe(DecodeError.TRUNCATED);
    }
  });

  it('error codes have distinct values that fit the 8-bit ERROR_REPORT detail', () => {
    const values = Object.values(DecodeError);
    expect(new Set(values).size).toBe(values.length);
    for (const v of values) expect(v > 0 && v < 256).toBe(true);
  });
});
