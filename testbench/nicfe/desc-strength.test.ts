/**
 * Descriptor codec, strength (issue 19): the encoder's refusals at every field's bound with the
 * message naming it (and the largest value of each field encoded and decoded back, against the
 * golden decoder), fields a kind does not carry left out of its bytes, the decoder's destination,
 * item and address checks of the descriptor and of each child exactly at their bounds (against the
 * golden decoder), the configuration at every bound, blank descriptors.
 */
import { describe, expect, it } from 'vitest';
import { blankDesc, DESC_COLL, DESC_DEFAULTS, DESC_GET, DESC_IMM_PUT, DESC_KIND_NAMES, DESC_MP, DESC_PUT, DESC_REASON_NAMES, type DescConfig, descConfig, decodeDescriptor, encodeDescriptor, type NicDesc } from '../../rtl/nic/desc/index.ts';
import { modelDecode } from '../../models/nic/descModel.ts';
import { expectIntegerBounds } from '../lib/configBounds.ts';

/**
 * the widest configuration; built inside the tests, never at import: a mutant of the configuration
 * check that throws must fail a test (a file that fails to load is not a failing test to Stryker)
 */
const wide = (): DescConfig => descConfig({ vps: 256, nodes: 65536, items: 4096, vaBits: 48 });

/** encode, decode with the RTL decoder and the golden model: both ok, every field back */
function roundTrip(d: NicDesc): void {
  const b = encodeDescriptor(d);
  const cfg = wide();
  const r = decodeDescriptor(b, cfg);
  const m = modelDecode(b, cfg);
  expect([DESC_REASON_NAMES[r.reason], r.field, m.reason, m.field]).toEqual(['ok', '', 'ok', '']);
  expect({ ...r.desc, data: [...r.desc.data] }).toEqual({ ...d, data: [...d.data] });
}

const child = (f: Partial<NicDesc['children'][number]> = {}) => ({ node: 1, vp: 1, key: 1, addr: 0, item: 0, ...f });

