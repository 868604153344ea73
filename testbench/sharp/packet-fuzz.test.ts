/**
 * Fuzz properties of the decoder: arbitrary byte strings, random headers with a correct CRC (so the
 * field checks, not the CRC, decide), and bit flips / truncations / extensions / byte overwrites of
 * valid packets. decodePacket never throws, returns either a packet or an assigned error code with
 * a detail, accepts a changed byte string only if its CRC still matches (and then re-encodes to the
 * very same bytes), and keeps no state: results do not depend on what was decoded before.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DECODE_ERROR_NAMES, DecodeError, decodePacket, encodePacket, type DecodeResult, type Packet } from '../../rtl/sharp/packet/index.ts';
import { arbPacket } from './packet-arbitraries.ts';

const CODES = new Set<number>(Object.values(DecodeError));

/** Decode, asserting it does not throw and the result is well formed. */
function decodeChecked(b: Uint8Array): DecodeResult {
  let r: DecodeResult;
  try {
    r = decodePacket(b);
  } catch (e) {
    throw new Error(`decodePacket threw on ${Buffer.from(b).toString('hex')}: ${String(e)}`);
  }
  if (r.ok) {
    // Every accepted byte string is canonical: it is exactly the encoding of what it decodes to.
    expect(encodePacket(r.pkt)).toEqual(b);
  } else {
    expect(CODES.has(r.error), `error code ${String(r.error)}`).toBe(true);
    expect(typeof r.detail).toBe('string');
    expect(r.detail.length).toBeGreaterThan(0);
  }
  return r;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function reCrc(b: Uint8Array): Uint8Array {
  const n = b.length - 4;
  const c = zlibCrc32(b.subarray(0, n)) >>> 0;
  b.set([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, c >>> 24], n);
  return b;
}

/** A mutation of an encoded packet. */
type Mutation =
  | { kind: 'flip'; bits: number[] }
  | { kind: 'truncate'; keep: number }
  | { kind: 'extend'; tail: Uint8Array }
  | { kind: 'overwrite'; at: number; bytes: Uint8Array };

const arbMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), bits: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat() }),
  fc.record({ kind: fc.constant('extend' as const), tail: fc.uint8Array({ minLength: 1, maxLength: 300 }) }),
  fc.record({ kind: fc.constant('overwrite' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
);

function mutate(b: Uint8Array, m: Mutation): Uint8Array {
  switch (m.kind) {
    case 'flip': {
      const out = Uint8Array.from(b);
      for (const bit of m.bits) {
        const k = bit % (8 * out.length);
        out[k >> 3]! ^= 1 << (k & 7);
      }
      return out;
    }
    case 'truncate':
      return b.slice(0, m.keep % b.length);
    case 'extend':
      return Uint8Array.from([...b, ...m.tail]);
    case 'overwrite': {
      const out = Uint8Array.from(b);
      out.set(m.bytes.subarray(0, Math.max(0, out.length - (m.at % out.length))), m.at % out.length);
      return out;
    }
  }
}

describe('decoder fuzz', () => {
  it('arbitrary byte strings (lengths 0 .. 600): never throws, ok only with a well-formed result', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 600 }),
          fc.constantFrom(0, 1, 35, 36, 37, 291, 292, 293, 301, 512).chain((n) => fc.uint8Array({ minLength: n, maxLength: n })),
        ),
        (b) => {
          const copy = Uint8Array.from(b);
          decodeChecked(b);
          expect(sameBytes(b, copy)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('random headers with version 1, a consistent length and a correct CRC: field checks decide, never a throw', () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.integer({ min: 0, max: 256 }),
        fc.uint8Array({ minLength: 256, maxLength: 256 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
        (header, len, data, type, fix) => {
          const b = new Uint8Array(36 + len);
          b.set(header);
          b[0] = 0x10 | type; // version 1, an assigned type: exercise the per-type checks
          // Most of the time repair some of the fields an early check looks at, so that random
          // values reach the later checks too.
          if (fix[0]) { b[7]! &= 0xf0; b[16]! &= 0x01; } // reserved W1[3:0], W4[31:25]
          if (fix[1]) b[1] = 0; // status
          if (fix[2]) { b.set([0, 0, 0, 1], 28); b[7] = (b[7]! & 0xcf) | 0x30; } // fragment 0 of 1, FIRST|LAST
          if (fix[3]) { b[12] = (((b[12]! >> 4) % 12) << 4) | ((b[12]! & 15) % 12); b[13]! &= 0x0f; } // op, type, index 0, rounding 0..3
          if (fix[4]) b[15]! &= 0x1f; // W3[7:5]
          b[18] = len >> 8;
          b[19] = len & 0xff;
          b.set(data.subarray(0, len), 32);
          const r = decodeChecked(reCrc(b));
          const key = r.ok ? 'ok' : DECODE_ERROR_NAMES[r.error]!;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        },
      ),
      { numRuns: 4000 },
    );
    // Random headers get past the frame checks and into many different field checks.
    expect(seen.has('BAD_CRC')).toBe(false);
    expect(seen.size, JSON.stringify([...seen])).toBeGreaterThan(8);
  });

  it('valid packets with random header fields rewritten and the CRC fixed: decodes to a canonical packet or an error', () => {
    fc.assert(
      fc.property(arbPacket, fc.array(fc.tuple(fc.integer({ min: 0, max: 31 }), fc.nat(255)), { minLength: 1, maxLength: 4 }), (p, edits) => {
        const b = encodePacket(p);
        for (const [at, v] of edits) b[at] = v;
        const r = decodeChecked(reCrc(b));
        if (r.ok && sameBytes(b, encodePacket(p))) expect(r.pkt).toEqual(p);
      }),
      { numRuns: 2000 },
    );
  });

  it('bit flips, truncations, extensions and overwrites of valid packets: the original packet or a specific error', () => {
    fc.assert(
      fc.property(arbPacket, arbMutation, (p, m) => {
        const orig = encodePacket(p);
        const b = mutate(orig, m);
        const r = decodeChecked(b);
        if (r.ok) {
          // Without re-computing the CRC, only an unchanged byte string is accepted
          // (e.g. two flips of the same bit, or an overwrite with the same bytes).
          expect(sameBytes(b, orig)).toBe(true);
          expect(r.pkt).toEqual(p);
        } else if (sameBytes(b, orig)) {
          throw new Error(`unchanged packet rejected: ${r.detail}`);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('no state between calls: a packet decodes the same before and after garbage and other packets', () => {
    fc.assert(
      fc.property(arbPacket, fc.array(fc.oneof(fc.uint8Array({ maxLength: 300 }), arbPacket.map(encodePacket)), { maxLength: 5 }), (p, noise) => {
        const b = encodePacket(p);
        const first: DecodeResult = decodePacket(b);
        for (const n of noise) decodePacket(n);
        expect(decodePacket(b)).toEqual(first);
        expect(first).toEqual({ ok: true, pkt: p as Packet });
      }),
      { numRuns: 300 },
    );
  });
});
