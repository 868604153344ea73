import { Channel, Component, NEVER, type Scope } from '../kernel/index.ts';
import { InputError } from '../kernel/errors.ts';
import { AMO_FETCHING } from './amo/ops.ts';
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
    this.fma = new Fma(this, 'fma', this.memory);
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
    this.validate(x);
    x.pio = x.bytes < this.p.pioThreshold || x.amo !== null || x.elemBytes > 0;
    const ch = x.pio ? this.fma.cmd : this.bte.cmd;
    if (!ch.canPush()) return false;
    x.issueCycle = this.sim.cycle;
    ch.push(x);
    return true;
  }

  /**
   * A command the engines cannot finish, or that names no place for its data or its completion, is
   * refused before anything is taken (the NIC is unchanged): a size that is not a positive integer
   * would never send its last packet, a strided transfer smaller than one element has no element to
   * send, and every byte the call reads or writes must lie in node memory (both nodes' memories have
   * this NIC's size): the completion word (`cqAddr`) always, the buffers (`localAddr`, `remoteAddr`)
   * of a put or get, the result word (`localAddr`) of a fetching AMO (an AMO's own word is checked
   * by the AMO unit, which answers a bad one with an error status). Addresses are 8-byte aligned.
   */
  private validate(x: Transfer): void {
    const mem = this.memory.cfg.bytes;
    const place = (what: string, addr: number, span: number): void => {
      if (!Number.isInteger(addr) || addr < 0) throw new InputError(`gemini transfer: ${what} must name a byte address (a non-negative integer), got ${addr}`);
      if (addr % 8 !== 0) throw new InputError(`gemini transfer: ${what} ${addr} is not 8-byte aligned`);
      if (addr + span > mem) throw new InputError(`gemini transfer: ${what} ${addr} + ${span} bytes runs past the end of node memory (${mem} bytes)`);
    };
    place('cqAddr', x.cqAddr, 8);
    if (x.amo !== null) {
      if (AMO_FETCHING[x.amo.op] === 1) place('localAddr (the fetched value)', x.localAddr, 8);
      return;
    }
    if (!Number.isInteger(x.bytes) || x.bytes < 1) throw new InputError(`gemini transfer: bytes must be a positive integer, got ${x.bytes}`);
    if (x.elemBytes > 0 && x.bytes < x.elemBytes) throw new InputError(`gemini transfer: a strided transfer of ${x.bytes} bytes is smaller than one element (${x.elemBytes} bytes)`);
    if (x.elemBytes > 0 && (!Number.isInteger(x.stride) || x.stride < x.elemBytes)) throw new InputError(`gemini transfer: the stride (${x.stride}) of a strided transfer must be an integer >= its element size (${x.elemBytes} bytes)`);
    place('localAddr', x.localAddr, x.span());
    place('remoteAddr', x.remoteAddr, x.span());
  }

  tick(): number {
    return NEVER;
  }
}
