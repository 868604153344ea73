/**
 * WaveDrom JSON (https://wavedrom.com, "WaveJSON") of a short window of cycles, for documentation:
 * the same signals as the VCD writer (registers, channels: `count`, `push`, `pop`, `head`; FIFOs:
 * `count`, `head`; declared signals), one group per block (the first path segment), one column per
 * cycle A .. B-1, with a clock lane on top. A bit is drawn as `0`/`1`; a vector as a data slot (`=`)
 * labelled with its value (decimal for counts, hexadecimal otherwise) whenever it changes, `.`
 * while it holds. The values are those held during each cycle, sampled like the VCD (the
 * simulator visits the cycle after any traced activity, so the diagram is the same with activity
 * skipping on and off). Written when the simulator closes its traces.
 */
import type { Signal, SignalValue } from './component.ts';
import type { Simulator, Tracer, TraceUnit } from './simulator.ts';
import { pathSelected, type TextSink } from './sink.ts';
import { isCountSignal } from './vcd.ts';

export interface WaveDromOptions {
  /** first cycle of the window */
  from: number;
  /** first cycle after the window (to - from cycles are drawn; at most MAX_WAVEDROM_CYCLES) */
  to: number;
  /** component/channel path patterns to include (see pathSelected); default everything */
  include?: readonly string[];
  /** title above the diagram */
  title?: string;
}

/** The widest window drawn (a documentation diagram, not a waveform viewer). */
export const MAX_WAVEDROM_CYCLES = 512;

interface Lane {
  readonly block: string;
  readonly name: string;
  readonly sig: Signal;
  readonly values: SignalValue[];
}

function label(v: SignalValue, name: string): string {
  const n = typeof v === 'bigint' ? v : BigInt(Math.trunc(Number.isFinite(v) ? v : 0));
  return isCountSignal(name) ? n.toString(10) : `0x${BigInt.asUintN(64, n).toString(16)}`;
}

export class WaveDromTracer implements Tracer {
  private readonly lanes: Lane[] = [];
  private last = -1;
  private closed = false;

  constructor(sim: Simulator, private readonly sink: TextSink, private readonly opts: WaveDromOptions) {
    const { from, to } = opts;
    if (!Number.isInteger(from) || !Number.isInteger(to) || from < 0 || to <= from) throw new RangeError(`WaveDrom window ${from}:${to}: need integers 0 <= A < B`);
    if (to - from > MAX_WAVEDROM_CYCLES) throw new RangeError(`WaveDrom window ${from}:${to} is ${to - from} cycles, at most ${MAX_WAVEDROM_CYCLES}`);
    if (sim.cycle > from) throw new RangeError(`WaveDrom window ${from}:${to} starts before the current cycle ${sim.cycle}`);
    const units: TraceUnit[] = sim.traceUnits.filter((u) => pathSelected(opts.include, u.path) && u._signals.length > 0);
    for (const u of units) {
      const block = u.path.split('.')[0]!;
      const rest = u.path.slice(block.length + 1);
      for (const sig of u._signals) this.lanes.push({ block, name: rest ? `${rest}.${sig.name}` : sig.name, sig, values: [] });
      if (u._markTraced) u._markTraced();
      else u._traced = true;
    }
    sim.addTracer(this);
    sim._touch();
  }

  /** Number of signals drawn. */
  get signalCount(): number {
    return this.lanes.length;
  }

  /** Values for cycles (last, t) that were not visited hold; then cycle t's. */
  sample(t: number): void {
    const { from, to } = this.opts;
    if (t < from) {
      this.last = t;
      for (const l of this.lanes) l.values[0] = l.sig.get();
      return;
    }
    this.fill(Math.min(t, to));
    if (t < to) for (const l of this.lanes) l.values[t - from] = l.sig.get();
    this.last = t;
  }

  /** Repeat the last sampled values over the cycles before `upTo` not yet drawn. */
  private fill(upTo: number): void {
    const { from } = this.opts;
    for (let c = Math.max(from, this.last + 1); c < upTo; c++) {
      for (const l of this.lanes) l.values[c - from] = this.last < from ? l.values[0]! : l.values[this.last - from]!;
    }
  }

  close(endCycle: number): void {
    if (this.closed) return;
    this.closed = true;
    const { from, to } = this.opts;
    const end = Math.min(to, endCycle);
    if (this.last >= 0) this.fill(end);
    const n = Math.max(0, end - from);
    const groups = new Map<string, { name: string; wave: string; data?: string[] }[]>();
    for (const l of this.lanes) {
      let wave = '';
      const data: string[] = [];
      for (let k = 0; k < n; k++) {
        const v = l.values[k]!;
        if (k > 0 && v === l.values[k - 1]) wave += '.';
        else if (l.sig.width === 1) wave += Number(v) & 1 ? '1' : '0';
        else {
          wave += '=';
          data.push(label(v, l.sig.name));
        }
      }
      let g = groups.get(l.block);
      if (!g) groups.set(l.block, (g = []));
      g.push(l.sig.width === 1 ? { name: l.name, wave } : { name: l.name, wave, data });
    }
    // one lane per line, so a diagram diffs well and reads in a text editor
    const lines = [`{"signal": [`, ` ${JSON.stringify({ name: 'clk', wave: 'p' + '.'.repeat(Math.max(0, n - 1)) })}${groups.size ? ',' : ''}`];
    let gi = 0;
    for (const [block, lanes] of groups) {
      lines.push(` [${JSON.stringify(block)},`);
      lanes.forEach((l, i) => lines.push(`  ${JSON.stringify(l)}${i + 1 < lanes.length ? ',' : ''}`));
      lines.push(` ]${++gi < groups.size ? ',' : ''}`);
    }
    lines.push(`],`, ` "head": ${JSON.stringify({ text: this.opts.title ?? `cycles ${from} to ${end - 1}`, tick: from })},`, ` "config": {"hscale": 1}`, `}`);
    this.sink.write(lines.join('\n') + '\n');
    this.sink.close();
  }
}
