/**
 * One HPU core: an in-order RV32IM pipeline in the classic five stages (fetch, decode, execute,
 * memory, writeback), register-transfer style on the kernel. Every pipeline latch is a kernel
 * register; tick() is the combinational logic of one clock cycle, reading only latch outputs
 * (`.q`) and writing only latch inputs (`.d`), evaluated writeback first so that the register file
 * is write-before-read (a write in WB is seen by a read in ID in the same cycle).
 *
 * Hazards: full forwarding from EX/MEM and MEM/WB into execute; a load followed by a user of its
 * result stalls decode one cycle; branches are predicted not taken and resolved in execute (a taken
 * branch or any jump flushes the two younger instructions: 2 cycles); div/divu/rem/remu hold
 * execute in the multi-cycle divider; ecall waits in decode until the older instructions have left
 * execute and memory, then performs the system call (an exit also stops fetch); a load or store to
 * the external range waits in memory while the stall input is 1. Traps are precise: a faulting
 * instruction carries its cause to the memory stage, which flushes everything younger, stops
 * fetch and passes the trap to writeback, where the core halts without retiring it.
 */
import { Component, NEVER, Reg, type Scope } from '../../kernel/index.ts';
import { alu, branchTaken, multiply } from './alu.ts';
import { ctlFn, ctlReadsRs1, ctlReadsRs2, ctlUnit, ctlWritesRd, decodeControl, immediate, U_AUIPC, U_BRANCH, U_DIV, U_ILLEGAL, U_JAL, U_JALR, U_LOAD, U_LUI, U_MUL, U_STORE, U_SYSTEM } from './decode.ts';
import { Divider } from './divider.ts';
import { HpuMemory, type MemorySegment } from './memory.ts';

export interface HpuCoreParams {
  /** cycles div/divu/rem/remu spend in execute (default 32: one quotient bit per cycle) */
  divLatency: number;
  /** bytes of local memory (instruction memory + scratchpad) from address 0 (default 1 MiB) */
  memBytes: number;
  /** first byte of the external range (shared packet buffer / L2 / host) whose accesses obey the stall input (default 0) */
  extBase: number;
  /** end (exclusive) of the external range (default 0: no external range) */
  extLimit: number;
}

export const HPU_CORE_DEFAULTS: HpuCoreParams = { divLatency: 32, memBytes: 1 << 20, extBase: 0, extLimit: 0 };

export interface HpuProgram {
  entry: number;
  segments: readonly MemorySegment[];
}

/** Trap causes (RISC-V mcause numbering). */
export const TRAP_MISALIGNED_FETCH = 0;
export const TRAP_FETCH_FAULT = 1;
export const TRAP_ILLEGAL = 2;
export const TRAP_BREAKPOINT = 3;
export const TRAP_MISALIGNED_LOAD = 4;
export const TRAP_LOAD_FAULT = 5;
export const TRAP_MISALIGNED_STORE = 6;
export const TRAP_STORE_FAULT = 7;

export interface HpuCoreTrap {
  pc: number;
  cause: number;
  tval: number;
  reason: string;
}

/** Called once per retired instruction, in program order: rd is 0 when no register is written. */
export type RetireHook = (pc: number, insn: number, rd: number, value: number) => void;

const EBREAK = 0x00100073;
const SYS_NONE = 0;
const SYS_RESULT = 1; // a0 gets the value carried in the operand
const SYS_EXIT = 2;

const h8 = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0');

export class HpuCore extends Component {
  readonly params: HpuCoreParams;
  readonly mem: HpuMemory;
  /** register file x0..x31 (x0 stays 0): written in WB, read in ID, both in tick() in that order */
  readonly rf = new Int32Array(32);
  /** stall input: while 1, a load/store to the external range waits in the memory stage */
  readonly stallIn: Reg;

