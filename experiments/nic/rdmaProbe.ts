/**
 * One RDMA operation kind between two NICs (`netoffload nic rdma`): the descriptor written by the
 * CPU into a PIO VP's HDQ window (PIO path), or into a DMA VP's SDQ ring in host memory and
 * announced by a doorbell store, the SDQ then fetching it by a PCIe read (DMA path); completion
 * detected by the event as in the seed (PUT / IMM_PUT: the remote event landing in the target's EQ; MP: the MPQ
 * entry landing; GET: the local event landing in the initiator's EQ). Reports the latency of one
 * operation with warm translations, and the throughput of `count` operations submitted back to
 * back; checks that the target buffer holds the source bytes.
 */
import { reg64 } from './frontEnd.ts';
import { Simulator } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_GET, DESC_IMM_PUT, DESC_MP, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { ItemWrite } from '../../rtl/nic/memcheck/types.ts';
import { buildNicPair, type NicPair } from '../../rtl/nic/nicPair.ts';
import { PioWrite } from '../../rtl/nic/pcie/index.ts';
import { NC_INTQ_BASE, NC_INTQ_SIZE, VR_DOORBELL, VR_EQ_BASE, VR_EQ_SIZE, VR_HDQ_WINDOW, VR_MPQ_BASE, VR_MPQ_SIZE, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';

export type RdmaProbeKind = 'imm_put' | 'put' | 'get' | 'mp';

export interface RdmaProbeConfig {
  kind: RdmaProbeKind;
  /** payload bytes per operation (IMM_PUT 1-80, MP 1-80) */
  bytes: number;
  /** operations submitted back to back for the throughput figure */
  count: number;
  path: 'pio' | 'dma';
  /** link latency and rate (cycles, bytes per cycle) */
  linkLatency: number;
  linkBytesPerCycle: number;
  /** ATT read latency of the ATC's misses (cycles) */
  attLatency: number;
  maxPayload: number;
  /** the descriptors' connect flag: every operation over a reliable end-to-end connection (rtl/nic/e2e) */
  connect: boolean;
  /** link faults (connect only): packet drop probability and bit-error rate, on both directions */
  dropRate: number;
  ber: number;
}

export const RDMA_PROBE_DEFAULTS: Readonly<RdmaProbeConfig> = { kind: 'put', bytes: 4096, count: 32, path: 'pio', linkLatency: 200, linkBytesPerCycle: 14, attLatency: 500, maxPayload: 256, connect: false, dropRate: 0, ber: 0 };

export interface RdmaProbeResult {
  kind: RdmaProbeKind;
  path: 'pio' | 'dma';
  bytes: number;
  count: number;
  /** submit (the CPU's store, or the descriptor handed over) to the completion event in host memory, one operation, warm */
  latency_ns: number;
  /** the same for the first (cold: ATC misses) operation */
  cold_latency_ns: number;
  /** payload bytes per ns over the back-to-back run (first submit to last completion) */
  throughput_gbps: number;
  packets: number;
  cycles: number;
  /** every target buffer held the source bytes */
  ok: boolean;
  /** connect runs only: the end-to-end layer's counts over both NICs */
  e2e?: { connections: number; retransmissions: number; timeouts: number; conn_nacks: number; failed: number; dropped: number; corrupted: number };
}

/** VPs of each NIC (the defaults: 8 PIO + 32 DMA); page VPS is the control page */
const VPS = 40;
const INITIATOR_PIO_VP = 0;
const INITIATOR_DMA_VP = 8;
const TARGET_VP = 1;
const SRC_VA = 0x1000_0000;
const DST_VA = 0x2000_0000;
const EQ_AT = 0x10_0000;
const MPQ_AT = 0x40_0000;
const INTQ_AT = 0x80_0000;
const SDQ_AT = 0xc0_0000;
const SDQ_ENTRIES = 64;
const SDQ_ENTRY_BYTES = 128;

function pattern(n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8) + 1) & 0xff);
}

