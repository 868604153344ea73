/**
 * CRC-32 of the packet trailer against the IEEE 802.3 check value and node's zlib implementation
 * (an independent CRC-32), plus the residue and incremental-update properties.
 */
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CRC32_RESIDUE, crc32, crc32Update } from '../../rtl/sharp/packet/crc.ts';

const ascii = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe('CRC-32 (IEEE 802.3)', () => {
  it('known answers: "123456789" -> 0xCBF43926, empty -> 0, and more', () => {
    expect(crc32(ascii('123456789'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
    expect(crc32(ascii('a'))).toBe(0xe8b7be43);
    expect(crc32(ascii('The quick brown fox jumps over the lazy dog'))).toBe(0x414fa339);
    expect(crc32(new Uint8Array(32))).toBe(0x190a55ad);
  });

  it('equals zlib.crc32 on arbitrary byte strings and sub-ranges', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(), fc.nat(), (b, x, y) => {
        expect(crc32(b)).toBe(zlibCrc32(b) >>> 0);
        const s = b.length === 0 ? 0 : x % (b.length + 1);
        const e = s + (b.length - s === 0 ? 0 : y % (b.length - s + 1));
        expect(crc32(b, s, e)).toBe(zlibCrc32(b.subarray(s, e)) >>> 0);
      }),
      { numRuns: 300 },
    );
  });

  it('incremental updates over any split equal the one-shot CRC', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), (b, cut) => {
        const k = b.length === 0 ? 0 : cut % (b.length + 1);
        const reg = crc32Update(crc32Update(0xffffffff, b, 0, k), b, k, b.length);
        expect((reg ^ 0xffffffff) >>> 0).toBe(crc32(b));
      }),
    );
  });

  it('data followed by its little-endian CRC has the constant residue 0x2144DF1C', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (b) => {
        const c = crc32(b);
        const all = new Uint8Array(b.length + 4);
        all.set(b);
        all.set([c & 0xff, (c >>> 8) & 0xff, (c >>> 16) & 0xff, c >>> 24], b.length);
        expect(crc32(all)).toBe(CRC32_RESIDUE);
      }),
    );
  });

  it('detects every single-bit error and every burst of up to 32 bits', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 292 }), fc.nat(), fc.integer({ min: 1, max: 0xffffffff }), (b, pos, burst) => {
        const c = crc32(b);
        const bitLen = 8 * b.length;
        const start = pos % bitLen;
        const m = Uint8Array.from(b);
        // XOR a burst pattern (nonzero, at most 32 bits long) starting at bit `start`.
        for (let i = 0; i < 32; i++) {
          if (Math.floor(burst / 2 ** i) % 2 === 0) continue;
          const bit = start + i;
          if (bit >= bitLen) break;
          m[bit >> 3]! ^= 1 << (bit & 7);
        }
        fc.pre(m.some((v, i) => v !== b[i]));
        expect(crc32(m)).not.toBe(c);
      }),
      { numRuns: 300 },
    );
  });
});
