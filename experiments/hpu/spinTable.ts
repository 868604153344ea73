/**
 * `netoffload spin table`: the sPIN runtime running the real handler ELFs next to the seed's
 * Little's-law figures (002) and PsPIN's measurements (REFERENCE.md), each with the error; and
 * the seed's "Number of HPUs Needed" plot as a table (analytical for the seed's 10 and 500
 * instruction handlers, and for the handlers in rtl/hpu/handlers from their simulated times).
 */
import { DMA_DISCRETE, SPIN_DEFAULTS, type SpinParams } from '../../rtl/hpu/spin/params.ts';
import { lineRateBudget, type LoadHandler, runStream, type StreamResult } from './spinLoad.ts';

export interface SpinTableRow {
  figure: string;
  source: string;
  paper: number;
  model: number;
  error_pct: number;
  /** |error| <= TOLERANCE_PCT */
  within_tolerance: boolean;
  unit: string;
  how: string;
}

export interface HpusNeededRow {
  packet_bytes: number;
  arrival_mpps: number;
  hpus_10_instr: number;
  hpus_500_instr: number;
  handler_ns: Record<string, number>;
  hpus: Record<string, number>;
}

export interface SpinTable {
  rows: SpinTableRow[];
  hpusNeeded: HpusNeededRow[];
}

/** PsPIN's organisation: 4 x 8 HPUs at 1 GHz, packets back to back at 400 Gb/s (no LogGP g), single-cycle CAM. */
export const PSPIN_PARAMS: Partial<SpinParams> = { clusters: 4, hpusPerCluster: 8, linkGapNs: 0, camNs: 0, organisation: 'ri5cy' };
/**
 * The seed's budget setting: 8 HPUs at the seed's HPU clock (its simulation ran the HPUs at
 * 2.5 GHz), 4 buffered slots, LogGP g = 6.7 ns, G = 2.5 ps.
 */
export const SEED8: Partial<SpinParams> = { clusters: 1, hpusPerCluster: 8, bufferedSlots: 4, freqHz: 2.5e9 };

/** How far a model figure may be from the paper's and still count as reproduced (%). */
export const TOLERANCE_PCT = 10;

/**
 * The longest handler a stream sustains with either load generator: work (straight-line,
 * one-cycle steps, but a longer shortest handler) and busy (a loop: four-cycle steps, shorter
 * shortest handler).
 */
function bestBudget(base: Parameters<typeof lineRateBudget>[0]): { gen: LoadHandler; b: ReturnType<typeof lineRateBudget> } {
  const w = lineRateBudget(base, 'work');
  const y = lineRateBudget(base, 'busy');
  return w.spin >= 0 && w.run.handlerNs >= y.run.handlerNs ? { gen: 'work', b: w } : { gen: 'busy', b: y };
}

const err = (model: number, paper: number): number => Math.round(((model - paper) / paper) * 1000) / 10;
const r1 = (v: number): number => Math.round(v * 10) / 10;

/** Packets per second the link delivers for s-byte packets: min(1/g, 1/(G s)). */
export function arrivalRate(s: number, p: SpinParams = SPIN_DEFAULTS): number {
  return 1 / Math.max(p.linkGapNs * 1e-9, s * 8 * p.linkPsPerBit * 1e-12);
}

export const TABLE_SIZES = [64, 128, 256, 512, 1024, 2048, 4096];
export const TABLE_HANDLERS = ['pingpong', 'histogram', 'accumulate'] as const;

