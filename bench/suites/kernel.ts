/**
 * The cycle kernel (rtl/kernel/) under the benchmark ring of rtl/examples/ring.ts: 1,000 stages,
 * each with a 16-entry FIFO, forwarding one token per cycle over one-cycle channels; stage 0 emits
 * the tokens and checks every returning one (emitted value + 1,000, in order). Figures:
 * - stage-cycles per second through the kernel with activity skipping on (the issue's target) and off;
 * - the same ring written by hand without the kernel (bench/ring-handwritten.ts), the baseline;
 * - the kernel ring's rate relative to the hand-written one;
 * - channel transfers per second: 1,000 NumChannels, each with one push and one pop per cycle;
 * - when `verilator` is on the PATH, the same ring in SystemVerilog (bench/verilog/ring.sv, built
 *   once and cached by bench/verilog/build.ts with -O3 / -O3 -march=native), in the same
 *   interleaved rounds, and the kernel ring's rate relative to it; the suite first checks that the
 *   Verilator ring returns as many tokens, all correct, as the kernel ring in the same cycles.
 *   Without Verilator the suite prints that it skipped this comparison.
 *
 * Every measurement runs in a fresh process (bench/ring-run.ts): on this shared 2-core machine the
 * rate of one process varies by +-25% with where V8 places the design's objects and with the other
 * load. The contenders are measured in interleaved rounds (round r runs every contender once, in
 * an order rotated by r), the same number of rounds for each, and every figure is the median over
 * the rounds, with all values in the note; the kernel/hand-written ratio is the median of the
 * per-round ratios (both measured under the same load). Each child throws, and so this suite
 * fails, if the ring returned a wrong token, none, or fewer than one per cycle.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchSuite, type Figure, median } from '../harness.ts';
import { checkSameWork, prepareVerilatorRing, runVerilatorRing, type VerilatorRing } from '../verilog/build.ts';

const runner = join(dirname(fileURLToPath(import.meta.url)), '..', 'ring-run.ts');

interface Run {
  perSecond: number;
  samples: number;
  note: string;
}

function runOnce(variant: string, quick: boolean): Run {
  const args = [...process.execArgv, runner, variant, ...(quick ? ['--quick'] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`kernel bench ${variant}: child failed (${r.status ?? r.signal}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as Run;
}

export const VARIANTS = ['ring', 'ring-noskip', 'hand', 'channels'] as const;
export type Variant = (typeof VARIANTS)[number];
export type Contender = Variant | 'verilator';

/** The contenders of a run: every variant, plus the Verilator ring when it was built (else says it skipped it). */
export function contenders(vl: VerilatorRing, log: (line: string) => void): Contender[] {
  if (vl.kind === 'skipped') {
    log(vl.message);
    return [...VARIANTS];
  }
  log(`Verilator ring: ${vl.version}, ${vl.cached ? 'cached build' : `built in ${vl.buildSeconds.toFixed(0)} s`} (${vl.binary})`);
  return [...VARIANTS, 'verilator'];
}

/** One Verilator round: warm up as the JS rings do (3 cycles per stage), then chunks for the same time. */
function runVerilator(vl: Extract<VerilatorRing, { kind: 'ready' }>, quick: boolean): Run {
  const stages = vl.params.stages;
  const chunk = quick ? 1000 : 5000;
  const r = runVerilatorRing(vl, ['--warmup', String(3 * stages), '--chunk', String(chunk), '--time-ms', quick ? '300' : '1500']);
  const back = r.received - r.receivedBefore;
  if (r.errors > 0 || back < r.measuredCycles) throw new Error(`Verilator ring: ${r.errors} wrong tokens, ${back} back in ${r.measuredCycles} measured cycles`);
  return { perSecond: r.perSecond, samples: r.chunks, note: `${r.received} tokens back, all correct` };
}

/**
 * `rounds` interleaved rounds: round r runs every contender once, starting at contender r mod n.
 * Returns every contender's rates in round order (the same count for each).
 */
export function interleaved<V extends string>(variants: readonly V[], rounds: number, measure: (v: V) => number): Record<V, number[]> {
  const out = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<V, number[]>;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(r + i) % variants.length]!;
      out[v].push(measure(v));
    }
  }
  return out;
}

const VERILATOR_BUILD = 'verilator -O3, C++ -O3 -march=native, OPT_FAST=-O3';
const m = (v: number): string => (v / 1e6).toFixed(1);

export const suite: BenchSuite = {
  name: 'kernel',
  async run({ quick }) {
    const rounds = quick ? 1 : 7;
    const notes = new Map<Contender, string>();
    const vl = prepareVerilatorRing();
    const list = contenders(vl, (line) => process.stdout.write(`  ${line}\n`));
    const same = vl.kind === 'ready' ? checkSameWork(vl, 4 * vl.params.stages) : '';
    const rates = interleaved(list, rounds, (v) => {
      const run = v === 'verilator' ? runVerilator(vl as Extract<VerilatorRing, { kind: 'ready' }>, quick) : runOnce(v, quick);
      notes.set(v, run.note);
      return run.perSecond;
    });
    const fig = (v: Contender, key: string, label: string, unit: string, extra: Partial<Figure> = {}): Figure => ({
      key,
      label,
      value: median(rates[v]),
      unit,
      note: `median of ${rounds} interleaved rounds (in round order: ${rates[v].map(m).join(', ')} M); ${notes.get(v)}`,
      ...extra,
    });
    const ratios = rates.ring.map((r, i) => r / rates.hand[i]!);
    const versus: Figure[] = [];
    if (vl.kind === 'ready') {
      const vr = rates.ring.map((r, i) => r / rates.verilator![i]!);
      versus.push(
        fig('verilator', 'kernel.ring_verilator.stage_cycles_per_s', 'the same ring in SystemVerilog, Verilator, one thread', ' stage-cycles/s', {
          note: `median of ${rounds} interleaved rounds (in round order: ${rates.verilator!.map(m).join(', ')} M); ${vl.version}, ${VERILATOR_BUILD}; ${same}`,
        }),
        {
          key: 'kernel.ring_vs_verilator.ratio',
          label: 'kernel ring / Verilator ring (same round)',
          value: median(vr),
          unit: '',
          note: `median of the ${rounds} per-round ratios (${vr.map((x) => x.toFixed(2)).join(', ')})`,
        },
      );
    }
    return [
      fig('ring', 'kernel.ring.stage_cycles_per_s', 'ring, 1000 stages, activity skipping on', ' stage-cycles/s', { target: { op: '>=', value: 50e6 } }),
      fig('ring-noskip', 'kernel.ring_noskip.stage_cycles_per_s', 'ring, 1000 stages, activity skipping off', ' stage-cycles/s'),
      fig('hand', 'kernel.ring_handwritten.stage_cycles_per_s', 'ring written by hand without the kernel (baseline)', ' stage-cycles/s'),
      {
        key: 'kernel.ring_vs_handwritten.ratio',
        label: 'kernel ring / hand-written ring (same round)',
        value: median(ratios),
        unit: '',
        note: `median of the ${rounds} per-round ratios (${ratios.map((x) => x.toFixed(2)).join(', ')})`,
      },
      ...versus,
      fig('channels', 'kernel.channel.transfers_per_s', 'NumChannel transfers (push + pop pairs)', ' transfers/s'),
    ];
  },
};
