/**
 * Golden ALU model, whole reductions (goldenReduce): error codes for every invalid combination,
 * barriers, payload layout, integer semantics against whole-array definitions, order
 * insensitivity (linear = tree) where the document promises it, the float linear order as a left
 * fold and the tree's node numbering (visible through stochastic rounding), single-child
 * reductions, and wide accumulation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type GoldenConfig, goldenBinary, goldenConvert, goldenReduce, srDraw } from '../../models/alu/golden.ts';
import { AluError, DATA_TYPES, type DataType, INDEX_TYPES, type IndexType, type Op, OPS, ROUNDINGS, type Rounding } from '../../rtl/sharp/alu/types.ts';

const BYTES: Record<string, number> = { i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8, f16: 2, bf16: 2, f32: 4, f64: 8 };
const FLOATS = ['f16', 'bf16', 'f32', 'f64'] as const;
type FloatT = (typeof FLOATS)[number];
const INTS = DATA_TYPES.filter((t) => !(FLOATS as readonly string[]).includes(t));
const BITWISE_LOGICAL = ['band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const;
const isLoc = (op: Op): boolean => op === 'minloc' || op === 'maxloc';
const elemBytes = (t: DataType, op: Op, it: IndexType = 'i32'): number => BYTES[t]! + (isLoc(op) ? BYTES[it]! : 0);

/** Packs elements (value bit patterns, and indices for minloc/maxloc) little-endian. */
function pack(t: DataType, values: bigint[], indices?: bigint[], it: IndexType = 'i32'): Uint8Array {
  const vb = BYTES[t]!;
  const ib = indices ? BYTES[it]! : 0;
  const out = new Uint8Array(values.length * (vb + ib));
  values.forEach((v, i) => {
    const base = i * (vb + ib);
    let x = BigInt.asUintN(8 * vb, v);
    for (let k = 0; k < vb; k++, x >>= 8n) out[base + k] = Number(x & 0xffn);
    if (indices) {
      let y = BigInt.asUintN(8 * ib, indices[i]!);
      for (let k = 0; k < ib; k++, y >>= 8n) out[base + vb + k] = Number(y & 0xffn);
    }
  });
  return out;
}

/** Element i of a payload: value bit pattern and raw index bits. */
function unpack(t: DataType, data: Uint8Array, i: number, ib = 0): { value: bigint; index: bigint } {
  const vb = BYTES[t]!;
  const base = i * (vb + ib);
  let value = 0n;
  for (let k = vb - 1; k >= 0; k--) value = (value << 8n) | BigInt(data[base + k]!);
  let index = 0n;
  for (let k = ib - 1; k >= 0; k--) index = (index << 8n) | BigInt(data[base + vb + k]!);
  return { value, index };
}

function zeros(t: DataType, op: Op, count: number, k: number, it: IndexType = 'i32'): Uint8Array[] {
  return Array.from({ length: k }, () => new Uint8Array(count * elemBytes(t, op, it)));
}

