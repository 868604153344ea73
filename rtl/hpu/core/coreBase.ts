/**
 * What both HPU core organisations share (rtl/hpu/core/core.ts, the five-stage pipeline;
 * rtl/hpu/core/ri5cy.ts, RI5CY's four stages): parameters, the local memory and register file,
 * the stall and abort inputs, the pipeline latch bank (latch 0 is the fetch pc), results and
 * stall counters, the runtime hooks, the Linux user ABI system calls, the access checks of a
 * load/store, halting and restarting. Each organisation's `tick()` is its combinational logic.
 */
import { Component, NEVER, Reg, type Scope } from '../../kernel/index.ts';
import { HpuMemory, type MemorySegment } from './memory.ts';
import { LatchBank } from './latches.ts';

export type HpuOrganisation = 'five-stage' | 'ri5cy';
export const HPU_ORGANISATIONS: readonly HpuOrganisation[] = ['five-stage', 'ri5cy'];

export interface HpuCoreParams {
  /** pipeline organisation (default 'five-stage'; 'ri5cy': PsPIN's RI5CY / CV32E40P, four stages) */
  organisation: HpuOrganisation;
  /** five-stage only: cycles div/divu/rem/remu spend in execute (default 32: one quotient bit per cycle); ri5cy's divider takes 3..35 by operand */
  divLatency: number;
  /** bytes of local memory (instruction memory + scratchpad) from address 0 (default 1 MiB) */
  memBytes: number;
  /** first byte of the external range (shared packet buffer / L2 / host) whose accesses obey the stall input (default 0) */
  extBase: number;
  /** end (exclusive) of the external range (default 0: no external range) */
  extLimit: number;
}

export const HPU_CORE_DEFAULTS: HpuCoreParams = { organisation: 'five-stage', divLatency: 32, memBytes: 1 << 20, extBase: 0, extLimit: 0 };

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

export const EBREAK = 0x00100073;
/** the system-call field of the decode/execute latch */
export const SYS_NONE = 0;
export const SYS_RESULT = 1; // a0 gets the value carried in the operand
export const SYS_EXIT = 2;

const h8 = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0');

export abstract class HpuCoreBase extends Component {
  readonly params: HpuCoreParams;
  readonly mem: HpuMemory;
  /** register file x0..x31 (x0 stays 0) */
  readonly rf = new Int32Array(32);
  /** stall input: while 1, a load/store to the external range waits in the stage that accesses memory */
  readonly stallIn: Reg;
  /** abort input (the runtime's cycle budget): a 1 written in cycle t halts the core at t + 1, without exit or trap */
  readonly abortIn: Reg;
  /** cycles before the first instruction can retire: the stages in front of the retiring one */
  abstract readonly fillCycles: number;
  /** first cycle of the current run (restart() sets it to the next cycle) */
  protected runFrom = 0;
  /** the pipeline latches (latch 0 is the fetch pc) */
  protected readonly lat: LatchBank;

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
  /** ri5cy: cycles mulh/mulhsu/mulhu hold execute */
  stallMul = 0;
  /** ri5cy: cycles a jalr waits in decode for its register (RI5CY's jr stall) */
  stallJr = 0;
  stallMem = 0;
  stallEcall = 0;
  readonly stdout: number[] = [];
  readonly stderr: number[] = [];
  onRetire: RetireHook | null = null;
  syscallHook: SyscallHook | null = null;
  accessCheck: AccessCheck | null = null;
  onHalt: (() => void) | null = null;

  /** `memory`: a memory shared with other cores (then `program.segments` must already be in it and params.memBytes must equal its size). */
  /** `latchesInPlace`: the latch bank's update scheme (latches.ts): in place for an organisation whose tick evaluates its stages from the last back to the first, else two-phase. */
  constructor(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams>, memory: HpuMemory | undefined, latchNames: readonly string[], latchWidths: readonly number[], latchesInPlace = false) {
    super(parent, name);
    this.params = { ...HPU_CORE_DEFAULTS, ...params };
    if (memory !== undefined && memory.size !== this.params.memBytes) throw new RangeError(`shared memory of ${memory.size} bytes for memBytes ${this.params.memBytes}`);
    this.mem = memory ?? new HpuMemory(this.params.memBytes, program.segments);
    this.stallIn = new Reg(this, 'stall_in', 1);
    this.abortIn = new Reg(this, 'abort_in', 1);
    const init = new Int32Array(latchNames.length);
    init[0] = program.entry;
    this.lat = new LatchBank(this, latchNames, latchWidths, init, latchesInPlace);
    this.rf[2] = this.params.memBytes; // stack pointer at the top of local memory
  }

