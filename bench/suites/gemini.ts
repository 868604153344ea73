/**
 * Benchmark suite "gemini": AMOs per second through one AMO unit (rtl/gemini/amo/unit.ts) with
 * its default configuration (64-word cache, 8 ways, LRU, write-back, opCycles 4) and host memory
 * behind it: 4 initiators, 8 operations outstanding each, a mix of FADD, FCSWAP, AX and ADD on 16
 * words (all hits after the first touch). A figure counts operations answered per wall-clock
 * second; the note gives simulated cycles per operation (1.0 means the unit accepted one a cycle).
 */
import { AMO_ADD, AMO_AX, AMO_FADD, AMO_FCSWAP } from '../../rtl/gemini/amo/ops.ts';
import { type AmoOpSpec, buildAmoWorld } from '../../experiments/gemini/amoWorld.ts';
import { type BenchSuite, type Figure, rate } from '../harness.ts';

const OPS = [AMO_FADD, AMO_FCSWAP, AMO_AX, AMO_ADD];

export const suite: BenchSuite = {
  name: 'gemini',
  async run({ quick }) {
    const programs: AmoOpSpec[][] = [[], [], [], []];
    const w = buildAmoWorld({ programs, window: 8 });
    const chunk = quick ? 2000 : 20000;
    let k = 0;
    const extend = (): number => {
      for (let i = 0; i < chunk; i++, k++) programs[k & 3]!.push({ op: OPS[(k >> 2) & 3]!, addr: 8 * (k & 15), a: BigInt(k), b: 1n });
      for (const ini of w.initiators) ini.wakeNow();
      w.run(1e12);
      return chunk;
    };
    extend(); // warm-up: the words are in the cache from here on
    const c0 = w.sim.cycle;
    const ops0 = w.unit.stats.ops.value;
    const r = await rate('gemini.amo', extend, quick ? { time: 200, warmup: 50 } : {});
    const figs: Figure[] = [
      {
        key: 'gemini.amo_unit.ops_per_s',
        label: 'Gemini AMO unit (64 words, 8-way LRU, write-back), 4 initiators x 8 outstanding: simulated AMOs/s',
        value: r.perSecond,
        unit: ' /s',
        note: `${((w.sim.cycle - c0) / (w.unit.stats.ops.value - ops0)).toFixed(2)} simulated cycles per AMO, ${r.samples} samples`,
      },
    ];
    return figs;
  },
};
