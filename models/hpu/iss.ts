/**
 * Functional RV32IM instruction-set model: the golden reference for the HPU pipeline
 * (rtl/hpu/core). One `step()` executes one instruction completely; there is no timing.
 * Written independently of the pipeline (its own decoder, ALU, divider and memory).
 *
 * Memory is one flat little-endian array from address 0 to `memBytes`; accesses outside it trap
 * (out of range), as do misaligned loads/stores, misaligned jump targets, stores into a read-only
 * (non-writable ELF segment) range, illegal instructions and ebreak. ecall follows the Linux user
 * ABI as qemu-riscv32 does: a7 = 93 exit(a0); a7 = 64 write(a0 = fd 1 or 2, a1 = buffer, a2 = length)
 * returning the length (-EBADF for another fd, -EFAULT for a buffer outside memory); any other a7
 * returns -ENOSYS. fence is a no-op.
 */
import { InputError } from '../../rtl/kernel/errors.ts';
import { type ElfImage, PF_W } from './elf.ts';

export const ISS_RUNNING = 0;
export const ISS_EXITED = 1;
export const ISS_TRAPPED = 2;

/** Trap causes (the RISC-V mcause numbers). */
export const CAUSE_MISALIGNED_FETCH = 0;
export const CAUSE_FETCH_FAULT = 1;
export const CAUSE_ILLEGAL = 2;
export const CAUSE_BREAKPOINT = 3;
export const CAUSE_MISALIGNED_LOAD = 4;
export const CAUSE_LOAD_FAULT = 5;
export const CAUSE_MISALIGNED_STORE = 6;
export const CAUSE_STORE_FAULT = 7;

export interface IssTrap {
  pc: number;
  cause: number;
  /** the faulting address or instruction word */
  tval: number;
  reason: string;
}

export interface IssOptions {
  /** bytes of memory from address 0 (default 1 MiB) */
  memBytes?: number;
}

const hex = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0');

/**
 * The operations the decoder maps an instruction word to (dense small integers, so the execute
 * switch is one jump table). Those before FIRST_NO_RD write rd; ILLEGAL is 0, the value of an
 * empty decoded-instruction cache entry (whose word, 0, is illegal).
 */
const enum Op {
  ILLEGAL = 0,
  LUI,
  AUIPC,
  JAL,
  JALR,
  LB,
  LH,
  LW,
  LBU,
  LHU,
  ADDI,
  SLTI,
  SLTIU,
  XORI,
  ORI,
  ANDI,
  SLLI,
  SRLI,
  SRAI,
  ADD,
  SUB,
  SLL,
  SLT,
  SLTU,
  XOR,
  SRL,
  SRA,
  OR,
  AND,
  MUL, // MUL .. REMU in funct3 order (mulDiv's selector is op - MUL)
  MULH,
  MULHSU,
  MULHU,
  DIV,
  DIVU,
  REM,
  REMU,
  FIRST_NO_RD,
  BEQ = FIRST_NO_RD,
  BNE,
  BLT,
  BGE,
  BLTU,
  BGEU,
  SB,
  SH,
  SW,
  FENCE,
  ECALL,
  EBREAK,
}

const BRANCH_OPS = [Op.BEQ, Op.BNE, Op.ILLEGAL, Op.ILLEGAL, Op.BLT, Op.BGE, Op.BLTU, Op.BGEU];
const LOAD_OPS = [Op.LB, Op.LH, Op.LW, Op.ILLEGAL, Op.LBU, Op.LHU, Op.ILLEGAL, Op.ILLEGAL];
const STORE_OPS = [Op.SB, Op.SH, Op.SW, Op.ILLEGAL, Op.ILLEGAL, Op.ILLEGAL, Op.ILLEGAL, Op.ILLEGAL];
const OP_IMM_OPS = [Op.ADDI, Op.SLLI, Op.SLTI, Op.SLTIU, Op.XORI, Op.SRLI, Op.ORI, Op.ANDI];
const OP_OPS = [Op.ADD, Op.SLL, Op.SLT, Op.SLTU, Op.XOR, Op.SRL, Op.OR, Op.AND];