  private readonly pc: Reg;
  private readonly fetchStop: Reg;
  // IF/ID
  private readonly fdValid: Reg;
  private readonly fdPc: Reg;
  private readonly fdInsn: Reg;
  private readonly fdFault: Reg; // fetch fault cause + 1, or 0
  // ID/EX
  private readonly deValid: Reg;
  private readonly dePc: Reg;
  private readonly deInsn: Reg;
  private readonly deCtl: Reg;
  private readonly deA: Reg;
  private readonly deB: Reg;
  private readonly deImm: Reg;
  private readonly deTrap: Reg; // cause + 1, or 0
  private readonly deSys: Reg;
  // EX/MEM
  private readonly emValid: Reg;
  private readonly emPc: Reg;
  private readonly emInsn: Reg;
  private readonly emCtl: Reg;
  private readonly emVal: Reg; // result, or store data
  private readonly emAddr: Reg;
  private readonly emRd: Reg; // 0 = no register write
  private readonly emTrap: Reg;
  private readonly emTval: Reg;
  private readonly emExit: Reg;
  // MEM/WB
  private readonly mwValid: Reg;
  private readonly mwPc: Reg;
  private readonly mwInsn: Reg;
  private readonly mwRd: Reg;
  private readonly mwVal: Reg;
  private readonly mwTrap: Reg;
  private readonly mwTval: Reg;
  private readonly mwExit: Reg;
  private readonly div: Divider;

  // results and statistics (events, counted as they happen)
  halted = false;
  exited = false;
  exitCode = 0;
  trap: HpuCoreTrap | null = null;
  retired = 0;
  haltCycle = 0;
  stallLoadUse = 0;
  stallBranch = 0;
  stallDiv = 0;
  stallMem = 0;
  stallEcall = 0;
  readonly stdout: number[] = [];
  readonly stderr: number[] = [];
  onRetire: RetireHook | null = null;

  constructor(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams> = {}) {
    super(parent, name);
    this.params = { ...HPU_CORE_DEFAULTS, ...params };
    this.mem = new HpuMemory(this.params.memBytes, program.segments);
    this.div = new Divider(this, this.params.divLatency);
    const r = (n: string, w = 32, init = 0): Reg => new Reg(this, n, w, init);
    this.stallIn = r('stall_in', 1);
    this.pc = r('pc', 32, program.entry);
    this.fetchStop = r('fetch_stop', 1);
    this.fdValid = r('fd_valid', 1);
    this.fdPc = r('fd_pc');
    this.fdInsn = r('fd_insn');
    this.fdFault = r('fd_fault', 4);
    this.deValid = r('de_valid', 1);
    this.dePc = r('de_pc');
    this.deInsn = r('de_insn');
    this.deCtl = r('de_ctl', 16);
    this.deA = r('de_a');
    this.deB = r('de_b');
    this.deImm = r('de_imm');
    this.deTrap = r('de_trap', 4);
    this.deSys = r('de_sys', 2);
    this.emValid = r('em_valid', 1);
    this.emPc = r('em_pc');
    this.emInsn = r('em_insn');
    this.emCtl = r('em_ctl', 16);
    this.emVal = r('em_val');
    this.emAddr = r('em_addr');
    this.emRd = r('em_rd', 5);
    this.emTrap = r('em_trap', 4);
    this.emTval = r('em_tval');
    this.emExit = r('em_exit', 1);
    this.mwValid = r('mw_valid', 1);
    this.mwPc = r('mw_pc');
    this.mwInsn = r('mw_insn');
    this.mwRd = r('mw_rd', 5);
    this.mwVal = r('mw_val');
    this.mwTrap = r('mw_trap', 4);
    this.mwTval = r('mw_tval');
    this.mwExit = r('mw_exit', 1);
    this.rf[2] = this.params.memBytes; // stack pointer at the top of local memory
  }

  private external(addr: number): boolean {
    return addr >= this.params.extBase && addr < this.params.extLimit;
  }

