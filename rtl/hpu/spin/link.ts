/**
 * The inbound link: delivers the packets of a traffic list (or of a `PacketSource` asked for one
 * packet at a time) in order, each serialised at the link rate (payload bits x linkPsPerBit) with
 * at least linkGapNs between packet starts (LogGP g); a packet is pushed to the inbound engine in
 * the cycle its last bit arrives. When the inbound queue (L2 packet buffer) is full the link is
 * paused (counted in `pause_cycles`). The link keeps only the packet at the head of the wire.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import type { SpinParams } from './params.ts';
import type { SpinPacket } from './types.ts';

/**
 * Packets made on demand (an endless stream): `next(t)` gives the packet to put on the wire after
 * the previous one, or null when the sender has none yet; the link then waits until `SpinLink.poke`.
 */
export interface PacketSource {
  next(t: number): SpinPacket | null;
}

export class SpinLink extends Component {
  readonly out: Channel<SpinPacket>;
  private readonly source: PacketSource;
  /** the packet at the head of the wire (null: none asked for yet) */
  private head: SpinPacket | null = null;
  /** time (ps) the wire is free for the next packet start */
  private wireFreePs = 0;
  /** cycle the head packet has fully arrived (-1: not yet computed) */
  private headArrival = -1;
  pauseCycles = 0;
  delivered = 0;
  private readonly psPerCycle: number;

  constructor(parent: Scope, name: string, private readonly params: SpinParams, packets: readonly SpinPacket[] | PacketSource, capacity: number) {
    super(parent, name);
    if ('next' in packets) this.source = packets;
    else {
      let i = 0;
      this.source = { next: () => (i < packets.length ? packets[i++]! : null) };
    }
    this.out = new Channel<SpinPacket>(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    this.psPerCycle = 1e12 / params.freqHz;
  }

  /** A source that gave null has a packet now: evaluate the link again next cycle. */
  poke(): void {
    if (this.head === null) this.wake(this.sim.cycle + 1);
  }

  tick(t: number): number {
    this.head ??= this.source.next(t);
    const p = this.head;
    if (p === null) return NEVER;
    if (this.headArrival < 0) {
      const startPs = Math.max(p.sendCycle * this.psPerCycle, this.wireFreePs);
      const serialPs = p.payload.length * 8 * this.params.linkPsPerBit;
      this.wireFreePs = startPs + Math.max(serialPs, this.params.linkGapNs * 1000);
      this.headArrival = Math.max(t, Math.ceil((startPs + serialPs) / this.psPerCycle - 1e-9));
    }
    if (t < this.headArrival) return this.headArrival;
    if (!this.out.canPush()) {
      this.pauseCycles++;
      return NEVER; // woken when the inbound engine frees a slot
    }
    p.arrival = t;
    this.out.push(p);
    this.delivered++;
    this.head = null;
    this.headArrival = -1;
    return t + 1;
  }
}