/** An instruction word's operation and sign-extended immediate (the shift amount for shifts). */
function decodeInsn(insn: number): { op: Op; imm: number } {
  const f3 = (insn >>> 12) & 7;
  const f7 = insn >>> 25;
  switch (insn & 0x7f) {
    case 0x37:
      return { op: Op.LUI, imm: insn & 0xfffff000 };
    case 0x17:
      return { op: Op.AUIPC, imm: insn & 0xfffff000 };
    case 0x6f:
      return { op: Op.JAL, imm: (((insn >> 31) << 20) | (((insn >>> 12) & 0xff) << 12) | (((insn >>> 20) & 1) << 11) | (((insn >>> 21) & 0x3ff) << 1)) | 0 };
    case 0x67:
      return { op: f3 === 0 ? Op.JALR : Op.ILLEGAL, imm: insn >> 20 };
    case 0x63:
      return { op: BRANCH_OPS[f3]!, imm: ((insn >> 31) << 12) | (((insn >>> 7) & 1) << 11) | (((insn >>> 25) & 0x3f) << 5) | (((insn >>> 8) & 0xf) << 1) };
    case 0x03:
      return { op: LOAD_OPS[f3]!, imm: insn >> 20 };
    case 0x23:
      return { op: STORE_OPS[f3]!, imm: ((insn >> 25) << 5) | ((insn >>> 7) & 31) };
    case 0x13:
      if (f3 === 1) return { op: f7 === 0 ? Op.SLLI : Op.ILLEGAL, imm: (insn >>> 20) & 31 };
      if (f3 === 5) return { op: f7 === 0 ? Op.SRLI : f7 === 0x20 ? Op.SRAI : Op.ILLEGAL, imm: (insn >>> 20) & 31 };
      return { op: OP_IMM_OPS[f3]!, imm: insn >> 20 };
    case 0x33:
      if (f7 === 0) return { op: OP_OPS[f3]!, imm: 0 };
      if (f7 === 1) return { op: Op.MUL + f3, imm: 0 };
      if (f7 === 0x20 && f3 === 0) return { op: Op.SUB, imm: 0 };
      if (f7 === 0x20 && f3 === 5) return { op: Op.SRA, imm: 0 };
      return { op: Op.ILLEGAL, imm: 0 };
    case 0x0f:
      return { op: f3 === 0 ? Op.FENCE : Op.ILLEGAL, imm: 0 };
    case 0x73:
      return { op: insn === 0x00000073 ? Op.ECALL : insn === 0x00100073 ? Op.EBREAK : Op.ILLEGAL, imm: 0 };
    default:
      return { op: Op.ILLEGAL, imm: 0 };
  }
}

/** entries of the decoded-instruction cache (direct-mapped by word address, tagged by the instruction word) */
const DC_ENTRIES = 1 << 14;
const DC_MASK = DC_ENTRIES - 1;

