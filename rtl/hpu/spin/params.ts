/**
 * Parameters of the sPIN runtime (rtl/hpu/spin) with their defaults (PsPIN's organisation and
 * the seed's LogGP figures; docs/hpu.md, "Runtime"), and the memory map the HPUs see.
 */
import { HPU_ORGANISATIONS, type HpuOrganisation } from '../core/coreBase.ts';

export interface SpinParams {
  /** clusters of HPUs (default 4, PsPIN) */
  clusters: number;
  /** HPUs per cluster (default 8, PsPIN) */
  hpusPerCluster: number;
  /** per-cluster handler slots waiting for an HPU, packet already in L1 (default 12, PsPIN) */
  bufferedSlots: number;
  /** message table entries (default 256, PsPIN's message queues) */
  messageSlots: number;
  /** HPU clock in Hz (default 1 GHz, PsPIN; the seed's simulation used 2.5 GHz) */
  freqHz: number;
  /** inbound link: time of one bit in ps (default 2.5 = 400 Gb/s) */
  linkPsPerBit: number;
  /** inbound link: minimum gap between packets in ns (LogGP g, default 6.7) */
  linkGapNs: number;
  /** header matching of a message's first packet against the match entries, ns (default 30) */
  matchNs: number;
  /** CAM lookup of every other packet, ns (default 2) */
  camNs: number;
  /** host DMA latency L in ns (default 250, discrete NIC; integrated 50) */
  dmaLatencyNs: number;
  /** host DMA time per bit G in ps (default 15.6, discrete; integrated 6.7) */
  dmaPsPerBit: number;
  /** outbound (put) link time per bit in ps (default 2.5) and gap between packets in ns (default 6.7) */
  putPsPerBit: number;
  putGapNs: number;
  /** bytes per cycle the cluster DMA copies a packet from the L2 packet buffer into L1 (default 64) */
  l1CopyBytesPerCycle: number;
  /** largest packet payload in bytes (default 4096; the size of an L1 packet slot) */
  maxPacketBytes: number;
  /** per-message HPU memory in L2 handler memory, bytes (default 16384 = 4 MiB / 256 messages) */
  hpuMemBytes: number;
  /** per-HPU stack in its cluster's L1, bytes (default 8192) */
  stackBytes: number;
  /** host memory behind the DMA engine, bytes (default 16 MiB) */
  hostBytes: number;
  /** cycles one handler may run before the message is failed (default 100,000) */
  handlerBudget: number;
  /** packets the inbound queue (L2 packet buffer) holds before the link is paused (default 1024) */
  inboundPackets: number;
  /** the HPU pipelines' organisation (default 'five-stage'; PsPIN's cores are 'ri5cy') */
  organisation: HpuOrganisation;
  /** five-stage HPUs: cycles of a division (default 32; ri5cy's divider takes 3..35 by operand) */
  divLatency: number;
}

export const SPIN_DEFAULTS: SpinParams = {
  clusters: 4,
  hpusPerCluster: 8,
  bufferedSlots: 12,
  messageSlots: 256,
  freqHz: 1e9,
  linkPsPerBit: 2.5,
  linkGapNs: 6.7,
  matchNs: 30,
  camNs: 2,
  dmaLatencyNs: 250,
  dmaPsPerBit: 15.6,
  putPsPerBit: 2.5,
  putGapNs: 6.7,
  l1CopyBytesPerCycle: 64,
  maxPacketBytes: 4096,
  hpuMemBytes: 16384,
  stackBytes: 8192,
  hostBytes: 16 << 20,
  handlerBudget: 100_000,
  inboundPackets: 1024,
  organisation: 'five-stage',
  divLatency: 32,
};

/** The seed's two host DMA settings (LogGP L in ns, G in ps per bit). */
export const DMA_DISCRETE = { dmaLatencyNs: 250, dmaPsPerBit: 15.6 } as const;
export const DMA_INTEGRATED = { dmaLatencyNs: 50, dmaPsPerBit: 6.7 } as const;

/** The HPUs' address map (one flat space shared by every HPU). */
export const CODE_BASE = 0x0001_0000; // L2 handler-code region: handler ELFs at their link addresses
export const CODE_LIMIT = 0x0010_0000;
export const L1_BASE = 0x0100_0000; // cluster c's L1 scratchpad at L1_BASE + c * L1_BYTES
export const L1_BYTES = 0x0010_0000;
export const MAX_CLUSTERS = 16;
export const L2_HANDLER_BASE = L1_BASE + MAX_CLUSTERS * L1_BYTES; // per-message HPU memory
/** within a cluster's L1: packet slots from 0, args blocks, then the HPU stacks */
export const ARGS_OFFSET = 0x0006_0000;
export const ARGS_BYTES = 64;
export const STACKS_OFFSET = 0x0008_0000;

/** Checks a parameter set; returns the problem, or null. */
export function spinParamsProblem(p: SpinParams): string | null {
  const ints = ['clusters', 'hpusPerCluster', 'bufferedSlots', 'messageSlots', 'l1CopyBytesPerCycle', 'maxPacketBytes', 'hpuMemBytes', 'stackBytes', 'hostBytes', 'handlerBudget', 'inboundPackets', 'divLatency'] as const;
  for (const k of ints) if (!Number.isInteger(p[k]) || p[k] < 1) return `${k} = ${p[k]}: expected a positive integer`;
  for (const k of ['freqHz', 'linkPsPerBit', 'dmaPsPerBit', 'putPsPerBit'] as const) if (!(p[k] > 0) || !Number.isFinite(p[k])) return `${k} = ${p[k]}: expected a positive number`;
  for (const k of ['linkGapNs', 'matchNs', 'camNs', 'dmaLatencyNs', 'putGapNs'] as const) if (!(p[k] >= 0) || !Number.isFinite(p[k])) return `${k} = ${p[k]}: expected a number >= 0`;
  if (!HPU_ORGANISATIONS.includes(p.organisation)) return `organisation = ${String(p.organisation)}: expected one of ${HPU_ORGANISATIONS.join(', ')}`;
  if (p.clusters > MAX_CLUSTERS) return `clusters = ${p.clusters}: at most ${MAX_CLUSTERS}`;
  if (p.maxPacketBytes % 4 !== 0 || p.stackBytes % 16 !== 0 || p.hpuMemBytes % 4 !== 0) return 'maxPacketBytes, hpuMemBytes must be multiples of 4 and stackBytes of 16';
  if ((p.bufferedSlots + p.hpusPerCluster) * p.maxPacketBytes > ARGS_OFFSET) return `${p.bufferedSlots + p.hpusPerCluster} packet slots of ${p.maxPacketBytes} bytes do not fit in ${ARGS_OFFSET} bytes of L1`;
  if (p.hpusPerCluster * ARGS_BYTES > STACKS_OFFSET - ARGS_OFFSET) return `${p.hpusPerCluster} HPUs per cluster: too many args blocks for L1`;
  if (STACKS_OFFSET + p.hpusPerCluster * p.stackBytes > L1_BYTES) return `${p.hpusPerCluster} stacks of ${p.stackBytes} bytes do not fit in the 1 MiB L1`;
  return null;
}

/** Bytes of the flat memory the HPUs share (code, L1s, L2 handler memory). */
export function spinMemBytes(p: SpinParams): number {
  return L2_HANDLER_BASE + p.messageSlots * p.hpuMemBytes;
}

export const nsToCycles = (ns: number, freqHz: number): number => Math.ceil((ns * freqHz) / 1e9 - 1e-9);