describe('goldenReduce: status codes', () => {
  it('TYPE_OP exactly for bitwise/logical operations on floats, and unknown types/ops', () => {
    for (const type of DATA_TYPES) {
      for (const op of OPS) {
        const r = goldenReduce({ type, op }, 1, 2, zeros(type, op, 2, 3));
        const bad = (FLOATS as readonly string[]).includes(type) && (BITWISE_LOGICAL as readonly string[]).includes(op);
        expect(r.status, `${type} ${op}`).toBe(bad ? AluError.TYPE_OP : AluError.OK);
        if (bad) expect(r).toEqual({ status: AluError.TYPE_OP, data: new Uint8Array(0), flags: 0 });
      }
    }
    expect(goldenReduce({ type: 'f8' as DataType, op: 'sum' }, 1, 1, [new Uint8Array(1)]).status).toBe(AluError.TYPE_OP);
    expect(goldenReduce({ type: 'i128' as DataType, op: 'sum' }, 1, 1, [new Uint8Array(16)]).status).toBe(AluError.TYPE_OP);
    expect(goldenReduce({ type: 'i32', op: 'avg' as Op }, 1, 1, [new Uint8Array(4)]).status).toBe(AluError.TYPE_OP);
  });

  it('BAD_INDEX_TYPE for minloc/maxloc with a non-integer index type only', () => {
    for (const type of DATA_TYPES) {
      for (const bad of ['f32', 'bf16', 'x'] as unknown as IndexType[]) {
        for (const op of ['minloc', 'maxloc'] as const) expect(goldenReduce({ type, op, indexType: bad }, 1, 1, [new Uint8Array(64)]).status).toBe(AluError.BAD_INDEX_TYPE);
        expect(goldenReduce({ type, op: 'max', indexType: bad }, 1, 1, [new Uint8Array(BYTES[type]!)]).status).toBe(AluError.OK);
      }
    }
  });

  it('BAD_CHILDREN outside 1..64', () => {
    expect(goldenReduce({ type: 'u8', op: 'sum' }, 1, 1, []).status).toBe(AluError.BAD_CHILDREN);
    expect(goldenReduce({ type: 'u8', op: 'sum' }, 1, 1, zeros('u8', 'sum', 1, 65)).status).toBe(AluError.BAD_CHILDREN);
    expect(goldenReduce({ type: 'u8', op: 'sum' }, 1, 1, zeros('u8', 'sum', 1, 64)).status).toBe(AluError.OK);
    expect(goldenReduce({ type: 'u8', op: 'sum' }, 1, 1, zeros('u8', 'sum', 1, 1)).status).toBe(AluError.OK);
  });

  it('PAYLOAD_TOO_LARGE just above 256 bytes for every type, op and index type (index bytes counted)', () => {
    for (const type of DATA_TYPES) {
      for (const op of OPS) {
        if ((FLOATS as readonly string[]).includes(type) && (BITWISE_LOGICAL as readonly string[]).includes(op)) continue;
        for (const indexType of isLoc(op) ? INDEX_TYPES : (['i32'] as const)) {
          const eb = elemBytes(type, op, indexType);
          const max = Math.floor(256 / eb);
          const cfg: GoldenConfig = { type, op, indexType };
          expect(goldenReduce(cfg, 1, max, zeros(type, op, max, 2, indexType)).status, `${type} ${op} ${indexType} x${max}`).toBe(AluError.OK);
          expect(goldenReduce(cfg, 1, max + 1, zeros(type, op, max + 1, 2, indexType)).status, `${type} ${op} ${indexType} x${max + 1}`).toBe(AluError.PAYLOAD_TOO_LARGE);
        }
      }
    }
    // the packed f64+i32 pair is 12 bytes: 21 elements fit, 22 do not
    expect(goldenReduce({ type: 'f64', op: 'minloc' }, 1, 21, zeros('f64', 'minloc', 21, 2)).status).toBe(AluError.OK);
    expect(goldenReduce({ type: 'f64', op: 'minloc' }, 1, 22, zeros('f64', 'minloc', 22, 2)).status).toBe(AluError.PAYLOAD_TOO_LARGE);
  });

  it('BAD_LENGTH when any child payload is not count x element bytes', () => {
    for (const [type, op] of [['i32', 'sum'], ['f16', 'minloc'], ['u64', 'bxor']] as const) {
      const good = elemBytes(type, op) * 3;
      for (const wrong of [good - 1, good + 1, 0]) {
        for (const slot of [0, 2]) {
          const ops = zeros(type, op, 3, 3);
          ops[slot] = new Uint8Array(wrong);
          expect(goldenReduce({ type, op }, 1, 3, ops)).toEqual({ status: AluError.BAD_LENGTH, data: new Uint8Array(0), flags: 0 });
        }
      }
    }
    expect(goldenReduce({ type: 'u8', op: 'sum' }, 1, 0, [new Uint8Array(0), new Uint8Array(1)]).status).toBe(AluError.BAD_LENGTH);
  });

  it('checks in the order TYPE_OP, BAD_INDEX_TYPE, BAD_CHILDREN, PAYLOAD_TOO_LARGE, BAD_LENGTH', () => {
    const none: Uint8Array[] = [];
    expect(goldenReduce({ type: 'f32', op: 'band', indexType: 'x' as IndexType }, 1, 999, none).status).toBe(AluError.TYPE_OP);
    expect(goldenReduce({ type: 'f32', op: 'minloc', indexType: 'x' as IndexType }, 1, 999, none).status).toBe(AluError.BAD_INDEX_TYPE);
    expect(goldenReduce({ type: 'f32', op: 'minloc' }, 1, 999, none).status).toBe(AluError.BAD_CHILDREN);
    expect(goldenReduce({ type: 'f32', op: 'minloc' }, 1, 999, [new Uint8Array(3)]).status).toBe(AluError.PAYLOAD_TOO_LARGE);
    expect(goldenReduce({ type: 'f32', op: 'minloc' }, 1, 9, [new Uint8Array(3)]).status).toBe(AluError.BAD_LENGTH);
  });

  it('throws, naming the argument, for inputs that are not ALU operations at all', () => {
    const ok = [new Uint8Array(4)];
    expect(() => goldenReduce({ type: 'f32', op: 'sum', rounding: 'near' as Rounding }, 1, 1, ok)).toThrow(/rounding 'near'/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum', order: 'random' as 'tree' }, 1, 1, ok)).toThrow(/order 'random'/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum', ftz: 1 as unknown as boolean }, 1, 1, ok)).toThrow(/cfg.ftz/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum', seed: 1.5 }, 1, 1, ok)).toThrow(/seed/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum' }, 1, -1, ok)).toThrow(/count/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum' }, 1, 0.5, ok)).toThrow(/count/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum' }, 0.5, 1, ok)).toThrow(/operationId/);
    // eslint-disable-next-line no-sparse-arrays
    expect(() => goldenReduce({ type: 'f32', op: 'sum' }, 1, 1, [new Uint8Array(4), , new Uint8Array(4)] as Uint8Array[])).toThrow(/child slot 1/);
    expect(() => goldenReduce({ type: 'f32', op: 'sum' }, 1, 1, [[0, 0, 0, 0]] as unknown as Uint8Array[])).toThrow(/child slot 0/);
  });
});

