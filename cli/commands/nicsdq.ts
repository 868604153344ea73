/**
 * `netoffload nic desc`: the descriptor front end (HDQ, SDQ, readout): one descriptor's latency by
 * PIO and by DMA on an idle NIC, and the path with every VP busy.
 */
import { type CommandSpec, num, str, UsageError, bool } from '../args.ts';
import { SCHED_POLICIES, type SchedPolicy } from '../../rtl/nic/vp/scheduler.ts';
import { SDQ_DEFAULTS, sdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';
import { runDescProbe } from '../../experiments/nic/descProbe.ts';

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'desc'],
    summary: 'descriptor front end: PIO and DMA descriptor latency, and the path with every VP busy',
    details: `
Builds the NIC's descriptor front end (PCIe, VP register file, HDQ for the PIO VPs, SDQ for the
DMA VPs, round-robin readout; docs/nic-frontend.md) and measures: the time from a CPU store to
the readout granting the descriptor on an idle NIC, by PIO (the store writes the descriptor into
the HDQ window) and by DMA (the descriptor is in the ring; the store is the doorbell), with their
difference next to the seed's 300-400 ns; then every VP busy (PIO VPs writing descriptors, DMA
VPs ringing doorbells of 16 over rings of 64) for --descriptors descriptors: simulated cycles per
descriptor, the share of PIO VPs, and the smallest and largest number dispatched for one DMA VP
relative to the DMA VPs' mean.`,
    flags: [
      { name: 'pio-vps', type: 'int', default: 8, min: 0, max: 255, help: 'VPs submitting by PIO (HDQ)' },
      { name: 'dma-vps', type: 'int', default: 32, min: 1, max: 256, help: 'VPs submitting by DMA (SDQ)' },
      { name: 'depth', type: 'int', default: SDQ_DEFAULTS.depth, min: 1, max: 65536, help: 'SDQ buffer entries' },
      { name: 'max-reads', type: 'int', default: SDQ_DEFAULTS.maxReads, min: 1, max: 1024, help: 'descriptor reads outstanding on PCIe' },
      { name: 'batch', type: 'int', default: SDQ_DEFAULTS.batch, min: 1, max: 64, help: 'most descriptors per read request' },
      { name: 'entry-bytes', type: 'int', default: SDQ_DEFAULTS.entryBytes, min: 64, max: 128, help: 'bytes per ring entry: 64 or 128' },
      { name: 'policy', type: 'string', default: SDQ_DEFAULTS.policy, choices: SCHED_POLICIES, help: 'VP scheduler policy' },
      { name: 'descriptors', type: 'int', default: 20000, min: 1, max: 10_000_000, help: 'descriptors dispatched in the busy run' },
    ],
    run(f, io) {
      const pioVps = num(f, 'pio-vps');
      const dmaVps = num(f, 'dma-vps');
      const sdq = { depth: num(f, 'depth'), maxReads: num(f, 'max-reads'), batch: num(f, 'batch'), entryBytes: num(f, 'entry-bytes'), policy: str(f, 'policy') as SchedPolicy };
      try {
        sdqConfig({ ...sdq, pioVps, dmaVps });
      } catch (e) {
        throw new UsageError((e as Error).message.replace('SDQ config: ', '').replace(/(pioVps|dmaVps|maxReads|entryBytes)/g, (m) => `--${m.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`));
      }
      const r = runDescProbe({ pioVps, dmaVps, sdq, descriptors: num(f, 'descriptors') });
      if (bool(f, 'json')) {
        io.out(JSON.stringify(r) + '\n');
        return 0;
      }
      const ns = (v: number | null): string => (v === null ? '-' : `${v.toFixed(0)} ns`);
      io.out(`descriptor front end: ${pioVps} PIO + ${dmaVps} DMA VPs; SDQ depth ${r.sdq.depth}, ${r.sdq.maxReads} reads x ${r.sdq.batch}, ${r.sdq.entryBytes}-byte entries, ${r.sdq.policy}\n\n`);
      const rows: [string, string][] = [
        ['PIO: store to readout grant (idle)', ns(r.pio_store_to_dispatch_ns)],
        ['DMA: doorbell store to readout grant (idle)', ns(r.dma_store_to_dispatch_ns)],
        ['DMA minus PIO', `${ns(r.dma_minus_pio_ns)} (seed: ${r.seed_dma_minus_pio_ns[0]}-${r.seed_dma_minus_pio_ns[1]} ns)`],
        [`all VPs busy, ${r.descriptors} descriptors`, `${r.cycles_per_descriptor.toFixed(2)} cycles per descriptor, ${(100 * r.pio_share).toFixed(1)} % from PIO VPs`],
        ['one DMA VP, relative to the DMA mean', `${r.dma_vp_share_min.toFixed(2)} to ${r.dma_vp_share_max.toFixed(2)}`],
      ];
      const w = Math.max(...rows.map((x) => x[0].length));
      for (const [k, v] of rows) io.out(`${k.padEnd(w)}  ${v}\n`);
      return 0;
    },
  },
];
