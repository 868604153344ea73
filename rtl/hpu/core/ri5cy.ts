/**
 * One HPU core in PsPIN's organisation: RI5CY (CV32E40P), an in-order RV32IM pipeline of four
 * stages, instruction fetch (IF), decode (ID), execute (EX) and writeback (WB), register-transfer
 * style on the kernel like the five-stage core (rtl/hpu/core/core.ts, whose decoder, ALU and
 * multiplier it shares): the latches are one two-phase bank, tick() reads `.q` and writes `.d`,
 * evaluated WB, EX, ID, IF, so that a register written by WB or EX in a cycle is read by ID in
 * that cycle (RI5CY's forwarding from EX and WB into ID).
 *
 * Cycle behaviour after the CV32E40P user manual ("Pipeline details", "Instruction latencies")
 * and controller: operands are read (and forwarded) in ID; ALU, multiplier and divider results
 * are written from EX; loads and stores access memory in WB, a load's data is written there.
 * - Jumps (jal, jalr) are taken in ID: the fetch of the next instruction is discarded, 1 cycle
 *   (a jump takes 2). The redirect happens even while ID is held, once, so a stall hides it.
 * - jalr waits in ID while the instruction in EX, or a load in WB, writes its register (the jump
 *   target has no forwarding path): 1 cycle after an ALU result, 2 right after a load.
 * - Branches are resolved in EX; a taken one flushes IF and ID: 2 cycles (a taken branch takes 3).
 * - A load followed by an instruction that reads its destination, or writes it from EX (any
 *   non-load), stalls ID 1 cycle; the loaded value is forwarded from WB after that.
 * - mul takes 1 cycle, mulh/mulhsu/mulhu 5 (execute held 4); div/divu/rem/remu 3..35 by the
 *   divisor (serialDivider.ts).
 * - ecall (a modelling device: RI5CY runs no operating system) waits in ID until EX is empty,
 *   then performs the Linux user ABI call there, as in the five-stage core.
 * - The stall input holds a load/store to the external range in WB, and everything behind it.
 * Traps are precise: ID flags illegal instructions, ebreak, fetch faults and misaligned jump
 * targets; EX flags misaligned branch targets and bad accesses; a flagged instruction in EX
 * flushes ID and IF, stops fetch and goes to WB, where the core halts without retiring it.
 * Every instruction retires in WB (the trace and the cycle count: retired + 3 + stalls).
 */
import { NEVER, type Scope } from '../../kernel/index.ts';
import * as ALU from './alu.ts';
import * as DEC from './decode.ts';
import { SerialDivider } from './serialDivider.ts';
import type { HpuMemory } from './memory.ts';
import { EBREAK, HpuCoreBase, type HpuCoreParams, type HpuProgram, SYS_EXIT, SYS_NONE, SYS_RESULT, SYSCALL_RETRY, TRAP_BREAKPOINT, TRAP_ILLEGAL, TRAP_MISALIGNED_FETCH } from './coreBase.ts';

const { alu, branchTaken, multiply } = ALU;
const { ctlFn, ctlReadsRs1, ctlReadsRs2, ctlUnit, ctlWritesRd, decodeControl, immediate, U_AUIPC, U_BRANCH, U_DIV, U_ILLEGAL, U_JAL, U_JALR, U_LOAD, U_LUI, U_MUL, U_STORE, U_SYSTEM } = DEC;

/** cycles mulh, mulhsu and mulhu spend in EX (CV32E40P user manual: 5) */
export const RI5CY_MULH_CYCLES = 5;

