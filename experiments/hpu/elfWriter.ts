/**
 * A minimal ELF32 writer for static RV32IM programs (the QEMU differential and the tests build
 * their programs with it): an ELF header, one PT_LOAD program header per segment (file offsets
 * page-aligned like a linker's), and a symbol table with its string table so that symbols such as
 * `begin_signature` can be looked up.
 */
export interface ElfWriterSegment {
  vaddr: number;
  data: Uint8Array;
  /** memory size (default data.length) */
  memsz?: number;
  /** PF_R = 4, PF_W = 2, PF_X = 1 */
  flags: number;
}

export function writeElf(entry: number, segments: readonly ElfWriterSegment[], symbols: Record<string, number> = {}): Uint8Array {
  const PAGE = 0x1000;
  const phoff = 52;
  let off = PAGE;
  const placed = segments.map((s) => {
    const at = off;
    off = Math.ceil((off + s.data.length) / PAGE) * PAGE;
    if (s.vaddr % PAGE !== 0) throw new RangeError(`segment at 0x${s.vaddr.toString(16)} is not page-aligned`);
    return { ...s, offset: at };
  });
  // .strtab, .symtab, .shstrtab after the segments
  const names = Object.keys(symbols);
  const enc = new TextEncoder();
  const strParts: number[] = [0];
  const nameOff: number[] = [];
  for (const n of names) {
    nameOff.push(strParts.length);
    strParts.push(...enc.encode(n), 0);
  }
  const strtab = Uint8Array.from(strParts);
  const symtab = new Uint8Array(16 * (names.length + 1));
  const sdv = new DataView(symtab.buffer);
  names.forEach((n, i) => {
    const o = 16 * (i + 1);
    sdv.setUint32(o, nameOff[i]!, true);
    sdv.setUint32(o + 4, symbols[n]! >>> 0, true);
    symtab[o + 12] = 0x10; // STB_GLOBAL, STT_NOTYPE
    sdv.setUint16(o + 14, 0xfff1, true); // SHN_ABS
  });
  const shstr = enc.encode('\0.symtab\0.strtab\0.shstrtab\0');
  const symOff = off;
  const strOff = symOff + symtab.length;
  const shstrOff = strOff + strtab.length;
  const shoff = Math.ceil((shstrOff + shstr.length) / 4) * 4;
  const total = shoff + 4 * 40;
  const out = new Uint8Array(total);
  const dv = new DataView(out.buffer);
  out.set([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1, 0]);
  dv.setUint16(16, 2, true); // ET_EXEC
  dv.setUint16(18, 243, true); // EM_RISCV
  dv.setUint32(20, 1, true);
  dv.setUint32(24, entry >>> 0, true);
  dv.setUint32(28, phoff, true);
  dv.setUint32(32, shoff, true);
  dv.setUint32(36, 0, true); // flags: soft-float ABI, no RVC
  dv.setUint16(40, 52, true);
  dv.setUint16(42, 32, true);
  dv.setUint16(44, placed.length, true);
  dv.setUint16(46, 40, true);
  dv.setUint16(48, 4, true);
  dv.setUint16(50, 3, true);
  placed.forEach((s, i) => {
    const o = phoff + 32 * i;
    dv.setUint32(o, 1, true); // PT_LOAD
    dv.setUint32(o + 4, s.offset, true);
    dv.setUint32(o + 8, s.vaddr, true);
    dv.setUint32(o + 12, s.vaddr, true);
    dv.setUint32(o + 16, s.data.length, true);
    dv.setUint32(o + 20, s.memsz ?? s.data.length, true);
    dv.setUint32(o + 24, s.flags, true);
    dv.setUint32(o + 28, PAGE, true);
    out.set(s.data, s.offset);
  });
  out.set(symtab, symOff);
  out.set(strtab, strOff);
  out.set(shstr, shstrOff);
  const sh = (i: number, name: number, type: number, offset: number, size: number, link: number, info: number, entsize: number): void => {
    const o = shoff + 40 * i;
    dv.setUint32(o, name, true);
    dv.setUint32(o + 4, type, true);
    dv.setUint32(o + 16, offset, true);
    dv.setUint32(o + 20, size, true);
    dv.setUint32(o + 24, link, true);
    dv.setUint32(o + 28, info, true);
    dv.setUint32(o + 32, 1, true);
    dv.setUint32(o + 36, entsize, true);
  };
  sh(1, 1, 2, symOff, symtab.length, 2, 1, 16); // .symtab -> .strtab
  sh(2, 9, 3, strOff, strtab.length, 0, 0, 0); // .strtab
  sh(3, 17, 3, shstrOff, shstr.length, 0, 0, 0); // .shstrtab
  return out;
}
