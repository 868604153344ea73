/**
 * Line-rate streams through the sPIN runtime (used by `netoffload spin table`, `spin sweep` and
 * the bench): `packets` packets of `pktBytes` bytes sent back to back on the link, cut into
 * messages of `perMessage` packets, all matching one entry that runs `handler`; the result is
 * what the run measured (handler time, drops, link pauses, latency, delivered throughput).
 */
import type { SpinParams } from '../../rtl/hpu/spin/params.ts';
import { HANDLER_PAYLOAD } from '../../rtl/hpu/spin/types.ts';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import { interleave, matchEntry, type MessageSpec } from './spinTraffic.ts';

export interface StreamSpec {
  handler: string;
  pktBytes: number;
  packets: number;
  /** packets per message (default 32) */
  perMessage?: number;
  /** the busy handler's loop count or the work handler's instruction count (first word of each packet) */
  spin?: number;
  params: Partial<SpinParams>;
  maxCycles?: number;
  /** every handled packet's latency in ns (the samples latencyMin/Mean/MaxNs summarise), in handler-record order */
  onPacketLatencyNs?: (ns: number) => void;
}

export interface StreamResult {
  /** mean, min and max payload-handler time in ns (start to end) */
  handlerNs: number;
  handlerMinNs: number;
  handlerMaxNs: number;
  instructions: number;
  droppedPackets: number;
  pauseCycles: number;
  /** packet latency in ns, from the first bit on the NIC to the end of its payload handler */
  latencyMinNs: number;
  latencyMeanNs: number;
  latencyMaxNs: number;
  /** payload bytes whose handler ran, x 8 / (first packet's first bit to the last handler's end) */
  deliveredGbps: number;
  /** put bytes x 8 / (first put start to last put start + its wire time) */
  putGbps: number;
  failed: number;
  cycles: number;
}

export function runStream(s: StreamSpec): StreamResult {
  const per = s.perMessage ?? 32;
  const msgs: MessageSpec[] = [];
  for (let m = 0, left = s.packets; left > 0; m++) {
    const n = Math.min(per, left);
    left -= n;
    const data = new Uint8Array(n * s.pktBytes);
    const dv = new DataView(data.buffer);
    for (let k = 0; k < n; k++) {
      if ((s.handler === 'busy' || s.handler === 'work') && s.pktBytes >= 4) dv.setUint32(k * s.pktBytes, s.spin ?? 0, true);
      else for (let i = 0; i < s.pktBytes; i++) data[k * s.pktBytes + i] = (i * 31 + k) & 255;
    }
    msgs.push({ msgId: m, tag: 1, source: 1, data, mtu: s.pktBytes, sendCycle: 0 });
  }
  const hostLen = per * s.pktBytes;
  const init = s.handler === 'unpack' ? new Uint8Array(Uint32Array.from([64, 64]).buffer) : new Uint8Array(0);
  // room for a whole message in its HPU memory (pingpong's pre-set-up pong), unless the caller says otherwise
  const hpuMemBytes = Math.max(16384, Math.ceil(hostLen / 4) * 4);
  const u = new SpinUnit({ hostBytes: Math.max(1 << 20, hostLen), hpuMemBytes, messageSlots: Math.min(256, Math.max(4, Math.floor((4 << 20) / hpuMemBytes))), ...s.params }, [matchEntry(1, s.handler, { hostBase: 0, hostLen, hpuMemInit: init })], interleave(msgs));
  u.run(s.maxCycles ?? 200_000_000);
  const ns = 1e9 / u.params.freqHz;
  const pay = u.records.filter((r) => r.kind === HANDLER_PAYLOAD);
  const serialNs = (s.pktBytes * 8 * u.params.linkPsPerBit) / 1000;
  let sum = 0;
  let mn = Infinity;
  let mx = 0;
  let lsum = 0;
  let lmn = Infinity;
  let lmx = 0;
  let instr = 0;
  let last = 0;
  for (const r of pay) {
    const d = (r.end - r.start) * ns;
    sum += d;
    mn = Math.min(mn, d);
    mx = Math.max(mx, d);
    const lat = r.end * ns - (r.packetArrival * ns - serialNs);
    lsum += lat;
    s.onPacketLatencyNs?.(lat);
    lmn = Math.min(lmn, lat);
    lmx = Math.max(lmx, lat);
    instr += r.instructions;
    last = Math.max(last, r.end);
  }
  const n = Math.max(1, pay.length);
  const firstBit = pay.length > 0 ? Math.min(...pay.map((r) => r.packetArrival)) * ns - serialNs : 0;
  const putBits = u.puts.reduce((a, p) => a + p.data.length * 8, 0);
  const putSpan = u.puts.length > 0 ? (u.puts[u.puts.length - 1]!.cycle - u.puts[0]!.cycle) * ns + (u.puts[u.puts.length - 1]!.data.length * 8 * u.params.putPsPerBit) / 1000 : 0;
  return {
    handlerNs: sum / n,
    handlerMinNs: pay.length ? mn : 0,
    handlerMaxNs: mx,
    instructions: instr / n,
    droppedPackets: u.scheduler.dropped,
    pauseCycles: u.link.pauseCycles,
    latencyMinNs: pay.length ? lmn : 0,
    latencyMeanNs: lsum / n,
    latencyMaxNs: lmx,
    deliveredGbps: pay.length ? (pay.length * s.pktBytes * 8) / (last * ns - firstBit) : 0,
    putGbps: putSpan > 0 ? putBits / putSpan : 0,
    failed: u.engine.events.filter((e) => !e.ok).length,
    cycles: u.sim.cycle,
  };
}

/** The load generators: busy (a loop, 4 cycles a step) and work (straight-line, 1 cycle a step, at most WORK_MAX). */
export type LoadHandler = 'busy' | 'work';
/** WORK_MAX in rtl/hpu/handlers/work.c */
export const WORK_MAX = 3000;

/**
 * The largest load-generator count (busy: loop iterations; work: straight-line instructions)
 * whose stream runs without drops or link pauses, and that run (binary search).
 */
export function lineRateBudget(base: Omit<StreamSpec, 'spin' | 'handler'>, handler: LoadHandler = 'work'): { spin: number; run: StreamResult; failRun: StreamResult | null } {
  const ok = (r: StreamResult): boolean => r.droppedPackets === 0 && r.pauseCycles === 0 && r.failed === 0;
  const maxSpin = handler === 'work' ? WORK_MAX : 4096;
  let lo = 0;
  let loRun = runStream({ ...base, handler, spin: 0 });
  if (!ok(loRun)) return { spin: -1, run: loRun, failRun: loRun };
  let hi = maxSpin;
  let hiRun: StreamResult | null = null;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const r = runStream({ ...base, handler, spin: mid });
    if (ok(r)) {
      lo = mid;
      loRun = r;
    } else {
      hi = mid;
      hiRun = r;
    }
  }
  return { spin: lo, run: loRun, failRun: hiRun };
}
