/** Test helper: small hand-assembled programs as ELFs, and both models run side by side. */
import { ECALL, li } from '../../experiments/hpu/encode.ts';
import { writeElf } from '../../experiments/hpu/elfWriter.ts';
import { parseElf, type ElfImage } from '../../models/hpu/elf.ts';
import { runFunctional, runPipeline, type HpuRunResult, type PipelineRunResult } from '../../experiments/hpu/run.ts';
import type { HpuCoreParams } from '../../rtl/hpu/core/core.ts';

export const CODE = 0x10000;
export const DATA = 0x20000;

/** exit(a0 = code) */
export const exitWith = (code: number): number[] => [...li(17, 93), ...li(10, code), ECALL];

/** An ELF with `words` at CODE and `data` (default 4 KiB of zeros) at DATA. */
export function program(words: number[], data: Uint8Array = new Uint8Array(4096), symbols: Record<string, number> = {}): ElfImage {
  return parseElf(writeElf(CODE, [
    { vaddr: CODE, data: new Uint8Array(Uint32Array.from(words.map((w) => w >>> 0)).buffer), flags: 5 },
    { vaddr: DATA, data, flags: 6 },
  ], symbols), 'test program');
}

export interface Both {
  f: HpuRunResult;
  p: PipelineRunResult;
  /** index of the first retired instruction where the traces differ, or -1 */
  mismatch: number;
  trace: number[];
}

export function runBoth(img: ElfImage, params: Partial<HpuCoreParams> = {}, maxInstructions = 200_000): Both {
  const ta: number[] = [];
  const tb: number[] = [];
  const f = runFunctional(img, { maxInstructions, onRetire: (pc, insn, rd, v) => ta.push(pc, insn, rd, v) });
  const p = runPipeline(img, { maxCycles: maxInstructions * 80, params, onRetire: (pc, insn, rd, v) => tb.push(pc, insn, rd, v) });
  let mismatch = ta.length === tb.length ? -1 : Math.min(ta.length, tb.length) >> 2;
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    if (ta[i] !== tb[i]) {
      mismatch = i >> 2;
      break;
    }
  }
  return { f, p, mismatch, trace: ta };
}