export class Rv32Iss {
  /** x0..x31, and x[32]: the sink register that writes to x0 go to (so x0 stays 0); `x` is x0..x31 */
  private readonly xr = new Int32Array(33);
  readonly x = this.xr.subarray(0, 32);
  pc: number;
  readonly memBytes: number;
  readonly mem: Uint8Array;
  private readonly m8: Int8Array;
  private readonly m16: Int16Array;
  private readonly mu16: Uint16Array;
  private readonly m32: Int32Array;
  /** read-only [lo, hi) address pairs (non-writable segments) */
  private readonly ro: number[] = [];
  status = ISS_RUNNING;
  exitCode = 0;
  trap: IssTrap | null = null;
  retired = 0;
  /** the last retired instruction: pc, word, destination register (0 = none) and value written */
  lastPc = 0;
  lastInsn = 0;
  lastRd = 0;
  lastVal = 0;
  readonly stdout: number[] = [];
  readonly stderr: number[] = [];
  /** whether the last ecall wrote a0 */
  private ecallWrote = false;
  /** the smallest range [roLo, roHi) holding every read-only range (a store outside it needs no search) */
  private roLo = 0;
  private roHi = 0;
  /**
   * The decoded-instruction cache: entry (pc / 4) mod DC_ENTRIES holds the instruction word it
   * was decoded from (cWord), its operation and registers (cInfo: op | rd << 8 | rs1 << 16 |
   * rs2 << 24) and immediate (cImm). An entry is used only when its word equals the word fetched,
   * so stores to code (or to memory through `mem`) need no invalidation, and equal words at
   * different addresses share a decoding (it depends on the word alone).
   */
  private readonly cWord = new Int32Array(DC_ENTRIES);
  private readonly cInfo = new Int32Array(DC_ENTRIES);
  private readonly cImm = new Int32Array(DC_ENTRIES);

  constructor(image: ElfImage, opts: IssOptions = {}) {
    this.memBytes = opts.memBytes ?? 1 << 20;
    if (this.memBytes % 4 !== 0 || this.memBytes < 4) throw new InputError(`memory size ${this.memBytes} is not a positive multiple of 4`);
    const buf = new ArrayBuffer(this.memBytes);
    this.mem = new Uint8Array(buf);
    this.m8 = new Int8Array(buf);
    this.m16 = new Int16Array(buf);
    this.mu16 = new Uint16Array(buf);
    this.m32 = new Int32Array(buf);
    for (const s of image.segments) {
      if (s.vaddr + s.memsz > this.memBytes) throw new InputError(`segment at ${hex(s.vaddr)} (${s.memsz} bytes) does not fit in ${this.memBytes} bytes of memory`);
      this.mem.set(s.data, s.vaddr);
      if (!(s.flags & PF_W) && s.memsz > 0) {
        this.ro.push(s.vaddr, s.vaddr + s.memsz);
        this.roLo = this.ro.length === 2 ? s.vaddr : Math.min(this.roLo, s.vaddr);
        this.roHi = Math.max(this.roHi, s.vaddr + s.memsz);
      }
    }
    this.pc = image.entry;
    this.x[2] = this.memBytes; // stack pointer at the top of memory
  }

  private fault(cause: number, tval: number, reason: string): void {
    this.status = ISS_TRAPPED;
    this.trap = { pc: this.pc, cause, tval: tval >>> 0, reason };
  }

  private readOnly(a: number): boolean {
    const ro = this.ro;
    for (let i = 0; i < ro.length; i += 2) if (a >= ro[i]! && a < ro[i + 1]!) return true;
    return false;
  }

  /** Execute one instruction. Returns false once the program has exited or trapped. */
  step(): boolean {
    return this.run(1) === 1 && this.status === ISS_RUNNING;
  }

