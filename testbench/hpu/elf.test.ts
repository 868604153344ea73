/** The ELF32 loader: what it returns for a good file and the reason it gives for each bad one. */
import { describe, expect, it } from 'vitest';
import { parseElf, PF_R, PF_W, PF_X } from '../../models/hpu/elf.ts';
import { writeElf } from '../../experiments/hpu/elfWriter.ts';
import { InputError } from '../../rtl/kernel/errors.ts';

const good = (): Uint8Array =>
  writeElf(0x10000, [
    { vaddr: 0x10000, data: new Uint8Array([0x73, 0, 0, 0]), flags: PF_R | PF_X },
    { vaddr: 0x11000, data: new Uint8Array([1, 2, 3]), memsz: 16, flags: PF_R | PF_W },
  ], { begin_signature: 0x11000, end_signature: 0x11010 });

function edit(f: (b: Uint8Array, dv: DataView) => void): Uint8Array {
  const b = good();
  f(b, new DataView(b.buffer));
  return b;
}

describe('ELF loader', () => {
  it('returns entry, segments and symbols of a static RV32 executable', () => {
    const img = parseElf(good());
    expect(img.entry).toBe(0x10000);
    expect(img.segments.map((s) => [s.vaddr, s.data.length, s.memsz, s.flags])).toEqual([
      [0x10000, 4, 4, PF_R | PF_X],
      [0x11000, 3, 16, PF_R | PF_W],
    ]);
    expect(img.symbols.get('begin_signature')).toBe(0x11000);
    expect(img.symbols.get('end_signature')).toBe(0x11010);
  });

  const cases: [string, Uint8Array, RegExp][] = [
    ['empty file', new Uint8Array(0), /too short for an ELF header/],
    ['bad magic', edit((b) => (b[1] = 0x46)), /not an ELF file/],
    ['ELF64', edit((b) => (b[4] = 2)), /ELF64, not ELF32/],
    ['big-endian', edit((b) => (b[5] = 2)), /big-endian/],
    ['x86 machine', edit((_, dv) => dv.setUint16(18, 3, true)), /machine 3 is not RISC-V/],
    ['shared object', edit((_, dv) => dv.setUint16(16, 3, true)), /not an executable/],
    ['compressed instructions', edit((_, dv) => dv.setUint32(36, 1, true)), /C extension/],
    ['no program headers', edit((_, dv) => dv.setUint16(44, 0, true)), /no program headers/],
    ['program headers past the end', edit((_, dv) => dv.setUint32(28, 0xffff0, true)), /program headers .* run past the end/],
    ['segment past the end', edit((_, dv) => dv.setUint32(52 + 4, 0xfffff0, true)), /segment 0 .* runs past the end/],
    ['file size above memory size', edit((_, dv) => dv.setUint32(52 + 32 + 20, 1, true)), /file size 3 exceeds memory size 1/],
    ['interpreter', edit((_, dv) => dv.setUint32(52 + 32, 3, true)), /dynamically linked/],
    ['no PT_LOAD', edit((_, dv) => (dv.setUint32(52, 4, true), dv.setUint32(52 + 32, 4, true))), /no loadable/],
    ['entry outside code', edit((_, dv) => dv.setUint32(24, 0x11000, true)), /entry point 0x11000 is not inside an executable segment/],
    ['overlapping segments', edit((_, dv) => dv.setUint32(52 + 32 + 8, 0x10000, true)), /overlap/],
    ['symbol table past the end', edit((_, dv) => dv.setUint32(dv.getUint32(32, true) + 40 + 16, 0xfffff0, true)), /symbol table .* runs past the end/],
  ];
  for (const [what, bytes, why] of cases) {
    it(`rejects: ${what}`, () => {
      let err: unknown;
      try {
        parseElf(bytes, 'x.elf');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(/^x\.elf: /);
      expect((err as Error).message).toMatch(why);
    });
  }
});