// latch numbers (IF/ID fd_*, ID/EX de_*, EX/WB ew_*)
const L_PC = 0; // pc .. fd_fault: the same latches as the five-stage core's (HpuCoreBase.fetchStage)
const L_FETCH_STOP = 1;
const L_FD_VALID = 2;
const L_FD_PC = 3;
const L_FD_INSN = 4;
const L_FD_FAULT = 5;
const L_JUMP_DONE = 6; // the jump in ID has redirected fetch already (while ID was held)
const L_MUL_CNT = 7; // cycles the mulh in EX has spent
const L_DE_VALID = 8;
const L_DE_PC = 9;
const L_DE_INSN = 10;
const L_DE_CTL = 11;
const L_DE_A = 12;
const L_DE_B = 13;
const L_DE_IMM = 14;
const L_DE_TRAP = 15;
const L_DE_TVAL = 16;
const L_DE_SYS = 17;
const L_DE_RD = 18; // the register the instruction writes (0: none)
const L_EW_VALID = 19;
const L_EW_PC = 20;
const L_EW_INSN = 21;
const L_EW_CTL = 22;
const L_EW_VAL = 23;
const L_EW_ADDR = 24;
const L_EW_RD = 25;
const L_EW_TRAP = 26;
const L_EW_TVAL = 27;
const L_EW_EXIT = 28;
const LATCH_NAMES = ['pc', 'fetch_stop', 'fd_valid', 'fd_pc', 'fd_insn', 'fd_fault', 'jump_done', 'mul_cnt', 'de_valid', 'de_pc', 'de_insn', 'de_ctl', 'de_a', 'de_b', 'de_imm', 'de_trap', 'de_tval', 'de_sys', 'de_rd', 'ew_valid', 'ew_pc', 'ew_insn', 'ew_ctl', 'ew_val', 'ew_addr', 'ew_rd', 'ew_trap', 'ew_tval', 'ew_exit'];
const LATCH_WIDTHS = [32, 1, 1, 32, 32, 4, 1, 3, 1, 32, 32, 16, 32, 32, 32, 4, 32, 2, 5, 1, 32, 32, 16, 32, 32, 5, 4, 32, 1];

export class Ri5cyCore extends HpuCoreBase {
  readonly fillCycles = 3;
  private readonly div: SerialDivider;

  constructor(parent: Scope, name: string, program: HpuProgram, params: Partial<HpuCoreParams> = {}, memory?: HpuMemory) {
    super(parent, name, program, params, memory, LATCH_NAMES, LATCH_WIDTHS);
    this.div = new SerialDivider(this);
  }