describe('encoder: every field at its bound', () => {
  // [kind, field, bits]: the field holds [0, 2^bits)
  const fields: [number, keyof NicDesc, number][] = [
    [DESC_PUT, 'dstNode', 16],
    [DESC_PUT, 'dstVp', 8],
    [DESC_PUT, 'userTag', 16],
    [DESC_PUT, 'eventData', 32],
    [DESC_PUT, 'length', 32],
    [DESC_PUT, 'localKey', 32],
    [DESC_PUT, 'localItem', 12],
    [DESC_PUT, 'localAddr', 48],
    [DESC_GET, 'remoteKey', 32],
    [DESC_GET, 'remoteItem', 12],
    [DESC_GET, 'remoteAddr', 48],
    [DESC_IMM_PUT, 'length', 8],
    [DESC_COLL, 'seqId', 16],
  ];
  const base = (kind: number): NicDesc => ({ ...blankDesc(kind), length: 1, data: kind === DESC_IMM_PUT ? new Uint8Array(1) : new Uint8Array(0), children: kind === DESC_COLL ? [child()] : [] });
  it.each(fields)('kind %i %s: -1, 2^bits and a fraction refused naming it; 2^bits - 1 encoded', (kind, f, bits) => {
    for (const v of [-1, 2 ** bits, 0.5]) expect(() => encodeDescriptor({ ...base(kind), [f]: v })).toThrow(`descriptor encode: ${f} must be an integer in [0, 2^${bits}), got ${v}`);
    const top = 2 ** bits - 1;
    const b = encodeDescriptor({ ...base(kind), [f]: top, ...(kind === DESC_IMM_PUT && f === 'length' ? { data: new Uint8Array(0) } : {}) });
    expect(b.length).toBe(64 + (kind === DESC_COLL ? 64 : 0));
  });
  it('every child field at its bound, named with the child', () => {
    const bits: [keyof NicDesc['children'][number], number][] = [
      ['node', 16],
      ['vp', 8],
      ['key', 32],
      ['addr', 48],
      ['item', 12],
    ];
    for (const [f, n] of bits) {
      for (const v of [-1, 2 ** n]) expect(() => encodeDescriptor({ ...base(DESC_COLL), children: [child(), child({ [f]: v })] })).toThrow(`descriptor encode: child 1 ${f} must be an integer in [0, 2^${n}), got ${v}`);
    }
  });
  it('the largest value of every field round-trips through both decoders', () => {
    const top = { dstNode: 65535, dstVp: 255, userTag: 65535, eventData: 2 ** 32 - 1 };
    roundTrip({ ...blankDesc(DESC_PUT), ...top, length: 1, localKey: 2 ** 32 - 1, localItem: 4095, localAddr: 2 ** 48 - 2, remoteKey: 2 ** 32 - 1, remoteItem: 4095, remoteAddr: 2 ** 48 - 2, localEvent: true, remoteEvent: true, connect: true, physical: true, interrupt: true });
    roundTrip({ ...blankDesc(DESC_GET), ...top, length: 2 ** 32 - 1, localAddr: 2 ** 32, remoteAddr: 2 ** 47 });
    roundTrip({ ...blankDesc(DESC_IMM_PUT, 128), ...top, length: 80, data: new Uint8Array(80).fill(0xa5), remoteKey: 2 ** 32 - 1, remoteItem: 4095, remoteAddr: 2 ** 48 - 81 });
    roundTrip({ ...blankDesc(DESC_IMM_PUT), length: 16, data: new Uint8Array(16).fill(0x5a) });
    roundTrip({ ...blankDesc(DESC_MP), ...top, length: 80, data: new Uint8Array(80).fill(0x3c), localEvent: true });
    const kids = [0, 1, 2, 3, 4].map((i) => ({ node: 65535 - i, vp: 255 - i, key: 2 ** 32 - 1 - i, addr: 2 ** 48 - 100 - i, item: 4095 - i }));
    roundTrip({ ...blankDesc(DESC_COLL), ...top, length: 99, localKey: 7, localItem: 4095, localAddr: 2 ** 48 - 99, swapAddr: true, swapVp: true, seqId: 65535, children: kids });
  });
  it('kinds, sizes and data the format cannot hold', () => {
    expect(() => encodeDescriptor({ ...base(DESC_PUT), kind: 8 })).toThrow('descriptor encode: kind must be an integer in [0, 2^3), got 8');
    expect(() => encodeDescriptor({ ...base(DESC_PUT), kind: 5 })).toThrow(`descriptor encode: kind 5 is not one of ${DESC_KIND_NAMES.join(', ')}`);
    for (const bytes of [0, 63, 65, 127, 129]) expect(() => encodeDescriptor({ ...base(DESC_IMM_PUT), bytes })).toThrow(`descriptor encode: bytes must be 64 or 128, got ${bytes}`);
    expect(() => encodeDescriptor({ ...base(DESC_GET), bytes: 128 })).toThrow('descriptor encode: a get descriptor cannot be 128 bytes');
    expect(() => encodeDescriptor({ ...base(DESC_MP), bytes: 64 })).toThrow('descriptor encode: a mp descriptor cannot be 64 bytes');
    expect(() => encodeDescriptor({ ...base(DESC_COLL), bytes: 64 })).toThrow('descriptor encode: a coll descriptor cannot be 64 bytes');
    expect(() => encodeDescriptor({ ...blankDesc(DESC_IMM_PUT, 128), length: 81, data: new Uint8Array(81) })).toThrow('descriptor encode: 81 data bytes do not fit a 128-byte imm_put (at most 80)');
    expect(() => encodeDescriptor({ ...blankDesc(DESC_MP), length: 81, data: new Uint8Array(81) })).toThrow('descriptor encode: 81 data bytes do not fit a 128-byte mp (at most 80)');
    expect(() => encodeDescriptor({ ...blankDesc(DESC_IMM_PUT), length: 17, data: new Uint8Array(17) })).toThrow('descriptor encode: 17 data bytes do not fit a 64-byte imm_put (at most 16)');
    expect(() => encodeDescriptor({ ...blankDesc(DESC_COLL), children: new Array(6).fill(child()) })).toThrow('descriptor encode: 6 children, at most 5');
    // the largest that fit
    expect(encodeDescriptor({ ...blankDesc(DESC_IMM_PUT), length: 16, data: new Uint8Array(16) }).length).toBe(64);
    expect(encodeDescriptor({ ...blankDesc(DESC_COLL), children: new Array(5).fill(child()) }).length).toBe(128);
  });
});

