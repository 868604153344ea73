/**
 * One measurement of the kernel suite in a fresh process (bench/suites/kernel.ts starts several and
 * keeps the best: how fast a run is depends on where V8 happens to place the objects of the design
 * in memory, which differs from process to process).
 *
 *   tsx bench/ring-run.ts <ring | ring-noskip | ring-components | bare-class | bare-flat | channels> [--quick]
 *
 * `ring` and `ring-noskip` are the kernel ring as built by default (its stages one batch,
 * rtl/kernel/batch.ts); `ring-components` is the same ring built from one component per stage.
 *   node --expose-gc --import tsx bench/ring-run.ts scale <stages> [--quick]
 *
 * Prints one JSON line: { variant, perSecond, samples, note }. Throws (exit code 1) if the ring's
 * stage 0 received a wrong token or none, or fewer than one token per measured cycle.
 */
import { Component, NumChannel, type Scope, Simulator } from '../rtl/kernel/index.ts';
import { buildRing, type Ring } from '../rtl/examples/ring.ts';
import { rate } from './harness.ts';
import { buildClassRing, buildFlatRing } from './ring-bare.ts';

export const STAGES = 1000;
/** channels in the channel-transfer measurement */
export const CHANNELS = 1000;

/** One component that pops the token pushed last cycle and pushes a new one, on each of its channels. */
class ChannelBank extends Component {
  declare readonly chans: NumChannel[];
  declare sum: number;
  declare pops: number;

  constructor(parent: Scope, name: string, n: number) {
    super(parent, name);
    this.chans = [];
    for (let i = 0; i < n; i++) this.chans.push(new NumChannel(this, `ch${i}`, { capacity: 2, latency: 1 }).bindProducer(this).bindConsumer(this));
    this.sum = 0;
    this.pops = 0;
  }

  tick(t: number): number {
    const chans = this.chans;
    let sum = 0;
    let pops = 0;
    for (let i = 0; i < chans.length; i++) {
      const c = chans[i]!;
      if (c.canPop()) {
        sum += c.pop();
        pops++;
      }
      if (c.canPush()) c.push(t);
    }
    this.sum += sum;
    this.pops += pops;
    return t + 1;
  }
}

function checkRing(r: Ring, before: number, cycles: number): void {
  const s = r.source;
  if (s.errors > 0) throw new Error(`ring: stage 0 received ${s.errors} wrong tokens (first: ${s.firstError})`);
  if (s.received === 0) throw new Error('ring: stage 0 received no token');
  if (s.received - before < cycles) throw new Error(`ring: ${s.received - before} tokens returned in ${cycles} cycles, expected one per cycle`);
}