export function spinTable(opts: { packets?: number; onRow?: (what: string) => void } = {}): SpinTable {
  const n = opts.packets ?? 400;
  const rows: SpinTableRow[] = [];
  const row = (figure: string, source: string, paper: number, model: number, unit: string, how: string): void => {
    rows.push({ figure, source, paper, model: r1(model), error_pct: err(model, paper), within_tolerance: Math.abs(err(model, paper)) <= TOLERANCE_PCT, unit, how });
    opts.onRow?.(figure);
  };
  const fails = (b: { failRun: StreamResult | null }): string => (b.failRun === null ? '' : `; one step more (${r1(b.failRun.handlerNs)} ns) drops`);
  const b64 = bestBudget({ pktBytes: 64, packets: n, perMessage: n, params: SEED8 });
  row('8 HPUs, any packet size: handler budget', 'seed 002', 53, b64.b.run.handlerNs, 'ns', `longest handler with no drop over ${n} 64 B packets at g = 6.7 ns, 8 five-stage HPUs at the seed's 2.5 GHz, 4 buffered slots (${b64.gen} ${b64.b.spin}${fails(b64.b)})`);
  const b4k = bestBudget({ pktBytes: 4096, packets: n, perMessage: n, params: SEED8 });
  row('8 HPUs, 4 KiB packets: handler budget', 'seed 002', 650, b4k.b.run.handlerNs, 'ns', `longest handler with no drop over ${n} 4 KiB packets at 400 Gb/s, 8 five-stage HPUs at 2.5 GHz, 4 buffered slots (${b4k.gen} ${b4k.b.spin}${fails(b4k.b)})`);
  const ps = bestBudget({ pktBytes: 64, packets: 2 * n, perMessage: 2 * n, params: PSPIN_PARAMS });
  row('32 HPUs, 64 B packets at 400 Gb/s: handler budget', 'PsPIN', 26, ps.b.run.handlerNs, 'ns', `longest handler with no drop over ${2 * n} back-to-back 64 B packets, 4 x 8 RI5CY HPUs at 1 GHz, 12 buffered slots per cluster (${ps.gen} ${ps.b.spin}${fails(ps.b)})`);
  // a 29-instruction handler: the straight-line work handler (IPC 1 code, as the seed assumes of handlers) with as many instructions as make 29 in all
  const base = runStream({ handler: 'work', spin: 0, pktBytes: 64, packets: 1, params: PSPIN_PARAMS }).instructions;
  const work29 = Math.max(0, 29 - base);
  const lat = runStream({ handler: 'work', spin: work29, pktBytes: 64, packets: 2 * n, perMessage: 2 * n, params: PSPIN_PARAMS });
  row('29-instruction handler time', 'PsPIN', 38, lat.handlerNs, 'ns', `work handler, ${work29} straight-line instructions (${r1(lat.instructions)} in all incl. crt0 and exit), RI5CY at 1 GHz`);
  const how = `first bit on the NIC to the end of its handler, ${2 * n} back-to-back 64 B packets, the ${r1(lat.instructions)}-instruction work handler, 4 x 8 RI5CY HPUs (${lat.droppedPackets} packets dropped by flow control, not counted)`;
  row('packet latency, min', 'PsPIN', 108, lat.latencyMinNs, 'ns', how);
  row('packet latency, mean', 'PsPIN', 119.75, lat.latencyMeanNs, 'ns', how);
  row('packet latency, max', 'PsPIN', 155, lat.latencyMaxNs, 'ns', how);
  const pp = runStream({ handler: 'pingpong', pktBytes: 1024, packets: n, perMessage: 16, params: { ...PSPIN_PARAMS, hpuMemBytes: 16384 } });
  row('1 KiB ping-pong throughput', 'PsPIN', 443.2, pp.putGbps, 'Gbit/s', `pong puts from HPU memory, ${n} back-to-back 1 KiB pings, 4 x 8 RI5CY HPUs`);
  // the seed's "Number of HPUs Needed" plot
  const hpusNeeded: HpusNeededRow[] = [];
  for (const s of TABLE_SIZES) {
    const a = arrivalRate(s);
    const handler_ns: Record<string, number> = {};
    const hpus: Record<string, number> = {};
    for (const h of TABLE_HANDLERS) {
      const r: StreamResult = runStream({ handler: h, pktBytes: s, packets: 8, perMessage: 8, params: { ...DMA_DISCRETE, clusters: 4, hpusPerCluster: 8, handlerBudget: 100_000_000, messageSlots: 16, hpuMemBytes: 65536 } });
      if (r.failed > 0) throw new Error(`the ${h} handler failed on ${s}-byte packets`);
      handler_ns[h] = r1(r.handlerNs);
      hpus[h] = Math.ceil(r.handlerNs * 1e-9 * a);
    }
    hpusNeeded.push({ packet_bytes: s, arrival_mpps: r1(a / 1e6), hpus_10_instr: Math.ceil(4e-9 * a), hpus_500_instr: Math.ceil(200e-9 * a), handler_ns, hpus });
    opts.onRow?.(`HPUs needed, ${s} B`);
  }
  return { rows, hpusNeeded };
}
