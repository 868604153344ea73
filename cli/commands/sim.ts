import { bool, type CommandSpec, num, optStr } from '../args.ts';
import { withProgress } from '../progress.ts';

const RING_CHUNK = 1 << 16;
import { buildRing } from '../../rtl/examples/ring.ts';
import { LineTracer } from '../../rtl/kernel/index.ts';
import { attachWaveforms, WAVEDROM_FLAGS, waveformRequest } from '../waveforms.ts';

export const commands: CommandSpec[] = [
  {
    path: ['sim', 'ring'],
    summary: "the kernel's benchmark ring: a token per cycle through N stages with 16-entry FIFOs",
    details: `Stage 0 emits one token per cycle (data = cycle number); each stage holds a 16-entry FIFO
and forwards one token per cycle with data + 1 over a one-cycle channel; the tokens come back to
stage 0, which checks every one equals its emitted value + N. Optional VCD with a GTKWave save
file next to it (FILE.gtkw: the signals grouped by stage), WaveDrom JSON of a window of cycles, or
a line trace. With --preload the ring starts full (one token in every FIFO and channel, the
steady state), so a large ring needs no 2N-cycle fill.`,
    flags: [
      { name: 'stages', type: 'int', default: 8, min: 1, max: 1_000_000, help: 'number of stages' },
      { name: 'cycles', type: 'int', default: 100, min: 0, max: 1e9, help: 'cycles to simulate' },
      { name: 'no-skipping', type: 'bool', help: 'evaluate every component every cycle' },
      { name: 'preload', type: 'bool', help: 'start in the steady state, a token in every FIFO and channel (no 2N-cycle fill; tokens back from cycle 1)' },
      { name: 'vcd', type: 'string', output: true, help: 'write a VCD file (and its GTKWave save file, .gtkw, next to it)' },
      ...WAVEDROM_FLAGS,
      { name: 'include', type: 'string', help: 'comma-separated component paths (or globs) to trace in --vcd/--wavedrom (default all)' },
      { name: 'trace', type: 'bool', help: 'print a line trace (one line per cycle)' },
    ],
    run(f, io) {
      const ring = buildRing(num(f, 'stages'), { skipping: !bool(f, 'no-skipping'), preload: bool(f, 'preload') });
      const inc = optStr(f, 'include');
      attachWaveforms(ring.sim, waveformRequest(f), inc === undefined ? undefined : inc.split(','), `sim ring: ${num(f, 'stages')} stages`);
      if (bool(f, 'trace')) new LineTracer(ring.sim, { write: (t) => io.out(t), close: () => {} });
      const cycles = num(f, 'cycles');
      withProgress(io, { label: 'sim ring', total: cycles, unit: 'cycles' }, (update) => {
        // in chunks, so that a long run shows progress (the chunking does not change the simulation)
        for (let done = 0; done < cycles; done = ring.sim.cycle) {
          ring.sim.step(Math.min(RING_CHUNK, cycles - done));
          update(ring.sim.cycle);
        }
      });
      ring.sim.closeTraces();
      const s = ring.source;
      const out = { stages: num(f, 'stages'), cycles: ring.sim.cycle, emitted: s.emitted, received: s.received, errors: s.errors, ok: s.errors === 0 };
      if (bool(f, 'json')) io.out(JSON.stringify(out) + '\n');
      else io.out(`${out.stages} stages, ${out.cycles} cycles: ${out.emitted} tokens emitted, ${out.received} returned, ${out.errors} wrong${s.firstError ? ` (first: ${s.firstError})` : ''}\n`);
      return out.ok ? 0 : 1;
    },
  },
];
