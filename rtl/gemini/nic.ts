import { Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import { InputError } from '../kernel/errors.ts';
import { AmoUnit } from './amo/unit.ts';
import { Bte } from './bte.ts';
import { Crossbar } from './crossbar.ts';
import { Fma } from './fma.ts';
import { HostMemory } from './hostMemory.ts';
import { HtLink } from './htLink.ts';
import type { GeminiParams } from './params.ts';
import { ROUTE_AMO } from './routes.ts';
import { NicRx } from './rx.ts';
import { isResponse, type MemReq, type NetPkt, type Transfer } from './types.ts';

/**
 * One Gemini NIC with the node behind it:
 *
 * ```
 *  node memory ══ HyperTransport (HtLink, two directions) ══╦═ FMA (PIO) ─┐
 *                                                            ╠═ BTE (DMA) ─┼─► port ──► Netlink
 *                                                            ╠═ AMO unit   │     └──► loopback ─┐
 *                                                            ╚═ receive ◄──┴──────── Netlink ◄──┘
 * ```
 *
 * The port (a Crossbar) sends a packet for this same NIC straight back to the receive side
 * (intra-NIC), everything else to the Netlink. The AMO unit reaches node memory over the same
 * HyperTransport link as the engines.
 */
export class GeminiNic extends Component {
  readonly memory: HostMemory;
  readonly fma: Fma;
  readonly bte: Bte;
  readonly amo: AmoUnit;
  readonly rx: NicRx;
  readonly ht: HtLink;
  readonly port: Crossbar;
  /** the port's output to the Netlink (producer: port; consumer: the Netlink) */
  readonly toNetlink: Channel<NetPkt>;

  constructor(
    parent: Scope,
    name: string,
    readonly asic: number,
    readonly index: number,
    readonly p: GeminiParams,
  ) {
    super(parent, name);
    this.memory = new HostMemory(this, 'mem', { readCycles: p.memReadCycles, bytes: p.amo.memBytes ?? 1 << 20, bytesPerCycle: p.hostBytesPerCycle });
    this.fma = new Fma(this, 'fma');
    this.bte = new Bte(this, 'bte', p.bteWindow);
    this.amo = new AmoUnit(this, 'amo', { ...p.amo, ports: 1 });
    this.amo.memRoute = ROUTE_AMO;
    this.rx = new NicRx(this, 'rx', { req: this.amo.req[0]!, resp: this.amo.resp[0]! }, p.rxWindow);
    const toHost: Channel<MemReq>[] = [this.amo.memReq, this.bte.memReq, this.rx.memReq, this.fma.statusOut];
    const toNic: Channel<MemReq>[] = [this.memory.resp, this.fma.pioOut, this.bte.pioOut];
    // outputs indexed by route: ROUTE_AMO, ROUTE_BTE, ROUTE_RX, ROUTE_FMA_PIO, ROUTE_BTE_PIO
    const nicOut: Channel<MemReq>[] = [this.amo.memResp, this.bte.memResp, this.rx.memResp, this.fma.pioIn, this.bte.pioIn];
    this.ht = new HtLink(this, 'ht', { bytesPerCycle: p.htBytesPerCycle, flightCycles: p.htFlightCycles }, toHost, this.memory.req, toNic, nicOut);
    this.toNetlink = new Channel<NetPkt>(this, 'to_netlink', { capacity: 4, latency: 1 });
    this.port = new Crossbar(
      this,
      'port',
      { bytesPerCycle: p.netBytesPerCycle, flightCycles: p.portCycles, headerBytes: p.netHeaderBytes },
      [this.fma.net, this.bte.net, this.rx.net],
      [this.toNetlink, this.rx.loopReq, this.rx.loopResp],
      (pk) => (pk.dstAsic === asic && pk.dstNic === index ? (isResponse(pk.kind) ? 2 : 1) : 0),
    );
  }

  /** Start a transfer (a blocking DMAPP call's hardware part): FMA below the PIO threshold and for strided transfers (one FMA transaction per element), else BTE. */
  start(x: Transfer): boolean {
    GeminiNic.validate(x);
    x.pio = x.bytes < this.p.pioThreshold || x.amo !== null || x.elemBytes > 0;
    const ch = x.pio ? this.fma.cmd : this.bte.cmd;
    if (!ch.canPush()) return false;
    x.issueCycle = this.sim.cycle;
    ch.push(x);
    return true;
  }

  /**
   * A command the engines cannot finish is refused before anything is taken (the NIC is unchanged):
   * a size that is not a positive integer would never send its last packet, and a strided transfer
   * smaller than one element has no element to send.
   */
  private static validate(x: Transfer): void {
    if (x.amo !== null) return;
    if (!Number.isInteger(x.bytes) || x.bytes < 1) throw new InputError(`gemini transfer: bytes must be a positive integer, got ${x.bytes}`);
    if (x.elemBytes > 0 && x.bytes < x.elemBytes) throw new InputError(`gemini transfer: a strided transfer of ${x.bytes} bytes is smaller than one element (${x.elemBytes} bytes)`);
  }

  tick(): number {
    return NEVER;
  }
}
