import type { Channel, Component } from '../kernel/index.ts';
import { Pipeline } from '../kernel/index.ts';

/**
 * One direction of a serial link inside a component: a round-robin choice among input channels,
 * a serializer that holds the wire for (bytes + header) / bytesPerCycle cycles (fractional: the
 * wire runs at exactly its rate over many packets), a flight delay line of `flightCycles` stages,
 * and delivery to the output channel the route function picks. At most one packet enters the
 * serializer and one leaves the delay line per cycle. If the chosen output is full the delay line
 * stalls (and with it the wire).
 *
 * `step(t)` is called once per cycle by the owning component, which must be the consumer of every
 * input and the producer of every output. Returns true while it holds packets or inputs wait.
 */
export class Lane<T> {
  private readonly line: Pipeline<T>;
  /** serialized packets waiting to enter the delay line, with the cycle they may */
  private readonly q: T[] = [];
  private readonly qAt: number[] = [];
  private wireFree = 0;
  private ptr = 0;
  bytesMoved = 0;
  packets = 0;

  constructor(
    owner: Component,
    name: string,
    private readonly inputs: Channel<T>[],
    private readonly outputs: Channel<T>[],
    private readonly route: (p: T) => number,
    private readonly wireBytes: (p: T) => number,
    readonly bytesPerCycle: number,
    flightCycles: number,
    /** inputs whose head another lane of the owner took this cycle (shared inputs) */
    private readonly used: Uint8Array | null = null,
  ) {
    if (!(bytesPerCycle > 0)) throw new RangeError(`${owner.path}.${name}: bytesPerCycle must be > 0, got ${bytesPerCycle}`);
    this.line = new Pipeline<T>(owner, name, Math.max(1, flightCycles));
  }

  /** One cycle; `wants` (shared inputs) says whether a head packet is this lane's to take. */
  step(t: number, wants: ((p: T) => boolean) | null = null): boolean {
    const line = this.line;
    let stalled = false;
    if (line.valid()) {
      const out = this.outputs[this.route(line.out())]!;
      if (out.canPush()) out.push(line.take());
      else {
        line.stall();
        stalled = true;
      }
    }
    if (!stalled && this.q.length > 0 && this.qAt[0]! <= t) {
      this.qAt.shift();
      line.push(this.q.shift()!);
    }
    if (this.wireFree <= t + 1 && this.q.length < 4) {
      const n = this.inputs.length;
      for (let k = 0; k < n; k++) {
        let i = this.ptr + k;
        if (i >= n) i -= n;
        const ch = this.inputs[i]!;
        if (this.used !== null && this.used[i] !== 0) continue;
        if (!ch.canPop()) continue;
        const p = ch.peek();
        if (wants !== null && !wants(p)) continue;
        ch.pop();
        if (this.used !== null) this.used[i] = 1;
        this.ptr = i + 1 === n ? 0 : i + 1;
        const b = this.wireBytes(p);
        const start = Math.max(t, this.wireFree);
        this.wireFree = start + b / this.bytesPerCycle;
        this.q.push(p);
        this.qAt.push(Math.max(t + 1, Math.ceil(this.wireFree)));
        this.bytesMoved += b;
        this.packets++;
        break;
      }
    }
    if (stalled || this.q.length > 0 || line.occupancy() > 0) return true;
    for (let i = 0; i < this.inputs.length; i++) if (this.inputs[i]!.canPop()) return true;
    return false;
  }

  /** Cycle of the next internal event, for a component that wants to sleep. */
  nextEvent(t: number): number {
    if (this.q.length > 0) return Math.max(t + 1, this.qAt[0]!);
    const r = this.line.readyCycle();
    return r;
  }

  reset(): void {
    this.q.length = 0;
    this.qAt.length = 0;
    this.wireFree = 0;
    this.ptr = 0;
  }
}