describe('goldenReduce: barrier, layout, single child', () => {
  it('count 0 is a barrier: OK, no data, no flags, for every valid type/op and mode', () => {
    for (const type of DATA_TYPES) {
      for (const op of OPS) {
        if ((FLOATS as readonly string[]).includes(type) && (BITWISE_LOGICAL as readonly string[]).includes(op)) continue;
        for (const cfg of [{}, { wide: true, rounding: 'sr' as const, ftz: true }, { order: 'tree' as const }]) {
          expect(goldenReduce({ type, op, ...cfg }, 3, 0, zeros(type, op, 0, 5))).toEqual({ status: AluError.OK, data: new Uint8Array(0), flags: 0 });
        }
      }
    }
  });

  it('minloc/maxloc elements are value then index, packed (f64 + i32 = 12 bytes, u8 + i64 = 9 bytes)', () => {
    const c0 = pack('f64', [0x3ff0000000000000n, 0x4000000000000000n], [7n, -3n]); // 1.0 @7, 2.0 @-3
    const c1 = pack('f64', [0xbff0000000000000n, 0x4000000000000000n], [9n, -4n]); // -1.0 @9, 2.0 @-4
    expect(c0.length).toBe(24);
    const r = goldenReduce({ type: 'f64', op: 'minloc' }, 1, 2, [c0, c1]);
    expect(r.status).toBe(AluError.OK);
    expect(r.data).toEqual(pack('f64', [0xbff0000000000000n, 0x4000000000000000n], [9n, -4n]));
    const rmax = goldenReduce({ type: 'f64', op: 'maxloc' }, 1, 2, [c0, c1]);
    expect(rmax.data).toEqual(pack('f64', [0x3ff0000000000000n, 0x4000000000000000n], [7n, -4n]));
    // unsigned index compare: 0xff..ff is the largest u64 index, so index 1 wins the tie
    const u0 = pack('u8', [5n], [-1n], 'u64');
    const u1 = pack('u8', [5n], [1n], 'u64');
    expect(u0.length).toBe(9);
    expect(goldenReduce({ type: 'u8', op: 'minloc', indexType: 'u64' }, 1, 1, [u0, u1]).data).toEqual(u1);
    expect(goldenReduce({ type: 'u8', op: 'minloc', indexType: 'i64' }, 1, 1, [u0, u1]).data).toEqual(pack('u8', [5n], [-1n], 'i64'));
  });

  it('one child: the operand passes through unchanged, no flags (no combine step is made)', () => {
    const cases: Array<[DataType, Op, bigint]> = [
      ['f32', 'sum', 0x7f800001n], // a signalling NaN is not quieted: nothing is computed
      ['f16', 'prod', 0x0001n],
      ['i8', 'land', 5n],
      ['f64', 'max', 0x7ff0000000000001n],
    ];
    for (const [type, op, v] of cases) {
      for (const order of ['linear', 'tree'] as const) {
        const p = pack(type, [v]);
        expect(goldenReduce({ type, op, order, ftz: true, rounding: 'sr' }, 1, 1, [p])).toEqual({ status: AluError.OK, data: p, flags: 0 });
      }
    }
    // wide accumulation widens and narrows even a single operand (NaN canonical, sNaN invalid)
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, [pack('f16', [0x7c01n])])).toEqual({ status: AluError.OK, data: pack('f16', [0x7e00n]), flags: 0x10 });
    expect(goldenReduce({ type: 'bf16', op: 'sum', wide: true }, 1, 1, [pack('bf16', [0x3f81n])])).toEqual({ status: AluError.OK, data: pack('bf16', [0x3f81n]), flags: 0 });
  });
});

