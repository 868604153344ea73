/**
 * The riscv-arch-test signature: memory from symbol `begin_signature` up to `end_signature`, one
 * 32-bit little-endian word per line as 8 lowercase hexadecimal digits.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import type { ElfImage } from '../../models/hpu/elf.ts';
import { hex8 } from './trace.ts';

export function signature(image: ElfImage, memory: Uint8Array, name = 'ELF'): string {
  const begin = image.symbols.get('begin_signature');
  const end = image.symbols.get('end_signature');
  if (begin === undefined) throw new InputError(`${name}: no symbol begin_signature (needed for --signature)`);
  if (end === undefined) throw new InputError(`${name}: no symbol end_signature (needed for --signature)`);
  if (begin % 4 !== 0 || end % 4 !== 0 || end < begin) throw new InputError(`${name}: signature range 0x${begin.toString(16)}..0x${end.toString(16)} is not word-aligned and ascending`);
  if (end > memory.length) throw new InputError(`${name}: signature range ends at 0x${end.toString(16)}, beyond the ${memory.length}-byte memory`);
  const dv = new DataView(memory.buffer, memory.byteOffset, memory.byteLength);
  let out = '';
  for (let a = begin; a < end; a += 4) out += hex8(dv.getUint32(a, true)) + '\n';
  return out;
}
