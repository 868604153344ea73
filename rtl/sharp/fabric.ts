/**
 * Builds the whole SHArP system on one simulator: hosts, links, switches with their TCA
 * aggregation nodes, and the Aggregation Manager with its management channels.
 * Component paths: `host<N>`, `leaf<L>` / `spine<S>` / `core<C>` (switches), `<switch>.an` (the
 * AN), `<switch>.an.alu`, `am`.
 */
import { Channel, Simulator } from '../kernel/index.ts';
import { AggregationManager } from './am.ts';
import { AggregationNode, type AnParams } from './an.ts';
import type { Frame } from './frame.ts';
import { SharpHost } from './host.ts';
import type { ToAm, ToHost } from './mgmt.ts';
import { checkTiming, DEFAULT_TIMING, type FabricTiming, nsToCycles } from './params.ts';
import { SharpSwitch } from './switch.ts';
import { buildFatTree, buildRoutes, defaultSpec, largeSpec, type FatTreeSpec, type Topology } from './topology.ts';
import { TxPort } from './txport.ts';

export interface FabricConfig {
  /** number of hosts (default 128) when no explicit topology is given */
  hosts?: number;
  topology?: FatTreeSpec;
  timing?: Partial<FabricTiming>;
  an?: Partial<AnParams>;
  /** activity skipping (default on) */
  skipping?: boolean;
}

export class Fabric {
  readonly sim: Simulator;
  readonly topo: Topology;
  readonly routes: Map<number, Int16Array>;
  readonly timing: FabricTiming;
  readonly hosts: SharpHost[] = [];
  readonly switches = new Map<number, SharpSwitch>();
  readonly ans = new Map<number, AggregationNode>();
  readonly am: AggregationManager;
  /** the host-side TxPort and the switch-side TxPort of every host link */
  readonly hostLinks: { host: TxPort; sw: TxPort; leaf: number; port: number }[] = [];