// ---------------------------------------------------------------------------------------------
// random operations

const intTypeArb = fc.constantFrom(...INTS);
const intOpArb = fc.constantFrom(...OPS);

/** K child payloads of `count` elements of random value bit patterns (and indices). */
function childrenArb(type: DataType, op: Op, indexType: IndexType, valueArb: fc.Arbitrary<bigint>, minK = 1): fc.Arbitrary<{ k: number; count: number; vals: bigint[][]; idx: bigint[][] }> {
  const maxCount = Math.min(6, Math.floor(256 / elemBytes(type, op, indexType)));
  const ib = BYTES[indexType]!;
  return fc
    .record({ k: fc.oneof(fc.integer({ min: minK, max: 9 }), fc.integer({ min: minK, max: 64 })), count: fc.integer({ min: 1, max: maxCount }) })
    .chain(({ k, count }) =>
      fc.record({
        k: fc.constant(k),
        count: fc.constant(count),
        vals: fc.array(fc.array(valueArb, { minLength: count, maxLength: count }), { minLength: k, maxLength: k }),
        // few distinct indices so that ties on the index happen
        idx: fc.array(fc.array(fc.bigInt({ min: -(1n << BigInt(8 * ib - 1)), max: (1n << BigInt(8 * ib - 1)) - 1n }).map((x) => x % 4n), { minLength: count, maxLength: count }), {
          minLength: k,
          maxLength: k,
        }),
      }),
    );
}

function intValueArb(type: DataType): fc.Arbitrary<bigint> {
  const w = 8 * BYTES[type]!;
  return fc.oneof(fc.bigInt({ min: 0n, max: (1n << BigInt(w)) - 1n }), fc.constantFrom(0n, 1n, (1n << BigInt(w)) - 1n, 1n << BigInt(w - 1), 2n, 3n));
}

