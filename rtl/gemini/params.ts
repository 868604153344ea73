import { InputError } from '../kernel/errors.ts';
import { type AmoUnitConfig } from './amo/unit.ts';

/**
 * Parameters of the Gemini model. Structural ones come from public hardware facts or are stated
 * assumptions; the three marked "fitted" are fitted on the seed's latencies only
 * (experiments/gemini/fit.ts, `netoffload gemini fit`); bandwidths are then predictions.
 */
export interface GeminiParams {
  /** NIC clock (default 650 MHz) */
  clockHz: number;
  /** HyperTransport bytes per cycle and direction (16: HT3 x16 at 2.6 GHz = 10.4 GB/s) */
  htBytesPerCycle: number;
  /** HyperTransport flight cycles per crossing (assumption: 65 cycles = 100 ns, SerDes, link and northbridge) */
  htFlightCycles: number;
  /**
   * data bytes per cycle the host end of the HyperTransport link (the Opteron's host bridge into
   * the northbridge and memory) moves in total, NIC reads and NIC writes together (default 16, the
   * link's own rate of one direction: 10.4 GB/s). Not fitted: see docs/gemini.md, intra-NIC.
   */
  hostBytesPerCycle: number;
  /** host memory read latency behind HyperTransport (assumption: 52 cycles = 80 ns, DDR3-1333 plus the northbridge) */
  memReadCycles: number;
  /** bytes per cycle of a NIC's network port, the Netlink and a router path (assumption: 16) */
  netBytesPerCycle: number;
  /** header bytes of every network packet (assumption: 16) */
  netHeaderBytes: number;
  /** cycles through a NIC's network port, the transmit pipeline (assumption: 20 cycles = 31 ns) */
  portCycles: number;
  /** fitted: cycles through the Netlink */
  netlinkCycles: number;
  /** fitted: cycles from one ASIC's Netlink to a neighbour's (router tiles, one torus hop) */
  routerCycles: number;
  /** 64-byte reads a BTE keeps outstanding (assumption: 32) */
  bteWindow: number;
  /** reads a receive side keeps outstanding for gets (assumption: 32) */
  rxWindow: number;
  /** transfers of this many bytes and more go through the BTE (DMAPP's default: 2 KB) */
  pioThreshold: number;
  /** fitted: software cycles of one blocking DMAPP call (issue and completion poll) */
  swCycles: number;
  /** the AMO unit (rtl/gemini/amo/unit.ts) */
  amo: Partial<AmoUnitConfig>;
}

export const GEMINI_DEFAULTS: GeminiParams = {
  clockHz: 650e6,
  htBytesPerCycle: 16,
  htFlightCycles: 65,
  hostBytesPerCycle: 16,
  memReadCycles: 52,
  netBytesPerCycle: 16,
  netHeaderBytes: 16,
  portCycles: 20,
  netlinkCycles: 30,
  routerCycles: 50,
  bteWindow: 32,
  rxWindow: 32,
  pioThreshold: 2048,
  swCycles: 100,
  amo: {},
};

/** Names of the fitted parameters, in fitting order. */
export const GEMINI_FITTED = ['swCycles', 'netlinkCycles', 'routerCycles'] as const;
export type GeminiFitted = (typeof GEMINI_FITTED)[number];

export function geminiParams(p: Partial<GeminiParams> = {}): GeminiParams {
  const c = { ...GEMINI_DEFAULTS, ...p, amo: { ...GEMINI_DEFAULTS.amo, ...p.amo } };
  const int = (k: keyof GeminiParams, lo: number): void => {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < lo) throw new InputError(`Gemini parameters: ${k} must be an integer >= ${lo}, got ${String(v)}`);
  };
  for (const k of ['htFlightCycles', 'portCycles', 'netlinkCycles', 'routerCycles', 'swCycles'] as const) int(k, 1);
  int('memReadCycles', 2);
  int('bteWindow', 1);
  int('rxWindow', 1);
  int('pioThreshold', 1);
  int('netHeaderBytes', 0);
  for (const k of ['clockHz', 'htBytesPerCycle', 'hostBytesPerCycle', 'netBytesPerCycle'] as const) if (!(c[k] > 0)) throw new InputError(`Gemini parameters: ${k} must be > 0, got ${c[k]}`);
  return c;
}
