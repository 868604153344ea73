/**
 * An InfiniBand switch (SwitchIB-2-like: 36 external ports plus the internal port of its SHArP
 * TCA, seed 000 Fig. 4). Cut-through forwarding with a fixed port-to-port latency: a frame whose
 * tail arrives at cycle t had its head at t - ser(in), so it may start on the output port at
 * t - ser(in) + hop, or when the output port is free. Unicast frames follow the routing table;
 * UD multicast frames are replicated to the ports of the group's forwarding-table entry (never back
 * to the input port). A failed link's port drops frames in both directions and the switch
 * reports the failure to the Aggregation Manager (a port-state event, not a timeout).
 */
import { Arrivals, type Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import type { Frame } from './frame.ts';
import type { TxPort } from './txport.ts';

export interface PortEvent {
  kind: 'link-down';
  /** reporting switch */
  node: number;
  port: number;
  /** node at the other end */
  peer: number;
}

export class SharpSwitch extends Component {
  readonly inputs: (Channel<Frame> | null)[];
  readonly tx: (TxPort | null)[];
  readonly peers: number[];
  /** route[dst] = output port */
  route: Int16Array = new Int16Array(0);
  /** multicast forwarding table: group -> output ports */
  readonly mft = new Map<number, number[]>();
  /** port-state events for the Aggregation Manager (set by the fabric) */
  events: ((e: PortEvent, at: number) => void) | null = null;
  private readonly downPorts = new Set<number>();
  private readonly active = new Set<number>(); // ports with queued frames
  /** input ports with frames arriving (each port's "frame available" flag) */
  private readonly arrivals: Arrivals;
  private readonly cFwd;
  private readonly cDrop;
  private readonly cMcast;

  constructor(
    parent: Scope,
    name: string,
    readonly nodeId: number,
    ports: number,
    /** port-to-port latency in cycles */
    readonly hopCycles: number,
  ) {
    super(parent, name);
    this.inputs = new Array<Channel<Frame> | null>(ports).fill(null);
    this.tx = new Array<TxPort | null>(ports).fill(null);
    this.peers = new Array<number>(ports).fill(-1);
    this.arrivals = new Arrivals(this.sim);
    this.cFwd = this.counter('frames_forwarded');
    this.cDrop = this.counter('frames_dropped');
    this.cMcast = this.counter('multicast_copies');
  }

  attach(port: number, input: Channel<Frame>, tx: TxPort, peer: number): void {
    // a port's frames are rare and the switch has many ports: each arrival wakes the switch (no
    // scan of every port when it sleeps) and flags its port (the tick looks at those ports only); a
    // blocked transmit port keeps it running (tick returns t + 1)
    input.bindConsumer(this, { everyPush: true, arrivals: this.arrivals, key: port });
    tx.link.bindProducer(this, { polls: true });
    this.inputs[port] = input;
    this.tx[port] = tx;
    this.peers[port] = peer;
  }

  override reset(): void {
    this.downPorts.clear();
    this.active.clear();
    for (const p of this.tx) p?.reset();
  }

  /** Fail the link on `port` at cycle t (both directions at this end). */
  linkDown(port: number, t: number): void {
    if (this.downPorts.has(port)) return;
    this.downPorts.add(port);
    this.tx[port]?.down();
    this.active.delete(port);
    this.events?.({ kind: 'link-down', node: this.nodeId, port, peer: this.peers[port]! }, t);
  }

  isDown(port: number): boolean {
    return this.downPorts.has(port);
  }

  tick(t: number): number {
    // the ports with a frame poppable now, ascending; every frame of each is taken
    const ports = this.arrivals.take(t);
    for (let i = 0; i < ports.length; i++) {
      const p = ports[i]!;
      const inp = this.inputs[p]!;
      while (inp.canPop()) {
        const f = inp.pop();
        if (this.downPorts.has(p)) {
          this.cDrop.inc();
          continue;
        }
        this.forward(f, p, t);
      }
    }
    let wake = NEVER;
    for (const p of this.active) {
      const tx = this.tx[p]!;
      tx.flush(t);
      const nt = tx.nextTime();
      if (nt === Number.POSITIVE_INFINITY) this.active.delete(p);
      else wake = Math.min(wake, Math.max(nt, t + 1));
    }
    return wake;
  }

  private forward(f: Frame, inPort: number, t: number): void {
    const serIn = this.tx[inPort]!.serCycles(f.wireBytes);
    const ready = t - serIn + this.hopCycles;
    if (f.mcast) {
      const ports = this.mft.get(f.dst);
      if (!ports) {
        this.cDrop.inc();
        return;
      }
      for (const p of ports) {
        if (p === inPort) continue;
        this.sendOn(p, f, ready);
        this.cMcast.inc();
      }
      return;
    }
    const p = f.dst >= 0 && f.dst < this.route.length ? this.route[f.dst]! : -1;
    if (p < 0) {
      this.cDrop.inc();
      return;
    }
    this.sendOn(p, f, ready);
  }

  private sendOn(p: number, f: Frame, ready: number): void {
    const tx = this.tx[p];
    if (!tx || this.downPorts.has(p)) {
      this.cDrop.inc();
      return;
    }
    tx.send(f, ready);
    this.active.add(p);
    this.cFwd.inc();
  }
}
