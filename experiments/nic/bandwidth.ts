/**
 * RDMA PUT bandwidth between two TH Express-2 NICs, the seed's Figure 2 (`netoffload nic
 * bandwidth`, docs/nic-rdma.md "PUT bandwidth"): one process per direction posts `count`
 * back-to-back PUTs of `bytes` the software way (experiments/nic/rdmaRig.ts) on one VP of its
 * node, a PIO VP (descriptor stored into the HDQ window) or a DMA VP (descriptor written into the
 * SDQ ring, doorbell), as fast as the VP's queue takes them, to the same VP of the other node;
 * bidirectional: both nodes at once. Translations are warm (one PUT over the buffers first, not
 * measured), as in the seed's figure.
 *
 * Measured in the target's host memory: the payload bytes that land in the target buffer (the
 * root complex's write hook), over the simulated time from the first descriptor posted (the CPU's
 * store entering the root complex) to the last completion event (the remote event landing in the
 * target VP's EQ), per direction; bidirectional = the sum of both directions.
 */
import { Q_EQ } from '../../rtl/nic/queues/index.ts';
import { blankDesc, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { queueBase, RdmaRig } from './rdmaRig.ts';

export type BandwidthPath = 'pio' | 'dma';

export interface PutBandwidthOptions {
  /** payload bytes per PUT (1 to 1 MiB) */
  bytes: number;
  /** both nodes send to each other at once */
  bidirectional: boolean;
  /** the VP kind the PUTs are posted on */
  path: BandwidthPath;
  /** PUTs per direction (default: defaultCount(bytes)) */
  count?: number;
  /** the source buffer's fill pattern (default 1) */
  seed?: number;
  /** payload reads the transmit engine keeps in flight (NIC default 16) */
  txReads?: number;
  /** operations the transmit engine holds at once (NIC default 8) */
  txOps?: number;
  /** packets in the receive engine's pipeline (NIC default 4) */
  rxPackets?: number;
}

export interface DirectionResult {
  /** sending node */
  from: number;
  /** payload bytes that landed in the target buffer */
  bytes: number;
  /** first descriptor posted to the last remote event landing (cycles) */
  cycles: number;
  gbPerS: number;
}

export interface PutBandwidthResult {
  bytes: number;
  bidirectional: boolean;
  path: BandwidthPath;
  count: number;
  /** payload GB/s (bytes per ns), bidirectional: the sum of both directions */
  gbPerS: number;
  /** the measured span (the longer direction's, bidirectional) */
  cycles: number;
  ns: number;
  /** each direction (node 0 -> 1 first) */
  directions: DirectionResult[];
}

/** the seed's Figure 2 peaks (../shared/REFERENCE.md, TH Express-2) */
export const SEED_PEAK = { unidirectional: { gbPerS: 11.7, fromBytes: 4096 }, bidirectional: { gbPerS: 20.6, fromBytes: 8192 } } as const;

export const MAX_BYTES = 1 << 20;
export const MAX_COUNT = 100000;
/** simulated cycles a run may take */
const CAP = 5e8;

/** PUTs per direction when not given: about 1 MiB of payload, 32 to 1,024 operations */
export function defaultCount(bytes: number): number {
  return Math.min(1024, Math.max(32, Math.ceil(MAX_BYTES / bytes)));
}

/** VP 0 is the PIO VP, VP 1 the DMA VP of each node; a direction's target is the same VP of the other node */
const PIO_VP = 0;
const DMA_VP = 1;
const VPS = 2;
const SRC_VA = 0x1000_0000;
const DST_VA = 0x4000_0000;
const SRC_ITEM = 0;
const DST_ITEM = 1;
const KEY = 0x5a5a;

function fill(n: number, seed: number, node: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8) + seed * 31 + node * 101) & 0xff);
}

