/**
 * Latency distributions (the single place they are defined): every measured call of a SHArP
 * allreduce loop, and every packet of a sPIN stream, binned into a histogram. The runs are the
 * ones `netoffload sharp allreduce` and `netoffload spin run` make with the flags named in
 * `command`; their mean (and for sPIN min and max) are what those commands print, and
 * `netoffload report histogram --of NAME` prints the bins.
 */
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { DMA_DISCRETE, SPIN_DEFAULTS } from '../../rtl/hpu/spin/params.ts';
import { runAllreduce } from '../sharp/scenario.ts';
import { runStream } from '../hpu/spinLoad.ts';

export interface Bin {
  lo: number;
  hi: number;
  count: number;
}

export interface Distribution {
  name: string;
  /** what was measured, and its unit */
  what: string;
  unit: string;
  /** the command whose run this is */
  command: string;
  samples: number;
  min: number;
  mean: number;
  max: number;
  bins: Bin[];
}

export const DISTRIBUTIONS = ['sharp-allreduce', 'spin-packet'] as const;
export type DistributionName = (typeof DISTRIBUTIONS)[number];

export const HIST_BINS = 24;

/** `bins` equal-width bins from the smallest to the largest sample (one bin of width 1 if all are equal); the largest sample falls in the last bin. */
export function histogram(samples: readonly number[], bins = HIST_BINS): Bin[] {
  if (samples.length === 0) return [];
  let mn = Infinity;
  let mx = -Infinity;
  for (const v of samples) {
    mn = Math.min(mn, v);
    mx = Math.max(mx, v);
  }
  if (mx === mn) return [{ lo: mn, hi: mn + 1, count: samples.length }];
  const w = (mx - mn) / bins;
  const out: Bin[] = Array.from({ length: bins }, (_, i) => ({ lo: mn + i * w, hi: i === bins - 1 ? mx : mn + (i + 1) * w, count: 0 }));
  for (const v of samples) out[Math.min(bins - 1, Math.floor((v - mn) / w))]!.count++;
  return out;
}

function summarise(name: string, what: string, unit: string, command: string, samples: number[]): Distribution {
  const sum = samples.reduce((a, b) => a + b, 0);
  return { name, what, unit, command, samples: samples.length, min: Math.min(...samples), mean: sum / samples.length, max: Math.max(...samples), bins: histogram(samples) };
}

/** iterations of the allreduce loop (`sharp allreduce --iterations`) */
export const SHARP_ITERATIONS = { full: 50, quick: 10 };
/** packets of the sPIN stream (`spin run --packets`) */
export const SPIN_PACKETS_HIST = { full: 2000, quick: 400 };

export function sharpAllreduceLatency(quick: boolean): Distribution {
  const iterations = quick ? SHARP_ITERATIONS.quick : SHARP_ITERATIONS.full;
  const fabric = new Fabric({ hosts: 128 });
  const samples: number[] = [];
  // the flags `sharp allreduce` passes by default (128 hosts, 8 B f32 sum, rc, skew seed 1 up to 500 ns, data seed 7)
  runAllreduce({ fabric, hosts: 128, bytes: 8, op: 'sum', type: 'f32', dist: 'rc', skewSeed: 1, skewMaxNs: 500, iterations, dataSeed: 7, onCallLatency: (c) => samples.push(fabric.sim.cyclesToUs(c)) });
  return summarise('sharp-allreduce', 'SHArP allreduce latency per call (every member, every measured iteration)', 'us', `netoffload sharp allreduce --hosts 128 --bytes 8 --iterations ${iterations}`, samples);
}

export function spinPacketLatency(quick: boolean): Distribution {
  const packets = quick ? SPIN_PACKETS_HIST.quick : SPIN_PACKETS_HIST.full;
  const samples: number[] = [];
  // `spin run --handler pingpong --bytes 1024 --packets N` with that command's default unit flags (no packet dropped)
  const params = { clusters: SPIN_DEFAULTS.clusters, hpusPerCluster: SPIN_DEFAULTS.hpusPerCluster, bufferedSlots: SPIN_DEFAULTS.bufferedSlots, freqHz: 1e9, linkGapNs: SPIN_DEFAULTS.linkGapNs, handlerBudget: SPIN_DEFAULTS.handlerBudget, ...DMA_DISCRETE };
  const r = runStream({ handler: 'pingpong', pktBytes: 1024, packets, perMessage: 32, spin: 0, params, onPacketLatencyNs: (ns) => samples.push(ns) });
  if (r.failed > 0 || r.droppedPackets > 0) throw new Error(`spin packet latency: ${r.failed} messages failed, ${r.droppedPackets} packets dropped`);
  return summarise('spin-packet', 'sPIN packet latency, first bit on the NIC to the end of its payload handler (pingpong handler, 1 KiB packets at 400 Gb/s, 4 x 8 HPUs)', 'ns', `netoffload spin run --handler pingpong --bytes 1024 --packets ${packets}`, samples);
}

export function distribution(name: DistributionName, quick: boolean): Distribution {
  return name === 'sharp-allreduce' ? sharpAllreduceLatency(quick) : spinPacketLatency(quick);
}
