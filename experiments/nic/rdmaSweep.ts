/**
 * `netoffload nic sweep`: design exploration of the TH Express-2 NIC under a multi-process load
 * (docs/nic-rdma.md, "Design sweep"). Each configuration (a point of the cartesian product of the
 * axes below) builds two NICs (experiments/nic/rdmaRig.ts) and runs `procs` processes at once on
 * node 0, each a closed loop of `ops` RDMA writes to node 1 with at most `window` outstanding:
 * process p uses VP p mod VPs (PIO VPs first), posts the software way (a PIO VP's descriptor
 * stored into its HDQ window, a DMA VP's written into its SDQ ring and announced by a doorbell),
 * and targets the same VP number on node 1. Sizes come from a seeded mix. An operation completes
 * when its remote event lands in the target's EQ in host memory (as the seed detects completion);
 * its latency runs from the moment its process was ready to post it (its previous operation in
 * the window completed) to that landing, so it includes waiting for the CPU's store queue, the
 * VP's queue, descriptor fetch, the readout and the engines. Bandwidth is payload bytes over the
 * time from the first operation ready to the last completion.
 *
 * The axes are one table (SWEEP_AXES): adding a parameter (e.g. the sender and receiver contexts
 * of the reliable protocol) is one entry there and one line in `rigConfig`.
 */
