/**
 * The ATC's interface: request descriptor, response statuses, port payloads and configuration.
 * See docs/nic-memory.md for the cycle behaviour.
 *
 * Addresses are plain Numbers (exact up to 2^53): virtual addresses have `vaBits` bits (default 48),
 * pages are 4 KiB, so a virtual page number has vaBits - 12 bits and a physical frame number
 * paBits - 12 bits.
 */

export const PAGE_SHIFT = 12;
export const PAGE_BYTES = 4096;
/** largest address-space id (virtual port number) */
export const ATC_MAX_ASID = 0xffff;

/** Response status of a lookup. */
export const ATC_HIT = 0;
/** served by a fill from the ATT (the request allocated the MSHR) */
export const ATC_MISS = 1;
/** served by a fill from the ATT (the request merged into an MSHR already in flight) */
export const ATC_MERGED = 2;
/** physical-address request: passed through with pa = va */
export const ATC_BYPASS = 3;
/** no translation: the ATT entry is not valid (cache mode) or the buffer entry is not loaded (buffer mode) */
export const ATC_FAULT = 4;
/** malformed request (virtual address not an integer in [0, 2^vaBits), or asid not in [0, 65535]); nothing else is touched */
export const ATC_ERROR = 5;
export const ATC_STATUS_NAMES = ['hit', 'miss', 'merged', 'bypass', 'fault', 'error'] as const;
export type AtcStatusName = (typeof ATC_STATUS_NAMES)[number];

/**
 * A translation request. The requester owns the object; the ATC fills the result fields and
 * hands the same object back on its response channel (descriptor style: no allocation per lookup).
 * The requester must not modify it while it is in flight.
 */
export class AtcReq {
  /** requester's tag, returned unchanged (responses may come back out of order) */
  tag = 0;
  /** virtual address (or physical address when `physical`) */
  va = 0;
  /** bypass the ATC: the address is already physical (RDMA with PCI addresses in the descriptor) */
  physical = false;
  /**
   * address-space id: the owning virtual port (VP) of the translation, an integer in [0, 65535].
   * Tags and MSHRs match on (asid, page); the ATT read goes to that VP's table. The memory checker
   * sets it to the owning VP of the item it checked.
   */
  asid = 0;
  /** request source (set by the memory checker when it forwards a checked request) */
  source = -1;
  /** page index within a multi-page checked request (0 for the first page; set by the memory checker) */
  part = 0;
  // ---- results, written by the ATC ----
  /** one of ATC_HIT .. ATC_ERROR */
  status = -1;
  /** physical frame number (-1 for fault/error) */
  pfn = -1;
  /** physical address pfn * 4096 + page offset (-1 for fault/error) */
  pa = -1;
  /** cycle in which the ATC accepted (popped) the request */
  acceptCycle = -1;
  /** first cycle in which the requester can pop the response */
  doneCycle = -1;
}

/**
 * A refresh request from the memory checker: remove every ATC tag of virtual port `vp` in
 * [basePage, topPage] (every VP's tags when `vp` is absent or -1).
 */
export interface RefreshRequest {
  readonly basePage: number;
  readonly topPage: number;
  /** owning VP whose tags are removed; absent or -1: all VPs */
  readonly vp?: number;
  /** sequence number (the checker numbers refreshes 1, 2, 3...) */
  readonly refreshId: number;
}

/** A buffer-mode preload write: software writes one translation into the buffer. */
export class PreloadWrite {
  page = 0;
  /** virtual port the translation belongs to (a buffer entry holds one VP's translation of its page) */
  asid = 0;
  pfn = 0;
  valid = true;
  /** written by the ATC: 0 applied, 1 rejected (not buffer mode, page outside the buffer, bad fields or asid) */
  result = -1;
}

export type Replacement = 'lru' | 'plru';
export type AtcMode = 'cache' | 'buffer';

