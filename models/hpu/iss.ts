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

export class Rv32Iss {
  readonly x = new Int32Array(32);
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
      if (!(s.flags & PF_W)) this.ro.push(s.vaddr, s.vaddr + s.memsz);
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
    if (this.status !== ISS_RUNNING) return false;
    const pc = this.pc;
    const x = this.x;
    if (pc >>> 0 >= this.memBytes) {
      this.fault(CAUSE_FETCH_FAULT, pc, `instruction fetch at ${hex(pc)} outside memory (0..${hex(this.memBytes)})`);
      return false;
    }
    const insn = this.m32[pc >>> 2]!;
    const rd = (insn >>> 7) & 31;
    const f3 = (insn >>> 12) & 7;
    const a = x[(insn >>> 15) & 31]!;
    const b = x[(insn >>> 20) & 31]!;
    let val = 0;
    let wr = true;
    let next = (pc + 4) | 0;
    switch (insn & 0x7f) {
      case 0x37: // LUI
        val = insn & 0xfffff000;
        break;
      case 0x17: // AUIPC
        val = (pc + (insn & 0xfffff000)) | 0;
        break;
      case 0x6f: {
        // JAL
        const imm = (((insn >> 31) << 20) | (((insn >>> 12) & 0xff) << 12) | (((insn >>> 20) & 1) << 11) | (((insn >>> 21) & 0x3ff) << 1)) | 0;
        val = next;
        next = (pc + imm) | 0;
        if (next & 3) return this.fault(CAUSE_MISALIGNED_FETCH, next, `jal target ${hex(next)} is not 4-byte aligned`), false;
        break;
      }
      case 0x67: // JALR
        if (f3 !== 0) return this.illegal(insn);
        val = next;
        next = (a + (insn >> 20)) & ~1;
        if (next & 3) return this.fault(CAUSE_MISALIGNED_FETCH, next, `jalr target ${hex(next)} is not 4-byte aligned`), false;
        break;
      case 0x63: {
        // branches
        let taken: boolean;
        switch (f3) {
          case 0:
            taken = a === b;
            break;
          case 1:
            taken = a !== b;
            break;
          case 4:
            taken = a < b;
            break;
          case 5:
            taken = a >= b;
            break;
          case 6:
            taken = a >>> 0 < b >>> 0;
            break;
          case 7:
            taken = a >>> 0 >= b >>> 0;
            break;
          default:
            return this.illegal(insn);
        }
        wr = false;
        if (taken) {
          const imm = ((insn >> 31) << 12) | (((insn >>> 7) & 1) << 11) | (((insn >>> 25) & 0x3f) << 5) | (((insn >>> 8) & 0xf) << 1);
          next = (pc + imm) | 0;
          if (next & 3) return this.fault(CAUSE_MISALIGNED_FETCH, next, `branch target ${hex(next)} is not 4-byte aligned`), false;
        }
        break;
      }
      case 0x03: {
        // loads
        const addr = (a + (insn >> 20)) >>> 0;
        const size = f3 & 3;
        if (size === 3 || f3 > 5) return this.illegal(insn);
        if (addr & ((1 << size) - 1)) return this.fault(CAUSE_MISALIGNED_LOAD, addr, `misaligned ${(1 << size) * 8}-bit load from ${hex(addr)}`), false;
        if (addr + (1 << size) > this.memBytes) return this.fault(CAUSE_LOAD_FAULT, addr, `load from ${hex(addr)} outside memory (0..${hex(this.memBytes)})`), false;
        switch (f3) {
          case 0:
            val = this.m8[addr]!;
            break;
          case 1:
            val = this.m16[addr >>> 1]!;
            break;
          case 2:
            val = this.m32[addr >>> 2]!;
            break;
          case 4:
            val = this.mem[addr]!;
            break;
          default:
            val = this.mu16[addr >>> 1]!;
        }
        break;
      }
      case 0x23: {
        // stores
        const addr = (a + (((insn >> 25) << 5) | ((insn >>> 7) & 31))) >>> 0;
        if (f3 > 2) return this.illegal(insn);
        if (addr & ((1 << f3) - 1)) return this.fault(CAUSE_MISALIGNED_STORE, addr, `misaligned ${(1 << f3) * 8}-bit store to ${hex(addr)}`), false;
        if (addr + (1 << f3) > this.memBytes) return this.fault(CAUSE_STORE_FAULT, addr, `store to ${hex(addr)} outside memory (0..${hex(this.memBytes)})`), false;
        if (this.ro.length > 0 && this.readOnly(addr)) return this.fault(CAUSE_STORE_FAULT, addr, `store to ${hex(addr)} in a read-only segment`), false;
        if (f3 === 0) this.mem[addr] = b;
        else if (f3 === 1) this.mu16[addr >>> 1] = b;
        else this.m32[addr >>> 2] = b;
        wr = false;
        break;
      }
      case 0x13: {
        // OP-IMM
        const imm = insn >> 20;
        switch (f3) {
          case 0:
            val = (a + imm) | 0;
            break;
          case 2:
            val = a < imm ? 1 : 0;
            break;
          case 3:
            val = a >>> 0 < imm >>> 0 ? 1 : 0;
            break;
          case 4:
            val = a ^ imm;
            break;
          case 6:
            val = a | imm;
            break;
          case 7:
            val = a & imm;
            break;
          case 1:
            if (insn >>> 25 !== 0) return this.illegal(insn);
            val = a << (imm & 31);
            break;
          default: // 5
            if (insn >>> 25 === 0) val = a >>> (imm & 31) | 0;
            else if (insn >>> 25 === 0x20) val = a >> (imm & 31);
            else return this.illegal(insn);
        }
        break;
      }
      case 0x33: {
        const f7 = insn >>> 25;
        if (f7 === 0) {
          switch (f3) {
            case 0:
              val = (a + b) | 0;
              break;
            case 1:
              val = a << (b & 31);
              break;
            case 2:
              val = a < b ? 1 : 0;
              break;
            case 3:
              val = a >>> 0 < b >>> 0 ? 1 : 0;
              break;
            case 4:
              val = a ^ b;
              break;
            case 5:
              val = (a >>> (b & 31)) | 0;
              break;
            case 6:
              val = a | b;
              break;
            default:
              val = a & b;
          }
        } else if (f7 === 0x20) {
          if (f3 === 0) val = (a - b) | 0;
          else if (f3 === 5) val = a >> (b & 31);
          else return this.illegal(insn);
        } else if (f7 === 1) {
          val = mulDiv(f3, a, b);
        } else return this.illegal(insn);
        break;
      }
      case 0x0f: // FENCE (no-op on one hart)
        if (f3 !== 0) return this.illegal(insn);
        wr = false;
        break;
      case 0x73:
        if (insn === 0x00000073) {
          const wrote = this.ecall();
          this.retire(pc, insn, wrote ? 10 : 0, wrote ? x[10]! : 0);
          if (this.status !== ISS_RUNNING) return false;
          this.pc = next;
          return true;
        }
        if (insn === 0x00100073) return this.fault(CAUSE_BREAKPOINT, pc, 'ebreak'), false;
        return this.illegal(insn);
      default:
        return this.illegal(insn);
    }
    if (wr && rd !== 0) {
      x[rd] = val;
      this.retire(pc, insn, rd, val);
    } else this.retire(pc, insn, 0, 0);
    this.pc = next;
    return true;
  }

  private retire(pc: number, insn: number, rd: number, val: number): void {
    this.retired++;
    this.lastPc = pc;
    this.lastInsn = insn;
    this.lastRd = rd;
    this.lastVal = val;
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

  /** Run until exit, trap or `maxInstr` instructions; returns the instructions retired by this call. */
  run(maxInstr: number): number {
    const start = this.retired;
    while (this.retired - start < maxInstr && this.step()) {
      /* one instruction per step */
    }
    return this.retired - start;
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
