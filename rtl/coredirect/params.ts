/**
 * Parameters of the CORE-Direct model, with their defaults (docs/coredirect.md). The clock is
 * 1 GHz, so every `...Ns` parameter is also a cycle count. `taskNs` and `ctxMissNs` are the two
 * values fitted on the seed's 64-process figure (experiments/coredirect/calibrate.ts); the rest are
 * fixed, documented assumptions.
 */
import { InputError } from '../kernel/errors.ts';

export interface HcaParams {
  /** send-queue length, which is also the MWR length limit (seed: "on the order of sixteen thousand") */
  sqLength: number;
  rqLength: number;
  mqLength: number;
  /** HCA engine time to fetch and execute one queue task (send, write, wait, enable) */
  taskNs: number;
  /** extra engine time when the QP/MQ context is not in the context cache (a fetch over PCIe) */
  ctxMissNs: number;
  /** QP context cache: direct-mapped, indexed by QP number modulo this */
  ctxEntries: number;
  /** engine time to take an arriving packet */
  rxNs: number;
  /** extra engine time for an arriving send: the receive WQE fetch (RDMA write with immediate has none) */
  rqFetchNs: number;
  /** packet latency between two HCAs (wire, switch, wire) */
  wireNs: number;
  /** packet latency HCA to itself (both ranks on one node) */
  loopbackNs: number;
  /** PCIe latency: a doorbell to the HCA, or a CQE/data write to host memory */
  pcieNs: number;
}

export const HCA_DEFAULTS: Readonly<HcaParams> = {
  sqLength: 16000,
  rqLength: 16000,
  mqLength: 16000,
  taskNs: 129,
  ctxMissNs: 138,
  ctxEntries: 64,
  rxNs: 250,
  rqFetchNs: 100,
  wireNs: 700,
  loopbackNs: 300,
  pcieNs: 400,
};

const LIMITS: Record<keyof HcaParams, [number, number]> = {
  sqLength: [1, 1 << 24],
  rqLength: [1, 1 << 24],
  mqLength: [1, 1 << 24],
  taskNs: [1, 1e7],
  ctxMissNs: [0, 1e7],
  ctxEntries: [1, 1 << 20],
  rxNs: [1, 1e7],
  rqFetchNs: [0, 1e7],
  wireNs: [1, 1e7],
  loopbackNs: [1, 1e7],
  pcieNs: [1, 1e7],
};

/** Defaults overridden by `over`; an unknown or out-of-range parameter is an InputError naming it. */
export function hcaParams(over: Partial<HcaParams> = {}): HcaParams {
  const p = { ...HCA_DEFAULTS };
  for (const [k, v] of Object.entries(over)) {
    if (!(k in LIMITS)) throw new InputError(`unknown HCA parameter '${k}' (parameters: ${Object.keys(LIMITS).join(', ')})`);
    const [lo, hi] = LIMITS[k as keyof HcaParams];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new InputError(`HCA parameter ${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
    p[k as keyof HcaParams] = v;
  }
  return p;
}