export interface AtcConfig {
  /** translations held (default 1,048,576) */
  entries: number;
  /** associativity (default 8); must divide entries */
  ways: number;
  /** replacement policy (default true LRU) */
  replacement: Replacement;
  /** cycles from accepting a request to its hit response being visible (>= 2, default 4) */
  hitLatency: number;
  /** miss-status holding registers (1..1024, default 16) */
  mshrs: number;
  /** requests one MSHR can hold: the primary miss plus merged misses (default 8) */
  mshrTargets: number;
  /** 'cache' (set-associative, misses fill from the ATT) or 'buffer' (flat preloaded table, never misses) */
  mode: AtcMode;
  /** buffer mode: entry i holds the translation of page bufferBasePage + i */
  bufferBasePage: number;
  /**
   * Refresh crossover: a range of at most this many pages is removed by probing the set of every
   * page (one page per cycle); a larger range by sweeping every set (one set per cycle).
   * Default (-1): the number of sets, which is where the two cost the same.
   */
  refreshProbeMax: number;
  /** virtual address bits (default 48, at most 52) */
  vaBits: number;
  /** physical address bits (default 48, at most 52) */
  paBits: number;
  /** capacity of the response channel (>= 2 so one response per cycle gets through the registered credit; default 4) */
  respCapacity: number;
  /** linear 1-cycle buckets of the latency histogram (default 4096) */
  latencyBuckets: number;
}

export const ATC_DEFAULTS: Readonly<AtcConfig> = {
  entries: 1 << 20,
  ways: 8,
  replacement: 'lru',
  hitLatency: 4,
  mshrs: 16,
  mshrTargets: 8,
  mode: 'cache',
  bufferBasePage: 0,
  refreshProbeMax: -1,
  vaBits: 48,
  paBits: 48,
  respCapacity: 4,
  latencyBuckets: 4096,
};

function intIn(name: string, v: unknown, lo: number, hi: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`ATC config: ${name} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
}

/** Fill defaults and validate; throws RangeError naming the bad field. */
export function atcConfig(p: Partial<AtcConfig> = {}): AtcConfig {
  const c: AtcConfig = { ...ATC_DEFAULTS, ...p };
  intIn('vaBits', c.vaBits, 13, 52);
  intIn('paBits', c.paBits, 13, 52);
  intIn('entries', c.entries, 1, 1 << 26);
  intIn('ways', c.ways, 1, 32);
  if (c.entries % c.ways !== 0) throw new RangeError(`ATC config: ways (${c.ways}) must divide entries (${c.entries})`);
  if (c.replacement !== 'lru' && c.replacement !== 'plru') throw new RangeError(`ATC config: replacement must be 'lru' or 'plru', got ${String(c.replacement)}`);
  if (c.replacement === 'plru' && (c.ways & (c.ways - 1)) !== 0) throw new RangeError(`ATC config: tree PLRU needs a power-of-two number of ways, got ${c.ways}`);
  intIn('hitLatency', c.hitLatency, 2, 64);
  if (c.mshrs === 0) throw new RangeError('ATC config: mshrs must be at least 1 (a non-blocking cache needs miss registers), got 0');
  intIn('mshrs', c.mshrs, 1, 1024);
  intIn('mshrTargets', c.mshrTargets, 1, 64);
  if (c.mode !== 'cache' && c.mode !== 'buffer') throw new RangeError(`ATC config: mode must be 'cache' or 'buffer', got ${String(c.mode)}`);
  intIn('bufferBasePage', c.bufferBasePage, 0, 2 ** (c.vaBits - 12) - 1);
  const sets = c.entries / c.ways;
  if (c.refreshProbeMax === -1) c.refreshProbeMax = sets;
  intIn('refreshProbeMax', c.refreshProbeMax, 0, 2 ** 40);
  intIn('respCapacity', c.respCapacity, 2, 1024);
  intIn('latencyBuckets', c.latencyBuckets, 1, 1 << 20);
  return c;
}
