/**
 * Timing parameters of the SHArP fabric model. Every latency is derived from a named physical
 * parameter; six of them are fitted (calibration.ts) on the 32-host column of Table I of the seed
 * and nothing else. Units: nanoseconds unless the name says otherwise; the simulation clock is
 * `clockHz` (1 GHz: one cycle per nanosecond).
 */

export interface FabricTiming {
  /** simulation clock (Hz); 1 GHz keeps every figure below in whole cycles */
  clockHz: number;
  /** link data rate, Gb/s: 4x EDR InfiniBand, 100 Gb/s (seed 000 section VI) */
  linkGbps: number;
  /** cable propagation per link, ns: ~2 m of copper at ~0.7c ~= 5 ns/m (assumption, typical intra-rack DAC) */
  cableNs: number;
  /** switch port-to-port latency, ns (cut-through): SwitchIB-2 datasheet figure, 90 ns */
  switchNs: number;
  /** internal port between the switch core and the SHArP TCA: data rate, Gb/s (assumption: same as a link) */
  tcaPortGbps: number;
  /** largest payload+SHArP header a host posts inline in the work request (bytes); above it the HCA DMA-reads the payload (assumption: ConnectX-4 max inline ~ 256 B) */
  maxInlineBytes: number;

  // ---- fitted (calibration.ts, Table I 32-host column only) ----
  /** host software: verbs post + completion poll detection, per operation, ns (fitted) */
  hostSwNs: number;
  /** HCA send+receive pipeline latency (doorbell, WQE processing, packet build; packet receive, CQE write), ns (fitted) */
  hcaNs: number;
  /** PCIe round trip for the HCA to DMA-read a non-inline payload, ns (fitted) */
  pcieReadNs: number;
  /** SHArP TCA packet-processing pipeline latency (receive or send: transport, header decode/build, context lookup), ns (fitted) */
  tcaPacketNs: number;
  /** SHArP TCA datapath occupancy per payload byte (a packet holds the receive or send engine for this x its payload), ns/B (fitted) */
  tcaByteNs: number;
  /** host per-byte cost of moving payload (inline copy into the WQE / user buffer copy-out), ns/B (fitted) */
  hostByteNs: number;

  /** HCA receive engine: occupancy per received message (ns): ConnectX-4's ~150 million messages/s (datasheet) */
  hcaMsgNs: number;
  /** HCA receive engine: PCIe DMA-write occupancy per byte written to host memory (packet, UD GRH, CQE), ns/B: PCIe gen3 x16, ~12 GB/s effective */
  pcieWriteByteNs: number;
  /** host CPU: polling a completion that is the second copy of a result (RC+UD) and reposting its receive buffer, ns (assumption: one CQE cache-line miss ~ 100 ns) */
  hostDiscardNs: number;

  /** management datagram latency (AM <-> AN / host / switch), ns (assumption: a MAD round through the subnet management path ~ 5 us) */
  mgmtNs: number;
  /** time for a switch port to report a dead link or for SHArPd to see a dead process, ns (assumption: 1 us; an event, not a timeout) */
  detectNs: number;
}

/** Defaults: physical values from their sources; fitted values from `netoffload sharp fit` (out/sharp-fit.json). */
export const DEFAULT_TIMING: Readonly<FabricTiming> = {
  clockHz: 1e9,
  linkGbps: 100,
  cableNs: 10,
  switchNs: 90,
  tcaPortGbps: 100,
  maxInlineBytes: 256,
  // fitted by `netoffload sharp fit` (300 Nelder-Mead evaluations on Table I, 32 hosts)
  hostSwNs: 448,
  hcaNs: 1390,
  pcieReadNs: 650,
  tcaPacketNs: 20,
  tcaByteNs: 0.0316,
  hostByteNs: 0.5,
  hcaMsgNs: 7,
  pcieWriteByteNs: 0.083,
  hostDiscardNs: 100,
  mgmtNs: 5000,
  detectNs: 1000,
};

/** Names of the fitted parameters, in the order the fit reports them. */
export const FITTED: readonly (keyof FabricTiming)[] = ['hostSwNs', 'hcaNs', 'pcieReadNs', 'tcaPacketNs', 'tcaByteNs', 'hostByteNs'];

export function checkTiming(t: FabricTiming): void {
  for (const [k, v] of Object.entries(t)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`timing parameter ${k} must be a finite non-negative number, got ${String(v)}`);
  }
  if (t.clockHz <= 0 || t.linkGbps <= 0 || t.tcaPortGbps <= 0) throw new RangeError('clockHz, linkGbps and tcaPortGbps must be positive');
}

/** Cycles of a duration in ns at the clock (rounded up; at least `min`). */
export function nsToCycles(t: FabricTiming, ns: number, min = 0): number {
  return Math.max(min, Math.ceil((ns * t.clockHz) / 1e9 - 1e-9));
}

/** Serialization cycles of `bytes` at `gbps`. */
export function serCycles(t: FabricTiming, bytes: number, gbps: number): number {
  return Math.max(1, Math.ceil(((bytes * 8) / gbps) * (t.clockHz / 1e9) - 1e-9));
}

/** The seed's published latencies (us), the calibration and prediction targets. */
export const PAPER = {
  /** Table I: native SHArP allreduce latency, by bytes then hosts (32, 64, 128) */
  table1: {
    hosts: [32, 64, 128],
    rows: [
      [0, 2.59, 2.57, 2.63],
      [8, 2.66, 2.68, 2.79],
      [16, 2.72, 2.7, 2.86],
      [32, 2.72, 2.85, 2.92],
      [64, 2.89, 2.92, 3.04],
      [128, 3.06, 3.1, 3.25],
      [256, 3.89, 3.99, 4.21],
    ],
  },
  /** Table V: pipelined MPI_Allreduce on 128 hosts, SHArP-based column */
  table5: [
    [8, 2.76],
    [16, 2.76],
    [32, 2.86],
    [64, 3.01],
    [128, 3.24],
    [256, 3.5],
    [512, 4.06],
    [1024, 5.49],
    [2048, 8.44],
    [4096, 14.48],
  ],
  /** Table VI: 128 hosts, result distribution RC only / RC & UD / UD only */
  table6: [
    [4, 2.7, 2.5, 2.46],
    [8, 2.7, 2.51, 2.45],
    [16, 2.71, 2.56, 2.52],
    [32, 2.82, 2.56, 2.51],
    [64, 2.96, 2.67, 2.61],
    [128, 3.14, 2.96, 2.92],
    [256, 3.44, 3.75, 3.71],
    [512, 4.1, 4.29, 4.19],
    [1024, 5.51, 5.5, 5.43],
    [2048, 8.45, 7.94, 7.47],
    [4096, 14.62, 13.31, 11.54],
  ],
} as const;
