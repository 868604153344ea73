/**
 * One HPU core: an in-order RV32IM pipeline in the classic five stages (fetch, decode, execute,
 * memory, writeback), register-transfer style on the kernel. Every pipeline latch is a kernel
 * register; tick() is the combinational logic of one clock cycle, reading latch outputs (`q`) and
 * writing latch inputs (`d`), evaluated writeback first so that the register file is
 * write-before-read (a write in WB is seen by a read in ID in the same cycle). The latch bank is
 * updated in place (q and d are one array, latches.ts): evaluated from WB back to IF, each stage
 * reads its input latch before the stage that writes it runs; the two reads of a latch after its
 * writer (EX forwarding from MEM/WB, ID's ecall waiting for EX/MEM to empty) use the values
 * captured at the start of the cycle (mwValid/mwRd/mwVal, emValid).
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
import { NEVER, type Scope } from '../../kernel/index.ts';
import * as ALU from './alu.ts';
import * as DEC from './decode.ts';
import { Divider } from './divider.ts';
import type { HpuMemory } from './memory.ts';
import { EBREAK, HpuCoreBase, type HpuCoreParams, type HpuProgram, SYS_EXIT, SYS_NONE, SYS_RESULT, SYSCALL_RETRY, TRAP_BREAKPOINT, TRAP_FETCH_FAULT, TRAP_ILLEGAL, TRAP_MISALIGNED_FETCH, TRAP_MISALIGNED_LOAD, TRAP_MISALIGNED_STORE, TRAP_LOAD_FAULT, TRAP_STORE_FAULT } from './coreBase.ts';

export * from './coreBase.ts';

// Module bindings copied into local constants once: the hot loop then reads plain constants
// (under the TypeScript loader an imported binding is a property getter on every access).
const { alu, branchTaken, multiply } = ALU;
const { CTL_RD, CTL_RS1, CTL_RS2, CTL_UNIT, decodeControl, immediate, U_ALU, U_AUIPC, U_BRANCH, U_DIV, U_ILLEGAL, U_JAL, U_JALR, U_LOAD, U_LUI, U_MUL, U_STORE, U_SYSTEM } = DEC;

// pipeline latch numbers in the core's register bank (rtl/hpu/core/latches.ts); pc .. fd_fault are
// the fetch stage's (HpuCoreBase.fetchStage)
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

/**
 * Entries of the decode memo (direct-mapped by word address, tagged by the instruction word): a
 * simulation shortcut, not hardware state. The decoder is a pure function of the word, so ID takes
 * the control word and immediate from the memo when the entry holds the word fetched, and decodes
 * (and fills the entry) otherwise; stores to code need no invalidation. An empty entry (word 0,
 * control 0 = U_ILLEGAL, immediate 0) is what decoding the word 0 gives.
 */
const DC_ENTRIES = 2048;
const DC_MASK = DC_ENTRIES - 1;

export class HpuCore extends HpuCoreBase {
  readonly fillCycles = 4;
  private readonly div: Divider;
  /** the decode memo: entry e at 4e: the word, its control word, its immediate (and a pad) */
  private readonly dc = new Int32Array(4 * DC_ENTRIES);

  /** `memory`: a memory shared with other cores (then `program.segments` must already be in it and params.memBytes must equal its size). */
  constructor(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams> = {}, memory?: HpuMemory) {
    super(parent, name, program, params, memory, LATCH_NAMES, LATCH_WIDTHS, true);
    this.div = new Divider(this, this.params.divLatency);
  }