import { blankDesc, DESC_IMM_PUT, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { Rng } from '../../rtl/kernel/rng.ts';
import { Q_EQ } from '../../rtl/nic/queues/index.ts';
import { NO_HOST_COSTS } from './hostCpu.ts';
import { queueBase, RdmaRig, type RigConfig } from './rdmaRig.ts';

/** One configuration: a value per axis. */
export interface SweepPoint {
  pioVps: number;
  dmaVps: number;
  /** on-chip SDQ buffer entries (shared by the DMA VPs) */
  depth: number;
  /** SDQ descriptor reads outstanding on PCIe */
  maxReads: number;
  /** transmit engine payload reads in flight */
  txReads: number;
  /** PCIe one-way latency (ns) */
  pcieNs: number;
  /** sender and receiver contexts of the reliable end-to-end layer (they matter with `connect`) */
  txContexts: number;
  rxContexts: number;
}

export interface SweepAxis {
  key: keyof SweepPoint;
  /** the command-line flag (a comma-separated list of values) */
  flag: string;
  help: string;
  defaults: number[];
  min: number;
  max: number;
}

export const SWEEP_AXES: readonly SweepAxis[] = [
  { key: 'pioVps', flag: 'pio-vps', help: 'PIO VPs (HDQ) per NIC', defaults: [8], min: 0, max: 128 },
  { key: 'dmaVps', flag: 'dma-vps', help: 'DMA VPs (SDQ) per NIC', defaults: [32], min: 1, max: 128 },
  { key: 'depth', flag: 'depth', help: 'SDQ buffer entries', defaults: [64], min: 1, max: 4096 },
  { key: 'maxReads', flag: 'max-reads', help: 'SDQ descriptor reads outstanding on PCIe', defaults: [8], min: 1, max: 256 },
  { key: 'txReads', flag: 'tx-reads', help: 'payload reads the transmit engine keeps in flight', defaults: [16], min: 1, max: 256 },
  { key: 'pcieNs', flag: 'pcie-ns', help: 'PCIe one-way latency (ns)', defaults: [100], min: 0, max: 100000 },
  { key: 'txContexts', flag: 'tx-contexts', help: 'sender contexts of the reliable end-to-end layer (with --connect)', defaults: [16], min: 1, max: 1024 },
  { key: 'rxContexts', flag: 'rx-contexts', help: 'receiver contexts of the reliable end-to-end layer (with --connect)', defaults: [16], min: 1, max: 1024 },
];

/** message size mixes: [weight, smallest, largest] bytes, drawn log-uniformly in the range */
export const MIXES: Record<string, readonly [number, number, number][]> = {
  /** MPI-like: many small messages (immediate PUTs), some medium, a few large */
  mixed: [
    [40, 8, 64],
    [35, 256, 4096],
    [20, 4096, 16384],
    [5, 16384, 65536],
  ],
  small: [[1, 8, 64]],
  large: [[1, 16384, 65536]],
};
export const MIX_NAMES = Object.keys(MIXES);

export interface SweepLoad {
  /** processes submitting at once (process p on VP p mod VPs) */
  procs: number;
  /** operations per process */
  ops: number;
  /** operations a process keeps outstanding */
  window: number;
  mix: string;
  seed: number;
  /** the writes use the reliable end-to-end protocol (descriptors with the connect flag) */
  connect: boolean;
}

export const SWEEP_LOAD_DEFAULTS: Readonly<SweepLoad> = { procs: 40, ops: 8, window: 2, mix: 'mixed', seed: 1, connect: false };

export interface SweepRow {
  pio_vps: number;
  dma_vps: number;
  depth: number;
  max_reads: number;
  tx_reads: number;
  pcie_ns: number;
  tx_contexts: number;
  rx_contexts: number;
  operations: number;
  bytes: number;
  p50_ns: number;
  p90_ns: number;
  p99_ns: number;
  max_ns: number;
  mean_ns: number;
  /** median latency of the operations posted on PIO VPs and on DMA VPs (null: none) */
  p50_pio_ns: number | null;
  p50_dma_ns: number | null;
  /** payload bytes per ns (= GB/s) from the first operation ready to the last completion */
  gbps: number;
  /** operations per microsecond */
  mops: number;
  cycles: number;
}

/** the largest immediate PUT payload */
const IMM_MAX = 80;
const TARGET_VA = 0x4000_0000;
const SOURCE_VA = 0x1000_0000;
/** bytes of a process's slot in its VP's buffer (the largest operation plus its offset fit) */
const SLOT = 0x1_1000;
/** the warm-up PUT's bytes beyond a process's largest operation (its operations start up to 960 bytes into its slot) */
const WARM_EXTRA = 1024;
/** simulated cycles a run may take */
const CAP = 2e8;

/** A run that went wrong: an error event, or a completion no operation waits for, in a target EQ. */
export class SweepFailure extends Error {}

/** events one VP's EQ gets: its processes' operations and warm-ups (nothing consumes them) */
function eventsPerVp(p: SweepPoint, load: SweepLoad): number {
  return Math.ceil(load.procs / (p.pioVps + p.dmaVps)) * (load.ops + 1);
}

/** RangeError naming what a point and load cannot do together */
export function checkPoint(p: SweepPoint, load: SweepLoad): void {
  const n = eventsPerVp(p, load);
  if (n > 32768) throw new RangeError(`ceil(procs / VPs) x (ops + 1) must be at most 32768 (the events one VP's EQ holds), got ${n} with ${p.pioVps + p.dmaVps} VPs`);
  if (load.procs * (load.ops + 1) > 65536) throw new RangeError(`procs x (ops + 1) must be at most 65536 (operations are told apart by their 16-bit user tag), got ${load.procs * (load.ops + 1)}`);
  if (p.pioVps + p.dmaVps > 256) throw new RangeError(`PIO + DMA VPs must be at most 256, got ${p.pioVps + p.dmaVps}`);
}

function rigConfig(p: SweepPoint, load: SweepLoad, maxBytes: number): RigConfig {
  const vps = p.pioVps + p.dmaVps;
  const perVp = eventsPerVp(p, load);
  return {
    vps,
    pioVps: p.pioVps,
    eqSize: Math.max(16, 2 ** Math.ceil(Math.log2(perVp))),
    mpqSize: 1,
    intqSize: 64,
    epq: false,
    sdqRing: 16,
    nic: {
      items: vps,
      sdq: { depth: p.depth, maxReads: p.maxReads },
      rdma: { maxReads: p.txReads, maxTransfer: Math.max(65536, maxBytes + WARM_EXTRA) },
      pcie: { flightNs: p.pcieNs },
      e2e: { senderContexts: p.txContexts, receiverContexts: p.rxContexts },
      atc: { entries: 4096, ways: 8 },
    },
    link: {},
    // the bare NIC: stores enter the root complex when the process may post (the sweep's figures
    // measure the NICs, not the calibrated host software of `nic table`)
    host: NO_HOST_COSTS,
  };
}

/** nearest-rank percentile of sorted values */
function pct(sorted: Float64Array, q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export function checkLoad(load: SweepLoad): void {
  const int = (k: keyof SweepLoad, lo: number, hi: number): void => {
    const v = load[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  };
  int('procs', 1, 4096);
  int('ops', 1, 100000);
  int('window', 1, 4);
  int('seed', 0, 2 ** 32 - 1);
  if (!(load.mix in MIXES)) throw new RangeError(`mix must be one of ${MIX_NAMES.join(', ')}, got ${load.mix}`);
}

/** Run one configuration under the load. */
export function runSweepPoint(p: SweepPoint, load: SweepLoad): SweepRow {
  checkLoad(load);
  checkPoint(p, load);
  const mix = MIXES[load.mix]!;
  const totalW = mix.reduce((a, m) => a + m[0], 0);
  const vps = p.pioVps + p.dmaVps;
  // every process's sizes, drawn first (the same for every configuration)
  const sizes: number[][] = [];
  const root = new Rng(load.seed);
  for (let q = 0; q < load.procs; q++) {
    const r = root.fork(q);
    sizes.push(
      Array.from({ length: load.ops }, () => {
        let w = r.int(totalW);
        let m = mix[0]!;
        for (const x of mix) {
          if (w < x[0]) {
            m = x;
            break;
          }
          w -= x[0];
        }
        return Math.round(Math.exp(Math.log(m[1]) + r.float() * (Math.log(m[2]) - Math.log(m[1]))));
      }),
    );
  }
  const maxBytes = Math.max(...sizes.map((s) => Math.max(...s)));
  const rig = new RdmaRig(rigConfig(p, load, maxBytes));
  const sim = rig.sim;
  // one item per VP on each node: the VP's source buffer on node 0, its target buffer on node 1
  // VP v's buffer: its processes' slots, a page apart from the next VP's, so that VPs' pages fall into different ATC sets
  const pages = Math.ceil(load.procs / vps) * (SLOT / 4096) + 1;
  const bufVa = (base: number, vp: number): number => base + vp * pages * 4096;
  for (let vp = 0; vp < vps; vp++) {
    rig.setItem(0, vp, { valid: true, key: 100 + vp, read: true, write: true, basePage: bufVa(SOURCE_VA, vp) / 4096, topPage: bufVa(SOURCE_VA, vp + 1) / 4096 - 1, vp, physical: false });
    rig.setItem(1, vp, { valid: true, key: 200 + vp, read: true, write: true, basePage: bufVa(TARGET_VA, vp) / 4096, topPage: bufVa(TARGET_VA, vp + 1) / 4096 - 1, vp, physical: false });
  }
  /** operation k of process q; k = -1 is its warm-up: one PUT over every page its operations touch */
  /** user tag of operation k of process q (k = -1: its warm-up): unique, procs x (ops + 1) <= 65536 */
  const tagOf = (q: number, k: number): number => q * (load.ops + 1) + k + 1;
  const descOf = (q: number, k: number): Uint8Array => {
    const vp = q % vps;
    const n = k < 0 ? Math.max(...sizes[q]!) + WARM_EXTRA : sizes[q]![k]!;
    const imm = n <= IMM_MAX;
    const d = blankDesc(imm ? DESC_IMM_PUT : DESC_PUT, imm && n > 16 ? 128 : undefined);
    d.dstNode = 1;
    d.dstVp = vp;
    d.userTag = tagOf(q, k);
    d.remoteEvent = true;
    d.connect = load.connect;
    d.length = n;
    // each process writes its own slice of the VP's buffers
    const slot = Math.floor(q / vps) * SLOT + (k < 0 ? 0 : 64 * (k % 16));
    if (imm) d.data = new Uint8Array(n);
    else {
      d.localItem = vp;
      d.localKey = 100 + vp;
      d.localAddr = bufVa(SOURCE_VA, vp) + slot;
    }
    d.remoteItem = vp;
    d.remoteKey = 200 + vp;
    d.remoteAddr = bufVa(TARGET_VA, vp) + slot;
    return encodeDescriptor(d);
  };
  // completions: remote events landing in node 1's EQs; per VP, operations complete in posting order
  const eq0 = queueBase(Q_EQ, 0, vps);
  const eqSlot = queueBase(Q_EQ, 1, vps) - eq0;
  // operations posted and not complete, by user tag (with the reliable protocol a VP's operations may complete out of order)
  const pending = new Map<number, { q: number; k: number; ready: number }>();
  const latency = new Float64Array(load.procs * load.ops);
  const onPio: boolean[] = [];
  let done = 0;
  let errors = 0;
  let lastDone = 0;
  const outstanding = new Int32Array(load.procs);
  const next = new Int32Array(load.procs);
  // the processes' ready times: a slot per outstanding operation
  const slots: number[][] = Array.from({ length: load.procs }, () => []);
  rig.onHostWrite = (n, addr, data, cycle) => {
    if (n !== 1 || addr < eq0 || addr >= eq0 + vps * eqSlot) return;
    const vp = Math.floor((addr - eq0) / eqSlot);
    if (data[0] !== 2) {
      errors++;
      return;
    }
    const tag = data[4]! | (data[5]! << 8);
    const op = pending.get(tag);
    if (op === undefined || op.q % vps !== vp) {
      errors++;
      return;
    }
    pending.delete(tag);
    if (op.k < 0) {
      warm++;
      return;
    }
    latency[done] = cycle - op.ready;
    onPio[done] = vp < p.pioVps;
    done++;
    lastDone = cycle;
    outstanding[op.q]!--;
    slots[op.q]!.push(cycle + 1);
  };
  // warm-up (not measured): every process's pages translated into the ATCs of both NICs
  let warm = 0;
  for (let q = 0; q < load.procs; q++) {
    rig.post(0, q % vps, descOf(q, -1));
    pending.set(tagOf(q, -1), { q, k: -1, ready: 0 });
  }
  sim.runUntil(() => warm === load.procs || errors > 0, CAP);
  rig.settle();
  const t0 = sim.cycle;
  for (let q = 0; q < load.procs; q++) for (let w = 0; w < load.window; w++) slots[q]!.push(t0);
  const total = load.procs * load.ops;
  while (done < total) {
    // every process with a free window slot and an operation left posts it, in process order
    let blocked = false;
    for (let q = 0; q < load.procs; q++) {
      while (next[q]! < load.ops && outstanding[q]! < load.window) {
        const vp = q % vps;
        if (!rig.tryPost(0, vp, descOf(q, next[q]!))) {
          blocked = true;
          break;
        }
        pending.set(tagOf(q, next[q]!), { q, k: next[q]!, ready: slots[q]!.shift()! });
        outstanding[q]!++;
        next[q]!++;
      }
    }
    if (blocked) sim.step(1);
    else {
      const before = done;
      sim.runUntil(() => done > before || errors > 0, CAP);
    }
    if (errors > 0) break;
    if (sim.cycle - t0 > CAP) throw new SweepFailure(`nic sweep: ${total - done} operations not complete after ${CAP} cycles`);
  }
  if (errors > 0) throw new SweepFailure(`nic sweep: an unexpected event (an error, or a completion no operation waits for) in a target EQ at cycle ${sim.cycle}`);
  const sorted = Float64Array.from(latency).sort();
  const med = (pio: boolean): number | null => {
    const v = Float64Array.from(latency.filter((_, i) => onPio[i] === pio)).sort();
    return v.length === 0 ? null : sim.cyclesToNs(pct(v, 0.5));
  };
  const bytes = sizes.reduce((a, s) => a + s.reduce((x, y) => x + y, 0), 0);
  const span = sim.cyclesToNs(lastDone - t0);
  return {
    pio_vps: p.pioVps,
    dma_vps: p.dmaVps,
    depth: p.depth,
    max_reads: p.maxReads,
    tx_reads: p.txReads,
    pcie_ns: p.pcieNs,
    tx_contexts: p.txContexts,
    rx_contexts: p.rxContexts,
    operations: total,
    bytes,
    p50_ns: sim.cyclesToNs(pct(sorted, 0.5)),
    p90_ns: sim.cyclesToNs(pct(sorted, 0.9)),
    p99_ns: sim.cyclesToNs(pct(sorted, 0.99)),
    max_ns: sim.cyclesToNs(sorted[sorted.length - 1]!),
    mean_ns: Math.round((sim.cyclesToNs(sorted.reduce((a, b) => a + b, 0)) / total) * 10) / 10,
    p50_pio_ns: med(true),
    p50_dma_ns: med(false),
    gbps: Math.round((bytes / span) * 1000) / 1000,
    mops: Math.round((total / span) * 1000 * 1000) / 1000,
    cycles: sim.cycle,
  };
}

/** Every point of the cartesian product of the axes' values, the last axis varying fastest. */
export function sweepPoints(values: { [K in keyof SweepPoint]: number[] }): SweepPoint[] {
  let pts: Partial<SweepPoint>[] = [{}];
  for (const a of SWEEP_AXES) pts = pts.flatMap((pt) => values[a.key].map((v) => ({ ...pt, [a.key]: v })));
  return pts as SweepPoint[];
}

/** Run every point; `progress(done)` after each. */
export function runNicSweep(points: SweepPoint[], load: SweepLoad, progress?: (done: number) => void): SweepRow[] {
  checkLoad(load);
  for (const p of points) checkPoint(p, load);
  return points.map((pt, i) => {
    const row = runSweepPoint(pt, load);
    progress?.(i + 1);
    return row;
  });
}