describe('decoder: every check exactly at its bound', () => {
  const coll = (kids: ReturnType<typeof child>[], f: Partial<NicDesc> = {}): NicDesc => ({ ...blankDesc(DESC_COLL), length: 100, children: kids, ...f });
  const kid = (f: Partial<ReturnType<typeof child>>) => [child(), child(f)];
  const cases: [string, NicDesc, string, string][] = [
    ['child node = nodes - 1', coll(kid({ node: 1023 })), 'ok', ''],
    ['child node = nodes', coll(kid({ node: 1024 })), 'bad_dest', 'child 1 node'],
    ['child VP = vps - 1', coll(kid({ vp: 39 })), 'ok', ''],
    ['child VP = vps', coll(kid({ vp: 40 })), 'bad_dest', 'child 1 vp'],
    ['child item = items - 1', coll(kid({ item: 1023 })), 'ok', ''],
    ['child item = items', coll(kid({ item: 1024 })), 'bad_item', 'child 1 item'],
    ['child range ending at 2^vaBits', coll(kid({ addr: 2 ** 40 - 100 })), 'ok', ''],
    ['child range one past 2^vaBits', coll(kid({ addr: 2 ** 40 - 99 })), 'bad_address', 'child 1 addr'],
    ['local item = items - 1', { ...blankDesc(DESC_PUT), length: 1, localItem: 1023 }, 'ok', ''],
    ['local item = items', { ...blankDesc(DESC_PUT), length: 1, localItem: 1024 }, 'bad_item', 'localItem'],
    ['collective local item = items', coll([child()], { localItem: 1024 }), 'bad_item', 'localItem'],
    ['remote item = items', { ...blankDesc(DESC_PUT), length: 1, remoteItem: 1024 }, 'bad_item', 'remoteItem'],
    ['IMM_PUT remote item = items', { ...blankDesc(DESC_IMM_PUT), length: 1, data: new Uint8Array(1), remoteItem: 1024 }, 'bad_item', 'remoteItem'],
  ];
  it.each(cases)('%s', (_name, d, reason, field) => {
    const cfg = descConfig({ vps: 40, nodes: 1024, items: 1024, vaBits: 40 });
    const b = encodeDescriptor(d);
    const r = decodeDescriptor(b, cfg);
    const m = modelDecode(b, cfg);
    expect([DESC_REASON_NAMES[r.reason], r.field]).toEqual([reason, field]);
    expect([m.reason, m.field]).toEqual([reason, field]);
  });
});

describe('encoder: fields a kind does not carry', () => {
  const unused = { remoteKey: 0xdeadbeef, remoteItem: 7, remoteAddr: 2 ** 40 + 5 };
  const local = { localKey: 0xfeedf00d, localItem: 9, localAddr: 2 ** 41 + 3 };
  it('are left out: an MP or a collective with remote fields set, an IMM_PUT or MP with local fields set, encode as if they were 0', () => {
    const mp = { ...blankDesc(DESC_MP), length: 3, data: Uint8Array.from([1, 2, 3]) };
    const co = { ...blankDesc(DESC_COLL), length: 8, children: [child()] };
    const imm = { ...blankDesc(DESC_IMM_PUT), length: 2, data: Uint8Array.from([4, 5]) };
    for (const [d, extra] of [
      [mp, unused],
      [co, unused],
      [mp, local],
      [imm, local],
    ] as [NicDesc, Partial<NicDesc>][]) {
      const b = encodeDescriptor({ ...d, ...extra });
      expect([...b]).toEqual([...encodeDescriptor(d)]);
      expect(DESC_REASON_NAMES[decodeDescriptor(b, wide()).reason]).toBe('ok');
    }
  });
});

describe('descriptor configuration and blanks', () => {
  const bounds: [keyof DescConfig, number, number][] = [
    ['vps', 1, 256],
    ['nodes', 1, 65536],
    ['items', 1, 4096],
    ['vaBits', 13, 48],
  ];
  it.each(bounds)('%s: both bounds accepted; below, above and non-integer refused with the range', (k, lo, hi) => expectIntegerBounds(descConfig, 'descriptor config', k, lo, hi));
  it('defaults as documented; blank descriptors are 128 bytes for MP and COLL, else 64', () => {
    expect(DESC_DEFAULTS).toEqual({ vps: 40, nodes: 65536, items: 4096, vaBits: 48 });
    expect(descConfig()).toEqual({ vps: 40, nodes: 65536, items: 4096, vaBits: 48 });
    expect([DESC_IMM_PUT, DESC_PUT, DESC_GET, DESC_MP, DESC_COLL].map((k) => blankDesc(k).bytes)).toEqual([64, 64, 64, 128, 128]);
    const b = blankDesc(DESC_GET);
    expect({ ...b, data: [...b.data] }).toEqual({
      kind: DESC_GET, bytes: 64, localEvent: false, remoteEvent: false, connect: false, physical: false, interrupt: false, dstNode: 0, dstVp: 0, userTag: 0, length: 0, localKey: 0, remoteKey: 0,
      localItem: 0, remoteItem: 0, localAddr: 0, remoteAddr: 0, eventData: 0, data: [], swapAddr: false, swapVp: false, seqId: 0, children: [],
    });
  });
});
