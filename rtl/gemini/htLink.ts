import { type Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import { Lane } from './lane.ts';
import { MEM_NOTIFY, MEM_PIO, MEM_READ, MEM_STATUS, MEM_WRITE, type MemReq } from './types.ts';

/** HyperTransport link parameters (defaults: HT3 x16 at 2.6 GHz, seen from a 650 MHz NIC clock). */
export interface HtLinkConfig {
  /** payload bytes per NIC cycle and direction (default 16: 10.4 GB/s at 650 MHz) */
  bytesPerCycle: number;
  /** cycles a packet spends in flight after serialization (default 40; fitted) */
  flightCycles: number;
}

export const HT_DEFAULTS: HtLinkConfig = { bytesPerCycle: 16, flightCycles: 40 };

/**
 * Bytes a transaction occupies on the wire: HyperTransport command packets are 8 bytes for a
 * sized write (posted), a read request and a CPU store, 4 bytes for a read response; data follows
 * in up to 64-byte payloads; the FMA's answer to the CPU's status read is a read response (4 + 8).
 * (HT 3.0 specification, packet formats.)
 */
export function htWireBytes(m: MemReq): number {
  if (m.resp) return 4 + (m.kind === MEM_READ ? m.bytes : 0);
  if (m.kind === MEM_STATUS) return 4 + m.bytes;
  if (m.kind === MEM_READ) return 8;
  if (m.kind === MEM_WRITE || m.kind === MEM_NOTIFY || m.kind === MEM_PIO) return 8 + m.bytes;
  return 8;
}

/**
 * The HyperTransport link between a node and its Gemini NIC: two independent directions (full
 * duplex), each a Lane (lane.ts) at `bytesPerCycle`. NIC-to-host carries the NIC's read requests,
 * posted writes and completion writes from several sources to host memory; host-to-NIC carries
 * read responses and the CPU's stores (PIO), delivered to the output `route` names. Reads and
 * writes of one DMA that both start and end on this node (intra-NIC) share the NIC-to-host
 * direction with each other's requests: that is where the intra-NIC limit comes from.
 */
export class HtLink extends Component {
  readonly cfg: HtLinkConfig;
  readonly up: Lane<MemReq>;
  readonly down: Lane<MemReq>;

  /**
   * @param toHost   NIC-side sources of NIC-to-host traffic (consumer: this)
   * @param hostIn   the host memory's request channel (producer: this)
   * @param toNic    host-side sources of host-to-NIC traffic: memory responses, CPU stores (consumer: this)
   * @param nicOut   NIC-side destinations, indexed by MemReq.route (producer: this)
   */
  constructor(parent: Scope, name: string, cfg: Partial<HtLinkConfig>, toHost: Channel<MemReq>[], hostIn: Channel<MemReq>, toNic: Channel<MemReq>[], nicOut: Channel<MemReq>[]) {
    super(parent, name);
    const c = { ...HT_DEFAULTS, ...cfg };
    this.cfg = c;
    for (const ch of toHost) ch.bindConsumer(this);
    for (const ch of toNic) ch.bindConsumer(this);
    hostIn.bindProducer(this);
    for (const ch of nicOut) ch.bindProducer(this);
    this.up = new Lane<MemReq>(this, 'to_host', toHost, [hostIn], () => 0, htWireBytes, c.bytesPerCycle, c.flightCycles);
    this.down = new Lane<MemReq>(this, 'to_nic', toNic, nicOut, (m) => m.route, htWireBytes, c.bytesPerCycle, c.flightCycles);
  }

  override reset(): void {
    this.up.reset();
    this.down.reset();
  }

  tick(t: number): number {
    const a = this.up.step(t);
    const b = this.down.step(t);
    return a || b ? t + 1 : NEVER;
  }
}
