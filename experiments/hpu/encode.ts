/**
 * RV32IM instruction encoders (the formats of the ISA manual), used to build test and differential
 * programs without a cross assembler.
 */
const r = (f7: number, rs2: number, rs1: number, f3: number, rd: number, op: number): number => ((f7 << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op) >>> 0;
const i = (imm: number, rs1: number, f3: number, rd: number, op: number): number => (((imm & 0xfff) << 20) | (rs1 << 15) | (f3 << 12) | (rd << 7) | op) >>> 0;

export const OP_NAMES = ['add', 'sub', 'sll', 'slt', 'sltu', 'xor', 'srl', 'sra', 'or', 'and', 'mul', 'mulh', 'mulhsu', 'mulhu', 'div', 'divu', 'rem', 'remu'] as const;
export type OpName = (typeof OP_NAMES)[number];
const OP_BITS: Record<OpName, [number, number]> = {
  add: [0, 0],
  sub: [0x20, 0],
  sll: [0, 1],
  slt: [0, 2],
  sltu: [0, 3],
  xor: [0, 4],
  srl: [0, 5],
  sra: [0x20, 5],
  or: [0, 6],
  and: [0, 7],
  mul: [1, 0],
  mulh: [1, 1],
  mulhsu: [1, 2],
  mulhu: [1, 3],
  div: [1, 4],
  divu: [1, 5],
  rem: [1, 6],
  remu: [1, 7],
};
export const opR = (name: OpName, rd: number, rs1: number, rs2: number): number => r(OP_BITS[name][0], rs2, rs1, OP_BITS[name][1], rd, 0x33);

export const IMM_NAMES = ['addi', 'slti', 'sltiu', 'xori', 'ori', 'andi', 'slli', 'srli', 'srai'] as const;
export type ImmName = (typeof IMM_NAMES)[number];
const IMM_F3: Record<ImmName, number> = { addi: 0, slti: 2, sltiu: 3, xori: 4, ori: 6, andi: 7, slli: 1, srli: 5, srai: 5 };
/** I-type ALU instruction; for shifts `imm` is the shift amount (0..31). */
export function opI(name: ImmName, rd: number, rs1: number, imm: number): number {
  if (name === 'slli' || name === 'srli') return i(imm & 31, rs1, IMM_F3[name], rd, 0x13);
  if (name === 'srai') return i(0x400 | (imm & 31), rs1, 5, rd, 0x13);
  return i(imm, rs1, IMM_F3[name], rd, 0x13);
}

export const LOAD_NAMES = ['lb', 'lh', 'lw', 'lbu', 'lhu'] as const;
export type LoadName = (typeof LOAD_NAMES)[number];
const LOAD_F3: Record<LoadName, number> = { lb: 0, lh: 1, lw: 2, lbu: 4, lhu: 5 };
export const LOAD_SIZE: Record<LoadName, number> = { lb: 1, lh: 2, lw: 4, lbu: 1, lhu: 2 };
export const load = (name: LoadName, rd: number, rs1: number, imm: number): number => i(imm, rs1, LOAD_F3[name], rd, 0x03);

export const STORE_NAMES = ['sb', 'sh', 'sw'] as const;
export type StoreName = (typeof STORE_NAMES)[number];
export const STORE_SIZE: Record<StoreName, number> = { sb: 1, sh: 2, sw: 4 };
export function store(name: StoreName, rs2: number, rs1: number, imm: number): number {
  const f3 = name === 'sb' ? 0 : name === 'sh' ? 1 : 2;
  return ((((imm >> 5) & 0x7f) << 25) | (rs2 << 20) | (rs1 << 15) | (f3 << 12) | ((imm & 31) << 7) | 0x23) >>> 0;
}

export const BRANCH_NAMES = ['beq', 'bne', 'blt', 'bge', 'bltu', 'bgeu'] as const;
export type BranchName = (typeof BRANCH_NAMES)[number];
const BR_F3: Record<BranchName, number> = { beq: 0, bne: 1, blt: 4, bge: 5, bltu: 6, bgeu: 7 };
/** Conditional branch by `off` bytes (even, -4096..4094). */
export function branch(name: BranchName, rs1: number, rs2: number, off: number): number {
  const b = off & 0x1fff;
  return ((((b >> 12) & 1) << 31) | (((b >> 5) & 0x3f) << 25) | (rs2 << 20) | (rs1 << 15) | (BR_F3[name] << 12) | (((b >> 1) & 0xf) << 8) | (((b >> 11) & 1) << 7) | 0x63) >>> 0;
}

export const lui = (rd: number, imm20: number): number => (((imm20 & 0xfffff) << 12) | (rd << 7) | 0x37) >>> 0;
export const auipc = (rd: number, imm20: number): number => (((imm20 & 0xfffff) << 12) | (rd << 7) | 0x17) >>> 0;
/** jal rd by `off` bytes (even, +-1 MiB). */
export function jal(rd: number, off: number): number {
  const j = off & 0x1fffff;
  return ((((j >> 20) & 1) << 31) | (((j >> 1) & 0x3ff) << 21) | (((j >> 11) & 1) << 20) | (((j >> 12) & 0xff) << 12) | (rd << 7) | 0x6f) >>> 0;
}
export const jalr = (rd: number, rs1: number, imm: number): number => i(imm, rs1, 0, rd, 0x67);
export const ECALL = 0x00000073;
export const FENCE = 0x0ff0000f;

/** Load a 32-bit constant into rd: lui + addi (the addi's sign is compensated in the upper part). */
export function li(rd: number, value: number): number[] {
  const lo = (value << 20) >> 20;
  const hi = ((value - lo) >>> 12) & 0xfffff;
  return [lui(rd, hi), opI('addi', rd, rd, lo)];
}
