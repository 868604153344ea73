import type { Signal, SignalValue } from './component.ts';
import type { Simulator, TraceUnit, Tracer } from './simulator.ts';
import { pathSelected, type TextSink } from './sink.ts';

export interface VcdOptions {
  /** Component/channel path patterns to include (see pathSelected); default: everything. */
  include?: readonly string[];
  /** Name of the single top scope (default "top"). */
  top?: string;
}

interface Traced {
  readonly sig: Signal;
  readonly id: string;
  last: SignalValue | null;
}

/** A signal best read in decimal (occupancies, counts, sequence numbers): GTKWave and WaveDrom show it so. */
export const isCountSignal = (name: string): boolean => name === 'count' || name === 'head_seq' || name.endsWith('_occupancy') || name.endsWith('_count');

/** One signal of a VCD file: its scopes (top first, as declared), name and width. */
export interface VcdSignalInfo {
  readonly scope: readonly string[];
  readonly name: string;
  readonly width: number;
}

const UNITS: [string, number][] = [
  ['s', 1e15],
  ['ms', 1e12],
  ['us', 1e9],
  ['ns', 1e6],
  ['ps', 1e3],
  ['fs', 1],
];

/**
 * The VCD timescale for a clock: the coarsest IEEE 1364 unit (1, 10 or 100 of s..fs) that divides
 * the clock period exactly (the period is first rounded to a whole femtosecond).
 */
export function vcdTimescale(freqHz: number): { text: string; ticksPerCycle: number } {
  const periodFs = Math.round(1e15 / freqHz);
  if (periodFs < 1) throw new RangeError(`clock of ${freqHz} Hz is too fast for a femtosecond VCD timescale`);
  for (const [unit, fs] of UNITS) {
    for (const mult of [100, 10, 1]) {
      const step = fs * mult;
      if (periodFs % step === 0) return { text: `${mult}${unit}`, ticksPerCycle: periodFs / step };
    }
  }
  return { text: '1fs', ticksPerCycle: periodFs };
}

function vcdId(n: number): string {
  let s = '';
  do {
    s += String.fromCharCode(33 + (n % 94));
    n = Math.floor(n / 94);
  } while (n > 0);
  return s;
}

function bits(v: SignalValue, width: number): string {
  let b: bigint;
  if (typeof v === 'bigint') b = BigInt.asUintN(width, v);
  else if (Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER) return width === 1 ? String(v & 1) : v.toString(2);
  else b = BigInt.asUintN(width, BigInt(Math.trunc(Number.isFinite(v) ? v : 0)));
  return width === 1 ? String(Number(b & 1n)) : b.toString(2);
}

/**
 * Streaming VCD writer (IEEE 1364-2005 section 18): one $scope per path segment, vectors dumped
 * as `b...`, only changes dumped, timestamps in units of the timescale derived from the clock.
 * Sampled at the end of every visited cycle with the values held during that cycle; the
 * simulator visits the cycle after any traced activity, so the file is identical with activity
 * skipping on and off.
 */
export class VcdTracer implements Tracer {
  private readonly traced: Traced[] = [];
  /** The file's signals in declaration order (for a GTKWave save file, see gtkw.ts). */
  readonly signals: VcdSignalInfo[] = [];
  private readonly ticks: number;
  private first = true;
  private closed = false;

  constructor(private readonly sim: Simulator, private readonly sink: TextSink, opts: VcdOptions = {}) {
    const ts = vcdTimescale(sim.freqHz);
    this.ticks = ts.ticksPerCycle;
    const units = sim.traceUnits.filter((u) => pathSelected(opts.include, u.path) && u._signals.length > 0);
    const top = opts.top ?? 'top';
    const out: string[] = [];
    out.push('$version netoffload VCD writer 1 $end\n');
    out.push(`$timescale ${ts.text} $end\n`);
    out.push(`$scope module ${top} $end\n`);
    // Build the scope tree from unit paths.
    interface Node {
      children: Map<string, Node>;
      unit: TraceUnit | null;
    }
    const root: Node = { children: new Map(), unit: null };
    for (const u of units) {
      let node = root;
      for (const seg of u.path.split('.')) {
        let next = node.children.get(seg);
        if (!next) {
          next = { children: new Map(), unit: null };
          node.children.set(seg, next);
        }
        node = next;
      }
      node.unit = u;
      if (u._markTraced) u._markTraced();
      else u._traced = true;
    }
    let n = 0;
    const scope: string[] = [top];
    const emit = (name: string, node: Node): void => {
      out.push(`$scope module ${name} $end\n`);
      scope.push(name);
      if (node.unit) {
        for (const sig of node.unit._signals) {
          const id = vcdId(n++);
          this.traced.push({ sig, id, last: null });
          this.signals.push({ scope: [...scope], name: sig.name, width: sig.width });
          out.push(`$var wire ${sig.width} ${id} ${sig.name} $end\n`);
        }
      }
      for (const [k, child] of node.children) emit(k, child);
      scope.pop();
      out.push('$upscope $end\n');
    };
    for (const [k, child] of root.children) emit(k, child);
    out.push('$upscope $end\n$enddefinitions $end\n');
    sink.write(out.join(''));
    sim.addTracer(this);
    sim._touch(); // the current cycle is visited, so initial values carry its time in both modes
  }

  /** Number of signals in the file. */
  get signalCount(): number {
    return this.traced.length;
  }

  sample(t: number): void {
    let buf = '';
    let stamped = false;
    for (const tr of this.traced) {
      const v = tr.sig.get();
      if (v === tr.last) continue;
      if (!stamped) {
        buf += this.first ? `#${t * this.ticks}\n$dumpvars\n` : `#${t * this.ticks}\n`;
        stamped = true;
      }
      tr.last = v;
      const w = tr.sig.width;
      buf += w === 1 ? `${bits(v, 1)}${tr.id}\n` : `b${bits(v, w)} ${tr.id}\n`;
    }
    if (this.first && stamped) buf += '$end\n';
    if (stamped) this.first = false;
    if (buf) this.sink.write(buf);
  }

  close(endCycle: number): void {
    if (this.closed) return;
    this.closed = true;
    this.sink.write(`#${endCycle * this.ticks}\n`);
    this.sink.close();
  }
}
