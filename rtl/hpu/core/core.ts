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
import * as ALU from './alu.ts';
import * as DEC from './decode.ts';
import { Divider } from './divider.ts';
import { HpuMemory, type MemorySegment } from './memory.ts';
import { LatchBank } from './latches.ts';

// Module bindings copied into local constants once: the hot loop then reads plain constants
// (under the TypeScript loader an imported binding is a property getter on every access).
const { alu, branchTaken, multiply } = ALU;
const { ctlFn, ctlReadsRs1, ctlReadsRs2, ctlUnit, ctlWritesRd, decodeControl, immediate, U_AUIPC, U_BRANCH, U_DIV, U_ILLEGAL, U_JAL, U_JALR, U_LOAD, U_LUI, U_MUL, U_STORE, U_SYSTEM } = DEC;

// pipeline latch numbers in the core's register bank (rtl/hpu/core/latches.ts)
const L_PC = 0;
const L_FETCH_STOP = 1;
const L_FD_VALID = 2;
const L_FD_PC = 3;
const L_FD_INSN = 4;
const L_FD_FAULT = 5;
const L_DE_VALID = 6;
const L_DE_PC = 7;
const L_DE_INSN = 8;
const L_DE_CTL = 9;
const L_DE_A = 10;
const L_DE_B = 11;
const L_DE_IMM = 12;
const L_DE_TRAP = 13;
const L_DE_SYS = 14;
const L_EM_VALID = 15;
const L_EM_PC = 16;
const L_EM_INSN = 17;
const L_EM_CTL = 18;
const L_EM_VAL = 19;
const L_EM_ADDR = 20;
const L_EM_RD = 21;
const L_EM_TRAP = 22;
const L_EM_TVAL = 23;
const L_EM_EXIT = 24;
const L_MW_VALID = 25;
const L_MW_PC = 26;
const L_MW_INSN = 27;
const L_MW_RD = 28;
const L_MW_VAL = 29;
const L_MW_TRAP = 30;
const L_MW_TVAL = 31;
const L_MW_EXIT = 32;
const LATCH_NAMES = ['pc', 'fetch_stop', 'fd_valid', 'fd_pc', 'fd_insn', 'fd_fault', 'de_valid', 'de_pc', 'de_insn', 'de_ctl', 'de_a', 'de_b', 'de_imm', 'de_trap', 'de_sys', 'em_valid', 'em_pc', 'em_insn', 'em_ctl', 'em_val', 'em_addr', 'em_rd', 'em_trap', 'em_tval', 'em_exit', 'mw_valid', 'mw_pc', 'mw_insn', 'mw_rd', 'mw_val', 'mw_trap', 'mw_tval', 'mw_exit'];
const LATCH_WIDTHS = [32, 1, 1, 32, 32, 4, 1, 32, 32, 16, 32, 32, 32, 4, 2, 1, 32, 32, 32, 32, 32, 5, 4, 32, 1, 1, 32, 32, 5, 32, 4, 32, 1];

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

/**
 * Runtime hooks (the sPIN runtime, rtl/hpu/spin; all null by default, when the core behaves as a
 * stand-alone program runner):
 * - `syscallHook(rf)` serves an ecall whose a7 is neither exit (93) nor write (64), in decode, and
 *   returns a0's new value, or SYSCALL_RETRY to hold the ecall in decode one more cycle (counted
 *   as an ecall stall) because the service is not done yet (a DMA in flight);
 * - `accessCheck(addr, size, store)` is asked in execute for every load/store that is aligned and
 *   inside memory; false makes it a load/store access fault (the handler sandbox);
 * - `onHalt()` is called when the core halts (exit, trap, or `abort()`).
 */
