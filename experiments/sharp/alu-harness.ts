/**
 * Testbench for the cycle-level ALU (rtl/sharp/alu/alu.ts), shared by the alu-*.test.ts files, the
 * `netoffload alu reduce` command, the ALU vector block and the ALU benchmark:
 * - AluDriver: a component that pushes scheduled inputs into `alu.in` (each no earlier than its
 *   cycle, in list order, as fast as the channel takes them) and pops every result from `alu.out`;
 * - runAlu: builds a simulator, an ALU and a driver, runs a schedule to completion and returns the
 *   results and the cycle each input was taken by the ALU;
 * - payload and arrival generators from a seeded Rng (special values: NaN, sNaN, infinities,
 *   zeros, subnormals, extremes), and the golden-model call matching an ALU configuration.
 */
import { goldenReduce, type GoldenResult } from '../../models/alu/golden.ts';
import { Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { Alu, type AluHeader, type AluInput, type AluParams, type AluResult, DEFAULT_ALU_PARAMS } from '../../rtl/sharp/alu/alu.ts';
import { type DataType, elementBytes, isFloat, type Op, TYPE_BYTES } from '../../rtl/sharp/alu/types.ts';

/** One input and the first cycle the driver may push it. */
export interface Scheduled {
  input: AluInput;
  at: number;
}

/** Pushes scheduled inputs in list order, each at or after its cycle, and collects every result. */
export class AluDriver extends Component {
  private next = 0;
  readonly pushed: number[];
  readonly results: AluResult[] = [];

  constructor(
    parent: Scope,
    name: string,
    private readonly alu: Alu,
    private readonly sched: readonly Scheduled[],
  ) {
    super(parent, name);
    for (let i = 1; i < sched.length; i++) if (sched[i]!.at < sched[i - 1]!.at) throw new RangeError('AluDriver: schedule must be in non-decreasing cycle order');
    this.pushed = new Array<number>(sched.length).fill(-1);
    alu.in.bindProducer(this);
    alu.out.bindConsumer(this);
  }

  get allPushed(): boolean {
    return this.next >= this.sched.length;
  }

  tick(t: number): number {
    while (this.alu.out.canPop()) this.results.push(this.alu.out.pop());
    while (this.next < this.sched.length && this.sched[this.next]!.at <= t && this.alu.in.canPush()) {
      this.alu.in.push(this.sched[this.next]!.input);
      this.pushed[this.next++] = t;
    }
    if (this.next >= this.sched.length) return NEVER;
    const at = this.sched[this.next]!.at;
    if (at > t) return at;
    // Blocked. A truly full channel wakes us when the ALU pops; but when the ALU popped in this very
    // cycle, canPush() is still false (the credit returns a cycle late) and no wake-up will come.
    return this.alu.in.held() >= this.alu.in.capacity ? NEVER : t + 1;
  }
}

export interface AluRun {
  alu: Alu;
  sim: Simulator;
  driver: AluDriver;
  /** results in the order they left the ALU */
  results: AluResult[];
  /** per scheduled input: the cycle the ALU took it from `in` */
  accepted: number[];
}

export interface RunOptions {
  skipping?: boolean;
  /** shuffle the evaluation order within each cycle (kernel test aid) */
  shuffleSeed?: number;
  /** stop once this many results arrived (otherwise: once every input is taken and no result arrived for `quiet` cycles) */
  expect?: number;
  /** idle cycles that end a run without `expect` (default 20000) */
  quiet?: number;
  maxCycles?: number;
}

/** Runs a schedule through a fresh ALU from reset. */
export function runAlu(params: Partial<AluParams>, sched: readonly Scheduled[], opts: RunOptions = {}): AluRun {
  const sim = new Simulator({ skipping: opts.skipping ?? true, shuffleSeed: opts.shuffleSeed });
  const alu = new Alu(sim, 'alu', params);
  const driver = new AluDriver(sim, 'tb', alu, sched);
  const accepted = new Array<number>(sched.length).fill(-1);
  const index = new Map<AluInput, number>();
  sched.forEach((s, i) => index.set(s.input, i));
  alu.onAccept = (m, t) => {
    accepted[index.get(m)!] = t;
  };
  const max = opts.maxCycles ?? 5_000_000;
  const taken = (): boolean => driver.allPushed && alu.in.held() === 0;
  if (opts.expect !== undefined) {
    const n = opts.expect;
    sim.runUntil(() => taken() && driver.results.length >= n, max);
    sim.step(4); // anything beyond the expected results would show up here
  } else {
    sim.runUntil(taken, max);
    const quiet = opts.quiet ?? 20000;
    for (;;) {
      const before = driver.results.length;
      sim.step(quiet);
      if (driver.results.length === before && alu.out.held() === 0) break;
      if (sim.cycle > max) throw new Error('runAlu: results keep arriving past maxCycles');
    }
  }
  return { alu, sim, driver, results: driver.results, accepted };
}

export function header(type: DataType, op: Op, count: number, children: number, more: Partial<AluHeader> = {}): AluHeader {
  return { type, op, indexType: 'i32', count, children, rounding: 'rne', ftz: false, wide: false, ...more };
}

/** The golden model's answer for an operation reduced by an ALU with these parameters. */
export function goldenFor(params: Partial<AluParams>, h: AluHeader, operationId: number, operands: readonly Uint8Array[]): GoldenResult {
  const p = { ...DEFAULT_ALU_PARAMS, ...params };
  return goldenReduce({ type: h.type, op: h.op, indexType: h.indexType, rounding: h.rounding, ftz: h.ftz, wide: h.wide, order: p.order, seed: p.seed }, operationId, h.count, operands);
}

// ------------------------------------------------------------------ stimulus generators

const SPECIALS: Record<'f16' | 'bf16' | 'f32' | 'f64', bigint[]> = {
  // +0 -0 +inf -inf qNaN -qNaN sNaN min-subnormal max-subnormal min-normal max-finite -max-finite 1 -1
  f16: [0x0000n, 0x8000n, 0x7c00n, 0xfc00n, 0x7e00n, 0xfe01n, 0x7c01n, 0x0001n, 0x03ffn, 0x0400n, 0x7bffn, 0xfbffn, 0x3c00n, 0xbc00n],
  bf16: [0x0000n, 0x8000n, 0x7f80n, 0xff80n, 0x7fc0n, 0xffc1n, 0x7f81n, 0x0001n, 0x007fn, 0x0080n, 0x7f7fn, 0xff7fn, 0x3f80n, 0xbf80n],
  f32: [0x0n, 0x80000000n, 0x7f800000n, 0xff800000n, 0x7fc00000n, 0xffc00001n, 0x7f800001n, 0x1n, 0x7fffffn, 0x800000n, 0x7f7fffffn, 0xff7fffffn, 0x3f800000n, 0xbf800000n],
  f64: [0x0n, 0x8000000000000000n, 0x7ff0000000000000n, 0xfff0000000000000n, 0x7ff8000000000000n, 0xfff8000000000001n, 0x7ff0000000000001n, 0x1n, 0xfffffffffffffn, 0x10000000000000n, 0x7fefffffffffffffn, 0xffefffffffffffffn, 0x3ff0000000000000n, 0xbff0000000000000n],
};

const FMT: Record<'f16' | 'bf16' | 'f32' | 'f64', { e: number; f: number }> = { f16: { e: 5, f: 10 }, bf16: { e: 8, f: 7 }, f32: { e: 8, f: 23 }, f64: { e: 11, f: 52 } };

/**
 * A random value of `type` as a bit pattern. Floats: with probability `special` one of the special
 * values, otherwise sign random, exponent near the bias (so sums cancel and round), occasionally
 * any exponent; integers: edge values or uniform bits.
 */
export function randomValue(rng: Rng, type: DataType, special: number): bigint {
  const bits = TYPE_BYTES[type] * 8;
  if (isFloat(type)) {
    const t = type as 'f16' | 'bf16' | 'f32' | 'f64';
    if (rng.float() < special) return rng.pick(SPECIALS[t]);
    const { e, f } = FMT[t];
    const bias = (1 << (e - 1)) - 1;
    const exp = rng.int(8) === 0 ? rng.int((1 << e) - 1) : bias - 4 + rng.int(9);
    return (BigInt(rng.int(2)) << BigInt(e + f)) | (BigInt(exp) << BigInt(f)) | rng.bits(f);
  }
  const r = rng.int(8);
  if (r === 0) return rng.pick([0n, 1n, (1n << BigInt(bits)) - 1n, 1n << BigInt(bits - 1), (1n << BigInt(bits - 1)) - 1n]);
  if (r === 1) return BigInt(rng.int(5));
  return rng.bits(bits);
}

function putLE(out: Uint8Array, o: number, bytes: number, v: bigint): void {
  for (let i = 0; i < bytes; i++, v >>= 8n) out[o + i] = Number(v & 0xffn);
}

/** A random operand payload for header h (values from randomValue; minloc/maxloc indices small so ties happen). */
export function randomPayload(rng: Rng, h: AluHeader, special: number): Uint8Array {
  const vb = TYPE_BYTES[h.type];
  const eb = elementBytes(h.type, h.op, h.indexType);
  const out = new Uint8Array(h.count * eb);
  const loc = h.op === 'minloc' || h.op === 'maxloc';
  for (let i = 0; i < h.count; i++) {
    // few distinct values in loc operations, so equal values (index ties) are common
    const v = loc && rng.int(3) === 0 ? BigInt(rng.int(3)) << BigInt(isFloat(h.type) ? vb * 8 - 4 : 0) : randomValue(rng, h.type, special);
    putLE(out, i * eb, vb, v);
    if (loc) putLE(out, i * eb + vb, eb - vb, rng.int(4) === 0 ? randomValue(rng, h.indexType, 0) : BigInt(rng.int(8)));
  }
  return out;
}

/** Arrival schedule of K operands: a random slot order and random gaps of 0..maxGap cycles. */
export function randomArrivals(rng: Rng, k: number, maxGap: number, start = 0): { slot: number; at: number }[] {
  const order = rng.shuffle(Array.from({ length: k }, (_, i) => i));
  let t = start;
  return order.map((slot) => {
    t += rng.int(maxGap + 1);
    return { slot, at: t };
  });
}

export function hex(b: Uint8Array): string {
  let s = '0x';
  for (const x of b) s += x.toString(16).padStart(2, '0');
  return s;
}
