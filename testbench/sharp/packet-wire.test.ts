/**
 * On-the-wire sizes: InfiniBand header sizes (IBA Vol. 1) around the SHArP packet, padded to a
 * 4-byte multiple, computed here from the specification's numbers and compared with wireBytes().
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  IB_BTH_BYTES, IB_DETH_BYTES, IB_GRH_BYTES, IB_ICRC_BYTES, IB_LRH_BYTES, IB_VCRC_BYTES, RC_OVERHEAD_BYTES, UD_OVERHEAD_BYTES,
  encodePacket, padBytes, wireBytes, type Packet,
} from '../../rtl/sharp/packet/index.ts';
import { arbPacket } from './packet-arbitraries.ts';

/** Spec arithmetic: LRH 8, BTH 12, ICRC 4, VCRC 2; UD multicast adds GRH 40 and DETH 8. */
function expectedWire(sharpBytes: number, transport: 'rc' | 'ud'): number {
  const padded = Math.ceil(sharpBytes / 4) * 4;
  return 8 + 12 + padded + 4 + 2 + (transport === 'ud' ? 40 + 8 : 0);
}

describe('wire sizes', () => {
  it('header constants are the IBA Vol. 1 sizes', () => {
    expect([IB_LRH_BYTES, IB_BTH_BYTES, IB_ICRC_BYTES, IB_VCRC_BYTES, IB_GRH_BYTES, IB_DETH_BYTES]).toEqual([8, 12, 4, 2, 40, 8]);
    expect(RC_OVERHEAD_BYTES).toBe(26);
    expect(UD_OVERHEAD_BYTES).toBe(74);
  });

  it('fixed points: barrier, 8-byte and 256-byte operations, odd lengths', () => {
    expect(wireBytes(0, 'rc')).toBe(62);
    expect(wireBytes(0, 'ud')).toBe(110);
    expect(wireBytes(8, 'rc')).toBe(70);
    expect(wireBytes(8, 'ud')).toBe(118);
    expect(wireBytes(256, 'rc')).toBe(318);
    expect(wireBytes(256, 'ud')).toBe(366);
    expect(wireBytes(1, 'rc')).toBe(66); // 37-byte SHArP packet padded to 40
    expect(wireBytes(6, 'rc')).toBe(70); // a 3-child GROUP_CREATE: 42 -> 44
    expect(padBytes(0)).toBe(0);
    expect(padBytes(1)).toBe(3);
    expect(padBytes(12)).toBe(0);
  });

  it('for every payload length and for every packet, matches the specification arithmetic', () => {
    for (let len = 0; len <= 256; len++) {
      expect(wireBytes(len, 'rc')).toBe(expectedWire(36 + len, 'rc'));
      expect(wireBytes(len, 'ud')).toBe(expectedWire(36 + len, 'ud'));
    }
    fc.assert(
      fc.property(arbPacket, fc.constantFrom<'rc' | 'ud'>('rc', 'ud'), (p: Packet, t) => {
        expect(wireBytes(p, t)).toBe(expectedWire(encodePacket(p).length, t));
      }),
    );
  });

  it('rejects bad arguments with a RangeError', () => {
    expect(() => wireBytes(257, 'rc')).toThrow(/payload length must be an integer in 0\.\.256/);
    expect(() => wireBytes(-1, 'rc')).toThrow(RangeError);
    expect(() => wireBytes(1.5, 'ud')).toThrow(RangeError);
    expect(() => wireBytes(8, 'dc' as 'rc')).toThrow(/transport must be 'rc' or 'ud'/);
  });
});
