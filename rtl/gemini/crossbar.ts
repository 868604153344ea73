import { type Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import { Lane } from './lane.ts';
import type { NetPkt } from './types.ts';

/** Parameters of one crossbar (a NIC's network port, the Netlink, a router path). */
export interface CrossbarConfig {
  /** bytes per cycle of each output (payload and header) */
  bytesPerCycle: number;
  /** cycles in flight after serialization */
  flightCycles: number;
  /** header bytes the wire adds to every packet's payload */
  headerBytes: number;
}

/**
 * Network packets from several inputs to several outputs: one Lane (lane.ts) per output, all
 * sharing the inputs; each lane takes only heads routed to its output, and an input gives up at
 * most one packet a cycle. Head-of-line blocking: a head waiting for a busy output holds its input.
 * Used for a NIC's network port (outputs: Netlink, loopback to its own receive side), the Netlink
 * (outputs: the two NICs, the router) and a router path between two ASICs (one output).
 */
export class Crossbar extends Component {
  readonly lanes: Lane<NetPkt>[];
  private readonly used: Uint8Array;
  private readonly wants: ((p: NetPkt) => boolean)[];

  constructor(parent: Scope, name: string, readonly cfg: CrossbarConfig, inputs: Channel<NetPkt>[], outputs: Channel<NetPkt>[], route: (p: NetPkt) => number) {
    super(parent, name);
    for (const ch of inputs) ch.bindConsumer(this);
    for (const ch of outputs) ch.bindProducer(this);
    this.used = new Uint8Array(inputs.length);
    const wire = (p: NetPkt): number => p.bytes + cfg.headerBytes;
    this.lanes = outputs.map((o, j) => new Lane<NetPkt>(this, `out${j}`, inputs, [o], () => 0, wire, cfg.bytesPerCycle, cfg.flightCycles, this.used));
    this.wants = outputs.map((_, j) => (p: NetPkt) => route(p) === j);
  }

  override reset(): void {
    for (const l of this.lanes) l.reset();
  }

  tick(t: number): number {
    this.used.fill(0);
    let busy = false;
    for (let j = 0; j < this.lanes.length; j++) if (this.lanes[j]!.step(t, this.wants[j]!)) busy = true;
    return busy ? t + 1 : NEVER;
  }
}
