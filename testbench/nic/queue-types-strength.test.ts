/**
 * Host-memory queue parameters and the INTQ entry layout (rtl/nic/queues/types.ts), the cases
 * mutation testing (docs/verification.md) found unchecked: every configuration field at its bounds
 * with the exact message, the defaults, and the 48-bit source address of an INTQ entry (low 32 bits
 * then the high 16, little-endian).
 */
import { describe, expect, it } from 'vitest';
import { encodeIntq, QUEUE_DEFAULTS, queueConfig } from '../../rtl/nic/queues/types.ts';

describe('queue configuration', () => {
  it('defaults: 40 VPs, EPQ disabled, input capacity 4, 48 address bits', () => {
    expect(queueConfig()).toEqual({ vps: 40, epqEnabled: false, inCapacity: 4, addrBits: 48 });
    expect(QUEUE_DEFAULTS.epqEnabled).toBe(false);
  });

  it('every field at its bounds, with the message naming it', () => {
    const ranges: [string, number, number][] = [
      ['vps', 1, 256],
      ['inCapacity', 2, 1024],
      ['addrBits', 13, 52],
    ];
    for (const [k, lo, hi] of ranges) {
      for (const v of [lo, hi]) expect(queueConfig({ [k]: v })[k as 'vps']).toBe(v);
      for (const v of [lo - 1, hi + 1, lo + 0.5]) expect(() => queueConfig({ [k]: v }), `${k} = ${v}`).toThrow(new RegExp(`^queue config: ${k} must be an integer in \\[${lo}, ${hi}\\], got ${String(v).replace('.', '\\.')}$`));
    }
    expect(queueConfig({ epqEnabled: true }).epqEnabled).toBe(true);
    expect(() => queueConfig({ epqEnabled: 1 as unknown as boolean })).toThrow(/^queue config: epqEnabled must be a boolean$/);
    expect(() => queueConfig({ depth: 3 } as never)).toThrow(/^queue config: unknown parameter depth$/);
  });
});

describe('INTQ entry layout', () => {
  it('type, code, VP, info, then the 48-bit address: low 32 bits and high 16 bits, little-endian', () => {
    const b = encodeIntq({ type: 3, code: 2, vp: 0x1234, info: 0x89abcdef, addr: 0xa1b2 * 2 ** 32 + 0xc3d4e5f6 });
    expect([...b]).toEqual([3, 2, 0x34, 0x12, 0xef, 0xcd, 0xab, 0x89, 0xf6, 0xe5, 0xd4, 0xc3, 0xb2, 0xa1, 0, 0]);
    expect([...encodeIntq({ type: 1, code: 0, vp: 0, info: -1, addr: 2 ** 48 - 1 })].slice(4)).toEqual([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0]);
  });
});
