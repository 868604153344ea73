/**
 * The ALU's element lanes (rtl/sharp/alu/lanes.ts): integer operations against a BigInt
 * reference, minloc/maxloc tie and NaN rules, float lanes against the fp units with the
 * documented stochastic-rounding seeds, wide accumulation, payload layout and range checks.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { F32, FORMATS, fpAdd, fpConvert, fpMinMax, fpMul, modeWord } from '../../../rtl/sharp/alu/fp/index.ts';
import { canonicalize, combine, elementSeed, isWide, laneBytes, type LaneConfig, lfsrDraw8, narrow, opSeed, srDraw, widen } from '../../../rtl/sharp/alu/lanes.ts';
import { type DataType, FLAG_INEXACT, FLAG_INVALID, type IndexType, type Op, type Rounding, TYPE_BYTES } from '../../../rtl/sharp/alu/types.ts';

const INT_TYPES = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64'] as const;
const INT_OPS = ['sum', 'prod', 'min', 'max', 'band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const;

function cfg(type: DataType, op: Op, more: Partial<LaneConfig> = {}): LaneConfig {
  return { type, op, indexType: 'i32', rounding: 'rne', ftz: false, wide: false, ...more };
}

/** Little-endian n-byte integer at o, as a BigInt, signed or not (test-side decoder). */
function getInt(p: Uint8Array, o: number, bytes: number, signed: boolean): bigint {
  let v = 0n;
  for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(p[o + i]!);
  return signed ? BigInt.asIntN(bytes * 8, v) : v;
}
function putInt(p: Uint8Array, o: number, bytes: number, v: bigint): void {
  let x = BigInt.asUintN(bytes * 8, v);
  for (let i = 0; i < bytes; i++) {
    p[o + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function refInt(type: DataType, op: Op, x: bigint, y: bigint): bigint {
  const bits = TYPE_BYTES[type] * 8;
  const wrap = (v: bigint) => BigInt.asUintN(bits, v);
  switch (op) {
    case 'sum':
      return wrap(x + y);
    case 'prod':
      return wrap(x * y);
    case 'min':
      return wrap(x <= y ? x : y);
    case 'max':
      return wrap(x >= y ? x : y);
    case 'band':
      return wrap(x & y);
    case 'bor':
      return wrap(x | y);
    case 'bxor':
      return wrap(x ^ y);
    case 'land':
      return x !== 0n && y !== 0n ? 1n : 0n;
    case 'lor':
      return x !== 0n || y !== 0n ? 1n : 0n;
    default:
      return x !== 0n !== (y !== 0n) ? 1n : 0n;
  }
}

describe('integer lanes against a BigInt reference', () => {
  for (const type of INT_TYPES) {
    it(`${type}: every operation, wrapping, signedness`, () => {
      const bytes = TYPE_BYTES[type];
      const signed = type[0] === 'i';
      const count = Math.floor(256 / bytes);
      // values biased to the edges: 0, 1, -1, min, max
      const edge = fc.constantFrom(0n, 1n, -1n, 2n ** BigInt(bytes * 8 - 1), 2n ** BigInt(bytes * 8 - 1) - 1n, 2n ** BigInt(bytes * 8) - 1n);
      const val = fc.oneof(fc.bigInt({ min: 0n, max: 2n ** BigInt(bytes * 8) - 1n }), edge, fc.bigInt({ min: -5n, max: 5n }));
      fc.assert(
        fc.property(fc.constantFrom(...INT_OPS), fc.array(fc.tuple(val, val), { minLength: 1, maxLength: count }), fc.boolean(), (op, pairs, alias) => {
          const n = pairs.length;
          const a = new Uint8Array(n * bytes);
          const b = new Uint8Array(n * bytes);
          pairs.forEach(([x, y], i) => {
            putInt(a, i * bytes, bytes, x);
            putInt(b, i * bytes, bytes, y);
          });
          const a0 = a.slice();
          const out = alias ? a : new Uint8Array(n * bytes);
          expect(combine(cfg(type, op), a, b, out, 0, n, 1, 0)).toBe(0);
          for (let i = 0; i < n; i++) {
            const x = getInt(a0, i * bytes, bytes, signed);
            const y = getInt(b, i * bytes, bytes, signed);
            expect(getInt(out, i * bytes, bytes, false)).toBe(refInt(type, op, x, y));
          }
        }),
        { numRuns: 400, seed: bytes * 13 + (signed ? 1 : 0) },
      );
    });
  }

  it('hand cases: wraparound, signedness, logical results, 64-bit carries and products', () => {
    const one = (type: DataType, op: Op, x: bigint, y: bigint) => {
      const bytes = TYPE_BYTES[type];
      const a = new Uint8Array(bytes);
      const b = new Uint8Array(bytes);
      putInt(a, 0, bytes, x);
      putInt(b, 0, bytes, y);
      combine(cfg(type, op), a, b, a, 0, 1, 1, 0);
      return getInt(a, 0, bytes, type[0] === 'i');
    };
    expect(one('u8', 'sum', 200n, 100n)).toBe(44n);
    expect(one('i8', 'sum', 127n, 1n)).toBe(-128n);
    expect(one('i8', 'min', -1n, 1n)).toBe(-1n);
    expect(one('u8', 'min', 0xffn, 1n)).toBe(1n);
    expect(one('u32', 'max', 0xffffffffn, 1n)).toBe(0xffffffffn);
    expect(one('i32', 'max', -1n, 1n)).toBe(1n);
    expect(one('u16', 'prod', 300n, 300n)).toBe(90000n % 65536n);
    expect(one('i16', 'land', 256n, -3n)).toBe(1n);
    expect(one('i16', 'lxor', 256n, 0n)).toBe(1n);
    expect(one('u8', 'lor', 0n, 0n)).toBe(0n);
    expect(one('u64', 'sum', 0xffffffffn, 1n)).toBe(0x100000000n);
    expect(one('u64', 'sum', 2n ** 64n - 1n, 2n)).toBe(1n);
    expect(one('i64', 'min', -(2n ** 63n), 2n ** 63n - 1n)).toBe(-(2n ** 63n));
    expect(one('u64', 'min', 2n ** 63n, 1n)).toBe(1n);
    expect(one('i64', 'prod', -3n, 0x123456789abcdefn)).toBe(BigInt.asIntN(64, -3n * 0x123456789abcdefn));
    expect(one('u64', 'prod', 0xffffffffffffffffn, 0xffffffffffffffffn)).toBe(1n);
    expect(one('u64', 'land', 2n ** 40n, 7n)).toBe(1n);
  });
});

describe('minloc / maxloc', () => {
  const INDEX: IndexType[] = ['i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64'];

  it('integers: value compare per type, ties keep the smaller index (per index type), index travels', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...INT_TYPES),
        fc.constantFrom(...INDEX),
        fc.constantFrom<Op>('minloc', 'maxloc'),
        fc.array(fc.tuple(fc.bigInt({ min: -3n, max: 3n }), fc.bigInt({ min: -3n, max: 3n }), fc.bigInt(), fc.bigInt()), { minLength: 1, maxLength: 8 }),
        (type, ix, op, rows) => {
          const c = cfg(type, op, { indexType: ix });
          const vb = TYPE_BYTES[type];
          const ib = TYPE_BYTES[ix];
          const eb = laneBytes(c);
          expect(eb).toBe(vb + ib);
          const n = rows.length;
          const a = new Uint8Array(n * eb);
          const b = new Uint8Array(n * eb);
          rows.forEach(([x, y, ia, ibx], i) => {
            putInt(a, i * eb, vb, x);
            putInt(b, i * eb, vb, y);
            putInt(a, i * eb + vb, ib, ia);
            putInt(b, i * eb + vb, ib, ibx);
          });
          const out = new Uint8Array(n * eb);
          expect(combine(c, a, b, out, 0, n, 3, 0)).toBe(0);
          const vs = type[0] === 'i';
          const is = ix[0] === 'i';
          for (let i = 0; i < n; i++) {
            const o = i * eb;
            const x = getInt(a, o, vb, vs);
            const y = getInt(b, o, vb, vs);
            const xi = getInt(a, o + vb, ib, is);
            const yi = getInt(b, o + vb, ib, is);
            const takeA = x === y ? xi <= yi : op === 'minloc' ? x < y : x > y;
            expect([getInt(out, o, vb, vs), getInt(out, o + vb, ib, is)]).toEqual(takeA ? [x, xi] : [y, yi]);
          }
        },
      ),
      { numRuns: 500, seed: 31 },
    );
  });

  /** one f32 minloc/maxloc element with u32 indices */
  function loc(op: 'minloc' | 'maxloc', x: number, xi: number, y: number, yi: number, ftz = false): { v: number; i: number; flags: number } {
    const a = new Uint8Array(8);
    const b = new Uint8Array(8);
    const dv = (p: Uint8Array) => new DataView(p.buffer);
    dv(a).setUint32(0, x, true);
    dv(a).setUint32(4, xi, true);
    dv(b).setUint32(0, y, true);
    dv(b).setUint32(4, yi, true);
    const flags = combine(cfg('f32', op, { indexType: 'u32', ftz }), a, b, a, 0, 1, 1, 0);
    return { v: dv(a).getUint32(0, true), i: dv(a).getUint32(4, true), flags };
  }

  it('floats: NaN wins over numbers (both ops), the smaller index among NaNs, canonical NaN out', () => {
    expect(loc('minloc', 0x7fc00001, 5, 0xff800000, 1)).toEqual({ v: 0x7fc00000, i: 5, flags: 0 });
    expect(loc('maxloc', 0x3f800000, 1, 0xffc00000, 9)).toEqual({ v: 0x7fc00000, i: 9, flags: 0 });
    expect(loc('minloc', 0x7fc00000, 7, 0x7fc12345, 2)).toEqual({ v: 0x7fc00000, i: 2, flags: 0 });
    expect(loc('maxloc', 0x7fc00000, 2, 0x7fc12345, 7)).toEqual({ v: 0x7fc00000, i: 2, flags: 0 });
    // a signalling NaN raises invalid whichever side it is on and whoever wins
    expect(loc('minloc', 0x7f800001, 3, 0x3f800000, 1)).toEqual({ v: 0x7fc00000, i: 3, flags: FLAG_INVALID });
    expect(loc('maxloc', 0x3f800000, 1, 0x7fc00000, 4).flags).toBe(0);
    expect(loc('maxloc', 0x7fc00000, 1, 0xff800001, 4)).toEqual({ v: 0x7fc00000, i: 1, flags: FLAG_INVALID });
  });

  it('floats: -0 < +0, equal values keep the smaller index, daz under ftz', () => {
    expect(loc('minloc', 0x00000000, 1, 0x80000000, 2)).toEqual({ v: 0x80000000, i: 2, flags: 0 });
    expect(loc('maxloc', 0x00000000, 1, 0x80000000, 2)).toEqual({ v: 0x00000000, i: 1, flags: 0 });
    expect(loc('minloc', 0x40000000, 9, 0x40000000, 3)).toEqual({ v: 0x40000000, i: 3, flags: 0 });
    expect(loc('maxloc', 0x40000000, 3, 0x40000000, 9)).toEqual({ v: 0x40000000, i: 3, flags: 0 });
    expect(loc('minloc', 0xbf800000, 9, 0x3f800000, 3)).toEqual({ v: 0xbf800000, i: 9, flags: 0 });
    expect(loc('maxloc', 0xff800000, 1, 0x00000001, 2)).toEqual({ v: 0x00000001, i: 2, flags: 0 });
    // under ftz two subnormals of the same sign are equal zeros: the smaller index wins
    expect(loc('maxloc', 0x00000005, 8, 0x00000001, 2, true)).toEqual({ v: 0x00000000, i: 2, flags: 0 });
    expect(loc('maxloc', 0x00000005, 8, 0x00000001, 2, false)).toEqual({ v: 0x00000005, i: 8, flags: 0 });
    expect(loc('minloc', 0x80000005, 8, 0x00000001, 2, true)).toEqual({ v: 0x80000000, i: 8, flags: 0 });
  });

  it('layout: f64 value + i32 index is 12 bytes, packed', () => {
    const c = cfg('f64', 'maxloc');
    expect(laneBytes(c)).toBe(12);
    const a = new Uint8Array(24);
    const b = new Uint8Array(24);
    const da = new DataView(a.buffer);
    const db = new DataView(b.buffer);
    da.setFloat64(0, 1.5, true);
    da.setInt32(8, -4, true);
    db.setFloat64(0, 2.5, true);
    db.setInt32(8, 6, true);
    da.setFloat64(12, -1, true);
    da.setInt32(20, 10, true);
    db.setFloat64(12, -1, true);
    db.setInt32(20, -10, true);
    combine(c, a, b, a, 0, 2, 1, 0);
    expect([da.getFloat64(0, true), da.getInt32(8, true), da.getFloat64(12, true), da.getInt32(20, true)]).toEqual([2.5, 6, -1, -10]);
  });
});