export function runPutBandwidth(opts: PutBandwidthOptions): PutBandwidthResult {
  const { bytes, bidirectional, path } = opts;
  const count = opts.count ?? defaultCount(bytes);
  const seed = opts.seed ?? 1;
  if (!Number.isInteger(bytes) || bytes < 1 || bytes > MAX_BYTES) throw new RangeError(`bytes must be an integer in [1, ${MAX_BYTES}], got ${bytes}`);
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) throw new RangeError(`count must be an integer in [1, ${MAX_COUNT}], got ${count}`);
  if (path !== 'pio' && path !== 'dma') throw new RangeError(`path must be pio or dma, got ${String(path)}`);
  if (!Number.isInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
  const vp = path === 'pio' ? PIO_VP : DMA_VP;
  const pages = Math.ceil(bytes / 4096) + 1;
  // every remote event of the run fits the target's EQ (nothing consumes it)
  const eqSize = 2 ** Math.ceil(Math.log2(count + 2));
  const rig = new RdmaRig({
    vps: VPS,
    pioVps: 1,
    eqSize: Math.max(16, eqSize),
    mpqSize: 1,
    intqSize: 64,
    epq: false,
    sdqRing: 64,
    nic: { items: 16, rdma: { maxTransfer: Math.max(65536, bytes), ...(opts.txReads === undefined ? {} : { maxReads: opts.txReads }), ...(opts.txOps === undefined ? {} : { txOps: opts.txOps }), ...(opts.rxPackets === undefined ? {} : { rxPackets: opts.rxPackets }) }, atc: { entries: 4096, ways: 8 } },
    link: {},
  });
  const senders = bidirectional ? [0, 1] : [0];
  const data = [fill(bytes, seed, 0), fill(bytes, seed, 1)];
  for (const n of [0, 1]) {
    rig.setItem(n, SRC_ITEM, { valid: true, key: KEY, read: true, write: false, basePage: SRC_VA / 4096, topPage: SRC_VA / 4096 + pages - 1, vp, physical: false });
    rig.setItem(n, DST_ITEM, { valid: true, key: KEY, read: false, write: true, basePage: DST_VA / 4096, topPage: DST_VA / 4096 + pages - 1, vp, physical: false });
    // the source buffer at its physical pages (the ATT's default mapping, read from the ATT itself)
    const nic = rig.pair.nics[n]!;
    for (let off = 0; off < bytes; ) {
      const va = SRC_VA + off;
      const k = Math.min(4096 - (va % 4096), bytes - off);
      nic.pcie.mem.write(nic.mem.att.frame(Math.floor(va / 4096), vp) * 4096 + (va % 4096), data[n]!.subarray(off, off + k));
      off += k;
    }
  }
  const descOf = (from: number, n: number): Uint8Array => {
    const d = blankDesc(DESC_PUT);
    d.dstNode = 1 - from;
    d.dstVp = vp;
    d.length = n;
    d.remoteEvent = true;
    d.localItem = SRC_ITEM;
    d.localKey = KEY;
    d.localAddr = SRC_VA;
    d.remoteItem = DST_ITEM;
    d.remoteKey = KEY;
    d.remoteAddr = DST_VA;
    return encodeDescriptor(d);
  };
  // target side: payload bytes landing in the target buffer's pages, remote events in the target VP's EQ
  const eqBase = queueBase(Q_EQ, vp, VPS);
  const eqEnd = eqBase + Math.max(16, eqSize) * 32;
  // the ATT's default mapping puts a VP's consecutive pages in consecutive frames
  const dstLo: number[] = [];
  for (const n of [0, 1]) {
    const att = rig.pair.nics[n]!.mem.att;
    dstLo.push(att.frame(DST_VA / 4096, vp) * 4096);
    for (let pg = 1; pg < pages; pg++) if (att.frame(DST_VA / 4096 + pg, vp) !== att.frame(DST_VA / 4096, vp) + pg) throw new Error('nic bandwidth: the target buffer is not physically contiguous');
  }
  const landed = [0, 0];
  const events = [0, 0];
  const errors = [0, 0];
  const lastEvent = [0, 0];
  rig.onHostWrite = (n, addr, d, cycle) => {
    if (addr >= eqBase && addr < eqEnd) {
      if (d[0] === 2) {
        events[n]!++;
        lastEvent[n] = cycle;
      } else errors[n]!++;
    } else if (addr >= dstLo[n]! && addr < dstLo[n]! + pages * 4096) landed[n]! += d.length;
  };
  // warm-up (not measured): one PUT over every page of the buffers, each sending direction
  for (const s of senders) rig.post(s, vp, descOf(s, (pages - 1) * 4096));
  rig.sim.runUntil(() => senders.every((s) => events[1 - s]! >= 1) || errors[0]! + errors[1]! > 0, CAP);
  rig.settle();
  if (errors[0]! + errors[1]! > 0) throw new Error(`nic bandwidth: an error event in a target EQ during the warm-up`);
  for (const n of [0, 1]) {
    landed[n] = 0;
    events[n] = 0;
  }
  // the measured run: every sender posts as fast as its VP's queue and the CPU's store queue take them
  const desc = senders.map((s) => descOf(s, bytes));
  const posted = [0, 0];
  const firstPost = [-1, -1];
  const t0 = rig.sim.cycle;
  rig.sim.runUntil(() => {
    for (let i = 0; i < senders.length; i++) {
      const s = senders[i]!;
      if (posted[s]! < count && rig.tryPost(s, vp, desc[i]!)) {
        if (posted[s] === 0) firstPost[s] = rig.sim.cycle;
        posted[s]!++;
      }
    }
    return senders.every((s) => events[1 - s]! >= count) || errors[0]! + errors[1]! > 0;
  }, CAP);
  if (errors[0]! + errors[1]! > 0) throw new Error(`nic bandwidth: an error event in a target EQ at cycle ${rig.sim.cycle}`);
  if (senders.some((s) => events[1 - s]! < count)) throw new Error(`nic bandwidth: ${count} PUTs of ${bytes} bytes not complete after ${rig.sim.cycle - t0} cycles`);
  const directions: DirectionResult[] = senders.map((s) => {
    const t = 1 - s;
    if (landed[t] !== count * bytes) throw new Error(`nic bandwidth: ${landed[t]} payload bytes landed in node ${t}'s buffer, expected ${count * bytes}`);
    const got = rig.pair.nics[t]!.pcie.mem.read(dstLo[t]!, bytes);
    if (!got.every((b, i) => b === data[s]![i])) throw new Error(`nic bandwidth: node ${t}'s buffer does not hold node ${s}'s source bytes`);
    const cycles = lastEvent[t]! - firstPost[s]!;
    return { from: s, bytes: landed[t]!, cycles, gbPerS: landed[t]! / rig.sim.cyclesToNs(cycles) };
  });
  const cycles = Math.max(...directions.map((d) => d.cycles));
  return { bytes, bidirectional, path, count, gbPerS: directions.reduce((a, d) => a + d.gbPerS, 0), cycles, ns: rig.sim.cyclesToNs(cycles), directions };
}

/** the command's default message sizes: 8 B to 64 KiB in powers of two */
export const DEFAULT_SIZES: readonly number[] = Array.from({ length: 14 }, (_, i) => 8 << i);
