/**
 * ELF32 loader for static RV32 programs: checks the header, returns the loadable segments (file
 * bytes, memory size, flags), the entry point and the symbol table. Anything that is not a
 * little-endian ELF32 RISC-V executable, or whose headers point outside the file, is rejected with
 * an InputError naming what is wrong.
 */
import { InputError } from '../../rtl/kernel/errors.ts';

export const PF_X = 1;
export const PF_W = 2;
export const PF_R = 4;
const PT_LOAD = 1;
const PT_DYNAMIC = 2;
const PT_INTERP = 3;
const EM_RISCV = 243;
const ET_EXEC = 2;
const SHT_SYMTAB = 2;
const EF_RISCV_RVC = 1;

export interface ElfSegment {
  /** virtual address of the first byte */
  vaddr: number;
  /** the bytes from the file (filesz of them) */
  data: Uint8Array;
  /** size in memory (>= data.length; the rest is zero) */
  memsz: number;
  /** PF_R | PF_W | PF_X */
  flags: number;
}

export interface ElfImage {
  entry: number;
  segments: ElfSegment[];
  /** symbol name -> value (functions, objects and untyped labels; later duplicates are ignored) */
  symbols: Map<string, number>;
}

/** Parse an ELF32 RISC-V executable. `name` is used in error messages. */
export function parseElf(bytes: Uint8Array, name = 'ELF'): ElfImage {
  const bad = (why: string): never => {
    throw new InputError(`${name}: ${why}`);
  };
  if (bytes.length < 52) bad(`too short for an ELF header (${bytes.length} bytes, need 52)`);
  if (bytes[0] !== 0x7f || bytes[1] !== 0x45 || bytes[2] !== 0x4c || bytes[3] !== 0x46) bad('not an ELF file (bad magic)');
  if (bytes[4] !== 1) bad(bytes[4] === 2 ? 'ELF64, not ELF32 (RV64 programs are not supported)' : `bad ELF class ${bytes[4]}`);
  if (bytes[5] !== 1) bad('big-endian ELF (RISC-V is little-endian)');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (o: number): number => dv.getUint16(o, true);
  const u32 = (o: number): number => dv.getUint32(o, true);
  const type = u16(16);
  const machine = u16(18);
  if (machine !== EM_RISCV) bad(`machine ${machine} is not RISC-V (${EM_RISCV})`);
  if (type !== ET_EXEC) bad(`ELF type ${type} is not an executable (ET_EXEC = 2): link the program statically`);
  const entry = u32(24);
  const phoff = u32(28);
  const shoff = u32(32);
  const flags = u32(36);
  if (flags & EF_RISCV_RVC) bad('built for the C extension (compressed instructions); the core is RV32IM only');
  const phentsize = u16(42);
  const phnum = u16(44);
  const shentsize = u16(46);
  const shnum = u16(48);
  if (phnum === 0) bad('no program headers');
  if (phentsize < 32) bad(`program header size ${phentsize} is smaller than 32`);
  if (phoff + phnum * phentsize > bytes.length) bad(`program headers (offset ${phoff}, ${phnum} x ${phentsize} bytes) run past the end of the file (${bytes.length} bytes)`);
  const segments: ElfSegment[] = [];
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    const ptype = u32(o);
    if (ptype === PT_DYNAMIC || ptype === PT_INTERP) bad('dynamically linked (has a PT_DYNAMIC or PT_INTERP header): link the program statically');
    if (ptype !== PT_LOAD) continue;
    const offset = u32(o + 4);
    const vaddr = u32(o + 8);
    const filesz = u32(o + 16);
    const memsz = u32(o + 20);
    const pflags = u32(o + 24);
    if (offset + filesz > bytes.length) bad(`segment ${i} (file offset ${offset}, ${filesz} bytes) runs past the end of the file`);
    if (filesz > memsz) bad(`segment ${i}: file size ${filesz} exceeds memory size ${memsz}`);
    if (vaddr + memsz > 2 ** 32) bad(`segment ${i} at 0x${vaddr.toString(16)} (+${memsz}) wraps the 32-bit address space`);
    segments.push({ vaddr, data: bytes.slice(offset, offset + filesz), memsz, flags: pflags });
  }
  if (segments.length === 0) bad('no loadable (PT_LOAD) segment');
  const sorted = [...segments].sort((a, b) => a.vaddr - b.vaddr);
  for (let i = 1; i < sorted.length; i++) {
    const p = sorted[i - 1]!;
    if (p.vaddr + p.memsz > sorted[i]!.vaddr) bad(`segments at 0x${p.vaddr.toString(16)} and 0x${sorted[i]!.vaddr.toString(16)} overlap`);
  }
  if (!segments.some((s) => s.flags & PF_X && entry >= s.vaddr && entry < s.vaddr + s.memsz)) bad(`entry point 0x${entry.toString(16)} is not inside an executable segment`);
  const symbols = new Map<string, number>();
  if (shoff !== 0 && shnum !== 0) {
    if (shentsize < 40) bad(`section header size ${shentsize} is smaller than 40`);
    if (shoff + shnum * shentsize > bytes.length) bad(`section headers (offset ${shoff}, ${shnum} x ${shentsize} bytes) run past the end of the file`);
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * shentsize;
      if (u32(o + 4) !== SHT_SYMTAB) continue;
      const off = u32(o + 16);
      const size = u32(o + 20);
      const link = u32(o + 24);
      const entsize = u32(o + 36) || 16;
      if (off + size > bytes.length) bad(`symbol table (offset ${off}, ${size} bytes) runs past the end of the file`);
      if (link >= shnum) bad(`symbol table names string table section ${link}, but there are only ${shnum} sections`);
      const so = shoff + link * shentsize;
      const stroff = u32(so + 16);
      const strsize = u32(so + 20);
      if (stroff + strsize > bytes.length) bad(`string table (offset ${stroff}, ${strsize} bytes) runs past the end of the file`);
      for (let s = off; s + 16 <= off + size; s += entsize) {
        const nameOff = u32(s);
        if (nameOff === 0) continue;
        if (nameOff >= strsize) bad(`symbol at offset ${s} names string ${nameOff} outside the string table (${strsize} bytes)`);
        let end = stroff + nameOff;
        while (end < stroff + strsize && bytes[end] !== 0) end++;
        const sym = new TextDecoder().decode(bytes.subarray(stroff + nameOff, end));
        if (!symbols.has(sym)) symbols.set(sym, u32(s + 4));
      }
    }
  }
  return { entry, segments, symbols };
}