  protected external(addr: number): boolean {
    return addr >= this.params.extBase && addr < this.params.extLimit;
  }

  /** The checks of a load/store address in execute: 0, or the trap cause + 1. */
  protected accessTrap(addr: number, size: number, load: boolean): number {
    if ((addr & (size - 1)) !== 0) return (load ? TRAP_MISALIGNED_LOAD : TRAP_MISALIGNED_STORE) + 1;
    if (addr + size > this.params.memBytes && !this.external(addr)) return (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
    if (!load && this.mem.readOnly(addr)) return TRAP_STORE_FAULT + 1;
    if (this.accessCheck !== null && !this.accessCheck(addr, size, !load)) return (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
    return 0;
  }

  /** The load of width/sign `fn` (funct3) at `addr` from local memory. */
  protected loadWord(fn: number, addr: number): number {
    const m = this.mem;
    switch (fn) {
      case 0:
        return m.s8[addr]!;
      case 1:
        return m.s16[addr >>> 1]!;
      case 2:
        return m.s32[addr >>> 2]!;
      case 4:
        return m.bytes[addr]!;
      default:
        return m.u16[addr >>> 1]!;
    }
  }

  /** The store of width `fn` (funct3) of `val` at `addr`. */
  protected storeWord(fn: number, addr: number, val: number): void {
    const m = this.mem;
    if (fn === 0) m.bytes[addr] = val;
    else if (fn === 1) m.u16[addr >>> 1] = val;
    else m.s32[addr >>> 2] = val;
  }

  /** The Linux user ABI system calls other than exit; returns the value for a0. */
  protected syscall(): number {
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

  protected halt(t: number): void {
    this.halted = true;
    this.haltCycle = t + 1;
    if (this.onHalt !== null) this.onHalt();
  }

  /** Halt with a trap in cycle t (the instruction does not retire). */
  protected trapHalt(t: number, pc: number, trapPlusOne: number, tval: number): void {
    this.halt(t);
    this.trap = { pc, cause: trapPlusOne - 1, tval: tval >>> 0, reason: trapReason(trapPlusOne - 1, tval) };
  }

  /** The start of a cycle: -1 when the core runs in cycle t (its latches clocked), else the cycle to wake at. */
  protected beginCycle(t: number): number {
    if (this.halted) return NEVER;
    if (t < this.runFrom) return this.runFrom;
    if (this.abortIn.q) {
      this.halt(t - 1);
      return NEVER;
    }
    this.lat.clock(); // the clock edge into this cycle
    return -1;
  }

  /** An instruction retires in cycle t (the register write is done); true when it was the exit call (the core halted). */
  protected retire(t: number, pc: number, insn: number, rd: number, val: number, exit: number): boolean {
    this.retired++;
    if (this.onRetire !== null) this.onRetire(pc, insn, rd, rd !== 0 ? val : 0);
    if (exit === 0) return false;
    this.exitHalt(t);
    return true;
  }

  /** The exit call retired in cycle t: halt with a0 as the exit code. */
  protected exitHalt(t: number): void {
    this.halt(t);
    this.exited = true;
    this.exitCode = this.rf[10]!;
  }

  /**
   * IF, the same in both organisations (latches 0..5: pc, fetch_stop, and IF/ID's valid, pc,
   * instruction and fault): fetch the word at pc from the single-cycle instruction memory (a fetch
   * fault outside it) unless fetch has stopped; pc + 4. Called when the stages after IF move on.
   */
  protected fetchStage(t: number): number {
    const q = this.lat.q;
    const d = this.lat.d;
    if (q[1]) {
      d[2] = 0;
      return t + 1;
    }
    const pc = q[0]!;
    d[2] = 1;
    d[3] = pc;
    if (pc >>> 0 >= this.params.memBytes) {
      d[4] = 0;
      d[5] = TRAP_FETCH_FAULT + 1;
    } else {
      d[4] = this.mem.s32[pc >>> 2]!;
      d[5] = 0;
    }
    d[0] = (pc + 4) | 0;
    return t + 1;
  }

  /** Abandon the multi-cycle units' operations (a flush or a restart). */
  protected abstract cancelUnits(): void;

  /**
   * Start a new program run on a halted core (the sPIN runtime's handler dispatch): empty pipeline,
   * multi-cycle units idle, pc = entry, registers zero except sp and a0; it runs from the next cycle.
   * Statistics (retired, stall counters) keep accumulating.
   */
  restart(entry: number, sp: number, a0: number): void {
    if (!this.halted) throw new Error(`${this.path}: restart while running`);
    this.lat.clear(entry);
    this.cancelUnits();
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

export function trapReason(cause: number, tval: number): string {
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
