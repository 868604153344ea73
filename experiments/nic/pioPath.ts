/**
 * The PIO descriptor path under load (benchmark `nic`, soak entry `nic-pio`): CPU stores of
 * descriptors from every PIO VP (each VP's process writes into its own page's HDQ window while
 * HDQ_FREE says there is room) -> PCIe (write combining, credits) -> VP register file -> HDQ ->
 * round-robin readout (rtl/nic/vp/readout.ts), whose output a consumer takes every cycle. Counts descriptors read out.
 *
 * Without `traffic` every VP stores the same 64-byte immediate put over and over (the benchmark).
 * With it, the traffic decides every store (`store`: the bytes and the page they go to; a store to
 * another VP's page is refused by the register file and takes no HDQ slot), when the consumer
 * takes descriptors (`take`), and sees every descriptor read out (`onDesc`) and every refusal of the register file or the HDQ (`onError`);
 * nothing is kept per descriptor here.
 */
import { Component, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_IMM_PUT, descConfig, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { buildPcie, type Pcie, type PcieConfig, PioWrite } from '../../rtl/nic/pcie/index.ts';
import { Hdq, type HdqDesc, Readout, vpConfig, type VpError, VpRegisterFile, VR_HDQ_WINDOW } from '../../rtl/nic/vp/index.ts';

/** What the CPU stores, for a soak or a test; the path keeps nothing per descriptor. */
export interface PioTraffic {
  /** the next store of the process of PIO VP `vp` (called when its HDQ has room): its bytes and the VP page it writes */
  store(vp: number): { page: number; data: Uint8Array };
  /** whether the consumer takes read-out descriptors in cycle `t` (a stalled consumer lets the HDQ fill) */
  take(t: number): boolean;
  /** a descriptor read out of the HDQ */
  onDesc(d: HdqDesc): void;
  /** a store refused by the register file or the HDQ */
  onError(e: VpError): void;
}

export interface PioPath {
  sim: Simulator;
  pcie: Pcie;
  regs: VpRegisterFile;
  hdq: Hdq;
  readout: Readout;
  /** descriptors read out of the HDQ so far */
  readonly out: number;
  /** run until `n` more descriptors have been read out */
  run(n: number): void;
  /** run until the simulator's cycle is at least `cycle` */
  runTo(cycle: number): void;
}

/** The CPU and the consumer as one component evaluated every cycle (a stalled consumer keeps time running). */
class PioCpu extends Component {
  constructor(
    parent: Scope,
    private readonly body: () => void,
  ) {
    super(parent, 'cpu');
  }
  tick(t: number): number {
    this.body();
    return t + 1;
  }
}

export function buildPioPath(pioVps = 8, slots = 4, pcieCfg: Partial<PcieConfig> = {}, traffic?: PioTraffic): PioPath {
  const sim = new Simulator({});
  const pcie = buildPcie(sim, 'pcie', pcieCfg);
  const regs = new VpRegisterFile(sim, 'vp', vpConfig({ pioVps, dmaVps: 40 - pioVps }), pcie.ep.pioOut);
  const hdq = new Hdq(sim, 'hdq', pioVps, slots, regs.hdqOut);
  const readout = new Readout(sim, 'readout', hdq.heads, pioVps, descConfig());
  const descs = Array.from({ length: pioVps }, (_, vp) => encodeDescriptor({ ...blankDesc(DESC_IMM_PUT), dstVp: vp, length: 8, data: new Uint8Array(8).fill(vp) }));
  const inFlight = new Int32Array(pioVps); // stores issued, not yet read out (the library's own count)
  let next = 0;
  let out = 0;
  const stores = Array.from({ length: pioVps }, (_, vp) => {
    const w = new PioWrite();
    w.writer = vp;
    w.addr = vp * 4096 + VR_HDQ_WINDOW;
    w.data = descs[vp]!;
    return w;
  });
  const cycle = (): void => {
    while (readout.out.canPop() && (traffic === undefined || traffic.take(sim.cycle))) {
      const d = readout.out.pop();
      inFlight[d.vp]!--;
      out++;
      traffic?.onDesc(d);
    }
    while (regs.errOut.canPop()) traffic?.onError(regs.errOut.pop());
    while (hdq.errOut.canPop()) traffic?.onError(hdq.errOut.pop());
    // the CPU issues one store per cycle, VPs in turn, each while its HDQ has room for it
    if (pcie.host.pioIn.canPush()) {
      for (let k = 0; k < pioVps; k++) {
        const vp = (next + k) % pioVps;
        if (inFlight[vp]! < slots) {
          next = (vp + 1) % pioVps;
          if (traffic === undefined) {
            inFlight[vp]!++;
            pcie.host.pioIn.push(stores[vp]!);
            break;
          }
          const s = traffic.store(vp);
          const w = new PioWrite();
          w.writer = vp;
          w.addr = s.page * 4096 + VR_HDQ_WINDOW;
          w.data = s.data;
          if (s.page === vp) inFlight[vp]!++;
          pcie.host.pioIn.push(w);
          break;
        }
      }
    }
  };
  const cpu = new PioCpu(sim, cycle);
  readout.out.bindConsumer(cpu);
  regs.errOut.bindConsumer(cpu);
  hdq.errOut.bindConsumer(cpu);
  pcie.host.pioIn.bindProducer(cpu);
  return {
    sim,
    pcie,
    regs,
    hdq,
    readout,
    get out() {
      return out;
    },
    run(n: number): void {
      const goal = out + n;
      sim.runUntil(() => out >= goal, 1e12);
    },
    runTo(to: number): void {
      if (sim.cycle >= to) return;
      sim.runUntil(() => sim.cycle >= to, 1e12);
    },
  };
}
