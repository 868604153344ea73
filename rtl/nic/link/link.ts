import { Channel, Component, type Counter, Fifo, NEVER, RoundRobinArbiter, Rng, type Scope } from '../../kernel/index.ts';
import type { NetPacket } from './packet.ts';

export interface LinkConfig {
  /** NIC ports joined (2..16), default 2 */
  ports: number;
  /** serialization rate of each port's transmitter in whole bytes per cycle (default 14: 14 GB/s at 1 GHz) */
  bytesPerCycle: number;
  /** cycles from a packet's last byte leaving the transmitter to it being at the receiver (default 200) */
  latency: number;
  /** probability that a packet is lost (default 0) */
  dropProb: number;
  /** bit-error rate: each bit on the wire flips with this probability; a packet takes at most one flip (default 0) */
  ber: number;
  /** transmitting ports whose packets the faults hit, as a bit mask (default 0xffff: every port) */
  faultMask: number;
  /** packets in flight from one port to one port (default 256); a full flight queue holds the transmitter */
  flightCapacity: number;
  /** receive channel capacity of each port (default 8) */
  rxCapacity: number;
  /** seed of the fault injection */
  seed: number;
}

export const LINK_DEFAULTS: Readonly<LinkConfig> = { ports: 2, bytesPerCycle: 14, latency: 200, dropProb: 0, ber: 0, faultMask: 0xffff, flightCapacity: 256, rxCapacity: 8, seed: 1 };

