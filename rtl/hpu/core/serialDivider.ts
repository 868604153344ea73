/**
 * RI5CY's (CV32E40P's) serial divider for div/divu/rem/remu, as its user manual ("Instruction
 * latencies": division and remainder 3..35 cycles, by the leading zeros of the divisor) and its
 * RTL (cv32e40p_alu_div: states IDLE, DIVIDE, FINISH) describe it: in the first cycle the
 * operands are loaded and the divisor is normalised, shifted left by s; then s + 1 divide cycles
 * each produce one quotient bit (compare, subtract, shift the divisor right); in the last cycle
 * the result is valid. An operation occupies execute for 3 + s cycles, where s is the divisor's
 * leading zeros (32 for a zero divisor: 35 cycles), or for a negative divisor of a signed
 * operation its leading ones minus one. Here the arithmetic is on magnitudes with the sign fix-up
 * and the RISC-V special cases (division by zero: quotient all ones, remainder the dividend;
 * -2^31 / -1: quotient -2^31, remainder 0) on the way out. State is in registers.
 */
import { type Component, Reg } from '../../kernel/index.ts';

const IDLE = 0;
const DIVIDE = 1;
const FINISH = 2;

/** The normalisation shift s of divisor b for operation f3 (4 div, 5 divu, 6 rem, 7 remu): the operation takes 3 + s cycles. */
export function divShift(f3: number, b: number): number {
  const signed = (f3 & 1) === 0;
  return signed && b < 0 ? Math.clz32(~b) - 1 : Math.clz32(b);
}

export class SerialDivider {
  /** IDLE, DIVIDE or FINISH */
  readonly state: Reg;
  private readonly cnt: Reg; // divide cycles left after this one
  private readonly rem: Reg; // partial remainder (unsigned magnitude)
  private readonly dvs: Reg; // the shifted divisor magnitude
  private readonly quo: Reg; // quotient bits so far
  /** the result, valid when cycle() returned true */
  result = 0;

  constructor(owner: Component) {
    this.state = new Reg(owner, 'sdiv_state', 2);
    this.cnt = new Reg(owner, 'sdiv_cnt', 6);
    this.rem = new Reg(owner, 'sdiv_rem', 32);
    this.dvs = new Reg(owner, 'sdiv_dvs', 32);
    this.quo = new Reg(owner, 'sdiv_quo', 32);
  }

  /**
   * One cycle of operation f3 on a (dividend) and b (divisor), which stay on execute's inputs
   * while it runs. Returns true in the cycle the result is valid (the divider is idle from the
   * next cycle).
   */
  cycle(f3: number, a: number, b: number): boolean {
    const st = this.state.q;
    if (st === IDLE) {
      const signed = (f3 & 1) === 0;
      const s = divShift(f3, b);
      const ub = signed && b < 0 ? -b >>> 0 : b >>> 0;
      this.rem.d = signed && a < 0 ? -a >>> 0 : a >>> 0;
      this.dvs.d = s >= 32 ? 0 : ub * 2 ** s;
      this.quo.d = 0;
      this.cnt.d = s;
      this.state.d = DIVIDE;
      return false;
    }
    if (st === DIVIDE) {
      let r = this.rem.q;
      const dv = this.dvs.q;
      const bit = r >= dv ? 1 : 0;
      if (bit === 1) r -= dv;
      this.rem.d = r;
      this.dvs.d = Math.floor(dv / 2);
      this.quo.d = ((this.quo.q * 2) >>> 0) + bit;
      const c = this.cnt.q;
      if (c === 0) this.state.d = FINISH;
      else this.cnt.d = c - 1;
      return false;
    }
    this.state.d = IDLE;
    const signed = (f3 & 1) === 0;
    const isRem = f3 >= 6;
    if (b === 0) this.result = isRem ? a : -1;
    else if (isRem) this.result = signed && a < 0 ? -this.rem.q | 0 : this.rem.q | 0;
    else this.result = signed && a < 0 !== b < 0 ? -this.quo.q | 0 : this.quo.q | 0;
    return true;
  }

  /** Abandon an operation (its instruction was flushed, or the core restarts). */
  cancel(): void {
    this.state.d = IDLE;
  }
}