export function runRdmaProbe(p: Partial<RdmaProbeConfig> = {}): RdmaProbeResult {
  const c: RdmaProbeConfig = { ...RDMA_PROBE_DEFAULTS, ...p };
  const small = c.kind === 'imm_put' || c.kind === 'mp';
  if (!Number.isInteger(c.bytes) || c.bytes < 1 || c.bytes > (small ? 80 : 1 << 24)) throw new RangeError(`bytes must be an integer in [1, ${small ? 80 : 1 << 24}] for ${c.kind}, got ${c.bytes}`);
  for (const n of ['dropRate', 'ber'] as const) if (!(c[n] >= 0 && c[n] < 1)) throw new RangeError(`${n} must be in [0, 1), got ${c[n]}`);
  if (!c.connect && (c.dropRate > 0 || c.ber > 0)) throw new RangeError('link faults need connect: a connectless operation that loses a packet never completes');
  const sim = new Simulator({});
  const pair: NicPair = buildNicPair(sim, {
    nic: { att: { readLatency: c.attLatency, jitter: 0 }, atc: { entries: 65536, ways: 8 }, items: 64, rdma: { maxPayload: c.maxPayload, maxTransfer: Math.max(c.bytes, 64) } },
    link: { latency: c.linkLatency, bytesPerCycle: c.linkBytesPerCycle, dropProb: c.dropRate, ber: c.ber },
  });
  const vp = c.path === 'pio' ? INITIATOR_PIO_VP : INITIATOR_DMA_VP;
  const pages = Math.ceil(c.bytes / 4096) + 1;
  // software: queues (register stores through PCIe: EQ and MPQ in the VP pages, the INTQ in the
  // control page after them), items on both nodes, the source buffer
  const store = (n: number, writer: number, page: number, off: number, v: number): void => {
    const host = pair.nics[n]!.pcie.host;
    while (!host.pioIn.canPush()) sim.step(1);
    const w = new PioWrite();
    w.writer = writer;
    w.addr = page * 4096 + off;
    w.data = reg64(v);
    host.pioIn.push(w);
  };
  for (const n of [0, 1]) {
    for (const v of [vp, TARGET_VP]) {
      store(n, -1, v, VR_EQ_BASE, EQ_AT + v * 0x2_0000);
      store(n, -1, v, VR_EQ_SIZE, 4096);
      store(n, -1, v, VR_MPQ_BASE, MPQ_AT + v * 0x2_0000);
      store(n, -1, v, VR_MPQ_SIZE, 1024);
    }
    store(n, -1, VPS, NC_INTQ_BASE, INTQ_AT);
    store(n, -1, VPS, NC_INTQ_SIZE, 4096);
  }
  sim.step(1000);
  const item = (n: number, v: number, va: number): void => {
    const w = new ItemWrite();
    Object.assign(w, { index: 0, valid: true, key: 77, read: true, write: true, basePage: va / 4096, topPage: va / 4096 + pages - 1, vp: v });
    pair.nics[n]!.mem.checker.loadItem(w);
  };
  const srcNode = c.kind === 'get' ? 1 : 0;
  const srcVa = c.kind === 'get' ? DST_VA : SRC_VA;
  const srcVp = c.kind === 'get' ? TARGET_VP : vp;
  item(0, vp, SRC_VA);
  item(1, TARGET_VP, DST_VA);
  const data = pattern(c.bytes);
  // the source buffer in host memory at its physical pages (the ATT's default mapping, read from the ATT itself)
  const att = pair.nics[srcNode]!.mem.att;
  for (let off = 0; off < c.bytes; ) {
    const va = srcVa + off;
    const n = Math.min(4096 - (va % 4096), c.bytes - off);
    pair.nics[srcNode]!.pcie.mem.write(att.frame(Math.floor(va / 4096), srcVp) * 4096 + (va % 4096), data.subarray(off, off + n));
    off += n;
  }
  const d = blankDesc({ imm_put: DESC_IMM_PUT, put: DESC_PUT, get: DESC_GET, mp: DESC_MP }[c.kind], c.kind === 'imm_put' && c.bytes > 16 ? 128 : undefined);
  d.dstNode = 1;
  d.dstVp = TARGET_VP;
  d.length = c.bytes;
  d.localEvent = true;
  d.remoteEvent = c.kind !== 'mp';
  d.connect = c.connect;
  if (small) d.data = data;
  else {
    d.localItem = 0;
    d.localKey = 77;
    d.localAddr = SRC_VA;
  }
  if (c.kind !== 'mp') {
    d.remoteItem = 0;
    d.remoteKey = 77;
    d.remoteAddr = DST_VA;
  }
  const desc = encodeDescriptor(d);
  // completion: the entry landing in host memory (the root complex's write hook)
  let completions = 0;
  let lastCompletion = -1;
  const [doneNode, doneBase] = c.kind === 'get' ? [0, EQ_AT + vp * 0x2_0000] : c.kind === 'mp' ? [1, MPQ_AT + TARGET_VP * 0x2_0000] : [1, EQ_AT + TARGET_VP * 0x2_0000];
  const doneEnd = doneBase + (c.kind === 'mp' ? 1024 * 128 : 4096 * 32);
  pair.nics[doneNode]!.pcie.host.onWrite = (tlp, cycle) => {
    if (tlp.addr >= doneBase && tlp.addr < doneEnd && (c.kind === 'mp' || tlp.data![0] === (c.kind === 'get' ? 1 : 2))) {
      completions++;
      lastCompletion = cycle;
    }
  };
  const pio = (writer: number, addr: number, bytes: Uint8Array): boolean => {
    const host = pair.nics[0]!.pcie.host;
    if (!host.pioIn.canPush()) return false;
    const w = new PioWrite();
    w.writer = writer;
    w.addr = addr;
    w.data = bytes;
    host.pioIn.push(w);
    return true;
  };
  // DMA path: the kernel registers the VP's descriptor ring (register stores through PCIe)
  if (c.path === 'dma') {
    for (const [off, v] of [[VR_SDQ_BASE, SDQ_AT], [VR_SDQ_SIZE, SDQ_ENTRIES]] as const) while (!pio(-1, vp * 4096 + off, reg64(v))) sim.step(1);
    sim.step(1000);
  }
  let posted = 0;
  const submit = (): boolean => {
    if (c.path === 'pio') return pio(vp, vp * 4096 + VR_HDQ_WINDOW, desc);
    // the descriptor into the next ring entry (software's store to its own memory), then the doorbell
    if (!pair.nics[0]!.pcie.host.pioIn.canPush()) return false;
    pair.nics[0]!.pcie.mem.write(SDQ_AT + (posted++ % SDQ_ENTRIES) * SDQ_ENTRY_BYTES, desc);
    return pio(vp, vp * 4096 + VR_DOORBELL, reg64(1));
  };
  const one = (): number => {
    const goal = completions + 1;
    while (!submit()) sim.step(1);
    const t0 = sim.cycle;
    sim.runUntil(() => completions >= goal, 1e9);
    return lastCompletion - t0;
  };
  const cold = one();
  const warm = one();
  // back to back: at most 4 operations in flight (the HDQ's slots; the same for the SDQ), submitted as soon as one completes
  const t0 = sim.cycle;
  const goal = completions + c.count;
  let submitted = 0;
  const base = completions;
  sim.runUntil(() => {
    if (submitted < c.count && submitted - (completions - base) < 4 && submit()) submitted++;
    return completions >= goal;
  }, 1e12);
  const span = lastCompletion - t0;
  // the data landed
  const dstNode = c.kind === 'get' ? 0 : 1;
  const dstVa = c.kind === 'get' ? SRC_VA : DST_VA;
  const dstVp = c.kind === 'get' ? vp : TARGET_VP;
  let ok = true;
  if (c.kind === 'mp') {
    const e = pair.nics[1]!.pcie.mem.read(MPQ_AT + TARGET_VP * 0x2_0000, 128);
    ok = e[1] === c.bytes && e.subarray(16, 16 + c.bytes).every((b, i) => b === data[i]);
  } else {
    const datt = pair.nics[dstNode]!.mem.att;
    for (let i = 0; i < c.bytes && ok; i++) {
      const va = dstVa + i;
      ok = pair.nics[dstNode]!.pcie.mem.read(datt.frame(Math.floor(va / 4096), dstVp) * 4096 + (va % 4096), 1)[0] === data[i];
    }
  }
  const sum = (f: (n: NicPair['nics'][0]) => number): number => f(pair.nics[0]) + f(pair.nics[1]);
  const e2e = c.connect
    ? {
        e2e: {
          connections: sum((n) => n.e2eTx.stats.connections.value),
          retransmissions: sum((n) => n.e2eTx.stats.resent.value),
          timeouts: sum((n) => n.e2eTx.stats.timeouts.value),
          conn_nacks: sum((n) => n.e2eTx.stats.nacked.value),
          failed: sum((n) => n.e2eTx.stats.failed.value),
          dropped: pair.link.stats.dropped.value,
          corrupted: pair.link.stats.corrupted.value,
        },
      }
    : {};
  return {
    kind: c.kind,
    path: c.path,
    bytes: c.bytes,
    count: c.count,
    latency_ns: sim.cyclesToNs(warm),
    cold_latency_ns: sim.cyclesToNs(cold),
    throughput_gbps: (c.count * c.bytes) / sim.cyclesToNs(span),
    packets: pair.nics[0]!.tx.stats.packets.value + pair.nics[1]!.tx.stats.packets.value,
    cycles: sim.cycle,
    ok,
    ...e2e,
  };
}
