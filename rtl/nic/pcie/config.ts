/**
 * The PCIe model's parameters, their defaults, validation and the derived cycle timing.
 * See docs/nic-frontend.md, "PCIe".
 */

export interface PcieConfig {
  /** PCIe generation 1..4 (2.5, 5, 8, 16 GT/s per lane; 8b/10b for 1-2, 128b/130b for 3-4). Default 3. */
  gen: number;
  /** lanes: 1, 2, 4, 8 or 16 (default 16) */
  lanes: number;
  /** NIC clock in Hz, an integer (default 1e9: one cycle is 1 ns) */
  clockHz: number;
  /** max payload size in bytes, a power of two in [128, 4096] (default 256) */
  mps: number;
  /** max read request size in bytes, a power of two in [128, 4096] (default 512) */
  mrrs: number;
  /** bytes per completion the host returns, split at multiples of it (read completion boundary 64 or 128, or a power of two up to MPS; default 64) */
  cplBytes: number;
  /** per-TLP wire overhead of a request (framing, sequence number, 4-DW header, LCRC) in bytes (default 24) */
  reqOverhead: number;
  /** per-TLP wire overhead of a completion (3-DW header) in bytes (default 20) */
  cplOverhead: number;
  /** one-way latency of either direction (PHY, data-link pipeline, wire), ns (default 100) */
  flightNs: number;
  /** host memory read latency from a read request's arrival at the root complex to its first completion being ready, ns (default 150) */
  hostReadNs: number;
  /** extra read latency drawn uniformly from [0, readJitterNs] per request (reordering of completions between requests), ns (default 0) */
  readJitterNs: number;
  /** CPU store to root-complex egress for a PIO write (after write combining), ns (default 50) */
  pioNs: number;
  /** the CPU and its buffers sit on the socket that is not attached to the NIC: add qpiNs to PIO writes and host memory reads (default false) */
  secondSocket: boolean;
  /** the second socket's penalty (QPI crossing), ns (default 70) */
  qpiNs: number;
  /** CPU write-combining buffer: a PIO write is split into TLPs of at most this many bytes at multiples of it (power of two, <= MPS; default 64) */
  wcBytes: number;
  /** outstanding read requests (tags) of the NIC (default 32) */
  tags: number;
  /** posted header / data (16-byte) credits the root complex advertises (defaults 64 / 1024) */
  hostPostedHeaders: number;
  hostPostedData: number;
  /** non-posted header credits the root complex advertises (default 32) */
  hostNonPostedHeaders: number;
  /** posted header / data credits the NIC advertises for PIO writes (defaults 16 / 64, i.e. 1 KiB) */
  nicPostedHeaders: number;
  nicPostedData: number;
  /** cycles from a receiver freeing a buffer to the credit being usable by the sender (UpdateFC), >= 1 (default 8) */
  creditReturnCycles: number;
  /** seed of the read-latency jitter */
  seed: number;
}

export const PCIE_DEFAULTS: Readonly<PcieConfig> = {
  gen: 3,
  lanes: 16,
  clockHz: 1e9,
  mps: 256,
  mrrs: 512,
  cplBytes: 64,
  reqOverhead: 24,
  cplOverhead: 20,
  flightNs: 100,
  hostReadNs: 150,
  readJitterNs: 0,
  pioNs: 50,
  secondSocket: false,
  qpiNs: 70,
  wcBytes: 64,
  tags: 32,
  hostPostedHeaders: 64,
  hostPostedData: 1024,
  hostNonPostedHeaders: 32,
  nicPostedHeaders: 16,
  nicPostedData: 64,
  creditReturnCycles: 8,
  seed: 1,
};

/** Timing derived from a configuration (all integers). */
export interface PcieTiming {
  /** wire time is counted in ticks: one cycle is `cycleTicks`, one byte on the wire `byteTicks` */
  cycleTicks: number;
  byteTicks: number;
  flightCycles: number;
  hostReadCycles: number;
  jitterCycles: number;
  pioCycles: number;
  /** QPI penalty in cycles when secondSocket, else 0 */
  qpiCycles: number;
}

