/**
 * The cycle kernel (rtl/kernel/) under the benchmark ring of rtl/examples/ring.ts: 1,000 stages,
 * each with a 16-entry FIFO, forwarding one token per cycle over one-cycle channels; stage 0 emits
 * the tokens and checks every returning one (emitted value + 1,000, in order). Figures:
 * - stage-cycles per second through the kernel with activity skipping on (the target) and off;
 * - the same ring written by hand without the kernel (bench/ring-handwritten.ts), the baseline;
 * - the kernel ring's rate relative to the hand-written one;
 * - channel transfers per second: 1,000 NumChannels, each with one push and one pop per cycle.
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

const m = (v: number): string => (v / 1e6).toFixed(1);

export const suite: BenchSuite = {
  name: 'kernel',
  async run({ quick }) {
    const rounds = quick ? 1 : 7;
    const notes = new Map<Variant, string>();
    const rates = interleaved(VARIANTS, rounds, (v) => {
      const run = runOnce(v, quick);
      notes.set(v, run.note);
      return run.perSecond;
    });
    const fig = (v: Variant, key: string, label: string, unit: string, extra: Partial<Figure> = {}): Figure => ({
      key,
      label,
      value: median(rates[v]),
      unit,
      note: `median of ${rounds} interleaved rounds (in round order: ${rates[v].map(m).join(', ')} M); ${notes.get(v)}`,
      ...extra,
    });
    const ratios = rates.ring.map((r, i) => r / rates.hand[i]!);
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
      fig('channels', 'kernel.channel.transfers_per_s', 'NumChannel transfers (push + pop pairs)', ' transfers/s'),
    ];
  },
};