describe('goldenReduce: integers against whole-array definitions', () => {
  it('sum/prod mod 2^n, signed/unsigned min/max, bitwise, logical, minloc/maxloc; both orders', () => {
    fc.assert(
      fc.property(
        intTypeArb.chain((type) =>
          fc.record({
            type: fc.constant(type),
            op: intOpArb,
            indexType: fc.constantFrom(...INDEX_TYPES),
            order: fc.constantFrom('linear' as const, 'tree' as const),
          }).chain((c) => fc.record({ c: fc.constant(c), ch: childrenArb(c.type, c.op, c.indexType, intValueArb(c.type), 2) })),
        ),
        ({ c, ch }) => {
          const { type, op, indexType, order } = c;
          const w = 8 * BYTES[type]!;
          const signed = type.startsWith('i');
          const num = (v: bigint): bigint => (signed ? BigInt.asIntN(w, v) : v);
          const loc = isLoc(op);
          const ops = ch.vals.map((v, s) => pack(type, v, loc ? ch.idx[s] : undefined, indexType));
          const r = goldenReduce({ type, op, indexType, order }, 5, ch.count, ops);
          expect(r.status).toBe(AluError.OK);
          expect(r.flags).toBe(0);
          const ib = loc ? BYTES[indexType]! : 0;
          const iw = 8 * BYTES[indexType]!;
          const inum = (x: bigint): bigint => (indexType.startsWith('i') ? BigInt.asIntN(iw, x) : BigInt.asUintN(iw, x));
          for (let e = 0; e < ch.count; e++) {
            const col = ch.vals.map((v) => v[e]!);
            const got = unpack(type, r.data, e, ib);
            let want: bigint;
            switch (op) {
              case 'sum':
                want = col.reduce((a, b) => a + b, 0n);
                break;
              case 'prod':
                want = col.map(num).reduce((a, b) => a * b, 1n);
                break;
              case 'min':
                want = col.map(num).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[0]!;
                break;
              case 'max':
                want = col.map(num).sort((a, b) => (a < b ? 1 : a > b ? -1 : 0))[0]!;
                break;
              case 'band':
                want = col.reduce((a, b) => a & b);
                break;
              case 'bor':
                want = col.reduce((a, b) => a | b);
                break;
              case 'bxor':
                want = col.reduce((a, b) => a ^ b);
                break;
              case 'land':
                want = col.every((v) => v !== 0n) ? 1n : 0n;
                break;
              case 'lor':
                want = col.some((v) => v !== 0n) ? 1n : 0n;
                break;
              case 'lxor':
                want = BigInt(col.filter((v) => v !== 0n).length % 2);
                break;
              case 'minloc':
              case 'maxloc': {
                // lexicographic: best value, then the smallest index
                const pairs = col.map((v, s) => ({ v: num(v), i: inum(ch.idx[s]![e]!) }));
                pairs.sort((a, b) => (a.v !== b.v ? ((op === 'minloc' ? a.v < b.v : a.v > b.v) ? -1 : 1) : a.i < b.i ? -1 : a.i > b.i ? 1 : 0));
                want = pairs[0]!.v;
                expect(inum(got.index)).toBe(pairs[0]!.i);
                break;
              }
            }
            expect(got.value, `${type} ${op} element ${e}`).toBe(BigInt.asUintN(w, want));
          }
        },
      ),
      { numRuns: 400, seed: 21 },
    );
  });
});

/**
 * Float bit patterns: random patterns, specials (zeros, subnormals, infinities, qNaN/sNaN, equal
 * values) with weight `specials`, and, with weight `moderate`, finite values with exponents near 1
 * (so that long sums and products stay finite and round inexactly).
 */
function floatValueArb(type: FloatT, specials = 3, moderate = 0): fc.Arbitrary<bigint> {
  const w = 8 * BYTES[type]!;
  const frac = { f16: 10, bf16: 7, f32: 23, f64: 52 }[type];
  const sign = 1n << BigInt(w - 1);
  const inf = ((1n << BigInt(w - 1 - frac)) - 1n) << BigInt(frac);
  const one = (inf >> 1n) & ~((1n << BigInt(frac)) - 1n); // exponent field = bias
  const arbs = [
    { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: (1n << BigInt(w)) - 1n }) },
    { weight: specials, arbitrary: fc.constantFrom(0n, sign, 1n, sign | 1n, inf, sign | inf, inf | 1n, inf | (1n << BigInt(frac - 1)), one, sign | one, one + 1n) },
  ];
  if (moderate > 0) {
    const near = fc
      .tuple(fc.boolean(), fc.integer({ min: -3, max: 3 }), fc.bigInt({ min: 0n, max: (1n << BigInt(frac)) - 1n }))
      .map(([neg, de, f]) => (neg ? sign : 0n) | (one + (BigInt(de) << BigInt(frac))) | f);
    arbs.push({ weight: moderate, arbitrary: near });
  }
  return fc.oneof(...arbs);
}