function intIn(name: string, v: unknown, lo: number, hi: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`PCIe config: ${name} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
}
function pow2In(name: string, v: unknown, lo: number, hi: number): void {
  intIn(name, v, lo, hi);
  if (((v as number) & ((v as number) - 1)) !== 0) throw new RangeError(`PCIe config: ${name} must be a power of two, got ${String(v)}`);
}
function nsIn(name: string, v: unknown): void {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e7) throw new RangeError(`PCIe config: ${name} must be a number of ns in [0, 1e7], got ${String(v)}`);
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

export function pcieConfig(p: Partial<PcieConfig> = {}): PcieConfig {
  const c: PcieConfig = { ...PCIE_DEFAULTS, ...p };
  for (const k of Object.keys(p)) if (!(k in PCIE_DEFAULTS)) throw new RangeError(`PCIe config: unknown parameter '${k}'`);
  intIn('gen', c.gen, 1, 4);
  if (![1, 2, 4, 8, 16].includes(c.lanes)) throw new RangeError(`PCIe config: lanes must be 1, 2, 4, 8 or 16, got ${String(c.lanes)}`);
  intIn('clockHz', c.clockHz, 1e6, 1e10);
  pow2In('mps', c.mps, 128, 4096);
  pow2In('mrrs', c.mrrs, 128, 4096);
  pow2In('cplBytes', c.cplBytes, 64, 4096);
  if (c.cplBytes > c.mps) throw new RangeError(`PCIe config: cplBytes (${c.cplBytes}) must not exceed mps (${c.mps})`);
  pow2In('wcBytes', c.wcBytes, 4, 4096);
  if (c.wcBytes > c.mps) throw new RangeError(`PCIe config: wcBytes (${c.wcBytes}) must not exceed mps (${c.mps})`);
  intIn('reqOverhead', c.reqOverhead, 0, 64);
  intIn('cplOverhead', c.cplOverhead, 0, 64);
  for (const k of ['flightNs', 'hostReadNs', 'readJitterNs', 'pioNs', 'qpiNs'] as const) nsIn(k, c[k]);
  if (typeof c.secondSocket !== 'boolean') throw new RangeError(`PCIe config: secondSocket must be true or false, got ${String(c.secondSocket)}`);
  intIn('tags', c.tags, 1, 1024);
  intIn('hostPostedHeaders', c.hostPostedHeaders, 1, 4096);
  intIn('hostPostedData', c.hostPostedData, c.mps / 16, 1 << 20);
  intIn('hostNonPostedHeaders', c.hostNonPostedHeaders, 1, 4096);
  intIn('nicPostedHeaders', c.nicPostedHeaders, 1, 4096);
  intIn('nicPostedData', c.nicPostedData, c.wcBytes / 16 > 1 ? c.wcBytes / 16 : 1, 1 << 20);
  intIn('creditReturnCycles', c.creditReturnCycles, 1, 10000);
  intIn('seed', c.seed, 0, 0xffffffff);
  return c;
}

/** Gigatransfers per second per lane, times 2 (an integer), and the line code, by generation. */
const HALF_GT = [0, 5, 10, 16, 32];
const CODE: readonly (readonly [number, number])[] = [[0, 1], [10, 8], [10, 8], [130, 128], [130, 128]];

/**
 * Cycle timing. A byte on the wire takes 8 * codeN / (codeD * GT/s * lanes) ns and a cycle
 * 1e9 / clockHz ns; both are expressed exactly in integer ticks.
 */
export function pcieTiming(c: PcieConfig): PcieTiming {
  const [n, d] = CODE[c.gen]!;
  let byteTicks = 16 * n * c.clockHz; // ns * (2 * GT/s * lanes * d * 1e9) ...
  let cycleTicks = 1e9 * d * HALF_GT[c.gen]! * c.lanes;
  const g = gcd(byteTicks, cycleTicks);
  byteTicks /= g;
  cycleTicks /= g;
  if (cycleTicks > 2 ** 22) throw new RangeError(`PCIe config: clockHz ${c.clockHz} gives no exact tick ratio with the link rate (use a round clock, e.g. a multiple of 1 MHz)`);
  const cyc = (ns: number): number => Math.round((ns * c.clockHz) / 1e9);
  return {
    cycleTicks,
    byteTicks,
    flightCycles: Math.max(1, cyc(c.flightNs)),
    hostReadCycles: Math.max(1, cyc(c.hostReadNs)),
    jitterCycles: cyc(c.readJitterNs),
    pioCycles: Math.max(1, cyc(c.pioNs)),
    qpiCycles: c.secondSocket ? cyc(c.qpiNs) : 0,
  };
}

/** Peak payload bandwidth in bytes per second of one direction for TLPs of `payload` bytes with `overhead` bytes each. */
export function peakBytesPerSecond(c: PcieConfig, payload: number, overhead: number): number {
  const t = pcieTiming(c);
  return (payload / ((payload + overhead) * t.byteTicks)) * t.cycleTicks * c.clockHz;
}