  tick(t: number): number {
    if (this.halted) return NEVER;
    // ---------------- WB: retire ----------------
    if (this.mwValid.q) {
      const trap = this.mwTrap.q;
      if (trap !== 0) {
        this.halt(t);
        this.trap = { pc: this.mwPc.q, cause: trap - 1, tval: this.mwTval.q >>> 0, reason: trapReason(trap - 1, this.mwTval.q) };
        return NEVER;
      }
      const rd = this.mwRd.q;
      if (rd !== 0) this.rf[rd] = this.mwVal.q;
      this.retired++;
      if (this.onRetire !== null) this.onRetire(this.mwPc.q, this.mwInsn.q, rd, rd !== 0 ? this.mwVal.q : 0);
      if (this.mwExit.q) {
        this.halt(t);
        this.exited = true;
        this.exitCode = this.rf[10]!;
        return NEVER;
      }
    }
    // ---------------- MEM ----------------
    if (this.emValid.q) {
      const trap = this.emTrap.q;
      if (trap !== 0) {
        // precise trap: flush everything younger, stop fetching, hand the trap to WB
        this.mwValid.d = 1;
        this.mwPc.d = this.emPc.q;
        this.mwInsn.d = this.emInsn.q;
        this.mwTrap.d = trap;
        this.mwTval.d = this.emTval.q;
        this.mwRd.d = 0;
        this.mwExit.d = 0;
        this.emValid.d = 0;
        this.deValid.d = 0;
        this.fdValid.d = 0;
        this.fetchStop.d = 1;
        this.div.cancel();
        return t + 1;
      }
      const unit = ctlUnit(this.emCtl.q);
      const addr = this.emAddr.q;
      if ((unit === U_LOAD || unit === U_STORE) && this.stallIn.q && this.external(addr)) {
        // the external memory is not ready: hold every stage up to and including MEM
        this.stallMem++;
        this.mwValid.d = 0;
        this.holdOperands();
        return t + 1;
      }
      let val = this.emVal.q;
      const m = this.mem;
      if (unit === U_LOAD) {
        switch (ctlFn(this.emCtl.q)) {
          case 0:
            val = m.s8[addr]!;
            break;
          case 1:
            val = m.s16[addr >>> 1]!;
            break;
          case 2:
            val = m.s32[addr >>> 2]!;
            break;
          case 4:
            val = m.bytes[addr]!;
            break;
          default:
            val = m.u16[addr >>> 1]!;
        }
      } else if (unit === U_STORE) {
        const fn = ctlFn(this.emCtl.q);
        if (fn === 0) m.bytes[addr] = val;
        else if (fn === 1) m.u16[addr >>> 1] = val;
        else m.s32[addr >>> 2] = val;
      }
      this.mwValid.d = 1;
      this.mwPc.d = this.emPc.q;
      this.mwInsn.d = this.emInsn.q;
      this.mwRd.d = this.emRd.q;
      this.mwVal.d = val;
      this.mwTrap.d = 0;
      this.mwExit.d = this.emExit.q;
    } else this.mwValid.d = 0;
    // ---------------- EX ----------------
    if (this.deValid.q) {
      const ctl = this.deCtl.q;
      const unit = ctlUnit(ctl);
      const insn = this.deInsn.q;
      const pc = this.dePc.q;
      const a = this.forward((insn >>> 15) & 31, this.deA.q);
      const b = this.forward((insn >>> 20) & 31, this.deB.q);
      const imm = this.deImm.q;
      let trap = this.deTrap.q;
      let tval = trap === TRAP_FETCH_FAULT + 1 || trap === TRAP_BREAKPOINT + 1 ? pc : trap !== 0 ? insn : 0;
      let val = 0;
      let addr = 0;
      let target = -1;
      switch (unit) {
        case U_LUI:
          val = imm;
          break;
        case U_AUIPC:
          val = (pc + imm) | 0;
          break;
        case U_JAL:
          val = (pc + 4) | 0;
          target = (pc + imm) | 0;
          break;
        case U_JALR:
          val = (pc + 4) | 0;
          target = ((a + imm) | 0) & -2;
          break;
        case U_BRANCH:
          if (branchTaken(ctlFn(ctl), a, b)) target = (pc + imm) | 0;
          break;
        case U_LOAD:
        case U_STORE: {
          addr = (a + imm) >>> 0;
          const size = 1 << (ctlFn(ctl) & 3);
          const load = unit === U_LOAD;
          if ((addr & (size - 1)) !== 0) trap = (load ? TRAP_MISALIGNED_LOAD : TRAP_MISALIGNED_STORE) + 1;
          else if (addr + size > this.params.memBytes && !this.external(addr)) trap = (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
          else if (!load && this.mem.readOnly(addr)) trap = TRAP_STORE_FAULT + 1;
          if (trap !== 0) tval = addr;
          val = b;
          break;
        }
        case U_MUL:
          val = multiply(ctlFn(ctl), a, b);
          break;
        case U_DIV:
          if (!this.div.cycle(ctlFn(ctl), a, b)) {
            // divider busy: hold decode and fetch, send a bubble to MEM
            this.stallDiv++;
            this.emValid.d = 0;
            this.deA.d = a;
            this.deB.d = b;
            return t + 1;
          }
          val = this.div.result;
          break;
        case U_SYSTEM:
          val = this.deA.q; // the system call's result (decode performed it)
          break;
        case U_ILLEGAL:
          break;
        default: // ALU register/immediate forms
          val = alu(ctlFn(ctl), a, ctlReadsRs2(ctl) ? b : imm);
      }
      if (target !== -1 && trap === 0 && (target & 3) !== 0) {
        trap = TRAP_MISALIGNED_FETCH + 1;
        tval = target;
      }
      this.emValid.d = 1;
      this.emPc.d = pc;
      this.emInsn.d = insn;
      this.emCtl.d = ctl;
      this.emVal.d = val;
      this.emAddr.d = addr;
      this.emTrap.d = trap;
      this.emTval.d = tval;
      const sys = this.deSys.q;
      this.emRd.d = trap === 0 && (ctlWritesRd(ctl) || sys === SYS_RESULT) ? (sys === SYS_RESULT ? 10 : (insn >>> 7) & 31) : 0;
      this.emExit.d = sys === SYS_EXIT ? 1 : 0;
      if (target !== -1 && trap === 0) {
        // taken branch or jump: redirect fetch, squash the two younger instructions
        this.stallBranch += 2;
        this.pc.d = target;
        this.fdValid.d = 0;
        this.deValid.d = 0;
        return t + 1;
      }
    } else this.emValid.d = 0;
    // ---------------- ID ----------------
    if (this.fdValid.q) {
      const insn = this.fdInsn.q;
      const fault = this.fdFault.q;
      const ctl = fault !== 0 ? U_ILLEGAL : decodeControl(insn);
      const unit = ctlUnit(ctl);
      const rs1 = (insn >>> 15) & 31;
      const rs2 = (insn >>> 20) & 31;
      if (this.deValid.q && ctlUnit(this.deCtl.q) === U_LOAD) {
        const ld = (this.deInsn.q >>> 7) & 31;
        if (ld !== 0 && ((ctlReadsRs1(ctl) && rs1 === ld) || (ctlReadsRs2(ctl) && rs2 === ld))) {
          this.stallLoadUse++;
          this.deValid.d = 0;
          return t + 1;
        }
      }
      let sys = SYS_NONE;
      let a = this.rf[rs1]!;
      const b = this.rf[rs2]!;
      if (unit === U_SYSTEM) {
        if (this.deValid.q || this.emValid.q) {
          // serialise: wait until every older instruction has passed the memory stage
          this.stallEcall++;
          this.deValid.d = 0;
          return t + 1;
        }
        if (this.rf[17] === 93) {
          sys = SYS_EXIT;
          this.fdValid.d = 0;
          this.fetchStop.d = 1;
        } else {
          sys = SYS_RESULT;
          a = this.syscall();
        }
      }
      this.deValid.d = 1;
      this.dePc.d = this.fdPc.q;
      this.deInsn.d = insn;
      this.deCtl.d = ctl;
      this.deA.d = a;
      this.deB.d = b;
      this.deImm.d = unit === U_ILLEGAL ? 0 : immediate(ctl, insn);
      this.deTrap.d = fault !== 0 ? fault : unit !== U_ILLEGAL ? 0 : insn === EBREAK ? TRAP_BREAKPOINT + 1 : TRAP_ILLEGAL + 1;
      this.deSys.d = sys;
      if (sys === SYS_EXIT) return t + 1;
    } else this.deValid.d = 0;
    // ---------------- IF ----------------
    if (this.fetchStop.q) {
      this.fdValid.d = 0;
      return t + 1;
    }
    const pc = this.pc.q;
    this.fdValid.d = 1;
    this.fdPc.d = pc;
    if (pc >>> 0 >= this.params.memBytes) {
      this.fdInsn.d = 0;
      this.fdFault.d = TRAP_FETCH_FAULT + 1;
    } else {
      this.fdInsn.d = this.mem.s32[pc >>> 2]!;
      this.fdFault.d = 0;
    }
    this.pc.d = (pc + 4) | 0;
    return t + 1;
  }

  /** An operand as execute sees it: the newest in-flight result for `rs`, else the value read in decode. */
  private forward(rs: number, fromDecode: number): number {
    if (rs === 0) return 0;
    if (this.emValid.q && this.emRd.q === rs) return this.emVal.q;
    if (this.mwValid.q && this.mwRd.q === rs) return this.mwVal.q;
    return fromDecode;
  }

  /** Execute holds while memory stalls: keep its operands current as forwarding sources retire. */
  private holdOperands(): void {
    if (!this.deValid.q) return;
    const insn = this.deInsn.q;
    this.deA.d = this.forward((insn >>> 15) & 31, this.deA.q);
    this.deB.d = this.forward((insn >>> 20) & 31, this.deB.q);
  }

  /** The Linux user ABI system calls other than exit; returns the value for a0. */
  private syscall(): number {
    const rf = this.rf;
    if (rf[17] !== 64) return -38; // ENOSYS
    const fd = rf[10]!;
    if (fd !== 1 && fd !== 2) return -9; // EBADF
    const buf = rf[11]! >>> 0;
    const len = rf[12]! >>> 0;
    if (buf + len > this.params.memBytes) return -14; // EFAULT
    const out = fd === 1 ? this.stdout : this.stderr;
    for (let i = 0; i < len; i++) out.push(this.mem.bytes[buf + i]!);
    return len;
  }

  private halt(t: number): void {
    this.halted = true;
    this.haltCycle = t + 1;
  }
}

function trapReason(cause: number, tval: number): string {
  switch (cause) {
    case TRAP_MISALIGNED_FETCH:
      return `misaligned jump/branch target ${h8(tval)}`;
    case TRAP_FETCH_FAULT:
      return 'instruction fetch outside HPU memory';
    case TRAP_ILLEGAL:
      return `illegal instruction ${h8(tval)}`;
    case TRAP_BREAKPOINT:
      return 'ebreak';
    case TRAP_MISALIGNED_LOAD:
      return `misaligned load address ${h8(tval)}`;
    case TRAP_LOAD_FAULT:
      return `load access fault at ${h8(tval)}`;
    case TRAP_MISALIGNED_STORE:
      return `misaligned store address ${h8(tval)}`;
    default:
      return `store access fault at ${h8(tval)} (outside memory or read-only)`;
  }
}
