import { Channel, Component, type Counter, NEVER, NumChannel, type Scope } from '../../kernel/index.ts';
import { type PcieTiming } from './config.ts';
import { TLP_CPLD, TLP_MRD, type Tlp } from './tlp.ts';

/** Credits a receiver advertises for one ordering class; headers < 0 means infinite (no returns). */
export interface ClassCredits {
  headers: number;
  /** 16-byte data credits (ignored when headers < 0, and for header-only TLPs) */
  data: number;
}

/**
 * One direction of the PCIe link: two ordering classes, a serializer at the link rate, a fixed
 * flight latency and credit-based flow control.
 *
 * Class A is posted (memory writes); class B is the class that must not pass A (read requests
 * upstream, completions downstream). The sender pushes TLPs into `inA` / `inB` stamped with
 * increasing `seq`. Ordering rule, one decision per cycle when the serializer is free:
 *   - A head eligible  := visible and the receiver has header and data credits for it;
 *   - B head eligible  := visible, credits, and no older A is waiting (B.seq < A.head.seq or A empty);
 *   - send the eligible head with the lower seq (so A passes a blocked B, never the reverse).
 * Serialization: a TLP of W wire bytes that starts at tick s (s = max(link free, t * cycleTicks))
 * ends at s + W * byteTicks; the receiver can pop it from `outA` / `outB` in cycle
 * ceil(end / cycleTicks) + flightCycles. The link is free for the next TLP in the cycle in which
 * the previous one ends, so back-to-back TLPs run at exactly the line rate (at most one TLP starts
 * per cycle). The receiver returns a class's credits for each TLP it pops through `creditA` /
 * `creditB` (A: the data credits it freed; B: 1); they are usable `creditReturnCycles` later.
 */
export class PcieDirection extends Component {
  readonly inA: Channel<Tlp>;
  readonly inB: Channel<Tlp>;
  readonly outA: Channel<Tlp>;
  readonly outB: Channel<Tlp>;
  readonly creditA: NumChannel;
  readonly creditB: NumChannel;
  private hdrA: number;
  private datA: number;
  private hdrB: number;
  private readonly infA: boolean;
  private readonly infB: boolean;
  private freeTicks = 0;
  // in flight, per class, in arrival order
  private readonly flightA: Tlp[] = [];
  private readonly flightB: Tlp[] = [];
  private headA = 0;
  private headB = 0;
  private readonly cTlps: Counter;
  private readonly cPayload: Counter;
  private readonly cWire: Counter;

