/**
 * The pipelined ALU (rtl/sharp/alu/alu.ts) under a stream of reductions: simulated lane
 * operations (element combines) per wall-clock second, and simulated cycles per second.
 * A feeder component offers the operands of back-to-back operations (64 children x 256 bytes
 * by default) as fast as the ALU's input channel takes them and drops the results; operand
 * objects and payloads are preallocated (a ring of operation ids), so the measurement is the
 * ALU's own cost: write port, combine passes through the bit-level lanes, output.
 * The bit-level add/multiply figures are in the fp suite.
 */
import { Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { Alu, type AluHeader, type AluOperand, type AluParams } from '../../rtl/sharp/alu/alu.ts';
import { randomPayload } from '../../experiments/sharp/alu-harness.ts';
import { type BenchSuite, type Figure, rate } from '../harness.ts';

const RING = 16;
/** operations in flight at most (the ALU needs a few to overlap one's reduction with the next one's writes) */
const WINDOW = 8;

/** Offers operation after operation (slot order 0..K-1, at most WINDOW in flight), reusing a ring of preallocated operands. */
class Feeder extends Component {
  private readonly ring: AluOperand[][];
  private op = 0;
  private slot = 0;
  done = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly alu: Alu,
    hdr: AluHeader,
    seed: number,
  ) {
    super(parent, name);
    const rng = new Rng(seed);
    const payloads = Array.from({ length: hdr.children }, () => randomPayload(rng, hdr, 0));
    this.ring = Array.from({ length: RING }, (_, o) => payloads.map((data, slot): AluOperand => ({ kind: 'operand', opId: o, slot, hdr, data })));
    alu.in.bindProducer(this);
    alu.out.bindConsumer(this);
  }

  tick(t: number): number {
    while (this.alu.out.canPop()) {
      if (this.alu.out.pop().status !== 0) throw new Error('alu bench: an operation failed');
      this.done++;
    }
    if (this.slot === 0 && this.op - this.done >= WINDOW) return NEVER; // a result wakes us
    const ops = this.ring[this.op % RING]!;
    while (this.alu.in.canPush()) {
      this.alu.in.push(ops[this.slot]!);
      if (++this.slot === ops.length) {
        this.slot = 0;
        this.op++;
        break; // next operation from the next cycle on (keeps the ring index fresh)
      }
    }
    // the ALU's pop wakes a producer only from a full channel; poll while it is not full
    return this.alu.in.held() >= this.alu.in.capacity ? NEVER : t + 1;
  }
}

interface Case {
  key: string;
  label: string;
  hdr: AluHeader;
  params: Partial<AluParams>;
}

const H = (type: AluHeader['type'], op: AluHeader['op'], count: number, children: number, more: Partial<AluHeader> = {}): AluHeader => ({
  type,
  op,
  indexType: 'i32',
  count,
  children,
  rounding: 'rne',
  ftz: false,
  wide: false,
  ...more,
});

const CASES: Case[] = [
  { key: 'f32_sum64_linear', label: 'f32 sum, 64 children x 64 elements, linear', hdr: H('f32', 'sum', 64, 64), params: { order: 'linear' } },
  { key: 'f32_sum64_tree', label: 'f32 sum, 64 children x 64 elements, tree', hdr: H('f32', 'sum', 64, 64), params: { order: 'tree' } },
  { key: 'f16_wide_sr_sum64', label: 'f16 wide sum (sr), 64 children x 128 elements', hdr: H('f16', 'sum', 128, 64, { wide: true, rounding: 'sr' }), params: { order: 'linear' } },
  { key: 'f64_prod8', label: 'f64 prod, 8 children x 32 elements', hdr: H('f64', 'prod', 32, 8), params: { order: 'linear' } },
  { key: 'i32_sum64', label: 'i32 sum, 64 children x 64 elements', hdr: H('i32', 'sum', 64, 64), params: { order: 'linear' } },
];

export const suite: BenchSuite = {
  name: 'alu',
  async run({ quick }) {
    const opts = quick ? { time: 100, warmup: 30 } : { time: 1500, warmup: 400 };
    const chunkCycles = quick ? 2000 : 20000;
    const figures: Figure[] = [];
    for (const c of CASES) {
      const sim = new Simulator();
      const alu = new Alu(sim, 'alu', c.params);
      const feeder = new Feeder(sim, 'feed', alu, c.hdr, 0xa1);
      const lanesPerOp = (c.hdr.children - 1) * c.hdr.count;
      const r = await rate(`alu ${c.key}`, () => {
        const before = feeder.done;
        sim.step(chunkCycles);
        return (feeder.done - before) * lanesPerOp;
      }, opts);
      const lanesPerCycle = (feeder.done * lanesPerOp) / sim.cycle;
      figures.push({
        key: `alu.${c.key}.lane_ops_per_s`,
        label: `${c.label}: lane ops`,
        value: r.perSecond,
        unit: 'ops/s',
        note: `${lanesPerCycle.toFixed(2)} lane ops per simulated cycle (${((sim.cycle / Math.max(1, feeder.done)) | 0)} cycles per operation, default ALU parameters)`,
      });
      figures.push({ key: `alu.${c.key}.cycles_per_s`, label: `${c.label}: simulated cycles`, value: r.perSecond / lanesPerCycle, unit: 'cycles/s' });
    }
    return figures;
  },
};