  tick(t: number): number {
    // Speed (issue 12): the per-cycle and per-instruction work is written out in this function
    // instead of calling the shared helpers of HpuCoreBase (beginCycle, retire, loadWord,
    // storeWord, accessTrap, fetchStage, which the ri5cy organisation uses; same logic). Each
    // call V8 inlines takes from one optimised function's inlining budget (920 bytecode bytes),
    // which then no longer covers alu/immediate, and a call not inlined costs more than the
    // work; the refactor that introduced the helpers made this core 25 % slower (docs/hpu.md,
    // Performance). Cold paths (halt, traps, system calls) stay calls.
    if (this.halted) return NEVER;
    if (t < this.runFrom) return this.runFrom;
    if (this.abortIn.q) {
      this.lat.stopAt(t);
      this.halt(t - 1);
      return NEVER;
    }
    const lat = this.lat;
    if (this._traced) lat.snapshot(t); // the values held during this cycle, for the waveform
    const q = lat.q;
    const d = q; // the in-place latch bank: lat.d is lat.q (see the header)
    // the latches read after the stage that writes them has run, as they were at the clock edge
    const mwValid = q[L_MW_VALID]!;
    const mwRd = mwValid ? q[L_MW_RD]! : 0;
    const mwVal = q[L_MW_VAL]!;
    const emValid = q[L_EM_VALID]!;
    // ---------------- WB: retire ----------------
    if (mwValid) {
      const trap = q[L_MW_TRAP];
      if (trap !== 0) {
        this.trapHalt(t, q[L_MW_PC], trap, q[L_MW_TVAL]);
        return NEVER;
      }
      if (mwRd !== 0) this.rf[mwRd] = mwVal;
      this.retired++;
      if (this.onRetire !== null) this.onRetire(q[L_MW_PC], q[L_MW_INSN], mwRd, mwRd !== 0 ? mwVal : 0);
      if (q[L_MW_EXIT]) {
        this.exitHalt(t);
        return NEVER;
      }
    }
    // ---------------- MEM ----------------
    if (emValid) {
      const trap = q[L_EM_TRAP];
      if (trap !== 0) return this.memTrap(t, trap);
      const emCtl = q[L_EM_CTL];
      const unit = emCtl & CTL_UNIT;
      const addr = q[L_EM_ADDR]! >>> 0;
      if ((unit === U_LOAD || unit === U_STORE) && this.stallIn.q && this.external(addr)) {
        // the external memory is not ready: hold every stage up to and including MEM
        this.stallMem++;
        d[L_MW_VALID] = 0;
        this.holdOperands(mwRd, mwVal);
        return t + 1;
      }
      let val = q[L_EM_VAL];
      const m = this.mem;
      if (unit === U_LOAD) {
        switch ((emCtl >>> 4) & 15) {
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
        const fn = (emCtl >>> 4) & 15;
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
      const unit = ctl & CTL_UNIT;
      const fn = (ctl >>> 4) & 15;
      const insn = q[L_DE_INSN];
      const pc = q[L_DE_PC];
      // forwarding (as forward(), written out): the newest in-flight result, else the value read in decode
      const rs1 = (insn >>> 15) & 31;
      const rs2 = (insn >>> 20) & 31;
      const emRd = emValid ? q[L_EM_RD] : 0;
      const a = rs1 === 0 ? 0 : rs1 === emRd ? q[L_EM_VAL] : rs1 === mwRd ? mwVal : q[L_DE_A];
      const b = rs2 === 0 ? 0 : rs2 === emRd ? q[L_EM_VAL] : rs2 === mwRd ? mwVal : q[L_DE_B];
      const imm = q[L_DE_IMM];
      let trap = q[L_DE_TRAP];
      let tval = trap === TRAP_FETCH_FAULT + 1 || trap === TRAP_BREAKPOINT + 1 ? pc : trap !== 0 ? insn : 0;
      let val = 0;
      let addr = 0;
      let target = -1;
      // the ALU forms first: the unit numbers are imported constants, so the switch below is a
      // chain of comparisons, not a jump table
      if (unit === U_ALU) val = alu(fn, a, (ctl & CTL_RS2) !== 0 ? b : imm);
      else switch (unit) {
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
          if (branchTaken(fn, a, b)) target = (pc + imm) | 0;
          break;
        case U_LOAD:
        case U_STORE: {
          addr = (a + imm) >>> 0;
          const size = 1 << (fn & 3);
          const load = unit === U_LOAD;
          if ((addr & (size - 1)) !== 0) trap = (load ? TRAP_MISALIGNED_LOAD : TRAP_MISALIGNED_STORE) + 1;
          else if (addr + size > this.params.memBytes && !this.external(addr)) trap = (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
          else if (!load && addr >= this.mem.roMin && addr < this.mem.roMax && this.mem.readOnly(addr)) trap = TRAP_STORE_FAULT + 1;
          else if (this.accessCheck !== null && !this.accessCheck(addr, size, !load)) trap = (load ? TRAP_LOAD_FAULT : TRAP_STORE_FAULT) + 1;
          if (trap !== 0) tval = addr;
          val = b;
          break;
        }
        case U_MUL:
          val = multiply(fn, a, b);
          break;
        case U_DIV:
          if (!this.div.cycle(fn, a, b)) {
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
        default: // fence (an ALU form whose result nobody writes)
          val = alu(fn, a, (ctl & CTL_RS2) !== 0 ? b : imm);
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
      d[L_EM_RD] = trap === 0 && ((ctl & CTL_RD) !== 0 || sys === SYS_RESULT) ? (sys === SYS_RESULT ? 10 : (insn >>> 7) & 31) : 0;
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
      // the decoded instruction: the decode ROM's control word and immediate, from the memo when it holds this word
      const pc = q[L_FD_PC];
      const dc = this.dc;
      const j = ((pc >>> 2) & DC_MASK) << 2;
      if (dc[j] !== insn) this.decodeInto(j, insn);
      const ctl = fault !== 0 ? U_ILLEGAL : dc[j + 1]!;
      const unit = ctl & CTL_UNIT;
      const rs1 = (insn >>> 15) & 31;
      const rs2 = (insn >>> 20) & 31;
      if (q[L_DE_VALID] && (q[L_DE_CTL] & CTL_UNIT) === U_LOAD) {
        const ld = (q[L_DE_INSN] >>> 7) & 31;
        if (ld !== 0 && (((ctl & CTL_RS1) !== 0 && rs1 === ld) || ((ctl & CTL_RS2) !== 0 && rs2 === ld))) {
          this.stallLoadUse++;
          d[L_DE_VALID] = 0;
          return t + 1;
        }
      }
      let sys = SYS_NONE;
      let a = this.rf[rs1]!;
      const b = this.rf[rs2]!;
      if (unit === U_SYSTEM) {
        if (q[L_DE_VALID] || emValid) {
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
      d[L_DE_PC] = pc;
      d[L_DE_INSN] = insn;
      d[L_DE_CTL] = ctl;
      d[L_DE_A] = a;
      d[L_DE_B] = b;
      d[L_DE_IMM] = unit === U_ILLEGAL ? 0 : dc[j + 2]!;
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

  /** MEM in cycle t holds an instruction with a trap: flush everything younger, stop fetching, hand the trap to WB. */
  private memTrap(t: number, trap: number): number {
    const q = this.lat.q;
    const d = this.lat.d;
    d[L_MW_VALID] = 1;
    d[L_MW_PC] = q[L_EM_PC]!;
    d[L_MW_INSN] = q[L_EM_INSN]!;
    d[L_MW_TRAP] = trap;
    d[L_MW_TVAL] = q[L_EM_TVAL]!;
    d[L_MW_RD] = 0;
    d[L_MW_EXIT] = 0;
    d[L_EM_VALID] = 0;
    d[L_DE_VALID] = 0;
    d[L_FD_VALID] = 0;
    d[L_FETCH_STOP] = 1;
    this.div.cancel();
    return t + 1;
  }

  /** Decode `insn` into the decode memo's entry at j. */
  private decodeInto(j: number, insn: number): void {
    const ctl = decodeControl(insn);
    this.dc[j] = insn;
    this.dc[j + 1] = ctl;
    this.dc[j + 2] = (ctl & CTL_UNIT) === U_ILLEGAL ? 0 : immediate(ctl, insn);
  }

  /** An operand as execute sees it: the newest in-flight result for `rs`, else the value read in decode (mwRd/mwVal: WB's latch at the clock edge, 0 when empty). */
  private forward(rs: number, fromDecode: number, mwRd: number, mwVal: number): number {
    if (rs === 0) return 0;
    const q = this.lat.q;
    if (q[L_EM_VALID] && q[L_EM_RD] === rs) return q[L_EM_VAL];
    if (mwRd === rs) return mwVal;
    return fromDecode;
  }

  /** Execute holds while memory stalls: keep its operands current as forwarding sources retire (MEM has written WB's latch: mwRd/mwVal are its values at the clock edge). */
  private holdOperands(mwRd: number, mwVal: number): void {
    const q = this.lat.q;
    const d = this.lat.d;
    if (!q[L_DE_VALID]) return;
    const insn = q[L_DE_INSN];
    d[L_DE_A] = this.forward((insn >>> 15) & 31, q[L_DE_A], mwRd, mwVal);
    d[L_DE_B] = this.forward((insn >>> 20) & 31, q[L_DE_B], mwRd, mwVal);
  }

  protected cancelUnits(): void {
    this.div.cancel();
  }
}
