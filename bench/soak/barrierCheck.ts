/**
 * Checks a barrier loop as it runs, for the CORE-Direct soak entries: it observes every rank
 * entering and leaving each barrier (rtl/coredirect's BarrierObserver) and judges each barrier as
 * its last rank leaves, then drops it. Rules: a rank enters barrier k + 1 only after leaving
 * barrier k (ranks go through barriers in order, once each); nobody leaves barrier k before every
 * rank has entered it; every rank leaves. Kept: per rank its current barrier, and a window of four
 * barriers (a rank can be at most one barrier ahead of the slowest one still open, so a wider
 * spread is itself a violation).
 */
import type { BarrierObserver } from '../../rtl/coredirect/host.ts';

const WINDOW = 4;

export class BarrierChecker implements BarrierObserver {
  /** barriers every rank has left */
  barriers = 0;
  violations = 0;
  /** problems not yet reported (the soak's check takes them) */
  readonly problems: string[] = [];
  /** per rank: the barrier it is in (entered, not left), or the next one it will enter */
  private readonly at: Float64Array;
  private readonly inside: Uint8Array;
  /** per window slot: the barrier it holds (-1 none), ranks entered / left, last entry and last leave cycles */
  private readonly slotIter = new Float64Array(WINDOW).fill(-1);
  private readonly entered = new Int32Array(WINDOW);
  private readonly left = new Int32Array(WINDOW);
  private readonly lastEnter = new Float64Array(WINDOW);
  private readonly lastLeave = new Float64Array(WINDOW);
  /** sum of (last leave - last entry) over finished barriers */
  private spanSum = 0;

  constructor(readonly procs: number) {
    this.at = new Float64Array(procs);
    this.inside = new Uint8Array(procs);
  }

  meanCycles(): number {
    return this.barriers === 0 ? 0 : this.spanSum / this.barriers;
  }

  enter(rank: number, iter: number, t: number): void {
    if (this.inside[rank] !== 0 || this.at[rank] !== iter) this.fail(`rank ${rank} entered barrier ${iter} at cycle ${t} while ${this.inside[rank] ? 'inside' : 'before'} barrier ${this.at[rank]}`);
    this.inside[rank] = 1;
    this.at[rank] = iter;
    const s = iter % WINDOW;
    if (this.slotIter[s] !== iter) {
      if (this.slotIter[s]! >= 0) this.fail(`rank ${rank} entered barrier ${iter} at cycle ${t} while barrier ${this.slotIter[s]} is still open (${this.left[s]} of ${this.procs} ranks left it)`);
      this.slotIter[s] = iter;
      this.entered[s] = 0;
      this.left[s] = 0;
    }
    this.entered[s]!++;
    this.lastEnter[s] = t;
  }

  leave(rank: number, iter: number, t: number): void {
    if (this.inside[rank] !== 1 || this.at[rank] !== iter) this.fail(`rank ${rank} left barrier ${iter} at cycle ${t} without being in it`);
    this.inside[rank] = 0;
    this.at[rank] = iter + 1;
    const s = iter % WINDOW;
    if (this.slotIter[s] !== iter) return this.fail(`rank ${rank} left barrier ${iter} at cycle ${t}, which no rank entered`);
    if (this.entered[s]! < this.procs) this.fail(`rank ${rank} left barrier ${iter} at cycle ${t} when only ${this.entered[s]} of ${this.procs} ranks had entered it`);
    this.left[s]!++;
    this.lastLeave[s] = t;
    if (this.left[s] === this.procs) {
      this.barriers++;
      this.spanSum += this.lastLeave[s]! - this.lastEnter[s]!;
      this.slotIter[s] = -1; // judged: dropped
    }
  }

  private fail(m: string): void {
    this.violations++;
    if (this.problems.length < 10) this.problems.push(m);
  }
}