  /**
   * Run until exit, trap or `maxInstr` instructions; returns the instructions retired by this call.
   * The loop keeps pc and the count in locals and dispatches on the predecoded operation (one
   * switch over dense small integers); the last retired instruction's record (lastPc, lastInsn,
   * lastRd, lastVal) is written once, at the end.
   */
  run(maxInstr: number): number {
    if (this.status !== ISS_RUNNING || !(maxInstr > 0)) return 0;
    const x = this.xr;
    const m8 = this.m8;
    const mu8 = this.mem;
    const m16 = this.m16;
    const mu16 = this.mu16;
    const m32 = this.m32;
    const cWord = this.cWord;
    const cInfo = this.cInfo;
    const cImm = this.cImm;
    const size = this.memBytes;
    const roLo = this.roLo;
    const roHi = this.roHi;
    let pc = this.pc;
    let n = 0;
    // the last retired instruction
    let lPc = 0;
    let lInsn = 0;
    let lInfo = 0;
    loop: while (n < maxInstr) {
      if (pc >>> 0 >= size) {
        this.pc = pc;
        this.fault(CAUSE_FETCH_FAULT, pc, `instruction fetch at ${hex(pc)} outside memory (0..${hex(size)})`);
        break;
      }
      const insn = m32[pc >>> 2]!;
      const j = (pc >>> 2) & DC_MASK;
      if (cWord[j] !== insn) this.decode(j, insn);
      const info = cInfo[j]!;
      const rd = (info >>> 8) & 63;
      const a = x[(info >>> 16) & 31]!;
      const b = x[info >>> 24]!;
      const imm = cImm[j]!;
      let next = (pc + 4) | 0;
      switch (info & 255) {
        case Op.LUI:
          x[rd] = imm;
          break;
        case Op.AUIPC:
          x[rd] = (pc + imm) | 0;
          break;
        case Op.JAL:
          next = (pc + imm) | 0;
          if (next & 3) {
            this.pc = pc;
            this.fault(CAUSE_MISALIGNED_FETCH, next, `jal target ${hex(next)} is not 4-byte aligned`);
            break loop;
          }
          x[rd] = (pc + 4) | 0;
          break;
        case Op.JALR:
          next = (a + imm) & ~1;
          if (next & 3) {
            this.pc = pc;
            this.fault(CAUSE_MISALIGNED_FETCH, next, `jalr target ${hex(next)} is not 4-byte aligned`);
            break loop;
          }
          x[rd] = (pc + 4) | 0;
          break;
        case Op.LB: {
          const ad = (a + imm) >>> 0;
          if (ad >= size) {
            this.pc = pc;
            this.loadFault(ad, 1);
            break loop;
          }
          x[rd] = m8[ad]!;
          break;
        }
        case Op.LH: {
          const ad = (a + imm) >>> 0;
          if ((ad & 1) !== 0 || ad >= size - 1) {
            this.pc = pc;
            this.loadFault(ad, 2);
            break loop;
          }
          x[rd] = m16[ad >>> 1]!;
          break;
        }
        case Op.LW: {
          const ad = (a + imm) >>> 0;
          if ((ad & 3) !== 0 || ad >= size - 3) {
            this.pc = pc;
            this.loadFault(ad, 4);
            break loop;
          }
          x[rd] = m32[ad >>> 2]!;
          break;
        }
        case Op.LBU: {
          const ad = (a + imm) >>> 0;
          if (ad >= size) {
            this.pc = pc;
            this.loadFault(ad, 1);
            break loop;
          }
          x[rd] = mu8[ad]!;
          break;
        }
        case Op.LHU: {
          const ad = (a + imm) >>> 0;
          if ((ad & 1) !== 0 || ad >= size - 1) {
            this.pc = pc;
            this.loadFault(ad, 2);
            break loop;
          }
          x[rd] = mu16[ad >>> 1]!;
          break;
        }
        case Op.ADDI:
          x[rd] = (a + imm) | 0;
          break;
        case Op.SLTI:
          x[rd] = a < imm ? 1 : 0;
          break;
        case Op.SLTIU:
          x[rd] = a >>> 0 < imm >>> 0 ? 1 : 0;
          break;
        case Op.XORI:
          x[rd] = a ^ imm;
          break;
        case Op.ORI:
          x[rd] = a | imm;
          break;
        case Op.ANDI:
          x[rd] = a & imm;
          break;
        case Op.SLLI:
          x[rd] = a << imm;
          break;
        case Op.SRLI:
          x[rd] = a >>> imm;
          break;
        case Op.SRAI:
          x[rd] = a >> imm;
          break;
        case Op.ADD:
          x[rd] = (a + b) | 0;
          break;
        case Op.SUB:
          x[rd] = (a - b) | 0;
          break;
        case Op.SLL:
          x[rd] = a << (b & 31);
          break;
        case Op.SLT:
          x[rd] = a < b ? 1 : 0;
          break;
        case Op.SLTU:
          x[rd] = a >>> 0 < b >>> 0 ? 1 : 0;
          break;
        case Op.XOR:
          x[rd] = a ^ b;
          break;
        case Op.SRL:
          x[rd] = a >>> (b & 31);
          break;
        case Op.SRA:
          x[rd] = a >> (b & 31);
          break;
        case Op.OR:
          x[rd] = a | b;
          break;
        case Op.AND:
          x[rd] = a & b;
          break;
        case Op.MUL:
          x[rd] = Math.imul(a, b);
          break;
        case Op.MULH:
        case Op.MULHSU:
        case Op.MULHU:
        case Op.DIV:
        case Op.DIVU:
        case Op.REM:
        case Op.REMU:
          x[rd] = mulDiv((info & 255) - Op.MUL, a, b);
          break;
        case Op.BEQ:
          if (a === b) next = (pc + imm) | 0;
          break;
        case Op.BNE:
          if (a !== b) next = (pc + imm) | 0;
          break;
        case Op.BLT:
          if (a < b) next = (pc + imm) | 0;
          break;
        case Op.BGE:
          if (a >= b) next = (pc + imm) | 0;
          break;
        case Op.BLTU:
          if (a >>> 0 < b >>> 0) next = (pc + imm) | 0;
          break;
        case Op.BGEU:
          if (a >>> 0 >= b >>> 0) next = (pc + imm) | 0;
          break;
        case Op.SB: {
          const ad = (a + imm) >>> 0;
          if (ad >= size || (ad >= roLo && ad < roHi && this.readOnly(ad))) {
            this.pc = pc;
            this.storeFault(ad, 1);
            break loop;
          }
          mu8[ad] = b;
          break;
        }
        case Op.SH: {
          const ad = (a + imm) >>> 0;
          if ((ad & 1) !== 0 || ad >= size - 1 || (ad >= roLo && ad < roHi && this.readOnly(ad))) {
            this.pc = pc;
            this.storeFault(ad, 2);
            break loop;
          }
          mu16[ad >>> 1] = b;
          break;
        }
        case Op.SW: {
          const ad = (a + imm) >>> 0;
          if ((ad & 3) !== 0 || ad >= size - 3 || (ad >= roLo && ad < roHi && this.readOnly(ad))) {
            this.pc = pc;
            this.storeFault(ad, 4);
            break loop;
          }
          m32[ad >>> 2] = b;
          break;
        }
        case Op.FENCE: // a no-op on one hart
          break;
        case Op.ECALL:
          this.ecallWrote = this.ecall();
          if (this.status !== ISS_RUNNING) {
            // exit: it retires, pc stays on it
            n++;
            lPc = pc;
            lInsn = insn;
            lInfo = info;
            break loop;
          }
          break;
        case Op.EBREAK:
          this.pc = pc;
          this.fault(CAUSE_BREAKPOINT, pc, 'ebreak');
          break loop;
        default: // Op.ILLEGAL
          this.pc = pc;
          this.illegal(insn);
          break loop;
      }
      if (next & 3) {
        // a taken branch to a target that is not 4-byte aligned (jumps checked above)
        this.pc = pc;
        this.fault(CAUSE_MISALIGNED_FETCH, next, `branch target ${hex(next)} is not 4-byte aligned`);
        break;
      }
      n++;
      lPc = pc;
      lInsn = insn;
      lInfo = info;
      pc = next;
    }
    if (this.status === ISS_RUNNING) this.pc = pc;
    if (n > 0) {
      this.retired += n;
      this.lastPc = lPc;
      this.lastInsn = lInsn;
      const op = lInfo & 255;
      const rd = op === Op.ECALL ? (this.ecallWrote ? 10 : 0) : op < Op.FIRST_NO_RD ? (lInfo >>> 8) & 63 : 0;
      this.lastRd = rd === 32 ? 0 : rd;
      this.lastVal = this.lastRd !== 0 ? x[rd]! : 0;
    }
    return n;
  }

