/**
 * The HPU core's decoder: a decode ROM indexed by opcode[6:2] and funct3 (256 entries), each entry
 * a control word, then a funct7 check. Independent of the functional model in models/hpu (which
 * decodes with nested switches): the two are compared instruction by instruction.
 *
 * Control word layout (bits): [3:0] unit, [7:4] ALU/branch/memory function, [8] reads rs1,
 * [9] reads rs2, [10] writes rd, [12:11] immediate format, [14:13] funct7 rule.
 */

// execution units
export const U_ILLEGAL = 0;
export const U_ALU = 1; // a op (rs2 or imm)
export const U_LUI = 2;
export const U_AUIPC = 3;
export const U_JAL = 4;
export const U_JALR = 5;
export const U_BRANCH = 6;
export const U_LOAD = 7;
export const U_STORE = 8;
export const U_MUL = 9;
export const U_DIV = 10;
export const U_FENCE = 11;
export const U_SYSTEM = 12;

// ALU functions
export const F_ADD = 0;
export const F_SUB = 1;
export const F_SLL = 2;
export const F_SLT = 3;
export const F_SLTU = 4;
export const F_XOR = 5;
export const F_SRL = 6;
export const F_SRA = 7;
export const F_OR = 8;
export const F_AND = 9;

// immediate formats
const IMM_I = 0;
const IMM_S = 1;
const IMM_B = 2;
const IMM_UJ = 3; // U for lui/auipc, J for jal (told apart by the unit)

// funct7 rules
const F7_ANY = 0;
const F7_ZERO = 1; // slli
const F7_SHIFT = 2; // srli (0) / srai (0x20)
const F7_OP = 3; // R-type: 0, 0x20 (sub/sra) or 1 (M extension)

const RS1 = 1 << 8;
const RS2 = 1 << 9;
const RD = 1 << 10;
/** control-word fields as masks, for datapaths that test them without a call: unit, reads rs1, reads rs2, writes rd */
export const CTL_UNIT = 15;
export const CTL_RS1 = RS1;
export const CTL_RS2 = RS2;
export const CTL_RD = RD;
const cw = (unit: number, fn: number, flags: number, imm: number, f7: number): number => unit | (fn << 4) | flags | (imm << 11) | (f7 << 13);

/** The decode ROM: index (opcode[6:2] << 3) | funct3. */
export const DECODE_ROM: Int32Array = (() => {
  const rom = new Int32Array(256); // 0 = U_ILLEGAL
  const set = (op: number, f3: number, word: number): void => {
    rom[((op >>> 2) << 3) | f3] = word;
  };
  for (let f3 = 0; f3 < 8; f3++) {
    set(0x37, f3, cw(U_LUI, 0, RD, IMM_UJ, F7_ANY));
    set(0x17, f3, cw(U_AUIPC, 0, RD, IMM_UJ, F7_ANY));
    set(0x6f, f3, cw(U_JAL, 0, RD, IMM_UJ, F7_ANY));
  }
  set(0x67, 0, cw(U_JALR, 0, RS1 | RD, IMM_I, F7_ANY));
  for (const f3 of [0, 1, 4, 5, 6, 7]) set(0x63, f3, cw(U_BRANCH, f3, RS1 | RS2, IMM_B, F7_ANY));
  for (const f3 of [0, 1, 2, 4, 5]) set(0x03, f3, cw(U_LOAD, f3, RS1 | RD, IMM_I, F7_ANY));
  for (const f3 of [0, 1, 2]) set(0x23, f3, cw(U_STORE, f3, RS1 | RS2, IMM_S, F7_ANY));
  const imm: [number, number, number][] = [
    [0, F_ADD, F7_ANY],
    [1, F_SLL, F7_ZERO],
    [2, F_SLT, F7_ANY],
    [3, F_SLTU, F7_ANY],
    [4, F_XOR, F7_ANY],
    [5, F_SRL, F7_SHIFT],
    [6, F_OR, F7_ANY],
    [7, F_AND, F7_ANY],
  ];
  for (const [f3, fn, f7] of imm) set(0x13, f3, cw(U_ALU, fn, RS1 | RD, IMM_I, f7));
  const reg = [F_ADD, F_SLL, F_SLT, F_SLTU, F_XOR, F_SRL, F_OR, F_AND];
  for (let f3 = 0; f3 < 8; f3++) set(0x33, f3, cw(U_ALU, reg[f3]!, RS1 | RS2 | RD, IMM_I, F7_OP));
  set(0x0f, 0, cw(U_FENCE, 0, 0, IMM_I, F7_ANY));
  set(0x73, 0, cw(U_SYSTEM, 0, 0, IMM_I, F7_ANY));
  return rom;
})();

/**
 * Decode one instruction word into a control word (unit/function/flags as above, with the funct7
 * rule resolved: R-type sub/sra and the M extension rewritten), or U_ILLEGAL.
 */
export function decodeControl(insn: number): number {
  if ((insn & 3) !== 3) return U_ILLEGAL;
  const f3 = (insn >>> 12) & 7;
  const word = DECODE_ROM[(((insn >>> 2) & 31) << 3) | f3]!;
  const unit = word & 15;
  if (unit === U_ILLEGAL) return U_ILLEGAL;
  const f7 = insn >>> 25;
  switch ((word >>> 13) & 3) {
    case F7_ZERO:
      return f7 === 0 ? word : U_ILLEGAL;
    case F7_SHIFT:
      if (f7 === 0) return word;
      return f7 === 0x20 ? (word & ~0xf0) | (F_SRA << 4) : U_ILLEGAL;
    case F7_OP:
      if (f7 === 0) return word;
      if (f7 === 0x20) {
        if (f3 === 0) return (word & ~0xf0) | (F_SUB << 4);
        if (f3 === 5) return (word & ~0xf0) | (F_SRA << 4);
        return U_ILLEGAL;
      }
      if (f7 === 1) return (word & ~0xff) | (f3 < 4 ? U_MUL : U_DIV) | (f3 << 4);
      return U_ILLEGAL;
  }
  if (unit === U_SYSTEM) return insn === 0x73 ? word : U_ILLEGAL; // only ecall; ebreak and CSRs are illegal here
  return word;
}

export const ctlUnit = (c: number): number => c & 15;
export const ctlFn = (c: number): number => (c >>> 4) & 15;
export const ctlReadsRs1 = (c: number): boolean => (c & RS1) !== 0;
export const ctlReadsRs2 = (c: number): boolean => (c & RS2) !== 0;
export const ctlWritesRd = (c: number): boolean => (c & RD) !== 0;

/** The sign-extended immediate of `insn` in the control word's format. */
export function immediate(c: number, insn: number): number {
  switch ((c >>> 11) & 3) {
    case IMM_I:
      return insn >> 20;
    case IMM_S:
      return ((insn >> 25) << 5) | ((insn >> 7) & 0x1f);
    case IMM_B: {
      const b12 = (insn >> 31) << 12;
      const b11 = ((insn >> 7) & 1) << 11;
      const b10_5 = ((insn >> 25) & 0x3f) << 5;
      const b4_1 = ((insn >> 8) & 0xf) << 1;
      return b12 | b11 | b10_5 | b4_1;
    }
    default:
      if ((c & 15) === U_JAL) {
        const j20 = (insn >> 31) << 20;
        const j19_12 = insn & 0xff000;
        const j11 = ((insn >> 20) & 1) << 11;
        const j10_1 = ((insn >> 21) & 0x3ff) << 1;
        return j20 | j19_12 | j11 | j10_1;
      }
      return insn & ~0xfff;
  }
}
