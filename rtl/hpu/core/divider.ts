/**
 * The HPU core's multi-cycle divider (div, divu, rem, remu): a restoring radix-2 divider on
 * magnitudes, ceil(32 / latency) quotient bits per cycle, with the sign fix-up and the RISC-V
 * special cases (division by zero: quotient all ones, remainder the dividend; overflow
 * -2^31 / -1: quotient -2^31, remainder 0) applied on the way out. An operation occupies the
 * execute stage for exactly `latency` cycles: started in cycle s, its result is ready in cycle
 * s + latency - 1 (latency 1 = combinational). State is in registers.
 */
import { type Component, Reg } from '../../kernel/index.ts';

export class Divider {
  /** 1 while an operation is in progress */
  readonly busy: Reg;
  /** cycles the current operation has spent */
  private readonly count: Reg;
  private readonly rem: Reg; // partial remainder (unsigned 32-bit as a number)
  private readonly quo: Reg; // quotient bits so far / remaining dividend bits shifted in
  private readonly bitsDone: Reg;
  private readonly bitsPerCycle: number;

  constructor(owner: Component, readonly latency: number) {
    if (!Number.isInteger(latency) || latency < 1 || latency > 64) throw new RangeError(`divider latency ${latency}: expected an integer 1..64`);
    this.busy = new Reg(owner, 'div_busy', 1);
    this.count = new Reg(owner, 'div_count', 7);
    this.rem = new Reg(owner, 'div_rem', 32);
    this.quo = new Reg(owner, 'div_quo', 32);
    this.bitsDone = new Reg(owner, 'div_bits', 6);
    this.bitsPerCycle = Math.ceil(32 / latency);
  }

  /**
   * One cycle of the operation `f3` (4 div, 5 divu, 6 rem, 7 remu) on a, b (the operands stay
   * on the execute stage's inputs while it runs). Returns true when the result is ready this cycle
   * (then `result` holds it and the divider is idle from the next cycle).
   */
  result = 0;
  cycle(f3: number, a: number, b: number): boolean {
    const signed = f3 === 4 || f3 === 6;
    const ua = signed && a < 0 ? -a >>> 0 : a >>> 0;
    const ub = signed && b < 0 ? -b >>> 0 : b >>> 0;
    let rem: number;
    let quo: number;
    let done: number;
    let count: number;
    if (this.busy.q === 0) {
      rem = 0;
      quo = ua; // dividend bits are shifted out of the top while quotient bits come in at the bottom
      done = 0;
      count = 0;
    } else {
      rem = this.rem.q;
      quo = this.quo.q;
      done = this.bitsDone.q;
      count = this.count.q;
    }
    for (let i = 0; i < this.bitsPerCycle && done < 32; i++, done++) {
      rem = rem * 2 + (quo >>> 31);
      quo = (quo << 1) >>> 0;
      if (rem >= ub) {
        rem -= ub;
        quo |= 1;
      }
      quo >>>= 0;
    }
    if (count + 1 < this.latency) {
      this.busy.d = 1;
      this.count.d = count + 1;
      this.rem.d = rem;
      this.quo.d = quo;
      this.bitsDone.d = done;
      return false;
    }
    this.busy.d = 0;
    const isRem = f3 >= 6;
    if (b === 0) this.result = isRem ? a : -1;
    else if (isRem) this.result = signed && a < 0 ? -rem | 0 : rem | 0;
    else this.result = signed && a < 0 !== b < 0 ? -quo | 0 : quo | 0;
    return true;
  }

  /** Abandon an operation (its instruction was flushed). */
  cancel(): void {
    this.busy.d = 0;
  }
}