  /** Decode `insn` into entry j of the decoded-instruction cache. */
  private decode(j: number, insn: number): void {
    const { op, imm } = decodeInsn(insn);
    const rd = (insn >>> 7) & 31;
    // x0 as a destination is the sink register 32 (never read), so no instruction tests rd !== 0
    this.cInfo[j] = op | ((rd === 0 ? 32 : rd) << 8) | (((insn >>> 15) & 31) << 16) | (((insn >>> 20) & 31) << 24);
    this.cImm[j] = imm;
    this.cWord[j] = insn;
  }

  private loadFault(addr: number, bytes: number): void {
    if (addr & (bytes - 1)) this.fault(CAUSE_MISALIGNED_LOAD, addr, `misaligned ${bytes * 8}-bit load from ${hex(addr)}`);
    else this.fault(CAUSE_LOAD_FAULT, addr, `load from ${hex(addr)} outside memory (0..${hex(this.memBytes)})`);
  }

  private storeFault(addr: number, bytes: number): void {
    if (addr & (bytes - 1)) this.fault(CAUSE_MISALIGNED_STORE, addr, `misaligned ${bytes * 8}-bit store to ${hex(addr)}`);
    else if (addr + bytes > this.memBytes) this.fault(CAUSE_STORE_FAULT, addr, `store to ${hex(addr)} outside memory (0..${hex(this.memBytes)})`);
    else this.fault(CAUSE_STORE_FAULT, addr, `store to ${hex(addr)} in a read-only segment`);
  }

