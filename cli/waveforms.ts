/**
 * The waveform flags shared by simulation commands: `--vcd FILE` (VCD plus a GTKWave save file
 * written next to it, rtl/kernel/gtkw.ts) and `--wavedrom FILE --window A:B` (WaveDrom JSON of
 * cycles A .. B-1, rtl/kernel/wavedrom.ts).
 */
import { fileSink, MAX_WAVEDROM_CYCLES, type Simulator, vcdWithSaveFile, WaveDromTracer } from '../rtl/kernel/index.ts';
import { type FlagSpec, type FlagValues, optStr, UsageError } from './args.ts';

export const WAVEDROM_FLAGS: FlagSpec[] = [
  { name: 'wavedrom', type: 'string', output: true, help: 'write WaveDrom JSON of the --window cycles' },
  { name: 'window', type: 'string', help: `cycles A:B drawn by --wavedrom (A .. B-1 from the start of the run, at most ${MAX_WAVEDROM_CYCLES}; default 0:32)` },
];

/** `--window A:B` as [A, B]; a usage error naming the flag on anything else. */
export function parseWindow(raw: string): [number, number] {
  const m = /^(\d{1,12}):(\d{1,12})$/.exec(raw);
  if (!m) throw new UsageError(`--window: expected A:B with whole cycle numbers A < B (got '${raw}')`);
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (b <= a) throw new UsageError(`--window: B must be greater than A (got '${raw}')`);
  if (b - a > MAX_WAVEDROM_CYCLES) throw new UsageError(`--window: at most ${MAX_WAVEDROM_CYCLES} cycles (got '${raw}', ${b - a})`);
  return [a, b];
}

/** Checks the waveform flags before any simulation; returns what attach() needs. */
export function waveformRequest(f: FlagValues): { vcd?: string; wavedrom?: { path: string; from: number; to: number } } {
  const vcd = optStr(f, 'vcd');
  const wd = optStr(f, 'wavedrom');
  const win = optStr(f, 'window');
  if (win !== undefined && wd === undefined) throw new UsageError('--window: only with --wavedrom FILE');
  const out: { vcd?: string; wavedrom?: { path: string; from: number; to: number } } = {};
  if (vcd !== undefined) out.vcd = vcd;
  if (wd !== undefined) {
    const [from, to] = parseWindow(win ?? '0:32');
    out.wavedrom = { path: wd, from, to };
  }
  return out;
}

/** Attaches the requested tracers to `sim` (closed by sim.closeTraces()). */
export function attachWaveforms(sim: Simulator, req: ReturnType<typeof waveformRequest>, include?: readonly string[], title?: string): void {
  if (req.vcd !== undefined) vcdWithSaveFile(sim, req.vcd, include ? { include } : {});
  if (req.wavedrom) new WaveDromTracer(sim, fileSink(req.wavedrom.path), { from: req.wavedrom.from, to: req.wavedrom.to, include, title });
}
