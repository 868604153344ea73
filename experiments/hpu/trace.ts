/**
 * The retired-instruction trace format of `netoffload hpu run --trace`: one line per retired
 * instruction, in program order,
 *
 *     <pc> <instruction> [x<rd>=<value>]
 *
 * pc, instruction word and value as 8 lowercase hexadecimal digits; the register write is present
 * when the instruction writes a register other than x0 (even with the value it already held).
 * Example: `00010004 00100093 x1=00000001`.
 */
import type { TextSink } from '../../rtl/kernel/index.ts';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
export function hex8(v: number): string {
  return HEX[(v >>> 24) & 255]! + HEX[(v >>> 16) & 255]! + HEX[(v >>> 8) & 255]! + HEX[v & 255]!;
}

export function traceLine(pc: number, insn: number, rd: number, value: number): string {
  return rd === 0 ? `${hex8(pc)} ${hex8(insn)}\n` : `${hex8(pc)} ${hex8(insn)} x${rd}=${hex8(value)}\n`;
}

/** A retire hook that writes the trace to `sink`. */
export function traceWriter(sink: TextSink): (pc: number, insn: number, rd: number, value: number) => void {
  return (pc, insn, rd, value) => sink.write(traceLine(pc, insn, rd, value));
}