  private illegal(insn: number): false {
    this.fault(CAUSE_ILLEGAL, insn, `illegal instruction ${hex(insn)}`);
    return false;
  }

  /** The Linux user ABI subset; returns whether a0 was written. */
  private ecall(): boolean {
    const x = this.x;
    const nr = x[17]!;
    if (nr === 93) {
      this.status = ISS_EXITED;
      this.exitCode = x[10]!;
      return false;
    }
    if (nr === 64) {
      const fd = x[10]!;
      const buf = x[11]! >>> 0;
      const len = x[12]! >>> 0;
      if (fd !== 1 && fd !== 2) x[10] = -9; // EBADF
      else if (buf + len > this.memBytes) x[10] = -14; // EFAULT
      else {
        const out = fd === 1 ? this.stdout : this.stderr;
        for (let i = 0; i < len; i++) out.push(this.mem[buf + i]!);
        x[10] = len;
      }
      return true;
    }
    x[10] = -38; // ENOSYS
    return true;
  }

  /** A 32-bit little-endian word of memory (for signatures and comparisons). */
  word(addr: number): number {
    if (addr & 3 || addr >>> 0 >= this.memBytes) throw new InputError(`word address ${hex(addr)} is misaligned or outside memory`);
    return this.m32[addr >>> 2]! >>> 0;
  }
}

/** The M extension, by funct3: mul, mulh, mulhsu, mulhu, div, divu, rem, remu. */
function mulDiv(f3: number, a: number, b: number): number {
  switch (f3) {
    case 0:
      return Math.imul(a, b);
    case 1:
      return Number(BigInt.asIntN(32, (BigInt(a) * BigInt(b)) >> 32n));
    case 2:
      return Number(BigInt.asIntN(32, (BigInt(a) * BigInt(b >>> 0)) >> 32n));
    case 3:
      return Number(BigInt.asIntN(32, (BigInt(a >>> 0) * BigInt(b >>> 0)) >> 32n));
    case 4:
      if (b === 0) return -1;
      if (a === -0x80000000 && b === -1) return a;
      return Math.trunc(a / b) | 0;
    case 5:
      if (b === 0) return -1;
      return Math.trunc((a >>> 0) / (b >>> 0)) | 0;
    case 6:
      if (b === 0) return a;
      if (a === -0x80000000 && b === -1) return 0;
      return a % b | 0;
    default:
      if (b === 0) return a;
      return (a >>> 0) % (b >>> 0) | 0;
  }
}
