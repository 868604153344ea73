/**
 * Bad input to the cycle-level ALU (docs/alu.md "Error codes"): every kind of bad operation gets
 * its own error code, once, for that operation only; the operations in flight beside it complete
 * with the golden model's result; no context leaks (activeOperations returns to 0); aborts free
 * contexts; a full operation table answers NO_CONTEXT and recovers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../rtl/kernel/index.ts';
import type { AluHeader, AluInput, AluParams } from '../../../rtl/sharp/alu/alu.ts';
import { AluError, type AluErrorCode, DATA_TYPES, elementBytes, type IndexType, OPS, ORDERS, validateHeader } from '../../../rtl/sharp/alu/types.ts';
import { goldenFor, header, hex, randomPayload, runAlu, type Scheduled } from '../../../experiments/sharp/alu-harness.ts';

const KINDS = ['TYPE_OP', 'PAYLOAD_TOO_LARGE', 'BAD_INDEX_TYPE', 'BAD_CHILDREN', 'SLOT_RANGE', 'DUPLICATE_OPERAND', 'HEADER_MISMATCH', 'BAD_LENGTH'] as const;
type Kind = (typeof KINDS)[number];

interface OpPlan {
  opId: number;
  hdr: AluHeader;
  operands: Uint8Array[];
  /** the inputs of this operation in the order they are sent */
  inputs: AluInput[];
  /** expected error code (OK: compare with the golden model) and number of results */
  expect: AluErrorCode;
  results: number;
}

function validHeader(rng: Rng, minChildren: number): AluHeader {
  for (;;) {
    const type = rng.pick(DATA_TYPES);
    const op = rng.pick(OPS);
    if (validateHeader(type, op, 0, 1, 'i32') !== 0) continue;
    const children = minChildren + rng.int(9 - minChildren);
    const count = rng.int(Math.floor(256 / elementBytes(type, op, 'i32')) + 1);
    return header(type, op, count, children, { rounding: rng.pick(['rne', 'sr', 'rdn'] as const), ftz: rng.bool(), wide: rng.bool() });
  }
}

function operand(opId: number, slot: number, hdr: AluHeader, data: Uint8Array): AluInput {
  return { kind: 'operand', opId, slot, hdr, data };
}

/** A valid operation: its operands in a random order. */
function goodOp(rng: Rng, opId: number): OpPlan {
  const hdr = validHeader(rng, 1);
  const operands = Array.from({ length: hdr.children }, () => randomPayload(rng, hdr, 0.2));
  const order = rng.shuffle(Array.from({ length: hdr.children }, (_, i) => i));
  return { opId, hdr, operands, inputs: order.map((s) => operand(opId, s, hdr, operands[s]!)), expect: AluError.OK, results: 1 };
}

/**
 * A bad operation of the given kind. An offending extra input (out-of-range slot, duplicate)
 * always comes before the last good one: after an operation completed, an operand with its id
 * starts a new operation.
 */
