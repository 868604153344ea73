/**
 * One blocking DMAPP call (put, get or AMO) on a fresh Gemini system: the latency and bandwidth
 * the seed's micro-benchmarks measure. The seed's bandwidth tests keep exactly one put (get) in
 * flight, so the bandwidth of a size is its bytes over its latency.
 */
import { Simulator } from '../../rtl/kernel/index.ts';
import { AMO_FADD } from '../../rtl/gemini/amo/ops.ts';
import { type GeminiParams, geminiParams } from '../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../rtl/gemini/system.ts';
import { AmoReq, Transfer, XFER_AMO, XFER_GET, XFER_PUT } from '../../rtl/gemini/types.ts';

export type Placement = 'intra-nic' | 'inter-nic' | 'inter-asic';
export const PLACEMENTS: readonly Placement[] = ['intra-nic', 'inter-nic', 'inter-asic'];

export interface CallSpec {
  kind: 'put' | 'get' | 'amo';
  placement: Placement;
  /** payload bytes (an AMO: 8) */
  bytes: number;
  /** strided: element bytes (the seed's stride is 128 bytes) */
  elemBytes?: number;
  stride?: number;
  amoOp?: number;
}

export interface CallResult {
  cycles: number;
  latency_us: number;
  bandwidth_mb_s: number;
  pio: boolean;
}

export function target(placement: Placement): [number, number] {
  return placement === 'intra-nic' ? [0, 0] : placement === 'inter-nic' ? [0, 1] : [1, 0];
}

/**
 * Where a call's bytes live (byte addresses, the same on every node): the initiator's buffer
 * (source of a put, destination of a get) at LOCAL_BASE, the target's at REMOTE_BASE (apart, so an
 * intra-NIC call's two buffers do not overlap; each room for 448 KiB), the completion word at
 * CQ_ADDR, an AMO's word at AMO_ADDR and a fetching AMO's result at AMO_RESULT_ADDR.
 */
export const CALL_LAYOUT = { CQ_ADDR: 0x100, AMO_ADDR: 0x200, AMO_RESULT_ADDR: 0x208, LOCAL_BASE: 0x1000, REMOTE_BASE: 0x80000 } as const;

export function makeTransfer(spec: CallSpec): Transfer {
  const x = new Transfer();
  x.localAddr = spec.kind === 'amo' ? CALL_LAYOUT.AMO_RESULT_ADDR : CALL_LAYOUT.LOCAL_BASE;
  x.remoteAddr = CALL_LAYOUT.REMOTE_BASE;
  x.cqAddr = CALL_LAYOUT.CQ_ADDR;
  x.cqData = 1;
  x.kind = spec.kind === 'put' ? XFER_PUT : spec.kind === 'get' ? XFER_GET : XFER_AMO;
  x.bytes = spec.kind === 'amo' ? 8 : spec.bytes;
  x.elemBytes = spec.elemBytes ?? 0;
  x.stride = spec.stride ?? 0;
  [x.dstAsic, x.dstNic] = target(spec.placement);
  if (spec.kind === 'amo') {
    const r = new AmoReq();
    r.op = spec.amoOp ?? AMO_FADD;
    r.addr = CALL_LAYOUT.AMO_ADDR;
    r.aLo = 1;
    x.amo = r;
  }
  return x;
}

/** Run the calls one after the other (each alone in the system) on one fresh system. */
export function runCalls(params: Partial<GeminiParams>, specs: readonly CallSpec[]): CallResult[] {
  const p = geminiParams(params);
  const sim = new Simulator({ freqHz: p.clockHz });
  const sys = new GeminiSystem(sim, p, specs.some((s) => s.placement === 'inter-asic') ? 2 : 1);
  const call = (spec: CallSpec): Transfer => {
    const x = makeTransfer(spec);
    if (!sys.nic(0, 0).start(x)) throw new Error('the NIC did not take the command');
    sim.runUntil(() => x.doneCycle >= 0, 1e9);
    sim.step(p.swCycles); // the host's software between calls; the system drains
    return x;
  };
  return specs.map((spec) => {
    // the seed's AMO benchmark repeats the call on one word: measure with the word in the atomic cache
    if (spec.kind === 'amo') call(spec);
    const x = call(spec);
    const cycles = x.doneCycle - x.issueCycle + p.swCycles;
    const latency_us = (cycles / p.clockHz) * 1e6;
    return { cycles, latency_us, bandwidth_mb_s: x.bytes / latency_us, pio: x.pio };
  });
}

export function runCall(params: Partial<GeminiParams>, spec: CallSpec): CallResult {
  return runCalls(params, [spec])[0]!;
}
