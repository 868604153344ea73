/**
 * Two TH Express-2 NICs (rtl/nic/nicPair.ts) set up the way software sets them up, for the
 * whole-transfer golden vectors (vectors/blocks/nicrdma.ts) and the design sweep
 * (experiments/nic/rdmaSweep.ts): every queue registered by register stores through PCIe (EQ and
 * MPQ in each VP's page, INTQ in the control page), each DMA VP's descriptor ring registered the
 * same way; descriptors posted the software way (a PIO VP stores it into its HDQ window, a DMA VP
 * writes it into the next entry of its SDQ ring in host memory and stores a doorbell of 1).
 *
 * Host memory map of each node (physical): queue rings from QUEUE_REGION (one 1 MiB slot per
 * queue kind and VP), SDQ rings from SDQ_REGION (64 KiB per VP); data pages anywhere else.
 */
import { reg64 } from './frontEnd.ts';
import { entryLines, type HostCosts, HostCpu, hostCosts, isFree, NO_HOST_COSTS } from './hostCpu.ts';
import { Simulator } from '../../rtl/kernel/index.ts';
import { ItemWrite } from '../../rtl/nic/memcheck/types.ts';
import { buildNicPair, type NicPair } from '../../rtl/nic/nicPair.ts';
import type { NicConfig } from '../../rtl/nic/nic.ts';
import { PioWrite } from '../../rtl/nic/pcie/index.ts';
import type { LinkConfig } from '../../rtl/nic/link/index.ts';
import { Q_ENTRY_BYTES, Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ } from '../../rtl/nic/queues/index.ts';
import { NC_EPQ_BASE, NC_EPQ_SIZE, NC_INTQ_BASE, NC_INTQ_SIZE, VR_DOORBELL, VR_EQ_BASE, VR_EQ_SIZE, VR_HDQ_WINDOW, VR_MPQ_BASE, VR_MPQ_SIZE, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';

export const QUEUE_REGION = 0x1000_0000;
export const QUEUE_SLOT = 0x10_0000;
export const SDQ_REGION = 0x0800_0000;
export const SDQ_SLOT = 0x1_0000;
const SDQ_ENTRY = 128;

export interface RigConfig {
  /** VPs per NIC, PIO VPs first (HDQ), then DMA VPs (SDQ) */
  vps: number;
  pioVps: number;
  /** entries of every EQ, of every MPQ, of the INTQ (and of the EPQ when enabled) */
  eqSize: number;
  mpqSize: number;
  intqSize: number;
  epq: boolean;
  /** entries of each DMA VP's SDQ ring in host memory (at most SDQ_SLOT / 128) */
  sdqRing: number;
  /** every other NIC parameter (VP counts and the node number are set here) */
  nic: Partial<Omit<NicConfig, 'node' | 'vp'>>;
  link: Partial<Omit<LinkConfig, 'ports'>>;
  /**
   * the host software's costs (experiments/nic/hostCpu.ts; a partial set is completed from
   * HOST_COSTS, the calibrated host that `nic table` applies): a posted descriptor's stores enter
   * the root complex sendNs after the call (PIO chunks pioChunkNs apart), and `detected` adds the
   * polling time to a landing. Absent (or NO_HOST_COSTS): the bare NIC, the stores enter at the call.
   */
  host?: Partial<HostCosts>;
}

/** An item of a memory checker, as software writes it. */
export type RigItem = Pick<ItemWrite, 'valid' | 'key' | 'read' | 'write' | 'basePage' | 'topPage' | 'vp' | 'physical'>;

/** Physical base of queue (kind, vp)'s ring (the INTQ and EPQ use vp 0). */
export function queueBase(kind: number, vp: number, vps: number): number {
  return QUEUE_REGION + (kind * vps + vp) * QUEUE_SLOT;
}

export function sdqBase(vp: number): number {
  return SDQ_REGION + vp * SDQ_SLOT;
}

export class RdmaRig {
  readonly sim = new Simulator({});
  readonly pair: NicPair;
  /** descriptors posted per node and VP */
  readonly posted: [Float64Array, Float64Array];
  /** host writes (posted write TLPs landed) so far, both nodes */
  hostWrites = 0;
  /** called for every posted write that lands in node n's host memory */
  onHostWrite: ((n: number, addr: number, data: Uint8Array, cycle: number) => void) | null = null;
  /** the host software's costs this rig applies */
  readonly host: HostCosts;
  /** each node's CPU (used when some host cost is not 0) */
  readonly cpus: [HostCpu, HostCpu];
  /** per node and VP: the cycle the VP's process is done with its last send (its CPU is free) */
  private readonly cpuFree: [Float64Array, Float64Array];
  private readonly hdqSlots: number;

  constructor(readonly cfg: RigConfig) {
    const { vps, pioVps } = cfg;
    if (cfg.sdqRing * SDQ_ENTRY > SDQ_SLOT) throw new RangeError(`sdqRing must be at most ${SDQ_SLOT / SDQ_ENTRY}, got ${cfg.sdqRing}`);
    for (const [k, n] of [[Q_EQ, cfg.eqSize], [Q_MPQ, cfg.mpqSize], [Q_INTQ, cfg.intqSize]] as const) {
      if (!Number.isInteger(n) || n < 1 || (n & (n - 1)) !== 0 || n * Q_ENTRY_BYTES[k]! > QUEUE_SLOT) throw new RangeError(`${['eqSize', 'mpqSize', 'intqSize'][k]} must be a power of two of at most ${QUEUE_SLOT / Q_ENTRY_BYTES[k]!} entries, got ${n}`);
    }
    this.host = cfg.host === undefined ? { ...NO_HOST_COSTS } : hostCosts(cfg.host);
    this.hdqSlots = cfg.nic.hdqSlots ?? 4;
    this.posted = [new Float64Array(vps), new Float64Array(vps)];
    this.cpuFree = [new Float64Array(vps), new Float64Array(vps)];
    this.pair = buildNicPair(this.sim, { nic: { ...cfg.nic, vp: { pioVps, dmaVps: vps - pioVps }, queues: { ...cfg.nic.queues, epqEnabled: cfg.epq } }, link: cfg.link });
    this.cpus = [new HostCpu(this.sim, 'cpu0', this.pair.nics[0]!.pcie.host.pioIn), new HostCpu(this.sim, 'cpu1', this.pair.nics[1]!.pcie.host.pioIn)];
    for (const n of [0, 1]) {
      this.pair.nics[n]!.pcie.host.onWrite = (tlp, cycle) => {
        this.hostWrites++;
        this.onHostWrite?.(n, tlp.addr, tlp.data!.subarray(0, tlp.len), cycle);
      };
      for (let vp = 0; vp < vps; vp++) {
        this.store(n, -1, vp, VR_EQ_BASE, reg64(queueBase(Q_EQ, vp, vps)));
        this.store(n, -1, vp, VR_EQ_SIZE, reg64(cfg.eqSize));
        this.store(n, -1, vp, VR_MPQ_BASE, reg64(queueBase(Q_MPQ, vp, vps)));
        this.store(n, -1, vp, VR_MPQ_SIZE, reg64(cfg.mpqSize));
        if (vp >= pioVps) {
          this.store(n, -1, vp, VR_SDQ_BASE, reg64(sdqBase(vp)));
          this.store(n, -1, vp, VR_SDQ_SIZE, reg64(cfg.sdqRing));
        }
      }
      this.store(n, -1, vps, NC_INTQ_BASE, reg64(queueBase(Q_INTQ, 0, vps)));
      this.store(n, -1, vps, NC_INTQ_SIZE, reg64(cfg.intqSize));
      if (cfg.epq) {
        this.store(n, -1, vps, NC_EPQ_BASE, reg64(queueBase(Q_EPQ, 0, vps)));
        this.store(n, -1, vps, NC_EPQ_SIZE, reg64(8));
      }
    }
    this.settle();
  }

  /** A CPU store into page `page` (VP page's registers; page vps is the control page) of node n by `writer` (-1: the kernel), waiting while the root complex's store queue is full. */
  store(n: number, writer: number, page: number, off: number, data: Uint8Array): void {
    while (!this.tryStore(n, writer, page * 4096 + off, data)) this.sim.step(1);
  }

  private tryStore(n: number, writer: number, addr: number, data: Uint8Array): boolean {
    const host = this.pair.nics[n]!.pcie.host;
    if (this.cpus[n]!.pending > 0 || !host.pioIn.canPush()) return false;
    host.pioIn.push(pioWrite(writer, addr, data));
    return true;
  }

  /** Software writes item `index` of node n's memory checker. */
  setItem(n: number, index: number, it: RigItem): void {
    const w = new ItemWrite();
    Object.assign(w, { index, ...it });
    this.pair.nics[n]!.mem.checker.loadItem(w);
  }

  /** descriptors VP vp of node n may still post (its HDQ slots or SDQ ring entries not yet read out) */
  room(n: number, vp: number): number {
    const out = this.posted[n]![vp]! - this.pair.nics[n]!.readout.dispatchedOf(vp);
    return (vp < this.cfg.pioVps ? this.hdqSlots : this.cfg.sdqRing) - out;
  }

  /**
   * Post a descriptor on VP vp of node n if its queue has room; true if posted. Without host costs
   * the store enters the root complex now (so the store queue must have room now); with them the
   * VP's process (busy until its previous send is done) spends sendNs, then its CPU issues the
   * stores: a PIO descriptor in 64-byte chunks pioChunkNs apart, or, for a DMA VP, the doorbell
   * (the descriptor itself is written into the ring entry in host memory).
   */
  tryPost(n: number, vp: number, bytes: Uint8Array): boolean {
    const free = isFree(this.host);
    if (this.room(n, vp) <= 0 || (free && !this.tryStoreRoom(n))) return false;
    const k = this.posted[n]![vp]!;
    const pio = vp < this.cfg.pioVps;
    if (!pio) this.pair.nics[n]!.pcie.mem.write(sdqBase(vp) + (k % this.cfg.sdqRing) * SDQ_ENTRY, bytes);
    if (free) {
      if (pio) this.tryStore(n, vp, vp * 4096 + VR_HDQ_WINDOW, bytes);
      else this.tryStore(n, vp, vp * 4096 + VR_DOORBELL, reg64(1));
    } else {
      const cyc = (ns: number): number => Math.round(this.sim.nsToCycles(ns));
      let at = Math.max(this.sim.cycle, this.cpuFree[n]![vp]!) + cyc(this.host.sendNs);
      if (pio) {
        for (let off = 0; off < bytes.length; off += 64) {
          if (off > 0) at += cyc(this.host.pioChunkNs);
          this.cpus[n]!.schedule(at, pioWrite(vp, vp * 4096 + VR_HDQ_WINDOW + off, bytes.subarray(off, Math.min(off + 64, bytes.length))));
        }
      } else this.cpus[n]!.schedule(at, pioWrite(vp, vp * 4096 + VR_DOORBELL, reg64(1)));
      this.cpuFree[n]![vp] = at + 1;
    }
    this.posted[n]![vp] = k + 1;
    return true;
  }

  private tryStoreRoom(n: number): boolean {
    return this.cpus[n]!.pending === 0 && this.pair.nics[n]!.pcie.host.pioIn.canPush();
  }

  /** The cycle a process polling for a completion entry of `entryBytes` that landed in `landed` has read it (pollLineNs per 64-byte line). */
  detected(landed: number, entryBytes: number): number {
    return landed + Math.round(this.sim.nsToCycles(this.host.pollLineNs)) * entryLines(entryBytes);
  }

  /** Post, waiting (simulating) while the VP's queue is full. */
  post(n: number, vp: number, bytes: Uint8Array): void {
    while (!this.tryPost(n, vp, bytes)) this.sim.step(1);
  }

  /** some descriptor is not yet read out, or an engine of either NIC is working */
  busy(): boolean {
    for (const n of [0, 1]) {
      const nic = this.pair.nics[n]!;
      if (!nic.coll.idle || !nic.tx.idle || !nic.rx.idle || this.cpus[n]!.pending > 0) return true;
      for (let vp = 0; vp < this.cfg.vps; vp++) if (nic.readout.dispatchedOf(vp) < this.posted[n]![vp]!) return true;
    }
    return false;
  }

  /**
   * Run until both NICs are idle and nothing reached a host or the link for three windows of
   * `window` cycles in a row; `activity()` counts what has happened so far. Throws after `limit` windows.
   */
  settle(activity: () => number = () => this.pair.link.stats.delivered.value + this.hostWrites, window = 1000, limit = 1000): void {
    let quiet = 0;
    for (let i = 0; i < limit && quiet < 3; i++) {
      const before = activity();
      this.sim.step(window);
      quiet = !this.busy() && activity() === before ? quiet + 1 : 0;
    }
    if (quiet < 3) throw new Error(`the NICs did not settle within ${limit * window} cycles`);
  }

  /** true if physical address a of a node lies in one of its registered queue rings */
  inQueue(a: number): boolean {
    const { vps, eqSize, mpqSize, intqSize } = this.cfg;
    const sizes = [eqSize, mpqSize, intqSize, this.cfg.epq ? 8 : 0];
    for (let k = 0; k < 4; k++) {
      const lo = queueBase(k, 0, vps);
      if (a >= lo && a < lo + vps * QUEUE_SLOT && (a - lo) % QUEUE_SLOT < sizes[k]! * Q_ENTRY_BYTES[k]!) return true;
    }
    return false;
  }
}

function pioWrite(writer: number, addr: number, data: Uint8Array): PioWrite {
  const w = new PioWrite();
  w.writer = writer;
  w.addr = addr;
  w.data = data;
  return w;
}
