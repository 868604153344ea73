/**
 * The PIO descriptor path under load (benchmark `nic`): CPU stores of 64-byte descriptors from every
 * PIO VP (each VP's process writes into its own page's HDQ window while HDQ_FREE says there is room)
 * -> PCIe (write combining, credits) -> VP register file -> HDQ -> round-robin readout, whose
 * output a consumer takes every cycle. Counts descriptors read out.
 */
import { Simulator } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_IMM_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { buildPcie, type Pcie, type PcieConfig, PioWrite } from '../../rtl/nic/pcie/index.ts';
import { Hdq, vpConfig, VpRegisterFile, VR_HDQ_WINDOW } from '../../rtl/nic/vp/index.ts';

export interface PioPath {
  sim: Simulator;
  pcie: Pcie;
  regs: VpRegisterFile;
  hdq: Hdq;
  /** descriptors read out of the HDQ so far */
  readonly out: number;
  /** run until `n` more descriptors have been read out */
  run(n: number): void;
}

export function buildPioPath(pioVps = 8, slots = 4, pcieCfg: Partial<PcieConfig> = {}): PioPath {
  const sim = new Simulator({});
  const pcie = buildPcie(sim, 'pcie', pcieCfg);
  const regs = new VpRegisterFile(sim, 'vp', vpConfig({ pioVps, dmaVps: 40 - pioVps }), pcie.ep.pioOut);
  const hdq = new Hdq(sim, 'hdq', pioVps, slots, regs.hdqOut);
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
    while (hdq.descOut.canPop()) {
      inFlight[hdq.descOut.pop().vp]!--;
      out++;
    }
    // the CPU issues one store per cycle, VPs in turn, each while its HDQ has room for it
    if (pcie.host.pioIn.canPush()) {
      for (let k = 0; k < pioVps; k++) {
        const vp = (next + k) % pioVps;
        if (inFlight[vp]! < slots) {
          inFlight[vp]!++;
          pcie.host.pioIn.push(stores[vp]!);
          next = (vp + 1) % pioVps;
          break;
        }
      }
    }
  };
  return {
    sim,
    pcie,
    regs,
    hdq,
    get out() {
      return out;
    },
    run(n: number): void {
      const goal = out + n;
      sim.runUntil(() => {
        cycle();
        return out >= goal;
      }, 1e12);
    },
  };
}