export const SYSCALL_RETRY = 2 ** 32;
export type SyscallHook = (rf: Int32Array) => number;
export type AccessCheck = (addr: number, size: number, store: boolean) => boolean;

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
  /** abort input (the runtime's cycle budget): a 1 written in cycle t halts the core at t + 1, without exit or trap */
  readonly abortIn: Reg;
  /** first cycle of the current run (restart() sets it to the next cycle) */
  private runFrom = 0;
  /** the pipeline latches: IF/ID (fd_*), ID/EX (de_*), EX/MEM (em_*), MEM/WB (mw_*), pc and fetch_stop */
  private readonly lat: LatchBank;

  // IF/ID
  // ID/EX
  // EX/MEM
  // MEM/WB
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
  syscallHook: SyscallHook | null = null;
  accessCheck: AccessCheck | null = null;
  onHalt: (() => void) | null = null;

  /** `memory`: a memory shared with other cores (then `program.segments` must already be in it and params.memBytes must equal its size). */
  constructor(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams> = {}, memory?: HpuMemory) {
    super(parent, name);
    this.params = { ...HPU_CORE_DEFAULTS, ...params };
    if (memory !== undefined && memory.size !== this.params.memBytes) throw new RangeError(`shared memory of ${memory.size} bytes for memBytes ${this.params.memBytes}`);
    this.mem = memory ?? new HpuMemory(this.params.memBytes, program.segments);
    this.div = new Divider(this, this.params.divLatency);
    const r = (n: string, w = 32, init = 0): Reg => new Reg(this, n, w, init);
    this.stallIn = r('stall_in', 1);
    this.abortIn = r('abort_in', 1);
    const init = new Int32Array(LATCH_NAMES.length);
    init[L_PC] = program.entry;
    this.lat = new LatchBank(this, LATCH_NAMES, LATCH_WIDTHS, init);
    this.rf[2] = this.params.memBytes; // stack pointer at the top of local memory
  }

  private external(addr: number): boolean {
    return addr >= this.params.extBase && addr < this.params.extLimit;
  }

  tick(t: number): number {
    if (this.halted) return NEVER;
    if (t < this.runFrom) return this.runFrom;
    if (this.abortIn.q) {
      this.halt(t - 1);
      return NEVER;
    }
    this.lat.clock(); // the clock edge into this cycle
    const q = this.lat.q;
    const d = this.lat.d;
    // ---------------- WB: retire ----------------
    if (q[L_MW_VALID]) {
      const trap = q[L_MW_TRAP];
      if (trap !== 0) {
        this.halt(t);
        this.trap = { pc: q[L_MW_PC], cause: trap - 1, tval: q[L_MW_TVAL] >>> 0, reason: trapReason(trap - 1, q[L_MW_TVAL]) };
        return NEVER;
      }
      const rd = q[L_MW_RD];
      if (rd !== 0) this.rf[rd] = q[L_MW_VAL];
      this.retired++;
      if (this.onRetire !== null) this.onRetire(q[L_MW_PC], q[L_MW_INSN], rd, rd !== 0 ? q[L_MW_VAL] : 0);
      if (q[L_MW_EXIT]) {
        this.halt(t);
        this.exited = true;
        this.exitCode = this.rf[10]!;
        return NEVER;
      }
    }
    // ---------------- MEM ----------------
    if (q[L_EM_VALID]) {
      const trap = q[L_EM_TRAP];
      if (trap !== 0) {
        // precise trap: flush everything younger, stop fetching, hand the trap to WB
        d[L_MW_VALID] = 1;
        d[L_MW_PC] = q[L_EM_PC];
        d[L_MW_INSN] = q[L_EM_INSN];
        d[L_MW_TRAP] = trap;
        d[L_MW_TVAL] = q[L_EM_TVAL];
        d[L_MW_RD] = 0;
        d[L_MW_EXIT] = 0;
        d[L_EM_VALID] = 0;
        d[L_DE_VALID] = 0;
        d[L_FD_VALID] = 0;
        d[L_FETCH_STOP] = 1;
        this.div.cancel();
        return t + 1;
      }
      const unit = ctlUnit(q[L_EM_CTL]);
      const addr = q[L_EM_ADDR]! >>> 0;
      if ((unit === U_LOAD || unit === U_STORE) && this.stallIn.q && this.external(addr)) {
        // the external memory is not ready: hold every stage up to and including MEM
        this.stallMem++;
        d[L_MW_VALID] = 0;
        this.holdOperands();
        return t + 1;
      }
      let val = q[L_EM_VAL];
      const m = this.mem;
      if (unit === U_LOAD) {
        switch (ctlFn(q[L_EM_CTL])) {
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
        const fn = ctlFn(q[L_EM_CTL]);
        if (fn === 0) m.bytes[addr] = val;
        else if (fn === 1) m.u16[addr >>> 1] = val;
        else m.s32[addr >>> 2] = val;
      }
      d[L_MW_VALID] = 1;
      d[L_MW_PC] = q[L_EM_PC];
      d[L_MW_INSN] = q[L_EM_INSN];
      d[L_MW_RD] = q[L_EM_RD];
      d[L_MW_VAL] = val;
      d[L_MW_TRAP] = 0;
      d[L_MW_EXIT] = q[L_EM_EXIT];
    } else d[L_MW_VALID] = 0;
    // ---------------- EX ----------------
    if (q[L_DE_VALID]) {
      const ctl = q[L_DE_CTL];
      const unit = ctlUnit(ctl);
      const insn = q[L_DE_INSN];
      const pc = q[L_DE_PC];
      const a = this.forward((insn >>> 15) & 31, q[L_DE_A]);
      const b = this.forward((insn >>> 20) & 31, q[L_DE_B]);
      const imm = q[L_DE_IMM];
      let trap = q[L_DE_TRAP];
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
          else if (this.accessCheck !== null && !this.accessCheck(addr, size, !load)) trap = (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
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
            d[L_EM_VALID] = 0;
            d[L_DE_A] = a;
            d[L_DE_B] = b;
            return t + 1;
          }
          val = this.div.result;
          break;
        case U_SYSTEM:
          val = q[L_DE_A]; // the system call's result (decode performed it)
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
      d[L_EM_VALID] = 1;
      d[L_EM_PC] = pc;
      d[L_EM_INSN] = insn;
      d[L_EM_CTL] = ctl;
      d[L_EM_VAL] = val;
      d[L_EM_ADDR] = addr;
      d[L_EM_TRAP] = trap;
      d[L_EM_TVAL] = tval;
      const sys = q[L_DE_SYS];
      d[L_EM_RD] = trap === 0 && (ctlWritesRd(ctl) || sys === SYS_RESULT) ? (sys === SYS_RESULT ? 10 : (insn >>> 7) & 31) : 0;
      d[L_EM_EXIT] = sys === SYS_EXIT ? 1 : 0;
      if (target !== -1 && trap === 0) {
        // taken branch or jump: redirect fetch, squash the two younger instructions
        this.stallBranch += 2;
        d[L_PC] = target;
        d[L_FD_VALID] = 0;
        d[L_DE_VALID] = 0;
        return t + 1;
      }
    } else d[L_EM_VALID] = 0;
    // ---------------- ID ----------------
    if (q[L_FD_VALID]) {
      const insn = q[L_FD_INSN];
      const fault = q[L_FD_FAULT];
      const ctl = fault !== 0 ? U_ILLEGAL : decodeControl(insn);
      const unit = ctlUnit(ctl);
      const rs1 = (insn >>> 15) & 31;
      const rs2 = (insn >>> 20) & 31;
      if (q[L_DE_VALID] && ctlUnit(q[L_DE_CTL]) === U_LOAD) {
        const ld = (q[L_DE_INSN] >>> 7) & 31;
        if (ld !== 0 && ((ctlReadsRs1(ctl) && rs1 === ld) || (ctlReadsRs2(ctl) && rs2 === ld))) {
          this.stallLoadUse++;
          d[L_DE_VALID] = 0;
          return t + 1;
        }
      }
      let sys = SYS_NONE;
      let a = this.rf[rs1]!;
      const b = this.rf[rs2]!;
      if (unit === U_SYSTEM) {
        if (q[L_DE_VALID] || q[L_EM_VALID]) {
          // serialise: wait until every older instruction has passed the memory stage
          this.stallEcall++;
          d[L_DE_VALID] = 0;
          return t + 1;
        }
        if (this.rf[17] === 93) {
          sys = SYS_EXIT;
          d[L_FD_VALID] = 0;
          d[L_FETCH_STOP] = 1;
        } else {
          sys = SYS_RESULT;
          a = this.syscall();
          if (a === SYSCALL_RETRY) {
            // the runtime's service is not done: hold the ecall in decode
            this.stallEcall++;
            d[L_DE_VALID] = 0;
            return t + 1;
          }
        }
      }
      d[L_DE_VALID] = 1;
      d[L_DE_PC] = q[L_FD_PC];
      d[L_DE_INSN] = insn;
      d[L_DE_CTL] = ctl;
      d[L_DE_A] = a;
      d[L_DE_B] = b;
      d[L_DE_IMM] = unit === U_ILLEGAL ? 0 : immediate(ctl, insn);
      d[L_DE_TRAP] = fault !== 0 ? fault : unit !== U_ILLEGAL ? 0 : insn === EBREAK ? TRAP_BREAKPOINT + 1 : TRAP_ILLEGAL + 1;
      d[L_DE_SYS] = sys;
      if (sys === SYS_EXIT) return t + 1;
    } else d[L_DE_VALID] = 0;
    // ---------------- IF ----------------
    if (q[L_FETCH_STOP]) {
      d[L_FD_VALID] = 0;
      return t + 1;
    }
    const pc = q[L_PC];
    d[L_FD_VALID] = 1;
    d[L_FD_PC] = pc;
    if (pc >>> 0 >= this.params.memBytes) {
      d[L_FD_INSN] = 0;
      d[L_FD_FAULT] = TRAP_FETCH_FAULT + 1;
    } else {
      d[L_FD_INSN] = this.mem.s32[pc >>> 2]!;
      d[L_FD_FAULT] = 0;
    }
    d[L_PC] = (pc + 4) | 0;
    return t + 1;
  }

  /** An operand as execute sees it: the newest in-flight result for `rs`, else the value read in decode. */
  private forward(rs: number, fromDecode: number): number {
    if (rs === 0) return 0;
    const q = this.lat.q;
    if (q[L_EM_VALID] && q[L_EM_RD] === rs) return q[L_EM_VAL];
    if (q[L_MW_VALID] && q[L_MW_RD] === rs) return q[L_MW_VAL];
    return fromDecode;
  }

  /** Execute holds while memory stalls: keep its operands current as forwarding sources retire. */
  private holdOperands(): void {
    const q = this.lat.q;
    const d = this.lat.d;
    if (!q[L_DE_VALID]) return;
    const insn = q[L_DE_INSN];
    d[L_DE_A] = this.forward((insn >>> 15) & 31, q[L_DE_A]);
    d[L_DE_B] = this.forward((insn >>> 20) & 31, q[L_DE_B]);
  }

  /** The Linux user ABI system calls other than exit; returns the value for a0. */
  private syscall(): number {
    const rf = this.rf;
    if (rf[17] !== 64) return this.syscallHook !== null ? this.syscallHook(rf) : -38; // ENOSYS
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
    if (this.onHalt !== null) this.onHalt();
  }

  /**
   * Start a new program run on a halted core (the sPIN runtime's handler dispatch): empty pipeline,
   * divider idle, pc = entry, registers zero except sp and a0; it runs from the next cycle.
   * Statistics (retired, stall counters) keep accumulating.
   */
  restart(entry: number, sp: number, a0: number): void {
    if (!this.halted) throw new Error(`${this.path}: restart while running`);
    this.lat.q.fill(0);
    this.lat.d.fill(0);
    this.lat.q[L_PC] = entry;
    this.lat.d[L_PC] = entry;
    this.div.cancel();
    this.rf.fill(0);
    this.rf[2] = sp;
    this.rf[10] = a0;
    this.halted = false;
    this.exited = false;
    this.exitCode = 0;
    this.trap = null;
    this.abortIn.d = 0;
    this.runFrom = this.sim.cycle + 1;
    this.wake(this.runFrom);
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
