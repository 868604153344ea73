/**
 * Random sPIN scenarios and their checks (used by testbench/hpu/spin*.test.ts and `netoffload
 * spin check`): messages for the five handlers with random sizes, send times, handler durations
 * and HPU configurations; after the run, the message orderings (header once and alone, payload
 * handlers after it, completion after every payload handler and before the completion event),
 * the flow-control accounting and the handler results against the golden model (models/spin).
 */
import { createHash, type Hash } from 'node:crypto';
import { Rng } from '../../rtl/kernel/index.ts';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import { DONE_OK, HANDLER_COMPLETION, HANDLER_HEADER, HANDLER_PAYLOAD, type MatchEntry, type SpinPacket } from '../../rtl/hpu/spin/types.ts';
import type { SpinParams } from '../../rtl/hpu/spin/params.ts';
import type { HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { goldenAccumulate, goldenHistogram, goldenPingpong, goldenProbeValue, goldenUnpack, type GoldenMessage } from '../../models/spin/golden.ts';
import { interleave, matchEntry, type MessageSpec } from './spinTraffic.ts';

export const SCENARIO_HANDLERS = ['probe', 'accumulate', 'pingpong', 'histogram', 'unpack'] as const;
export type ScenarioHandler = (typeof SCENARIO_HANDLERS)[number];

export interface ScenarioMessage {
  handler: ScenarioHandler;
  spec: MessageSpec;
  hostBase: number;
  hpuMemInit: Uint8Array;
  /** unpack's block length and stride */
  blocklen: number;
  stride: number;
}

export interface Scenario {
  params: Partial<SpinParams>;
  messages: ScenarioMessage[];
  /** host memory before the run (the accumulate windows hold doubles) */
  hostInit: Uint8Array;
}

const HOST_WINDOW = 1 << 16;

const u32s = (...w: number[]): Uint8Array => new Uint8Array(Uint32Array.from(w).buffer);

/** A random double in +-2^±60, never NaN or infinite (products stay finite). */
function randomDouble(rng: Rng): number {
  const m = 1 + rng.u32() / 2 ** 32 + rng.u32() / 2 ** 64;
  const e = rng.int(121) - 60;
  return (rng.int(2) ? -1 : 1) * m * 2 ** e;
}

/** A random scenario from a seed (deterministic); `organisation` sets the HPUs' pipeline (default: SpinParams' default). */
export function randomScenario(seed: number, organisation?: HpuOrganisation): Scenario {
  const rng = new Rng(seed);
  const clusters = 1 + rng.int(3);
  const params: Partial<SpinParams> = {
    clusters,
    hpusPerCluster: 1 + rng.int(4),
    bufferedSlots: 1 + rng.int(4),
    messageSlots: 16,
    hpuMemBytes: 4096,
    hostBytes: 1 << 20,
    handlerBudget: 200_000,
    ...(rng.int(2) ? { dmaLatencyNs: 50, dmaPsPerBit: 6.7 } : {}),
    ...(organisation !== undefined ? { organisation } : {}),
  };
  const n = 1 + rng.int(5);
  const host = new Uint8Array(1 << 20);
  const hv = new DataView(host.buffer);
  const messages: ScenarioMessage[] = [];
  let send = 0;
  for (let i = 0; i < n; i++) {
    const handler = SCENARIO_HANDLERS[rng.int(SCENARIO_HANDLERS.length)]!;
    const packets = 1 + rng.int(5);
    const mtu = [64, 128, 256][rng.int(3)]!;
    let len = (packets - 1) * mtu + 16 * (1 + rng.int(mtu / 16));
    const data = new Uint8Array(len);
    const dv = new DataView(data.buffer);
    let hpuMemInit: Uint8Array = new Uint8Array(0);
    let blocklen = 0;
    let stride = 0;
    const hostBase = i * HOST_WINDOW;
    if (handler === 'probe') {
      for (let off = 0; off + 8 <= len; off += mtu) {
        dv.setUint32(off, 0, true);
        dv.setUint32(off + 4, rng.int(200), true);
      }
      hpuMemInit = u32s(rng.int(100), rng.int(100));
    } else if (handler === 'accumulate') {
      for (let off = 0; off < len; off += 8) dv.setFloat64(off, randomDouble(rng), true);
      for (let off = 0; off < len; off += 8) hv.setFloat64(hostBase + off, randomDouble(rng), true);
    } else {
      for (let k = 0; k < len; k++) data[k] = rng.int(256);
      if (handler === 'pingpong') hpuMemInit = Uint8Array.from({ length: rng.int(len + 1) }, () => rng.int(256)); // the pre-set-up pong
      if (handler === 'unpack') {
        blocklen = 1 + rng.int(48);
        stride = blocklen + rng.int(32);
        hpuMemInit = u32s(blocklen, stride);
        len = data.length;
      }
    }
    send += rng.int(400);
    messages.push({ handler, hostBase, hpuMemInit, blocklen, stride, spec: { msgId: 100 + i * 7 + rng.int(7), tag: i + 1, source: rng.int(64), data, mtu, sendCycle: send } });
  }
  return { params, messages, hostInit: host };
}

export function scenarioEntries(s: Scenario): MatchEntry[] {
  return s.messages.map((m) => matchEntry(m.spec.tag, m.handler, { hostBase: m.hostBase, hostLen: HOST_WINDOW, hpuMemInit: m.hpuMemInit }));
}

export function scenarioPackets(s: Scenario): SpinPacket[] {
  return interleave(s.messages.map((m) => m.spec));
}

/** Build and run a scenario; returns the unit after the run. */
export function runScenario(s: Scenario, maxCycles = 50_000_000, skipping = true): SpinUnit {
  const u = new SpinUnit(s.params, scenarioEntries(s), scenarioPackets(s), { skipping });
  u.host.set(s.hostInit);
  u.run(maxCycles);
  return u;
}

const HAS: Record<ScenarioHandler, number> = {
  probe: (1 << HANDLER_HEADER) | (1 << HANDLER_PAYLOAD) | (1 << HANDLER_COMPLETION),
  accumulate: 1 << HANDLER_PAYLOAD,
  pingpong: 1 << HANDLER_PAYLOAD,
  histogram: (1 << HANDLER_PAYLOAD) | (1 << HANDLER_COMPLETION),
  unpack: 1 << HANDLER_PAYLOAD,
};

/** Everything wrong with a finished run (empty when it is right). */
export function checkScenario(s: Scenario, u: SpinUnit): string[] {
  const bad: string[] = [];
  const expectHost = s.hostInit.slice();
  // an HPU runs one handler at a time
  const byHpu = new Map<number, { start: number; end: number }[]>();
  for (const r of u.records) {
    const l = byHpu.get(r.hpu) ?? [];
    for (const o of l) if (r.start <= o.end && o.start <= r.end) bad.push(`HPU ${r.hpu} runs two handlers at once (${o.start}..${o.end} and ${r.start}..${r.end})`);
    l.push({ start: r.start, end: r.end });
    byHpu.set(r.hpu, l);
  }
  for (const m of s.messages) {
    const id = m.spec.msgId;
    const tag = `message ${id} (${m.handler})`;
    const recs = u.records.filter((r) => r.msgId === id);
    const events = u.engine.events.filter((e) => e.msgId === id);
    if (events.length !== 1) {
      bad.push(`${tag}: ${events.length} completion events`);
      continue;
    }
    const ev = events[0]!;
    if (!ev.ok) bad.push(`${tag}: failed: ${ev.reason}`);
    for (const r of recs) if (r.status !== DONE_OK) bad.push(`${tag}: ${r.kind} handler status ${r.status}`);
    const header = recs.filter((r) => r.kind === HANDLER_HEADER);
    const payload = recs.filter((r) => r.kind === HANDLER_PAYLOAD);
    const completion = recs.filter((r) => r.kind === HANDLER_COMPLETION);
    const packets = Math.max(1, Math.ceil(m.spec.data.length / m.spec.mtu));
    const has = HAS[m.handler];
    if (header.length !== ((has >> HANDLER_HEADER) & 1)) bad.push(`${tag}: ${header.length} header handlers`);
    if (completion.length !== ((has >> HANDLER_COMPLETION) & 1)) bad.push(`${tag}: ${completion.length} completion handlers`);
    const h = header[0];
    if (h !== undefined) {
      if (h.start <= h.packetArrival) bad.push(`${tag}: header handler started at ${h.start}, before its packet arrived (${h.packetArrival})`);
      for (const p of payload) if (p.start <= h.end) bad.push(`${tag}: payload handler (packet ${p.packetIndex}) started at ${p.start}, header handler ran until ${h.end}`);
    }
    for (const p of payload) if (p.start <= p.packetArrival) bad.push(`${tag}: payload handler of packet ${p.packetIndex} started at ${p.start}, before the packet arrived (${p.packetArrival})`);
    const c = completion[0];
    const lastPayload = Math.max(-1, ...payload.map((p) => p.end));
    if (c !== undefined && c.start <= lastPayload) bad.push(`${tag}: completion handler started at ${c.start}, a payload handler ran until ${lastPayload}`);
    const lastEnd = Math.max(-1, ...recs.map((r) => r.end));
    if (ev.cycle < lastEnd) bad.push(`${tag}: completion event at ${ev.cycle}, before a handler ended (${lastEnd})`);
    // flow control: each packet either ran its payload handler or was dropped and counted
    const ran = new Set(payload.map((p) => p.packetIndex));
    if (ran.size !== payload.length) bad.push(`${tag}: a packet's payload handler ran twice`);
    let dropped = 0;
    for (let k = 0; k < packets; k++) if (!ran.has(k)) dropped += Math.min(m.spec.data.length, (k + 1) * m.spec.mtu) - k * m.spec.mtu;
    if (ev.droppedBytes !== dropped) bad.push(`${tag}: ${ev.droppedBytes} dropped bytes reported, ${dropped} bytes of packets did not run`);
    if (ev.flowControl !== packets - ran.size > 0) bad.push(`${tag}: flow-control flag ${ev.flowControl} with ${packets - ran.size} dropped packets`);
    // results against the golden model
    const g: GoldenMessage = { data: m.spec.data, mtu: m.spec.mtu, source: m.spec.source, ran };
    switch (m.handler) {
      case 'probe':
        if (ev.value !== goldenProbeValue(ev.droppedBytes, ev.flowControl)) bad.push(`${tag}: completion value ${ev.value}, expected ${goldenProbeValue(ev.droppedBytes, ev.flowControl)}`);
        break;
      case 'accumulate':
        goldenAccumulate(expectHost, m.hostBase, g);
        break;
      case 'unpack':
        goldenUnpack(expectHost, m.hostBase, m.blocklen, m.stride, g);
        break;
      case 'histogram':
        goldenHistogram(expectHost, m.hostBase, g);
        break;
      case 'pingpong': {
        const want = goldenPingpong(g, m.hpuMemInit);
        const got = u.puts.filter((p) => p.msgId === id);
        const key = (x: { dest: number; data: Uint8Array }): string => `${x.dest}:${Buffer.from(x.data).toString('hex')}`;
        const a = got.map(key).sort();
        const b = want.map(key).sort();
        if (a.join() !== b.join()) bad.push(`${tag}: ${got.length} puts differ from the ${want.length} expected`);
        break;
      }
    }
  }
  for (let i = 0; i < expectHost.length; i++)
    if (expectHost[i] !== u.host[i]) {
      bad.push(`host memory differs from the golden model first at 0x${i.toString(16)}: 0x${u.host[i]!.toString(16)}, expected 0x${expectHost[i]!.toString(16)}`);
      break;
    }
  return bad;
}

/**
 * Adds everything a run produced to `hash`: every handler record (HPU, cluster, start and end
 * cycle, status, instructions), every completion event, every put, the host memory, the final
 * cycle and the scheduler's counters. Two runs with equal digests are cycle-for-cycle the same
 * as far as anything observable goes (used to show a speed change leaves results bit-identical).
 */
export function digestRun(hash: Hash, u: SpinUnit): void {
  hash.update(JSON.stringify(u.records));
  hash.update(JSON.stringify(u.engine.events));
  for (const p of u.puts) hash.update(`${p.msgId}:${p.dest}:${p.cycle}:${Buffer.from(p.data).toString('hex')};`);
  hash.update(u.host);
  const sc = u.scheduler;
  hash.update(`${u.sim.cycle}:${sc.dropped}:${sc.droppedBytes}:${sc.placedHome}:${sc.placedOther}:${sc.maxOccupancy}:${u.link.pauseCycles}`);
}

export const newDigest = (): Hash => createHash('sha256');
