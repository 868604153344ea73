/**
 * The inbound link: delivers the packets of a traffic list in order, each serialised at the link
 * rate (payload bits x linkPsPerBit) with at least linkGapNs between packet starts (LogGP g);
 * a packet is pushed to the inbound engine in the cycle its last bit arrives. When the inbound
 * queue (L2 packet buffer) is full the link is paused (counted in `pause_cycles`).
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import type { SpinParams } from './params.ts';
import type { SpinPacket } from './types.ts';

export class SpinLink extends Component {
  readonly out: Channel<SpinPacket>;
  private next = 0;
  /** time (ps) the wire is free for the next packet start */
  private wireFreePs = 0;
  /** cycle the head packet has fully arrived (-1: not yet computed) */
  private headArrival = -1;
  pauseCycles = 0;
  delivered = 0;
  private readonly psPerCycle: number;

  constructor(parent: Scope, name: string, private readonly params: SpinParams, private readonly packets: readonly SpinPacket[], capacity: number) {
    super(parent, name);
    this.out = new Channel<SpinPacket>(this, 'out', { capacity, latency: 1 }).bindProducer(this);
    this.psPerCycle = 1e12 / params.freqHz;
  }

  tick(t: number): number {
    if (this.next >= this.packets.length) return NEVER;
    const p = this.packets[this.next]!;
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
    this.next++;
    this.headArrival = -1;
    return t + 1;
  }
}