describe('float lanes', () => {
  const FLOAT_TYPES = ['f16', 'bf16', 'f32', 'f64'] as const;
  const ROUNDINGS: Rounding[] = ['rne', 'rtz', 'rdn', 'rup', 'sr'];

  it('each element goes through the fp unit; sr draws from elementSeed(opSeed, node, element)', () => {
    const out3 = new Uint32Array(3);
    fc.assert(
      fc.property(
        fc.constantFrom(...FLOAT_TYPES),
        fc.constantFrom<Op>('sum', 'prod', 'min', 'max'),
        fc.constantFrom(...ROUNDINGS),
        fc.boolean(),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 0, max: 63 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ minLength: 256, maxLength: 256 }),
        fc.uint8Array({ minLength: 256, maxLength: 256 }),
        (type, op, rounding, ftz, first, n, node, seed, bytesA, bytesB) => {
          const fmt = FORMATS[type];
          const vb = fmt.bytes;
          const c = cfg(type, op, { rounding, ftz });
          const a = bytesA.slice(0, (first + n) * vb);
          const b = bytesB.slice(0, (first + n) * vb);
          const out = new Uint8Array(a.length);
          const flags = combine(c, a, b, out, first, n, node, seed);
          const dA = new DataView(a.buffer);
          const dB = new DataView(b.buffer);
          const dO = new DataView(out.buffer);
          let want = 0;
          for (let i = first; i < first + n; i++) {
            const o = i * vb;
            const rd = (d: DataView): [number, number] => (vb === 8 ? [d.getUint32(o + 4, true), d.getUint32(o, true)] : [0, vb === 4 ? d.getUint32(o, true) : d.getUint16(o, true)]);
            const [ah, al] = rd(dA);
            const [bh, bl] = rd(dB);
            const mode = modeWord(rounding, ftz);
            const u = rounding === 'sr' ? lfsrDraw8(elementSeed(seed, node, i)) : 0;
            if (op === 'sum') want |= fpAdd(fmt, ah, al, bh, bl, mode, u, out3);
            else if (op === 'prod') want |= fpMul(fmt, ah, al, bh, bl, mode, u, out3);
            else want |= fpMinMax(fmt, ah, al, bh, bl, ftz, op === 'max', out3);
            expect(rd(dO)).toEqual([out3[0], out3[1]]);
          }
          expect(flags).toBe(want);
          // elements outside [first, first + n) are untouched
          for (let k = 0; k < first * vb; k++) expect(out[k]).toBe(0);
        },
      ),
      { numRuns: 1500, seed: 41 },
    );
  });

  it('sr is deterministic per (opSeed, node, element) and not per call', () => {
    const c = cfg('f32', 'sum', { rounding: 'sr' });
    const a = new Uint8Array(64);
    const b = new Uint8Array(64);
    const da = new DataView(a.buffer);
    const db = new DataView(b.buffer);
    for (let i = 0; i < 16; i++) {
      da.setFloat32(4 * i, 1, true);
      db.setFloat32(4 * i, 2 ** -24 + i * 2 ** -30, true); // half an ulp and a bit: sr must decide
    }
    const os = opSeed(99, 7);
    const whole = new Uint8Array(64);
    combine(c, a, b, whole, 0, 16, 5, os);
    // the same elements computed in two beats, in reverse order, give the same bytes
    const split = new Uint8Array(64);
    combine(c, a, b, split, 8, 8, 5, os);
    combine(c, a, b, split, 0, 8, 5, os);
    expect(split).toEqual(whole);
    // another node draws differently for some element
    const other = new Uint8Array(64);
    combine(c, a, b, other, 0, 16, 6, os);
    expect(other).not.toEqual(whole);
    for (let i = 0; i < 16; i++) {
      const up = srDraw(os, 5, i) + (((2 ** -24 + i * 2 ** -30) / 2 ** -23) * 256) >= 256;
      expect(new DataView(whole.buffer).getFloat32(4 * i, true)).toBe(up ? 1 + 2 ** -23 : 1);
    }
  });
});

