/**
 * The descriptor front end probe (`netoffload nic desc`): on the front end of
 * experiments/nic/frontEnd.ts with the given VP counts and SDQ parameters,
 * 1. the latency from a CPU store to the readout's grant for one descriptor on an idle NIC, by PIO
 *    (the descriptor written into the HDQ window) and by DMA (the descriptor already in the ring;
 *    the store is the doorbell), and their difference next to the seed's 300-400 ns (Table 1:
 *    "DMA mode adds 300 to 400 ns for the RDMA columns");
 * 2. the 40-VP load of experiments/nic/descPath.ts for `descriptors` descriptors: simulated cycles
 *    per descriptor, the share of PIO VPs, and the smallest and largest share of one DMA VP
 *    relative to the DMA VPs' mean (the scheduler's and readout's fairness under load).
 */
import { blankDesc, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { VR_DOORBELL, VR_HDQ_WINDOW, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';
import type { SdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';
import { buildDescPath } from './descPath.ts';
import { buildFrontEnd, type FrontEnd, reg64 } from './frontEnd.ts';

export interface DescProbeOptions {
  pioVps: number;
  dmaVps: number;
  sdq: Partial<Omit<SdqConfig, 'pioVps' | 'dmaVps'>>;
  descriptors: number;
}

export interface DescProbeResult {
  pio_vps: number;
  dma_vps: number;
  sdq: SdqConfig;
  /** null when there is no VP of that kind */
  pio_store_to_dispatch_ns: number | null;
  dma_store_to_dispatch_ns: number | null;
  dma_minus_pio_ns: number | null;
  seed_dma_minus_pio_ns: [number, number];
  descriptors: number;
  cycles: number;
  cycles_per_descriptor: number;
  pio_share: number;
  dma_vp_share_min: number;
  dma_vp_share_max: number;
}

const DESC = encodeDescriptor({ ...blankDesc(DESC_PUT), dstVp: 1, dstNode: 1, length: 8 });

function firstGrant(fe: FrontEnd, issue: () => void): number {
  fe.sim.step(500); // registers written, link idle
  const t0 = fe.sim.cycle;
  issue();
  fe.sim.runUntil(() => fe.sink.total > 0, 100000);
  return fe.sim.cyclesToNs(fe.sink.got[0]!.cycle - t0);
}

export function runDescProbe(o: DescProbeOptions): DescProbeResult {
  const mk = (): FrontEnd => buildFrontEnd({ vp: { pioVps: o.pioVps, dmaVps: o.dmaVps }, sdq: o.sdq, keep: true });
  let pio: number | null = null;
  let dma: number | null = null;
  let sdq: SdqConfig;
  if (o.pioVps > 0) {
    const fe = mk();
    pio = firstGrant(fe, () => fe.store(0, 0, VR_HDQ_WINDOW, DESC));
  }
  {
    const fe = mk();
    sdq = fe.sdqCfg;
    const vp = o.pioVps;
    fe.store(-1, vp, VR_SDQ_BASE, reg64(0x10000));
    fe.sim.step(1);
    fe.store(-1, vp, VR_SDQ_SIZE, reg64(16));
    fe.pcie.mem.write(0x10000, DESC);
    dma = firstGrant(fe, () => fe.store(vp, vp, VR_DOORBELL, reg64(1)));
  }
  const load = buildDescPath({ pioVps: o.pioVps, dmaVps: o.dmaVps, sdq: o.sdq });
  load.run(Math.min(2000, o.descriptors)); // warm-up
  const c0 = load.fe.sim.cycle;
  const d0 = load.out;
  const p0 = load.outPio;
  const before = Float64Array.from(load.fe.sink.perVp);
  load.run(o.descriptors);
  const n = load.out - d0;
  const shares: number[] = [];
  for (let vp = o.pioVps; vp < o.pioVps + o.dmaVps; vp++) shares.push(load.fe.sink.perVp[vp]! - before[vp]!);
  const mean = shares.reduce((a, b) => a + b, 0) / shares.length;
  return {
    pio_vps: o.pioVps,
    dma_vps: o.dmaVps,
    sdq,
    pio_store_to_dispatch_ns: pio,
    dma_store_to_dispatch_ns: dma,
    dma_minus_pio_ns: pio === null ? null : dma - pio,
    seed_dma_minus_pio_ns: [300, 400],
    descriptors: n,
    cycles: load.fe.sim.cycle - c0,
    cycles_per_descriptor: (load.fe.sim.cycle - c0) / n,
    pio_share: (load.outPio - p0) / n,
    dma_vp_share_min: mean > 0 ? Math.min(...shares) / mean : 0,
    dma_vp_share_max: mean > 0 ? Math.max(...shares) / mean : 0,
  };
}
