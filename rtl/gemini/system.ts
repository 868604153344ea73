import { Channel, type Scope } from '../kernel/index.ts';
import { Crossbar } from './crossbar.ts';
import { GeminiNic } from './nic.ts';
import type { GeminiParams } from './params.ts';
import { isResponse, type NetPkt } from './types.ts';

/**
 * Gemini ASICs joined in a line by router paths: each ASIC has two NICs behind its Netlink, and
 * the Netlink's router port leads to the neighbouring ASIC (one torus hop, `routerCycles`). The
 * seed's three configurations: intra-NIC (a NIC to itself), inter-NIC (the two NICs of one ASIC),
 * inter-ASIC (NIC 0 of ASIC 0 to NIC 0 of ASIC 1).
 */
export class GeminiSystem {
  readonly nics: GeminiNic[][] = [];
  readonly netlinks: Crossbar[] = [];

  constructor(scope: Scope, readonly p: GeminiParams, asics = 2) {
    const net = { bytesPerCycle: p.netBytesPerCycle, headerBytes: p.netHeaderBytes };
    const routerIn: Channel<NetPkt>[] = [];
    const routerOut: Channel<NetPkt>[] = [];
    for (let a = 0; a < asics; a++) {
      const pair = [new GeminiNic(scope, `asic${a}_nic0`, a, 0, p), new GeminiNic(scope, `asic${a}_nic1`, a, 1, p)];
      this.nics.push(pair);
      const rin = new Channel<NetPkt>(pair[0]!, 'router_in', { capacity: 4, latency: 1 });
      const rout = new Channel<NetPkt>(pair[0]!, 'router_out', { capacity: 4, latency: 1 });
      routerIn.push(rin);
      routerOut.push(rout);
      this.netlinks.push(
        new Crossbar(scope, `asic${a}_netlink`, { ...net, flightCycles: p.netlinkCycles }, [pair[0]!.toNetlink, pair[1]!.toNetlink, rin], [pair[0]!.rx.netReq, pair[0]!.rx.netResp, pair[1]!.rx.netReq, pair[1]!.rx.netResp, rout], (pk) => (pk.dstAsic !== a ? 4 : 2 * pk.dstNic + (isResponse(pk.kind) ? 1 : 0))),
      );
    }
    // router paths: every ASIC's router port goes to its neighbour in the direction of the destination
    if (asics === 2) {
      new Crossbar(scope, 'router01', { ...net, flightCycles: p.routerCycles }, [routerOut[0]!], [routerIn[1]!], () => 0);
      new Crossbar(scope, 'router10', { ...net, flightCycles: p.routerCycles }, [routerOut[1]!], [routerIn[0]!], () => 0);
    } else if (asics !== 1) throw new RangeError(`GeminiSystem: 1 or 2 ASICs, got ${asics}`);
  }

  nic(asic: number, index: number): GeminiNic {
    return this.nics[asic]![index]!;
  }
}