  constructor(cfg: FabricConfig = {}) {
    const timing: FabricTiming = { ...DEFAULT_TIMING, ...cfg.timing };
    checkTiming(timing);
    this.timing = timing;
    const spec = cfg.topology ?? ((cfg.hosts ?? 128) <= 144 ? defaultSpec(cfg.hosts ?? 128) : largeSpec(cfg.hosts!));
    this.topo = buildFatTree(spec);
    this.routes = buildRoutes(this.topo);
    const sim = new Simulator({ freqHz: timing.clockHz, skipping: cfg.skipping ?? true });
    this.sim = sim;
    const cyc = (ns: number, min = 0): number => nsToCycles(timing, ns, min);
    const linkBits = (timing.linkGbps * 1e9) / timing.clockHz;
    const tcaBits = (timing.tcaPortGbps * 1e9) / timing.clockHz;
    const cable = cyc(timing.cableNs, 1);
    const hop = cyc(timing.switchNs, 1);
    const mgmt = cyc(timing.mgmtNs, 1);
    const anParams: Partial<AnParams> = { packetCycles: timing.tcaPacketNs * (timing.clockHz / 1e9), byteCycles: timing.tcaByteNs * (timing.clockHz / 1e9), ...cfg.an };
    const hostTiming = {
      postCycles: cyc(timing.hostSwNs / 2),
      pollCycles: cyc(timing.hostSwNs / 2),
      hcaTxCycles: cyc(timing.hcaNs / 2),
      hcaRxCycles: cyc(timing.hcaNs / 2, 1),
      pcieReadCycles: cyc(timing.pcieReadNs),
      byteCycles: timing.hostByteNs * (timing.clockHz / 1e9),
      maxInlineBytes: timing.maxInlineBytes,
      rxMsgCycles: timing.hcaMsgNs * (timing.clockHz / 1e9),
      rxByteCycles: timing.pcieWriteByteNs * (timing.clockHz / 1e9),
      discardCycles: cyc(timing.hostDiscardNs),
      detectCycles: cyc(timing.detectNs, 1),
    };
    // switches and their aggregation nodes
    for (const node of this.topo.nodes) {
      if (node.role === 'host') continue;
      const sw = new SharpSwitch(sim, node.name, node.id, this.topo.radix + 1, hop);
      sw.route = this.routes.get(node.id)!;
      this.switches.set(node.id, sw);
      const an = new AggregationNode(sw, 'an', node.id, anParams);
      this.ans.set(node.id, an);
    }
    this.am = new AggregationManager(sim, 'am', this.topo, this.routes, this.switches, anParams.contexts ?? 256);
    // hosts
    for (const h of this.topo.hosts) {
      const host = new SharpHost(sim, this.topo.nodes[h]!.name, h, hostTiming);
      host.leaf = this.topo.leafOf[h]!;
      this.hosts.push(host);
    }
    // links: one channel per direction, latency = cable propagation, capacity generous (TxPorts serialize)
    const mkLink = (from: { path: string; sim: Simulator }, name: string): Channel<Frame> => new Channel<Frame>(from, name, { capacity: 1024, latency: cable });
    const hostIn = new Map<number, Channel<Frame>>();
    for (const node of this.topo.nodes) {
      node.ports.forEach((p, port) => {
        if (p.peer < 0 || p.peer < node.id) return; // each link once, from the lower id
        const a = node;
        const b = this.topo.nodes[p.peer]!;
        const aScope = a.role === 'host' ? this.hosts[a.id]! : this.switches.get(a.id)!;
        const bScope = this.switches.get(b.id)!;
        const ab = mkLink(aScope, `p${port}_tx`);
        const ba = mkLink(bScope, `p${p.peerPort}_tx`);
        const txA = new TxPort(ab, linkBits);
        const txB = new TxPort(ba, linkBits);
        if (a.role === 'host') {
          this.hostLinks.push({ host: txA, sw: txB, leaf: b.id, port: p.peerPort });
          (aScope as SharpHost).port = txA;
          hostIn.set(a.id, ba);
        } else this.switches.get(a.id)!.attach(port, ba, txA, b.id);
        this.switches.get(b.id)!.attach(p.peerPort, ab, txB, a.id);
      });
    }
    // internal TCA ports and management channels
    for (const [id, sw] of this.switches) {
      const an = this.ans.get(id)!;
      const toAn = new Channel<Frame>(sw, 'tca_tx', { capacity: 1024, latency: 1 });
      const fromAn = new Channel<Frame>(an, 'tx', { capacity: 1024, latency: 1 });
      sw.attach(this.topo.radix, fromAn, new TxPort(toAn, tcaBits), id);
      const mIn = new Channel<Uint8Array>(this.am, `to_${sw.path}`, { capacity: 4096, latency: mgmt }).bindProducer(this.am, { polls: true });
      const mOut = new Channel<ToAm>(an, 'to_am', { capacity: 4096, latency: mgmt }).bindConsumer(this.am, { everyPush: true });
      an.attach(toAn, new TxPort(fromAn, tcaBits), mIn, mOut);
      this.am.toAn.set(id, mIn);
      this.am.inputs.push(mOut);
      const swOut = new Channel<ToAm>(sw, 'to_am', { capacity: 4096, latency: mgmt }).bindConsumer(this.am, { everyPush: true }).bindProducer(sw);
      this.am.inputs.push(swOut);
      sw.events = (e) => {
        if (swOut.canPush()) swOut.push({ kind: 'event', event: 'link-down', node: e.node, peer: e.peer });
      };
    }
    for (const host of this.hosts) {
      const input = hostIn.get(host.nodeId)!;
      const mIn = new Channel<ToHost>(this.am, `to_${host.path}`, { capacity: 4096, latency: mgmt }).bindProducer(this.am, { polls: true });
      const mOut = new Channel<ToAm>(host, 'to_am', { capacity: 4096, latency: mgmt }).bindConsumer(this.am, { everyPush: true });
      host.attach(input, host.port, mIn, mOut);
      this.am.toHost.set(host.nodeId, mIn);
      this.am.inputs.push(mOut);
    }
  }

  /** Cycles of a duration in ns. */
  cycles(ns: number): number {
    return nsToCycles(this.timing, ns);
  }

  /** Let the management messages sent so far arrive (one management latency). */
  settle(): void {
    this.sim.step(nsToCycles(this.timing, this.timing.mgmtNs) + 2);
  }

  /** Fault injection: fail the link between nodes a and b; the switch end(s) report it to the AM. */
  linkDown(a: number, b: number, t = this.sim.cycle): void {
    const port = (n: number, peer: number): number => this.topo.nodes[n]!.ports.findIndex((p) => p.peer === peer);
    if (port(a, b) < 0) throw new Error(`nodes ${a} and ${b} are not linked`);
    for (const [n, peer] of [
      [a, b],
      [b, a],
    ] as const) {
      const sw = this.switches.get(n);
      if (sw) sw.linkDown(port(n, peer), t);
      else this.hostLinks.find((l) => l.host.link.producer === this.hosts[n])?.host.down();
    }
  }

  /** Fault injection: the TCA of switch `id` fails; the switch notices and tells the AM. */
  anFailure(id: number): void {
    const an = this.ans.get(id);
    if (!an) throw new Error(`no aggregation node at ${id}`);
    an.fail();
    const sw = this.switches.get(id)!;
    const ch = this.am.inputs.find((c) => c.producer === sw)!;
    if (ch.canPush()) ch.push({ kind: 'event', event: 'node-failure', node: id, peer: id });
  }
}