describe('wide accumulation', () => {
  it('isWide only for f16/bf16 sum/prod with wide on', () => {
    expect(isWide(cfg('f16', 'sum', { wide: true }))).toBe(true);
    expect(isWide(cfg('bf16', 'prod', { wide: true }))).toBe(true);
    expect(isWide(cfg('f16', 'sum'))).toBe(false);
    expect(isWide(cfg('f16', 'max', { wide: true }))).toBe(false);
    expect(isWide(cfg('f32', 'sum', { wide: true }))).toBe(false);
    expect(laneBytes(cfg('f16', 'sum', { wide: true }))).toBe(4);
    expect(laneBytes(cfg('f16', 'max', { wide: true }))).toBe(2);
    expect(() => widen(cfg('f16', 'max', { wide: true }), new Uint8Array(2), new Uint8Array(4), 0, 1)).toThrow(/wide accumulation does not apply/);
  });

  it('f16 2048 + 1 + 1: lost when summed in f16, kept when accumulated in f32', () => {
    const f16 = (bits: number[]) => new Uint8Array(new Uint16Array(bits).buffer);
    const ops = [0x6800, 0x3c00, 0x3c00]; // 2048, 1, 1
    const narrowSum = (c: LaneConfig) => {
      const acc = f16([ops[0]!]);
      for (let s = 1; s < 3; s++) combine(c, acc, f16([ops[s]!]), acc, 0, 1, s, 0);
      return new Uint16Array(acc.buffer)[0];
    };
    expect(narrowSum(cfg('f16', 'sum'))).toBe(0x6800); // 2048 + 1 ties to even, twice
    const c = cfg('f16', 'sum', { wide: true });
    const acc = new Uint8Array(4);
    expect(widen(c, f16([ops[0]!]), acc, 0, 1)).toBe(0);
    const tmp = new Uint8Array(4);
    let flags = 0;
    for (let s = 1; s < 3; s++) {
      widen(c, f16([ops[s]!]), tmp, 0, 1);
      flags |= combine(c, acc, tmp, acc, 0, 1, s, 0);
    }
    const res = new Uint8Array(2);
    flags |= narrow(c, acc, res, 0, 1, 0);
    expect(new Uint16Array(res.buffer)[0]).toBe(0x6801); // 2050
    expect(flags).toBe(0);
  });

  it('widen / narrow element by element match the converter; narrow draws with node 0', () => {
    const out3 = new Uint32Array(3);
    fc.assert(
      fc.property(fc.constantFrom<DataType>('f16', 'bf16'), fc.constantFrom<Rounding>('rne', 'rtz', 'rdn', 'rup', 'sr'), fc.boolean(), fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.integer({ min: 0, max: 0xffffffff }), (type, rounding, ftz, bytes, seed) => {
        const fmt = FORMATS[type as 'f16' | 'bf16'];
        const c = cfg(type, 'sum', { wide: true, rounding, ftz });
        const mode = modeWord(rounding, ftz);
        const src = bytes.slice(0, 32);
        const acc = new Uint8Array(64);
        let want = 0;
        const fw = widen(c, src, acc, 0, 16);
        const ds = new DataView(src.buffer);
        const da = new DataView(acc.buffer);
        for (let i = 0; i < 16; i++) {
          want |= fpConvert(fmt, F32, 0, ds.getUint16(2 * i, true), mode, 0, out3);
          expect(da.getUint32(4 * i, true)).toBe(out3[1]);
        }
        expect(fw).toBe(want);
        // narrow arbitrary binary32 accumulators in place (dst aliases src)
        const acc2 = bytes.slice();
        const d2 = new DataView(acc2.buffer.slice(0));
        const fn = narrow(c, acc2, acc2, 0, 16, seed);
        const dn = new DataView(acc2.buffer);
        want = 0;
        for (let i = 0; i < 16; i++) {
          const u = rounding === 'sr' ? srDraw(seed, 0, i) : 0;
          want |= fpConvert(F32, fmt, 0, d2.getUint32(4 * i, true), mode, u, out3);
          expect(dn.getUint16(2 * i, true)).toBe(out3[1]);
        }
        expect(fn).toBe(want);
      }),
      { numRuns: 400, seed: 51 },
    );
  });

  it('wide sum/prod combine binary32 accumulators in the configured mode', () => {
    const c = cfg('bf16', 'prod', { wide: true, rounding: 'rup' });
    const a = new Uint8Array(8);
    const b = new Uint8Array(8);
    const da = new DataView(a.buffer);
    const db = new DataView(b.buffer);
    da.setUint32(0, 0x3eaaaaab, true); // 1/3 rounded up
    db.setUint32(0, 0x40400000, true); // 3
    da.setUint32(4, 0xbeaaaaab, true);
    db.setUint32(4, 0x40400000, true);
    const flags = combine(c, a, b, a, 0, 2, 1, 0);
    expect(flags).toBe(FLAG_INEXACT);
    // 0x3eaaaaab * 3 = 1 + 2^-24 exactly -> rounded up in binary32: 1 + 2^-23 (and -1 for the negative)
    expect([da.getUint32(0, true), da.getUint32(4, true)]).toEqual([0x3f800001, 0xbf800000]);
  });
});

