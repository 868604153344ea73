/**
 * The memory checker's interface: reason codes, request and item-write descriptors, configuration.
 * See docs/nic-memory.md.
 */
import { AtcReq, type RefreshRequest } from '../atc/types.ts';

/** Verdicts. When several checks fail the first in this order is reported. */
export const MC_OK = 0;
/** the item's valid bit is clear */
export const MC_INVALID_ITEM = 1;
/** the request's key differs from the item's key */
export const MC_KEY_MISMATCH = 2;
/** the item lacks the read (or write) permission the request needs */
export const MC_PERMISSION = 3;
/** some byte of [va, va + len) lies outside the item's pages [base page, top page] */
export const MC_OUT_OF_RANGE = 4;
/**
 * malformed request, decided before the table is read: item index not an integer in [0, items),
 * key not a 32-bit unsigned integer, va not an integer in [0, 2^vaBits), len not an integer in
 * [1, maxLen], or va + len > 2^vaBits (the range wraps past the top of the address space)
 */
export const MC_BAD_REQUEST = 5;
/** the request names a virtual port (reqVp >= 0) that is not the item's owning VP */
export const MC_VP_MISMATCH = 6;
/** the request's address kind (physical or virtual) differs from the item's */
export const MC_ADDR_MODE = 7;
export const MC_REASON_NAMES = ['ok', 'invalid_item', 'key_mismatch', 'permission', 'out_of_range', 'bad_request', 'vp_mismatch', 'addr_mode'] as const;
/**
 * The order the checks are made in (first failing wins); codes are stable, so this is not the
 * numeric order: bad_request, invalid_item, vp_mismatch, key_mismatch, permission, addr_mode,
 * out_of_range, ok.
 */
export const MC_CHECK_ORDER = [MC_BAD_REQUEST, MC_INVALID_ITEM, MC_VP_MISMATCH, MC_KEY_MISMATCH, MC_PERMISSION, MC_ADDR_MODE, MC_OUT_OF_RANGE, MC_OK] as const;
/** reqVp value of a NIC-internal request that acts for no virtual port (the VP check is not made) */
export const MC_NO_VP = -1;
export type McReasonName = (typeof MC_REASON_NAMES)[number];

/** Default request sources (seed: several sources through a round-robin arbiter). */
export const DEFAULT_SOURCE_NAMES = ['rdma_read', 'rdma_write', 'desc_fetch', 'queue_writer', 'collective'] as const;

/**
 * A check request. The source owns the object; the checker fills the result fields and returns
 * the same object on the source's response channel, in the source's request order. When the check
 * passes and the checker is connected to an ATC, it also sends one translation request per page
 * of [va, va + len) to the ATC, `xlates[0]`, `xlates[1]`, ... (owned by this request; `xlate` is
 * `xlates[0]`), one per cycle, with va (the first byte of the request in that page), asid (the
 * item's owning VP), physical, tag, source and part (the page index) filled in; the ATC answers
 * each on its own channel.
 */
export class MemCheckReq {
  tag = 0;
  /** item index */
  item = 0;
  key = 0;
  va = 0;
  len = 0;
  /** true: write access, false: read */
  write = false;
  /**
   * virtual port the request acts for: checked against the item's owning VP (mismatch:
   * `vp_mismatch`); MC_NO_VP (-1, the default) for a NIC-internal request, which is not checked
   */
  reqVp = MC_NO_VP;
  /**
   * the address is physical (RDMA with PCI addresses): the item must be a physical item, its page
   * range is checked against the physical pages, and the translations are ATC bypasses (pa = va)
   */
  physical = false;
  // ---- results, written by the checker ----
  /** source index (the channel it came in on) */
  source = -1;
  /** MC_OK .. MC_BAD_REQUEST */
  reason = -1;
  /** owning virtual port of the item (-1 when the table was not consulted) */
  vp = -1;
  /** cycle the arbiter granted (popped) it */
  grantCycle = -1;
  /** first cycle the source can pop the verdict */
  doneCycle = -1;
  /** pages [va, va + len) spans (the translations sent to the ATC for a passing check); 0 when it failed */
  pages = 0;
  /** translation requests, one per page; grown by the checker when a longer request needs more */
  readonly xlates: AtcReq[] = [new AtcReq()];
  /** the first page's translation request */
  get xlate(): AtcReq {
    return this.xlates[0]!;
  }
}

/** Item-write results. */
export const MC_WRITE_OK = 0;
export const MC_WRITE_BAD_INDEX = 1;
export const MC_WRITE_BAD_FIELD = 2;
export const MC_WRITE_RESULT_NAMES = ['ok', 'bad_index', 'bad_field'] as const;

/**
 * A software write of one table item (posted). With `refresh`, the checker then sends the item's
 * [basePage, topPage] to the ATC, which removes those tags and bumps its refresh-done register;
 * the checker writes the sequence number it gave the refresh into `refreshId`.
 */
export class ItemWrite implements RefreshRequest {
  index = 0;
  valid = true;
  key = 0;
  read = true;
  write = true;
  basePage = 0;
  topPage = 0;
  /** owning virtual port */
  vp = 0;
  /** the item describes physical pages (for requests with `physical` set) */
  physical = false;
  refresh = false;
  // ---- results, written by the checker ----
  /** MC_WRITE_OK or the reason it was rejected (nothing is written then) */
  result = -1;
  /** what was wrong, for a rejected write */
  error = '';
  /** cycle the write port took the write: applied (visible to checks granted from the next cycle) or rejected */
  appliedCycle = -1;
  /** refresh sequence number (1, 2, ...), 0 when no refresh was sent */
  refreshId = 0;
}

export interface MemCheckConfig {
  /** table items (default 4096) */
  items: number;
  /** request sources (default 5) */
  sources: number;
  /** cycles from grant to the verdict being visible to the source (>= 2, default 3) */
  latency: number;
  /** virtual address bits (default 48) */
  vaBits: number;
  /** longest request in bytes (default 2^32) */
  maxLen: number;
  /** capacity of each source's request channel (default 2) */
  reqCapacity: number;
}

export const MEMCHECK_DEFAULTS: Readonly<MemCheckConfig> = { items: 4096, sources: 5, latency: 3, vaBits: 48, maxLen: 2 ** 32, reqCapacity: 2 };

function intIn(name: string, v: unknown, lo: number, hi: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`memory checker config: ${name} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
}

export function memCheckConfig(p: Partial<MemCheckConfig> = {}): MemCheckConfig {
  const c: MemCheckConfig = { ...MEMCHECK_DEFAULTS, ...p };
  intIn('items', c.items, 1, 1 << 20);
  intIn('sources', c.sources, 1, 64);
  intIn('latency', c.latency, 2, 64);
  intIn('vaBits', c.vaBits, 13, 52);
  intIn('maxLen', c.maxLen, 1, 2 ** c.vaBits);
  intIn('reqCapacity', c.reqCapacity, 1, 1024);
  return c;
}
