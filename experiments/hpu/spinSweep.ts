/** `netoffload spin sweep`: line-rate streams over HPUs, clusters, clock, handler, packet size and pipeline organisation. */
import { runStream } from './spinLoad.ts';
import type { HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { SPIN_DEFAULTS } from '../../rtl/hpu/spin/params.ts';

export interface SweepSpec {
  hpus: number[];
  clusters: number[];
  clocks: number[];
  handlers: string[];
  sizes: number[];
  packets: number;
  spin: number;
  /** the HPUs' pipeline organisations (default: SpinParams' default only) */
  organisations?: HpuOrganisation[];
}

export interface SweepPoint {
  handler: string;
  organisation: HpuOrganisation;
  bytes: number;
  clusters: number;
  hpus: number;
  clock_ghz: number;
  handler_ns: number;
  instructions: number;
  dropped_packets: number;
  pause_cycles: number;
  latency_mean_ns: number;
  delivered_gbps: number;
  failed_messages: number;
  sustains: boolean;
}

export function spinSweep(s: SweepSpec, progress?: (done: number) => void): SweepPoint[] {
  const out: SweepPoint[] = [];
  for (const handler of s.handlers)
    for (const bytes of s.sizes)
      for (const clusters of s.clusters)
        for (const hpus of s.hpus)
          for (const ghz of s.clocks)
            for (const organisation of s.organisations ?? [SPIN_DEFAULTS.organisation]) {
              const r = runStream({ handler, pktBytes: bytes, packets: s.packets, perMessage: Math.min(32, s.packets), spin: s.spin, params: { clusters, hpusPerCluster: hpus, freqHz: ghz * 1e9, organisation } });
              out.push({ handler, organisation, bytes, clusters, hpus, clock_ghz: ghz, handler_ns: Math.round(r.handlerNs * 10) / 10, instructions: Math.round(r.instructions), dropped_packets: r.droppedPackets, pause_cycles: r.pauseCycles, latency_mean_ns: Math.round(r.latencyMeanNs * 10) / 10, delivered_gbps: Math.round(r.deliveredGbps * 10) / 10, failed_messages: r.failed, sustains: r.droppedPackets === 0 && r.pauseCycles === 0 && r.failed === 0 });
              progress?.(out.length);
            }
  return out;
}
