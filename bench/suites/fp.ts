/**
 * Throughput of the bit-level floating-point datapath (rtl/sharp/alu/fp/) outside any pipeline:
 * million IEEE additions / multiplications per second for binary16, bfloat16, binary32 and
 * binary64 on operands drawn from a preallocated table of random bit patterns (seeded Rng), round
 * to nearest. No C baseline (such as Berkeley SoftFloat) is built or measured by this project, so
 * the figures are stated on their own, without a comparison no command here reproduces.
 */
import * as Add from '../../rtl/sharp/alu/fp/add.ts';
import * as Fmt from '../../rtl/sharp/alu/fp/format.ts';
import * as Mul from '../../rtl/sharp/alu/fp/mul.ts';
import { Rng } from '../../rtl/kernel/rng.ts';
import { type BenchSuite, type Figure, rate } from '../harness.ts';

// Imported bindings copied once (a loader may turn each use of an import into a getter call).
const fpAdd = Add.fpAdd;
const fpMul = Mul.fpMul;
const RNE = Fmt.RM_RNE;

const PAIRS = 4096;
const PASSES = 4;
const OPS_PER_CHUNK = PAIRS * PASSES;

/** Operand table: 4 words per pair (aHi, aLo, bHi, bLo); narrow formats use the lo words. */
function operands(seed: number, fmt: Fmt.FpFormat, nearBinades: boolean): Uint32Array {
  const rng = new Rng(seed);
  const t = new Uint32Array(4 * PAIRS);
  for (let i = 0; i < t.length; i += 2) {
    let hi = rng.u32();
    let lo = rng.u32();
    if (fmt.W < 32) lo &= (1 << fmt.W) - 1;
    if (fmt.W <= 32) hi = 0;
    if (nearBinades && fmt.W > 32) hi = ((hi & 0x800fffff) | ((1020 + rng.int(7)) << 20)) >>> 0;
    t[i] = hi;
    t[i + 1] = lo;
  }
  return t;
}

// One chunk function per (operation, width class), so each call site stays monomorphic.
function addChunk64(fmt: Fmt.FpFormat, t: Uint32Array, out: Uint32Array): () => number {
  return () => {
    let acc = 0;
    for (let p = 0; p < PASSES; p++) for (let j = 0; j < t.length; j += 4) acc ^= fpAdd(fmt, t[j]!, t[j + 1]!, t[j + 2]!, t[j + 3]!, RNE, 0, out);
    out[2] = acc;
    return OPS_PER_CHUNK;
  };
}
function mulChunk64(fmt: Fmt.FpFormat, t: Uint32Array, out: Uint32Array): () => number {
  return () => {
    let acc = 0;
    for (let p = 0; p < PASSES; p++) for (let j = 0; j < t.length; j += 4) acc ^= fpMul(fmt, t[j]!, t[j + 1]!, t[j + 2]!, t[j + 3]!, RNE, 0, out);
    out[2] = acc;
    return OPS_PER_CHUNK;
  };
}
function addChunk32(fmt: Fmt.FpFormat, t: Uint32Array, out: Uint32Array): () => number {
  return () => {
    let acc = 0;
    for (let p = 0; p < PASSES; p++) for (let j = 0; j < t.length; j += 4) acc ^= fpAdd(fmt, 0, t[j + 1]!, 0, t[j + 3]!, RNE, 0, out);
    out[2] = acc;
    return OPS_PER_CHUNK;
  };
}
function mulChunk32(fmt: Fmt.FpFormat, t: Uint32Array, out: Uint32Array): () => number {
  return () => {
    let acc = 0;
    for (let p = 0; p < PASSES; p++) for (let j = 0; j < t.length; j += 4) acc ^= fpMul(fmt, 0, t[j + 1]!, 0, t[j + 3]!, RNE, 0, out);
    out[2] = acc;
    return OPS_PER_CHUNK;
  };
}

export const suite: BenchSuite = {
  name: 'fp',
  async run({ quick }) {
    const opts = quick ? { time: 100, warmup: 30 } : { time: 1500, warmup: 400 };
    const figures: Figure[] = [];
    const out = new Uint32Array(3);
    const cases: { fmt: Fmt.FpFormat; op: 'add' | 'mul'; near?: boolean }[] = [
      { fmt: Fmt.F64, op: 'add' },
      { fmt: Fmt.F64, op: 'add', near: true },
      { fmt: Fmt.F64, op: 'mul' },
      { fmt: Fmt.F32, op: 'add' },
      { fmt: Fmt.F32, op: 'mul' },
      { fmt: Fmt.F16, op: 'add' },
      { fmt: Fmt.F16, op: 'mul' },
      { fmt: Fmt.BF16, op: 'add' },
      { fmt: Fmt.BF16, op: 'mul' },
    ];
    for (const c of cases) {
      const t = operands(0xf00d + c.fmt.W + (c.op === 'mul' ? 1 : 0), c.fmt, c.near === true);
      const chunk = c.fmt.W > 32 ? (c.op === 'add' ? addChunk64 : mulChunk64)(c.fmt, t, out) : (c.op === 'add' ? addChunk32 : mulChunk32)(c.fmt, t, out);
      const r = await rate(`fp ${c.fmt.name} ${c.op}`, chunk, opts);
      const key = `fp.${c.fmt.name}.${c.op}${c.near ? '_near' : ''}_ops_per_s`;
      const label = `${c.fmt.name} ${c.op === 'add' ? 'add' : 'multiply'}, bit-level${c.near ? ' (operands within 7 binades)' : ''}`;
      const fig: Figure = { key, label, value: r.perSecond, unit: 'ops/s' };
      if (c.fmt === Fmt.F64 && c.op === 'add' && !c.near) {
        fig.target = { op: '>=', value: 20e6 };
        fig.note = 'random bit patterns, rne';
      }
      if (c.near) fig.note = 'exercises alignment, cancellation and normalization on every operation';
      figures.push(fig);
    }
    return figures;
  },
};
