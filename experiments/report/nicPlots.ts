/**
 * TH Express-2 NIC plots: the descriptor front end's store-to-dispatch latency by PIO and by DMA
 * next to the seed's 300-400 ns difference (runDescProbe, what `netoffload nic desc` calls), and
 * RDMA latency against size between two NICs (runRdmaProbe, what `netoffload nic rdma` calls).
 */
import { runDescProbe } from '../nic/descProbe.ts';
import { runRdmaProbe, type RdmaProbeKind } from '../nic/rdmaProbe.ts';
import type { ReportOptions } from './options.ts';
import type { Plot, PlotRow } from './plot.ts';

const SECTION = 'TH Express-2 NIC (seed 003)';
/** `nic desc` busy-path descriptors (its default, and the quick report's); the idle latencies plotted do not depend on it */
export const DESC_DESCRIPTORS = { full: 20000, quick: 2000 };
export const RDMA_SIZES = { full: [64, 256, 1024, 4096, 16384], quick: [64, 1024, 4096] };
const RDMA_KINDS: RdmaProbeKind[] = ['put', 'get'];

export function nicDescPlot(o: ReportOptions): Plot {
  const descriptors = o.quick ? DESC_DESCRIPTORS.quick : DESC_DESCRIPTORS.full;
  const r = runDescProbe({ pioVps: 8, dmaVps: 32, sdq: {}, descriptors });
  const rows: PlotRow[] = [];
  const put = (x: string, y: number | null, series: string): void => {
    if (y !== null) rows.push({ x, y, series });
  };
  put('PIO: store to readout grant', r.pio_store_to_dispatch_ns, 'model');
  put('DMA: doorbell to readout grant', r.dma_store_to_dispatch_ns, 'model');
  put('DMA minus PIO', r.dma_minus_pio_ns, 'model');
  put('DMA minus PIO', r.seed_dma_minus_pio_ns[0], 'seed, low end');
  put('DMA minus PIO', r.seed_dma_minus_pio_ns[1], 'seed, high end');
  return {
    id: 'nic-desc',
    section: SECTION,
    title: 'Descriptor front end: store-to-dispatch latency on an idle NIC',
    caption: "One descriptor from the CPU's store to the readout granting it, by PIO (the store writes the descriptor into the HDQ window) and by DMA (the store is the doorbell; the SDQ reads the ring over PCIe). The seed says DMA costs 300-400 ns more than PIO.",
    command: `netoffload nic desc${o.quick ? ` --descriptors ${descriptors}` : ''}`,
    kind: 'bars',
    xTitle: 'figure',
    yTitle: 'latency (ns)',
    seriesTitle: 'source',
    xOrder: ['PIO: store to readout grant', 'DMA: doorbell to readout grant', 'DMA minus PIO'],
    rows,
  };
}

export function nicRdmaPlot(o: ReportOptions): Plot {
  const sizes = o.quick ? RDMA_SIZES.quick : RDMA_SIZES.full;
  const rows: PlotRow[] = [];
  for (const kind of RDMA_KINDS) {
    const runs = sizes.map((bytes) => {
      return runRdmaProbe({ kind, bytes });
    });
    for (const r of runs) rows.push({ x: r.bytes, y: r.latency_ns, series: `${kind}, warm` });
    for (const r of runs) rows.push({ x: r.bytes, y: r.cold_latency_ns, series: `${kind}, cold (ATC misses)` });
  }
  return {
    id: 'nic-rdma',
    section: SECTION,
    title: 'RDMA between two NICs: latency to the completion event',
    caption: "PUT and GET from node 0 to node 1 over the link (PIO path): the CPU's store to the completion event in host memory, warm and cold. The model is not yet calibrated on the seed's Table 1 (its figures are not in the experiment), so no seed values are plotted.",
    command: `netoffload nic rdma --kind put|get --bytes B (B in ${sizes.join(', ')})`,
    kind: 'lines',
    xTitle: 'payload (bytes, log scale)',
    xLog: true,
    yTitle: 'latency (ns)',
    seriesTitle: 'operation',
    rows,
  };
}