export function linkConfig(p: Partial<LinkConfig> = {}): LinkConfig {
  for (const k of Object.keys(p)) if (!(k in LINK_DEFAULTS)) throw new RangeError(`link config: unknown parameter ${k}`);
  const c: LinkConfig = { ...LINK_DEFAULTS, ...p };
  const int = (n: string, v: number, lo: number, hi: number): void => {
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`link config: ${n} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  int('ports', c.ports, 2, 16);
  int('latency', c.latency, 1, 1e9);
  int('flightCapacity', c.flightCapacity, 1, 1 << 16);
  int('rxCapacity', c.rxCapacity, 2, 1024);
  int('seed', c.seed, 0, 2 ** 32 - 1);
  int('faultMask', c.faultMask, 0, 0xffff);
  int('bytesPerCycle', c.bytesPerCycle, 1, 4096);
  for (const n of ['dropProb', 'ber'] as const) {
    if (!(typeof c[n] === 'number' && c[n] >= 0 && c[n] <= 1)) throw new RangeError(`link config: ${n} must be in [0, 1], got ${c[n]}`);
  }
  return c;
}

/**
 * The network between NICs (docs/nic-rdma.md, "Link"): every port has a transmitter that
 * serializes its packets at `bytesPerCycle` (time kept in byte slots, exact), and every packet reaches its destination port
 * `latency` cycles after its last byte left. Per cycle and port: the transmitter takes the head of
 * `txIn[p]` when its previous packet has left (start = max(free, t), end = start + wire bytes /
 * rate, the packet arrives in ceil(end) + latency) and its flight queue to the destination has
 * room; faults are drawn then from the port's seeded stream: lost with `dropProb`, else one bit
 * flipped with probability 1 - (1 - ber)^bits (a copy of the data is changed, or the address field
 * of a packet without data: the receiver's CRC check sees it). Each receiver takes at most one
 * arrived packet per cycle, round-robin over the ports sending to it, onto `rxOut[p]` when it has
 * room (packets of reliable connections, `e2e` set, onto `ctlOut[p]` instead: the NIC's receive
 * port steers them to its end-to-end receiver). Packets between one pair of ports stay in order. Faults hit only the transmitters in
 * `faultMask`. A packet naming no port is counted
 * (`misrouted`) and discarded.
 */
export class NetLink extends Component {
  readonly cfg: LinkConfig;
  readonly txIn: Channel<NetPacket>[] = [];
  readonly rxOut: Channel<NetPacket>[] = [];
  /** per port: packets of reliable connections (`e2e` set), steered away from `rxOut` to the NIC's end-to-end receiver */
  readonly ctlOut: Channel<NetPacket>[] = [];
  private readonly flight: Fifo<NetPacket>[] = [];
  /** per transmitter: the byte slot (cycle x bytesPerCycle + byte) at which it is free again */
  private readonly freeAt: Float64Array;
  private readonly rng: Rng[];
  private readonly arb: RoundRobinArbiter[] = [];
  private readonly ready: ((i: number) => boolean)[] = [];
  private now = 0;
  /** testbench hook: called when a packet is handed to its receiver */
  onDeliver: ((p: NetPacket, cycle: number) => void) | null = null;
  readonly stats: { sent: Counter; delivered: Counter; dropped: Counter; corrupted: Counter; misrouted: Counter };

  constructor(parent: Scope, name: string, cfg: Partial<LinkConfig> = {}) {
    super(parent, name);
    const c = linkConfig(cfg);
    this.cfg = c;
    const n = c.ports;
    const base = new Rng(c.seed);
    this.rng = Array.from({ length: n }, (_, p) => base.fork(`port${p}`));
    this.freeAt = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      this.txIn.push(new Channel<NetPacket>(this, `tx${p}`, { capacity: 4, latency: 1 }).bindConsumer(this));
      this.rxOut.push(new Channel<NetPacket>(this, `rx${p}`, { capacity: c.rxCapacity, latency: 1 }).bindProducer(this));
      this.ctlOut.push(new Channel<NetPacket>(this, `ctl${p}`, { capacity: c.rxCapacity, latency: 1 }).bindProducer(this));
      this.arb.push(new RoundRobinArbiter(this, `arb${p}`, n));
      const dst = p;
      this.ready.push((src: number): boolean => {
        const f = this.flight[src * n + dst]!;
        if (!f.canPop()) return false;
        const h = f.peek();
        return h.arriveCycle <= this.now && (h.e2e ? this.ctlOut[dst]! : this.rxOut[dst]!).canPush();
      });
    }
    for (let i = 0; i < n * n; i++) this.flight.push(new Fifo<NetPacket>(this, c.flightCapacity));
    this.stats = { sent: this.counter('sent'), delivered: this.counter('delivered'), dropped: this.counter('dropped'), corrupted: this.counter('corrupted'), misrouted: this.counter('misrouted') };
  }

  private inject(p: NetPacket, rng: Rng, port: number): boolean {
    if (((this.cfg.faultMask >>> port) & 1) === 0) return true;
    if (this.cfg.dropProb > 0 && rng.float() < this.cfg.dropProb) {
      this.stats.dropped.inc();
      return false;
    }
    if (this.cfg.ber > 0) {
      const bits = p.wireBytes * 8;
      if (rng.float() < 1 - (1 - this.cfg.ber) ** bits) {
        this.stats.corrupted.inc();
        if (p.data !== null && p.data.length > 0) {
          const d = p.data.slice();
          const b = rng.int(d.length * 8);
          d[b >>> 3] = d[b >>> 3]! ^ (1 << (b & 7));
          p.data = d;
        } else p.addr = p.addr ^ (1 << rng.int(30));
      }
    }
    return true;
  }

  tick(t: number): number {
    const n = this.cfg.ports;
    const bpc = this.cfg.bytesPerCycle;
    this.now = t;
    let next = NEVER;
    for (let s = 0; s < n; s++) {
      const tx = this.txIn[s]!;
      if (!tx.canPop()) continue;
      if (this.freeAt[s]! >= (t + 1) * bpc) {
        next = Math.min(next, Math.floor(this.freeAt[s]! / bpc));
        continue;
      }
      const p = tx.peek();
      if (!Number.isInteger(p.dst) || p.dst < 0 || p.dst >= n) {
        tx.pop();
        this.stats.misrouted.inc();
        next = Math.min(next, t + 1);
        continue;
      }
      const f = this.flight[s * n + p.dst]!;
      if (!f.canPush()) {
        next = Math.min(next, t + 1);
        continue;
      }
      tx.pop();
      this.stats.sent.inc();
      const start = Math.max(this.freeAt[s]!, t * bpc);
      const end = start + p.wireBytes;
      this.freeAt[s] = end;
      if (this.inject(p, this.rng[s]!, s)) {
        p.arriveCycle = Math.ceil(end / bpc) + this.cfg.latency;
        f.push(p);
      }
      next = Math.min(next, t + 1);
    }
    for (let d = 0; d < n; d++) {
      const rx = this.rxOut[d]!;
      let pendingHere = false;
      for (let s = 0; s < n; s++) {
        const f = this.flight[s * n + d]!;
        if (f.canPop()) {
          pendingHere = true;
          next = Math.min(next, Math.max(t + 1, f.peek().arriveCycle));
        }
      }
      if (!pendingHere || (!rx.canPush() && !this.ctlOut[d]!.canPush())) continue;
      const s = this.arb[d]!.grant(this.ready[d]!);
      if (s >= 0) {
        const p = this.flight[s * n + d]!.pop();
        (p.e2e ? this.ctlOut[d]! : rx).push(p);
        this.onDeliver?.(p, t);
        this.stats.delivered.inc();
        next = Math.min(next, t + 1);
      }
    }
    return next;
  }
}