function badOp(rng: Rng, opId: number, kind: Kind): OpPlan {
  const needTwo = kind === 'DUPLICATE_OPERAND' || kind === 'HEADER_MISMATCH';
  const base = goodOp(rng, opId);
  let hdr = base.hdr;
  if (needTwo && hdr.children < 2) hdr = { ...hdr, children: 2 + rng.int(6) };
  const k = hdr.children;
  const eb = elementBytes(hdr.type, hdr.op, hdr.indexType);
  const data = (h: AluHeader) => new Uint8Array(Math.max(0, h.count) * elementBytes(h.type, h.op, h.indexType));
  const order = rng.shuffle(Array.from({ length: k }, (_, i) => i));
  const plan = (h: AluHeader, expect: AluErrorCode, results = 1): OpPlan => ({ opId, hdr: h, operands: [], inputs: order.map((s) => operand(opId, s, h, data(h))), expect, results });
  switch (kind) {
    case 'TYPE_OP': {
      const h = { ...hdr, type: rng.pick(['f16', 'bf16', 'f32', 'f64'] as const), op: rng.pick(['band', 'bor', 'bxor', 'land', 'lor', 'lxor'] as const) };
      return plan(h, AluError.TYPE_OP);
    }
    case 'PAYLOAD_TOO_LARGE': {
      const h = { ...hdr, count: Math.floor(256 / eb) + 1 + rng.int(4) };
      return plan(h, AluError.PAYLOAD_TOO_LARGE);
    }
    case 'BAD_INDEX_TYPE': {
      const h = { ...hdr, op: rng.pick(['minloc', 'maxloc'] as const), indexType: rng.pick(['f32', 'f16', 'x']) as IndexType, count: 1 };
      return plan(h, AluError.BAD_INDEX_TYPE);
    }
    case 'BAD_CHILDREN': {
      // no context can track an operation without a valid child count: every operand is answered
      const h = { ...hdr, children: rng.pick([0, 65, 100]) };
      const n = 1 + rng.int(3);
      return { opId, hdr: h, operands: [], inputs: Array.from({ length: n }, (_, i) => operand(opId, i, h, data(h))), expect: AluError.BAD_CHILDREN, results: n };
    }
    default:
      break;
  }
  // one offending input inserted among good ones, before the last good one
  const p = plan(hdr, AluError.OK);
  const pos = kind === 'DUPLICATE_OPERAND' || kind === 'HEADER_MISMATCH' ? 1 + rng.int(k - 1) : rng.int(k);
  let bad: AluInput;
  if (kind === 'SLOT_RANGE') {
    bad = operand(opId, rng.pick([k, k + 1, 63, 64, -1, 1.5]), hdr, data(hdr));
    p.expect = AluError.SLOT_RANGE;
  } else if (kind === 'DUPLICATE_OPERAND') {
    bad = operand(opId, order[rng.int(pos)]!, hdr, data(hdr));
    p.expect = AluError.DUPLICATE_OPERAND;
  } else if (kind === 'HEADER_MISMATCH') {
    const field = rng.pick(['type', 'op', 'count', 'children', 'rounding', 'ftz', 'wide', 'indexType'] as const);
    const h: AluHeader = { ...hdr };
    if (field === 'type') h.type = hdr.type === 'u8' ? 'i8' : 'u8';
    else if (field === 'op') h.op = hdr.op === 'max' ? 'min' : 'max';
    else if (field === 'count') h.count = hdr.count === 0 ? 1 : hdr.count - 1;
    else if (field === 'children') h.children = hdr.children + 1;
    else if (field === 'rounding') h.rounding = hdr.rounding === 'rne' ? 'rtz' : 'rne';
    else if (field === 'ftz') h.ftz = !hdr.ftz;
    else if (field === 'wide') h.wide = !hdr.wide;
    else h.indexType = hdr.indexType === 'i32' ? 'u16' : 'i32';
    bad = operand(opId, order[pos]!, h, data(h));
    p.expect = AluError.HEADER_MISMATCH;
  } else {
    const n = hdr.count * eb;
    bad = operand(opId, order[pos]!, hdr, new Uint8Array(n + (n === 0 ? rng.pick([1, 5]) : rng.pick([-1, 1, 5, -n]))));
    p.expect = AluError.BAD_LENGTH;
  }
  // a mismatching or short operand is that child's contribution (it replaces the good one);
  // an out-of-range or duplicate operand is an extra one
  if (kind === 'HEADER_MISMATCH' || kind === 'BAD_LENGTH') p.inputs[pos] = bad;
  else p.inputs.splice(pos, 0, bad);
  return p;
}

/** Spreads each operation's inputs over time (in its own order) and merges all operations. */
function merge(rng: Rng, plans: OpPlan[], extra: Scheduled[] = []): Scheduled[] {
  const all: Scheduled[] = [...extra];
  for (const p of plans) {
    let t = rng.int(100);
    for (const input of p.inputs) {
      all.push({ at: t, input });
      t += rng.int(5);
    }
  }
  return all.map((x, i) => [x, i] as const).sort((a, b) => a[0].at - b[0].at || a[1] - b[1]).map((x) => x[0]);
}

function checkPlans(params: Partial<AluParams>, plans: OpPlan[], sched: Scheduled[]): void {
  const total = plans.reduce((a, p) => a + p.results, 0);
  const run = runAlu(params, sched, { expect: total });
  expect(run.results.length).toBe(total);
  for (const p of plans) {
    const rs = run.results.filter((r) => r.opId === p.opId);
    const what = `op ${p.opId} ${JSON.stringify(p.hdr)}`;
    expect(rs.length, what).toBe(p.results);
    for (const r of rs) {
      expect(r.status, what).toBe(p.expect);
      if (p.expect !== AluError.OK) {
        expect(r.data.length).toBe(0);
        expect(r.flags).toBe(0);
      } else {
        const g = goldenFor(params, p.hdr, p.opId, p.operands);
        expect(hex(r.data), what).toBe(hex(g.data));
        expect(r.flags, what).toBe(g.flags);
      }
    }
  }
  expect(run.alu.activeOperations).toBe(0);
}

