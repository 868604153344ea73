/**
 * GTKWave save files (`.gtkw`) for the VCD writer's output: every signal of the file, grouped by
 * block (the first path segment under the top scope: a switch, a stage, a unit), in the order the
 * VCD declares them; counts (`count`, `*_occupancy`, `head_seq`) in decimal, other vectors in
 * hexadecimal, single bits in binary. `gtkwave FILE.gtkw` opens the dump named on its
 * `[dumpfile]` line (written as the VCD's file name: open it from the VCD's directory, or give both
 * files: `gtkwave FILE.vcd FILE.gtkw`).
 */
import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Simulator } from './simulator.ts';
import { fileSink } from './sink.ts';
import { isCountSignal, type VcdOptions, type VcdSignalInfo, VcdTracer } from './vcd.ts';

// GTKWave trace flags: right-justified (0x20) with hex (0x02), decimal (0x04) or binary (0x08);
// group begin (0x800000 | blank 0x200) and group end (0x1000000 | blank 0x200)
const HEX = '@22';
const DEC = '@24';
const BIN = '@28';
const GROUP_BEGIN = '@800200';
const GROUP_END = '@1000200';

/** The GTKWave name of a VCD signal: `scope.path.name`, with `[msb:0]` for a vector. */
export function gtkwName(s: VcdSignalInfo): string {
  return `${s.scope.join('.')}.${s.name}${s.width > 1 ? `[${s.width - 1}:0]` : ''}`;
}

/** The text of a save file for `dumpfile` showing `signals`, one group per block. */
export function gtkwSaveText(dumpfile: string, signals: readonly VcdSignalInfo[]): string {
  const out = ['[*] netoffload GTKWave save file: signals grouped by block', `[dumpfile] "${dumpfile}"`, '[timestart] 0', '[sst_expanded] 1'];
  const groups = new Map<string, VcdSignalInfo[]>();
  for (const s of signals) {
    const block = s.scope[1] ?? s.scope[0] ?? 'top';
    let g = groups.get(block);
    if (!g) groups.set(block, (g = []));
    g.push(s);
  }
  for (const [block, sigs] of groups) {
    out.push(GROUP_BEGIN, `-${block}`);
    let flag = '';
    for (const s of sigs) {
      const f = s.width === 1 ? BIN : isCountSignal(s.name) ? DEC : HEX;
      if (f !== flag) out.push((flag = f));
      out.push(gtkwName(s));
    }
    out.push(GROUP_END, `-${block}`);
  }
  return out.join('\n') + '\n';
}

/** The save file's path for a VCD path: `x.vcd` -> `x.gtkw` (another name: `.gtkw` appended). */
export function gtkwPathFor(vcdPath: string): string {
  return vcdPath.endsWith('.vcd') ? `${vcdPath.slice(0, -4)}.gtkw` : `${vcdPath}.gtkw`;
}

/**
 * A VCD tracer streaming to `vcdPath`, and its GTKWave save file written next to it
 * (gtkwPathFor) now: the signals are fixed when the tracer is created.
 */
export function vcdWithSaveFile(sim: Simulator, vcdPath: string, opts: VcdOptions = {}): VcdTracer {
  const vcd = new VcdTracer(sim, fileSink(vcdPath), opts);
  writeFileSync(gtkwPathFor(vcdPath), gtkwSaveText(basename(vcdPath), vcd.signals));
  return vcd;
}