describe('canonicalize (an operand passed on without a combine step)', () => {
  it('float NaNs become canonical (invalid if signalling), ftz zeroes subnormals, rest copied', () => {
    const src = new Uint8Array(new Uint16Array([0x7c01, 0xfe00, 0x0001, 0x8001, 0x3c00]).buffer);
    const dst = new Uint8Array(10);
    expect(canonicalize(cfg('f16', 'sum'), src, dst, 0, 5)).toBe(FLAG_INVALID);
    expect([...new Uint16Array(dst.buffer)]).toEqual([0x7e00, 0x7e00, 0x0001, 0x8001, 0x3c00]);
    expect(canonicalize(cfg('f16', 'sum', { ftz: true }), src, src, 1, 4)).toBe(0);
    expect([...new Uint16Array(src.buffer)]).toEqual([0x7c01, 0x7e00, 0x0000, 0x8000, 0x3c00]);
    // minloc: index untouched
    const p = new Uint8Array(12);
    const d = new DataView(p.buffer);
    d.setUint32(0, 0x7ff00000, true);
    d.setUint32(4, 0x7ff00001, true); // f64 sNaN (hi word 0x7ff00001)
    d.setInt32(8, -7, true);
    expect(canonicalize(cfg('f64', 'minloc'), p, p, 0, 1)).toBe(FLAG_INVALID);
    expect([d.getUint32(0, true), d.getUint32(4, true), d.getInt32(8, true)]).toEqual([0, 0x7ff80000, -7]);
    const ints = new Uint8Array([1, 2, 3, 4]);
    const o = new Uint8Array(4);
    expect(canonicalize(cfg('i16', 'sum'), ints, o, 0, 2)).toBe(0);
    expect([...o]).toEqual([1, 2, 3, 4]);
  });
});