describe('bad input gets its own error code, for that operation only', () => {
  for (const kind of KINDS) {
    it(`${kind}`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...ORDERS), fc.integer({ min: 1, max: 4 }), (seed, order, nBad) => {
          const rng = new Rng(seed);
          const plans: OpPlan[] = [];
          let id = 1;
          for (let i = 0; i < 4; i++) plans.push(goodOp(rng, id++));
          for (let i = 0; i < nBad; i++) plans.push(badOp(rng, id++, kind));
          checkPlans({ order, seed: 3, widthBytes: 1 + rng.int(32), writeBytesPerCycle: 1 + rng.int(32) }, plans, merge(rng, plans));
        }),
        { numRuns: 15 },
      );
    });
  }

  it('all kinds mixed with good operations', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(...ORDERS), (seed, order) => {
        const rng = new Rng(seed);
        const plans: OpPlan[] = [];
        for (let id = 1; id <= 16; id++) plans.push(rng.bool() ? goodOp(rng, id) : badOp(rng, id, rng.pick(KINDS)));
        checkPlans({ order, seed: 9 }, plans, merge(rng, plans));
        // the same ALU state machine keeps working afterwards: a second wave on a fresh ID range
        const again = Array.from({ length: 6 }, (_, i) => goodOp(rng, 100 + i));
        checkPlans({ order, seed: 9 }, [...plans, ...again], merge(rng, [...plans, ...again]));
      }),
      { numRuns: 20 },
    );
  });
});

describe('contexts and aborts', () => {
  it('a full operation table answers NO_CONTEXT to each operand of the extra operation, then recovers', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 4 }), (seed, contexts) => {
        const rng = new Rng(seed);
        // `contexts` operations open (first operand sent), then a whole extra operation, then the rest
        const open = Array.from({ length: contexts }, (_, i) => {
          const p = goodOp(rng, i + 1);
          if (p.hdr.children < 2) {
            p.hdr = { ...p.hdr, children: 2 };
            p.operands = [0, 1].map(() => randomPayload(rng, p.hdr, 0.1));
            p.inputs = [1, 0].map((s) => operand(p.opId, s, p.hdr, p.operands[s]!));
          }
          return p;
        });
        const extra = goodOp(rng, 50);
        extra.expect = AluError.NO_CONTEXT;
        extra.results = extra.inputs.length;
        const sched: Scheduled[] = [];
        let t = 0;
        for (const p of open) sched.push({ at: t++, input: p.inputs[0]! });
        for (const input of extra.inputs) sched.push({ at: t++, input });
        for (const p of open) for (const input of p.inputs.slice(1)) sched.push({ at: t++, input });
        // once those completed (well after: every operand written and reduced), the table is free again
        const later = goodOp(rng, 60);
        t += 5000;
        for (const input of later.inputs) sched.push({ at: t++, input });
        checkPlans({ contexts, order: rng.bool() ? 'tree' : 'linear' }, [...open, extra, later], sched);
      }),
      { numRuns: 30 },
    );
  });

  it('a failed operation holds its context until its last child is seen; abort frees any context', () => {
    const h = header('i32', 'sum', 4, 3);
    const d = new Uint8Array(16);
    const sched: Scheduled[] = [
      { at: 0, input: operand(1, 0, h, d) },
      { at: 1, input: operand(1, 0, h, d) }, // duplicate: op 1 fails, drains slots 1 and 2
      { at: 2, input: operand(2, 0, h, d) }, // contexts = 2: op 2 takes the other context
      { at: 3, input: operand(3, 0, h, d) }, // no context for op 3
      { at: 4, input: operand(1, 1, h, d) },
      { at: 5, input: operand(1, 2, h, d) }, // op 1 drained: context free
      { at: 6, input: operand(4, 0, h, d) }, // op 4 gets it
      { at: 7, input: { kind: 'abort', opId: 2 } },
      { at: 8, input: { kind: 'abort', opId: 4 } },
      { at: 9, input: { kind: 'abort', opId: 77 } }, // unknown: ignored
      { at: 10, input: operand(5, 2, h, d) },
      { at: 11, input: operand(5, 1, h, d) },
      { at: 12, input: operand(5, 0, h, d) },
    ];
    const run = runAlu({ contexts: 2 }, sched, { expect: 3 });
    expect(run.results.map((r) => [r.opId, r.status])).toEqual([
      [1, AluError.DUPLICATE_OPERAND],
      [3, AluError.NO_CONTEXT],
      [5, AluError.OK],
    ]);
    expect(run.alu.activeOperations).toBe(0);
    // the error leaves the ALU in the cycle the offending operand was taken
    expect(run.results[0]!.cycle).toBe(run.accepted[1]);
    expect(run.results[0]!.lastAccept).toBe(run.accepted[1]);
  });
});