describe('goldenReduce: order insensitivity and the float orders', () => {
  it('linear and tree agree (data and flags) for integer ops and float min/max/minloc/maxloc', () => {
    const cfgArb = fc.oneof(
      fc.record({ type: intTypeArb as fc.Arbitrary<DataType>, op: intOpArb }),
      fc.record({ type: fc.constantFrom(...FLOATS) as fc.Arbitrary<DataType>, op: fc.constantFrom('min', 'max', 'minloc', 'maxloc') as fc.Arbitrary<Op> }),
    );
    fc.assert(
      fc.property(
        fc
          .record({ base: cfgArb, indexType: fc.constantFrom(...INDEX_TYPES), ftz: fc.boolean(), rounding: fc.constantFrom(...ROUNDINGS) })
          .chain((c) => {
            const values = (FLOATS as readonly string[]).includes(c.base.type) ? floatValueArb(c.base.type as FloatT) : intValueArb(c.base.type);
            return fc.record({ c: fc.constant(c), ch: childrenArb(c.base.type, c.base.op, c.indexType, values) });
          }),
        ({ c, ch }) => {
          const { type, op } = c.base;
          const ops = ch.vals.map((v, s) => pack(type, v, isLoc(op) ? ch.idx[s] : undefined, c.indexType));
          const cfg: GoldenConfig = { type, op, indexType: c.indexType, ftz: c.ftz, rounding: c.rounding, seed: 3 };
          const lin = goldenReduce({ ...cfg, order: 'linear' }, 8, ch.count, ops);
          const tree = goldenReduce({ ...cfg, order: 'tree' }, 8, ch.count, ops);
          expect(lin.status).toBe(AluError.OK);
          expect(tree).toEqual(lin);
        },
      ),
      { numRuns: 400, seed: 22 },
    );
  });

  it('float sum/prod in linear order is the left fold, step s drawing at node s', () => {
    fc.assert(
      fc.property(
        fc
          .record({ type: fc.constantFrom(...FLOATS), op: fc.constantFrom('sum' as const, 'prod' as const), rounding: fc.constantFrom(...ROUNDINGS), ftz: fc.boolean(), seed: fc.nat(), opId: fc.nat() })
          .chain((c) => fc.record({ c: fc.constant(c), ch: childrenArb(c.type, c.op, 'i32', floatValueArb(c.type, 1, 40)) })),
        ({ c, ch }) => {
          const ops = ch.vals.map((v) => pack(c.type, v));
          const r = goldenReduce({ type: c.type, op: c.op, rounding: c.rounding, ftz: c.ftz, seed: c.seed }, c.opId, ch.count, ops);
          let flags = 0;
          for (let e = 0; e < ch.count; e++) {
            let acc = ch.vals[0]![e]!;
            for (let s = 1; s < ch.k; s++) {
              const u = c.rounding === 'sr' ? srDraw(c.seed, c.opId, s, e) : undefined;
              const step = goldenBinary(c.type, c.op === 'sum' ? 'add' : 'mul', acc, ch.vals[s]![e]!, c.rounding, { ftz: c.ftz, u });
              acc = step.bits;
              flags |= step.flags;
            }
            expect(unpack(c.type, r.data, e).value).toBe(acc);
          }
          expect(r.flags).toBe(flags);
        },
      ),
      { numRuns: 300, seed: 23 },
    );
  });

  it('tree order: balanced pairs, odd last passes up, nodes numbered level by level from 1', () => {
    // written-out trees: [node, left, right] with leaves 'cN' and inner results 'nN'
    const trees: Record<number, Array<[number, string, string]>> = {
      2: [[1, 'c0', 'c1']],
      3: [[1, 'c0', 'c1'], [2, 'n1', 'c2']],
      5: [[1, 'c0', 'c1'], [2, 'c2', 'c3'], [3, 'n1', 'n2'], [4, 'n3', 'c4']],
      6: [[1, 'c0', 'c1'], [2, 'c2', 'c3'], [3, 'c4', 'c5'], [4, 'n1', 'n2'], [5, 'n4', 'n3']],
      7: [[1, 'c0', 'c1'], [2, 'c2', 'c3'], [3, 'c4', 'c5'], [4, 'n1', 'n2'], [5, 'n3', 'c6'], [6, 'n4', 'n5']],
    };
    const seed = 0xabcdef;
    const opId = 0x1234;
    for (const [kStr, nodes] of Object.entries(trees)) {
      const k = Number(kStr);
      const n = 40;
      // f32 values with long fractions so that every sr step is inexact
      const vals = Array.from({ length: k }, (_, c) => Array.from({ length: n }, (_, e) => BigInt(0x3f800000 + ((c * 7919 + e * 104729) % 0x7fffff))));
      const r = goldenReduce({ type: 'f32', op: 'sum', rounding: 'sr', order: 'tree', seed }, opId, n, vals.map((v) => pack('f32', v)));
      for (let e = 0; e < n; e++) {
        const env = new Map<string, bigint>();
        vals.forEach((v, c) => env.set(`c${c}`, v[e]!));
        let last = '';
        for (const [node, l, rr] of nodes) {
          const res = goldenBinary('f32', 'add', env.get(l)!, env.get(rr)!, 'sr', { u: srDraw(seed, opId, node, e) });
          env.set(`n${node}`, res.bits);
          last = `n${node}`;
        }
        expect(unpack('f32', r.data, e).value, `K=${k} element ${e}`).toBe(env.get(last));
      }
    }
  });

  it('the order matters for float sums: f16 [1, h, h, h] with h = half an ulp of 1', () => {
    const ops = [0x3c00n, 0x1000n, 0x1000n, 0x1000n].map((v) => pack('f16', [v])); // h = 2^-11
    expect(goldenReduce({ type: 'f16', op: 'sum', order: 'linear' }, 1, 1, ops)).toEqual({ status: AluError.OK, data: pack('f16', [0x3c00n]), flags: 0x01 });
    // tree: (1 + h) = 1 (tie to even), (h + h) = 2^-10, 1 + 2^-10 exact
    expect(goldenReduce({ type: 'f16', op: 'sum', order: 'tree' }, 1, 1, ops)).toEqual({ status: AluError.OK, data: pack('f16', [0x3c01n]), flags: 0x01 });
  });
});