describe('range checks', () => {
  it('rejects element ranges that do not fit the payloads', () => {
    const c = cfg('f64', 'sum');
    const p = new Uint8Array(16);
    expect(() => combine(c, p, p, p, 1, 2, 1, 0)).toThrow(/elements \[1, 3\) of 8 bytes do not fit a 16-byte payload/);
    expect(() => combine(c, p, new Uint8Array(8), p, 0, 2, 1, 0)).toThrow(/combine b/);
    expect(() => combine(c, p, p, p, -1, 1, 1, 0)).toThrow(RangeError);
    expect(() => narrow(cfg('f16', 'sum', { wide: true }), p, p, 0, 5, 0)).toThrow(/narrow src/);
    expect(combine(c, p, p, p, 2, 0, 1, 0)).toBe(0);
  });

  it('f64 sum lane on a 256-byte payload (32 elements)', () => {
    const a = new Uint8Array(256);
    const b = new Uint8Array(256);
    const da = new DataView(a.buffer);
    const db = new DataView(b.buffer);
    for (let i = 0; i < 32; i++) {
      da.setFloat64(8 * i, i + 0.5, true);
      db.setFloat64(8 * i, -2 * i, true);
    }
    expect(combine(cfg('f64', 'sum'), a, b, a, 0, 32, 1, 0)).toBe(0);
    for (let i = 0; i < 32; i++) expect(da.getFloat64(8 * i, true)).toBe(0.5 - i);
  });
});