  constructor(
    parent: Scope,
    name: string,
    private readonly timing: PcieTiming,
    private readonly credA: ClassCredits,
    private readonly credB: ClassCredits,
    private readonly overheads: { req: number; cpl: number },
    creditReturnCycles: number,
  ) {
    super(parent, name);
    this.inA = new Channel<Tlp>(this, 'inA', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.inB = new Channel<Tlp>(this, 'inB', { capacity: 4, latency: 1 }).bindConsumer(this);
    this.outA = new Channel<Tlp>(this, 'outA', { capacity: credA.headers < 0 ? 64 : credA.headers + 1, latency: 1 }).bindProducer(this);
    this.outB = new Channel<Tlp>(this, 'outB', { capacity: credB.headers < 0 ? 64 : credB.headers + 1, latency: 1 }).bindProducer(this);
    this.creditA = new NumChannel(this, 'creditA', { capacity: creditReturnCycles + 2, latency: creditReturnCycles }).bindConsumer(this);
    this.creditB = new NumChannel(this, 'creditB', { capacity: creditReturnCycles + 2, latency: creditReturnCycles }).bindConsumer(this);
    this.infA = credA.headers < 0;
    this.infB = credB.headers < 0;
    this.hdrA = credA.headers;
    this.datA = credA.data;
    this.hdrB = credB.headers;
    this.cTlps = this.counter('tlps');
    this.cPayload = this.counter('payload_bytes');
    this.cWire = this.counter('wire_bytes');
  }

  override reset(): void {
    this.hdrA = this.credA.headers;
    this.datA = this.credA.data;
    this.hdrB = this.credB.headers;
    this.freeTicks = 0;
    this.flightA.length = 0;
    this.flightB.length = 0;
    this.headA = 0;
    this.headB = 0;
  }

  /** Credits available now (for tests and traces): [A headers, A data, B headers]; -1 = infinite. */
  credits(): [number, number, number] {
    return [this.infA ? -1 : this.hdrA, this.infA ? -1 : this.datA, this.infB ? -1 : this.hdrB];
  }

  /** TLPs serialized or in flight, not yet popped by the receiver's channel. */
  get inFlight(): number {
    return this.flightA.length - this.headA + this.flightB.length - this.headB;
  }

  /** Tick at which the link finishes the TLP it is sending (utilisation: wire_bytes * byteTicks / (cycles * cycleTicks)). */
  get busyUntilTicks(): number {
    return this.freeTicks;
  }

  private wireBytes(p: Tlp): number {
    if (p.kind === TLP_MRD) return this.overheads.req;
    return p.len + (p.kind === TLP_CPLD ? this.overheads.cpl : this.overheads.req);
  }

  private okA(p: Tlp): boolean {
    return this.infA || (this.hdrA > 0 && this.datA >= Math.ceil(p.len / 16));
  }

  private send(t: number, p: Tlp, ring: Tlp[]): void {
    const C = this.timing.cycleTicks;
    const start = Math.max(this.freeTicks, t * C);
    const w = this.wireBytes(p);
    const end = start + w * this.timing.byteTicks;
    this.freeTicks = end;
    p.sentCycle = t;
    p.arriveCycle = Math.ceil(end / C) + this.timing.flightCycles;
    ring.push(p);
    this.cTlps.inc();
    this.cPayload.inc(p.kind === TLP_MRD ? 0 : p.len);
    this.cWire.inc(w);
  }

  private deliver(t: number, ring: Tlp[], head: number, out: Channel<Tlp>): number {
    while (head < ring.length && ring[head]!.arriveCycle <= t + 1 && out.canPush()) {
      out.push(ring[head]!);
      ring[head] = undefined as unknown as Tlp;
      head++;
    }
    if (head === ring.length) {
      ring.length = 0;
      return 0;
    }
    if (head > 256) {
      ring.copyWithin(0, head);
      ring.length -= head;
      return 0;
    }
    return head;
  }

  tick(t: number): number {
    // credit returns (UpdateFC), one per class per cycle
    if (this.creditA.canPop()) {
      this.datA += this.creditA.pop();
      this.hdrA++;
    }
    if (this.creditB.canPop()) {
      this.creditB.pop();
      this.hdrB++;
    }
    // deliveries: TLPs whose arrival cycle is t + 1 become visible then
    this.headA = this.deliver(t, this.flightA, this.headA, this.outA);
    this.headB = this.deliver(t, this.flightB, this.headB, this.outB);
    // transmit: the ordering rule
    const C = this.timing.cycleTicks;
    const hasA = this.inA.canPop();
    const hasB = this.inB.canPop();
    if ((hasA || hasB) && this.freeTicks < (t + 1) * C) {
      const a = hasA ? this.inA.peek() : null;
      const b = hasB ? this.inB.peek() : null;
      const eligA = a !== null && this.okA(a);
      const eligB = b !== null && (this.infB || this.hdrB > 0) && (a === null || b.seq < a.seq);
      if (eligA && (!eligB || a.seq < b!.seq)) {
        this.inA.pop();
        if (!this.infA) {
          this.hdrA--;
          this.datA -= Math.ceil(a.len / 16);
        }
        this.send(t, a, this.flightA);
      } else if (eligB) {
        this.inB.pop();
        if (!this.infB) this.hdrB--;
        this.send(t, b!, this.flightB);
      }
    }
    // next cycle this block must run without new input
    let next = NEVER;
    if (this.headA < this.flightA.length && this.outA.canPush()) next = Math.min(next, Math.max(t + 1, this.flightA[this.headA]!.arriveCycle - 1));
    if (this.headB < this.flightB.length && this.outB.canPush()) next = Math.min(next, Math.max(t + 1, this.flightB[this.headB]!.arriveCycle - 1));
    if (this.inA.canPop() || this.inB.canPop()) next = Math.min(next, Math.max(t + 1, Math.floor(this.freeTicks / C)));
    return next;
  }
}