async function measure(variant: string, quick: boolean): Promise<{ perSecond: number; samples: number; note: string }> {
  const opts = quick ? { time: 300, warmup: 100 } : {};
  const chunk = quick ? 1000 : 5000;
  if (variant === 'ring' || variant === 'ring-noskip' || variant === 'ring-components') {
    const skipping = variant !== 'ring-noskip';
    const r = buildRing(STAGES, { skipping, components: variant === 'ring-components' });
    r.sim.step(3 * STAGES); // fill the ring (2 cycles per stage) and warm up
    const before = r.source.received;
    let cycles = 0;
    const m = await rate(variant, () => {
      r.sim.step(chunk);
      cycles += chunk;
      return STAGES * chunk;
    }, opts);
    checkRing(r, before, cycles);
    const evals = r.sim.evaluations / r.sim.cycle;
    return { ...m, note: `${r.source.received} tokens back, all correct; ${evals.toFixed(0)} evaluations per cycle` };
  }
  if (variant === 'bare-class' || variant === 'bare-flat') {
    const h = variant === 'bare-class' ? buildClassRing(STAGES) : buildFlatRing(STAGES);
    h.step(3 * STAGES);
    const before = h.counts().received;
    let cycles = 0;
    const m = await rate(variant, () => {
      h.step(chunk);
      cycles += chunk;
      return STAGES * chunk;
    }, opts);
    const { received, errors } = h.counts();
    if (errors > 0 || received === 0 || received - before < cycles) throw new Error(`${variant} ring: ${errors} wrong tokens, ${received - before} back in ${cycles} cycles`);
    return { ...m, note: `${received} tokens back, all correct` };
  }
  if (variant === 'channels') {
    const sim = new Simulator();
    const bank = new ChannelBank(sim, 'bank', CHANNELS);
    sim.step(100);
    const c0 = sim.cycle;
    const p0 = bank.pops;
    const s0 = bank.sum;
    const m = await rate(variant, () => {
      sim.step(chunk);
      return CHANNELS * chunk;
    }, opts);
    // in steady state every channel returns, in cycle t, the token pushed in t - 1
    const cycles = sim.cycle - c0;
    const expectSum = CHANNELS * (cycles * (c0 - 1) + (cycles * (cycles - 1)) / 2);
    if (bank.pops - p0 !== CHANNELS * cycles || bank.sum - s0 !== expectSum) throw new Error(`channel bank: ${bank.pops - p0} pops (expected ${CHANNELS * cycles}), checksum ${bank.sum - s0} (expected ${expectSum})`);
    return { ...m, note: `${CHANNELS} channels of capacity 2, latency 1, one push and one pop each per cycle, checked` };
  }
  throw new Error(`unknown variant ${variant}`);
}

/** What a `scale` run reports (goal 2 of issue 17). */
export interface ScaleRun {
  stages: number;
  perSecond: number;
  samples: number;
  buildSeconds: number;
  /** heap, array buffers and slot slab the built ring holds, per stage */
  bytesPerStage: number;
  heapBytesPerStage: number;
  slabBytesPerStage: number;
  note: string;
}

/**
 * Goal 2: build a preloaded ring of `stages` stages (rtl/examples/ring.ts: it starts in its steady
 * state, so no N^2 fill), measure what it holds after a garbage collection (run with --expose-gc),
 * then its rate in stage-cycles per second (chunks of about 2 M stage-cycles).
 */
async function measureScale(stages: number, quick: boolean): Promise<ScaleRun> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('ring-run scale needs node --expose-gc (to measure the memory a ring holds)');
  gc();
  const m0 = process.memoryUsage();
  const t0 = performance.now();
  const r = buildRing(stages, { preload: true });
  const buildSeconds = (performance.now() - t0) / 1000;
  gc();
  const m1 = process.memoryUsage();
  const heap = m1.heapUsed - m0.heapUsed + (m1.arrayBuffers - m0.arrayBuffers);
  const slab = r.sim._slab().bytes();
  const chunk = Math.max(1, Math.round(2e6 / stages));
  r.sim.step(2 * chunk);
  const before = r.source.received;
  let cycles = 0;
  const m = await rate(`ring ${stages}`, () => {
    r.sim.step(chunk);
    cycles += chunk;
    return stages * chunk;
  }, quick ? { time: 300, warmup: 100 } : { time: 1500, warmup: 300 });
  checkRing(r, before, cycles);
  return {
    stages,
    ...m,
    buildSeconds,
    bytesPerStage: (heap + slab) / stages,
    heapBytesPerStage: heap / stages,
    slabBytesPerStage: slab / stages,
    note: `preloaded ring, ${r.source.received} tokens back, all correct`,
  };
}

const invoked = process.argv[1] ? new URL(`file://${process.argv[1]}`).href : '';
if (import.meta.url === invoked) {
  const variant = process.argv[2] ?? '';
  const quick = process.argv.includes('--quick');
  if (variant === 'scale') {
    const n = Number(process.argv[3]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`ring-run scale: stage count must be a positive integer, got ${process.argv[3]}`);
    process.stdout.write(JSON.stringify(await measureScale(n, quick)) + '\n');
  } else {
    const r = await measure(variant, quick);
    process.stdout.write(JSON.stringify({ variant, ...r }) + '\n');
  }
}