describe('goldenReduce: wide accumulation', () => {
  const f16 = (...v: bigint[]): Uint8Array[] => v.map((x) => pack('f16', [x]));

  it('binary32 steps avoid intermediate overflow and rounding; one final narrowing', () => {
    // 65504 + 65504 - 65504
    const big = f16(0x7bffn, 0x7bffn, 0xfbffn);
    expect(goldenReduce({ type: 'f16', op: 'sum' }, 1, 1, big)).toEqual({ status: AluError.OK, data: pack('f16', [0x7c00n]), flags: 0x05 });
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, big)).toEqual({ status: AluError.OK, data: pack('f16', [0x7bffn]), flags: 0 });
    // 2048 + 1 + 1
    const ones = f16(0x6800n, 0x3c00n, 0x3c00n);
    expect(goldenReduce({ type: 'f16', op: 'sum' }, 1, 1, ones)).toEqual({ status: AluError.OK, data: pack('f16', [0x6800n]), flags: 0x01 });
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, ones)).toEqual({ status: AluError.OK, data: pack('f16', [0x6801n]), flags: 0 });
  });

  it('the narrowing raises overflow, underflow and inexact itself', () => {
    // 65504 + 16 = 65520 exactly in binary32; to f16 it ties to even, i.e. to infinity
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, f16(0x7bffn, 0x4c00n))).toEqual({ status: AluError.OK, data: pack('f16', [0x7c00n]), flags: 0x05 });
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true, rounding: 'rtz' }, 1, 1, f16(0x7bffn, 0x4c00n))).toEqual({ status: AluError.OK, data: pack('f16', [0x7bffn]), flags: 0x01 });
    // 2^-14 x (1 + 2^-10) x 2^-1: exact in binary32, a subnormal f16 that loses its last bit
    expect(goldenReduce({ type: 'f16', op: 'prod', wide: true }, 1, 1, f16(0x0401n, 0x3800n))).toEqual({ status: AluError.OK, data: pack('f16', [0x0200n]), flags: 0x03 });
    // same under ftz: the tiny result is flushed
    expect(goldenReduce({ type: 'f16', op: 'prod', wide: true, ftz: true }, 1, 1, f16(0x0401n, 0x3800n))).toEqual({ status: AluError.OK, data: pack('f16', [0n]), flags: 0x03 });
    // bf16: 1 + 2^-9 + 2^-9 = 1 + 2^-8 exactly in binary32: a tie between 1 and 1 + 2^-7 (even: 1)
    const bf = [0x3f80n, 0x3b00n, 0x3b00n].map((x) => pack('bf16', [x]));
    expect(goldenReduce({ type: 'bf16', op: 'sum', wide: true }, 1, 1, bf)).toEqual({ status: AluError.OK, data: pack('bf16', [0x3f80n]), flags: 0x01 });
    expect(goldenReduce({ type: 'bf16', op: 'sum', wide: true, rounding: 'rup' }, 1, 1, bf)).toEqual({ status: AluError.OK, data: pack('bf16', [0x3f81n]), flags: 0x01 });
  });

  it('NaNs: sNaN operands raise invalid once widened, the result is the canonical f16 NaN; ftz reads f16 subnormals as zero', () => {
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, f16(0x3c00n, 0x7c01n, 0x3c00n))).toEqual({ status: AluError.OK, data: pack('f16', [0x7e00n]), flags: 0x10 });
    expect(goldenReduce({ type: 'f16', op: 'prod', wide: true }, 1, 1, f16(0x3c00n, 0xfe01n))).toEqual({ status: AluError.OK, data: pack('f16', [0x7e00n]), flags: 0 });
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true, ftz: true }, 1, 1, f16(0x0001n, 0x0001n))).toEqual({ status: AluError.OK, data: pack('f16', [0n]), flags: 0 });
    expect(goldenReduce({ type: 'f16', op: 'sum', wide: true }, 1, 1, f16(0x0001n, 0x0001n))).toEqual({ status: AluError.OK, data: pack('f16', [0x0002n]), flags: 0 });
  });

  it('is a widened fold in binary32 (steps at their node numbers) narrowed once at node 0', () => {
    fc.assert(
      fc.property(
        fc
          .record({ type: fc.constantFrom('f16' as const, 'bf16' as const), op: fc.constantFrom('sum' as const, 'prod' as const), rounding: fc.constantFrom(...ROUNDINGS), ftz: fc.boolean(), order: fc.constantFrom('linear' as const, 'tree' as const), seed: fc.nat() })
          .chain((c) => fc.record({ c: fc.constant(c), ch: childrenArb(c.type, c.op, 'i32', floatValueArb(c.type, 1, 40)) })),
        ({ c, ch }) => {
          const r = goldenReduce({ ...c, wide: true }, 77, ch.count, ch.vals.map((v) => pack(c.type, v)));
          const fop = c.op === 'sum' ? 'add' : 'mul';
          let flags = 0;
          for (let e = 0; e < ch.count; e++) {
            const opts = (node: number) => ({ ftz: c.ftz, u: c.rounding === 'sr' ? srDraw(c.seed, 77, node, e) : undefined });
            let level = ch.vals.map((v) => {
              const w = goldenConvert(c.type, 'f32', v[e]!, 'rne', { ftz: c.ftz });
              flags |= w.flags;
              return w.bits;
            });
            let node = 1;
            if (c.order === 'linear') {
              level = [level.reduce((acc, x, s) => {
                if (s === 0) return x;
                const st = goldenBinary('f32', fop, acc, x, c.rounding, opts(s));
                flags |= st.flags;
                return st.bits;
              })];
            }
            while (level.length > 1) {
              const next: bigint[] = [];
              for (let j = 0; j + 1 < level.length; j += 2) {
                const st = goldenBinary('f32', fop, level[j]!, level[j + 1]!, c.rounding, opts(node++));
                flags |= st.flags;
                next.push(st.bits);
              }
              if (level.length % 2) next.push(level[level.length - 1]!);
              level = next;
            }
            const fin = goldenConvert('f32', c.type, level[0]!, c.rounding, opts(0));
            flags |= fin.flags;
            expect(unpack(c.type, r.data, e).value).toBe(fin.bits);
          }
          expect(r.flags).toBe(flags);
        },
      ),
      { numRuns: 200, seed: 24 },
    );
  });

  it('is ignored for f32/f64 and for operations other than sum/prod', () => {
    const vals = [[0x3f800001n, 0x7f7fffffn], [0x33800000n, 0x7f7fffffn], [0x33800000n, 0xff7fffffn]];
    const ops = vals.map((v) => pack('f32', v));
    expect(goldenReduce({ type: 'f32', op: 'sum', wide: true }, 1, 2, ops)).toEqual(goldenReduce({ type: 'f32', op: 'sum' }, 1, 2, ops));
    const h = f16(0x0001n, 0x7c01n, 0xbc00n);
    for (const op of ['min', 'max', 'minloc', 'maxloc'] as const) {
      const p = isLoc(op) ? [0x0001n, 0x7c01n, 0xbc00n].map((v, i) => pack('f16', [v], [BigInt(i)])) : h;
      expect(goldenReduce({ type: 'f16', op, wide: true }, 1, 1, p)).toEqual(goldenReduce({ type: 'f16', op }, 1, 1, p));
    }
  });
});