  tick(t: number): number {
    const wait = this.beginCycle(t);
    if (wait !== -1) return wait;
    const q = this.lat.q;
    const d = this.lat.d;
    const rf = this.rf;
    // ---------------- WB: memory access, load write, retire ----------------
    if (q[L_EW_VALID]) {
      const trap = q[L_EW_TRAP];
      if (trap !== 0) {
        this.trapHalt(t, q[L_EW_PC], trap, q[L_EW_TVAL]);
        return NEVER;
      }
      const unit = ctlUnit(q[L_EW_CTL]);
      const addr = q[L_EW_ADDR]! >>> 0;
      let val = q[L_EW_VAL];
      if (unit === U_LOAD || unit === U_STORE) {
        if (this.stallIn.q && this.external(addr)) {
          // the external memory has not answered: WB and every stage behind it hold
          this.stallMem++;
          return t + 1;
        }
        if (unit === U_LOAD) {
          val = this.loadWord(ctlFn(q[L_EW_CTL]), addr);
          if (q[L_EW_RD] !== 0) rf[q[L_EW_RD]] = val;
        } else this.storeWord(ctlFn(q[L_EW_CTL]), addr, val);
      }
      const rd = q[L_EW_RD];
      if (this.retire(t, q[L_EW_PC], q[L_EW_INSN], rd, val, q[L_EW_EXIT])) return NEVER;
    }
    // ---------------- EX ----------------
    let exBusy = false;
    if (q[L_DE_VALID]) {
      const ctl = q[L_DE_CTL];
      const unit = ctlUnit(ctl);
      const pc = q[L_DE_PC];
      const a = q[L_DE_A];
      const b = q[L_DE_B];
      const imm = q[L_DE_IMM];
      let trap = q[L_DE_TRAP];
      let tval = q[L_DE_TVAL];
      let val = 0;
      let addr = 0;
      let target = -1;
      if (trap === 0) {
        switch (unit) {
          case U_LUI:
            val = imm;
            break;
          case U_AUIPC:
          case U_JAL:
          case U_JALR:
            val = unit === U_AUIPC ? (pc + imm) | 0 : (pc + 4) | 0; // a jump's link (its target was taken in ID)
            break;
          case U_BRANCH:
            if (branchTaken(ctlFn(ctl), a, b)) target = (pc + imm) | 0;
            break;
          case U_LOAD:
          case U_STORE:
            addr = (a + imm) >>> 0;
            trap = this.accessTrap(addr, 1 << (ctlFn(ctl) & 3), unit === U_LOAD);
            if (trap !== 0) tval = addr;
            val = b;
            break;
          case U_MUL:
            if (ctlFn(ctl) !== 0 && q[L_MUL_CNT] < RI5CY_MULH_CYCLES - 1) {
              d[L_MUL_CNT] = q[L_MUL_CNT] + 1;
              this.stallMul++;
              exBusy = true;
            } else {
              d[L_MUL_CNT] = 0;
              val = multiply(ctlFn(ctl), a, b);
            }
            break;
          case U_DIV:
            if (this.div.cycle(ctlFn(ctl), a, b)) val = this.div.result;
            else {
              this.stallDiv++;
              exBusy = true;
            }
            break;
          case U_SYSTEM:
            val = a; // the system call's result (decode performed it)
            break;
          default: // ALU register/immediate forms (and fence, which writes nothing)
            val = alu(ctlFn(ctl), a, ctlReadsRs2(ctl) ? b : imm);
        }
        if (target !== -1 && (target & 3) !== 0) {
          trap = TRAP_MISALIGNED_FETCH + 1;
          tval = target;
        }
      }
      if (exBusy) d[L_EW_VALID] = 0;
      else {
        d[L_EW_VALID] = 1;
        d[L_EW_PC] = pc;
        d[L_EW_INSN] = q[L_DE_INSN];
        d[L_EW_CTL] = ctl;
        d[L_EW_VAL] = val;
        d[L_EW_ADDR] = addr;
        d[L_EW_TRAP] = trap;
        d[L_EW_TVAL] = tval;
        d[L_EW_EXIT] = q[L_DE_SYS] === SYS_EXIT ? 1 : 0;
        if (trap !== 0) {
          // precise trap: flush ID and IF, stop fetching, hand the trap to WB
          d[L_EW_RD] = 0;
          d[L_DE_VALID] = 0;
          d[L_FD_VALID] = 0;
          d[L_FETCH_STOP] = 1;
          d[L_JUMP_DONE] = 0;
          return t + 1;
        }
        const rd = q[L_DE_RD];
        d[L_EW_RD] = rd;
        if (rd !== 0 && unit !== U_LOAD) rf[rd] = val; // EX's write port
        if (target !== -1) {
          // taken branch: redirect fetch, flush ID and IF
          this.stallBranch += 2;
          d[L_PC] = target;
          d[L_FD_VALID] = 0;
          d[L_DE_VALID] = 0;
          d[L_JUMP_DONE] = 0;
          return t + 1;
        }
      }
    } else d[L_EW_VALID] = 0;
    // ---------------- ID ----------------
    if (!q[L_FD_VALID]) {
      if (exBusy) return t + 1;
      d[L_DE_VALID] = 0;
    } else {
      const insn = q[L_FD_INSN];
      const fault = q[L_FD_FAULT];
      const ctl = fault !== 0 ? U_ILLEGAL : decodeControl(insn);
      const unit = ctlUnit(ctl);
      const rs1 = (insn >>> 15) & 31;
      const rs2 = (insn >>> 20) & 31;
      const rd = ctlWritesRd(ctl) ? (insn >>> 7) & 31 : 0;
      // the instruction in EX this cycle, and a load in WB, by the registers they write
      const exRd = q[L_DE_VALID] ? q[L_DE_RD] : 0;
      const exLoad = q[L_DE_VALID] !== 0 && ctlUnit(q[L_DE_CTL]) === U_LOAD;
      const jrHazard = unit === U_JALR && rs1 !== 0 && (exRd === rs1 || (q[L_EW_VALID] !== 0 && ctlUnit(q[L_EW_CTL]) === U_LOAD && q[L_EW_RD] === rs1));
      // a jump redirects fetch from ID, also while ID is held, once; not while its register is in flight
      let target = 0;
      let redirect = false;
      if ((unit === U_JAL || unit === U_JALR) && !jrHazard) {
        target = unit === U_JAL ? (q[L_FD_PC] + immediate(ctl, insn)) | 0 : ((rf[rs1]! + immediate(ctl, insn)) | 0) & -2;
        redirect = (target & 3) === 0 && !q[L_JUMP_DONE];
        if (redirect) d[L_PC] = target;
      }
      if (exBusy) {
        if (redirect) d[L_JUMP_DONE] = 1;
        return t + 1;
      }
      let stall = false;
      if (exLoad && ((exRd !== 0 && ((ctlReadsRs1(ctl) && rs1 === exRd) || (ctlReadsRs2(ctl) && rs2 === exRd))) || (unit !== U_LOAD && ctlWritesRd(ctl) && ((insn >>> 7) & 31) === ((q[L_DE_INSN] >>> 7) & 31)))) {
        this.stallLoadUse++; // load-use, or a write to the load's destination
        stall = true;
      } else if (jrHazard) {
        this.stallJr++;
        stall = true;
      } else if (unit === U_SYSTEM && q[L_DE_VALID]) {
        this.stallEcall++; // serialise: the older instructions leave EX first
        stall = true;
      }
      let sys = SYS_NONE;
      let a = rf[rs1]!;
      if (!stall && unit === U_SYSTEM) {
        if (rf[17] === 93) sys = SYS_EXIT;
        else {
          sys = SYS_RESULT;
          a = this.syscall();
          if (a === SYSCALL_RETRY) {
            this.stallEcall++; // the runtime's service is not done: hold the ecall in ID
            stall = true;
          }
        }
      }
      if (stall) {
        d[L_DE_VALID] = 0;
        if (redirect) d[L_JUMP_DONE] = 1;
        return t + 1;
      }
      let trap = fault !== 0 ? fault : unit !== U_ILLEGAL ? 0 : insn === EBREAK ? TRAP_BREAKPOINT + 1 : TRAP_ILLEGAL + 1;
      let tval = trap === TRAP_ILLEGAL + 1 ? insn : q[L_FD_PC];
      if ((unit === U_JAL || unit === U_JALR) && (target & 3) !== 0) {
        trap = TRAP_MISALIGNED_FETCH + 1;
        tval = target;
      }
      d[L_DE_VALID] = 1;
      d[L_DE_PC] = q[L_FD_PC];
      d[L_DE_INSN] = insn;
      d[L_DE_CTL] = ctl;
      d[L_DE_A] = a;
      d[L_DE_B] = rf[rs2]!;
      d[L_DE_IMM] = unit === U_ILLEGAL ? 0 : immediate(ctl, insn);
      d[L_DE_TRAP] = trap;
      d[L_DE_TVAL] = tval;
      d[L_DE_SYS] = sys;
      d[L_DE_RD] = trap !== 0 ? 0 : sys === SYS_RESULT ? 10 : rd;
      d[L_JUMP_DONE] = 0;
      if (sys === SYS_EXIT) {
        d[L_FD_VALID] = 0;
        d[L_FETCH_STOP] = 1;
        return t + 1;
      }
      if (redirect) {
        // the jump's fetch slot is lost: the instruction fetched this cycle is discarded
        this.stallBranch++;
        d[L_FD_VALID] = 0;
        return t + 1;
      }
    }
    return this.fetchStage(t);
  }

  protected cancelUnits(): void {
    this.div.cancel();
  }
}
