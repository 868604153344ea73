/**
 * Golden model of the memory checker's verdicts (docs/nic-memory.md, "Memory checker"), written
 * from the specification with BigInt address arithmetic and sharing no code with
 * rtl/nic/memcheck. Also a model of the round-robin source arbiter.
 *
 * Verdict order: bad_request (checked without the table), invalid_item, vp_mismatch (only when the
 * request names a VP), key_mismatch, permission, addr_mode (physical request on a virtual item or
 * the reverse), out_of_range, ok.
 */
export type ModelReason = 'ok' | 'invalid_item' | 'key_mismatch' | 'permission' | 'out_of_range' | 'bad_request' | 'vp_mismatch' | 'addr_mode';
export const MODEL_REASONS: readonly ModelReason[] = ['ok', 'invalid_item', 'key_mismatch', 'permission', 'out_of_range', 'bad_request', 'vp_mismatch', 'addr_mode'];

export interface ModelItem {
  valid: boolean;
  key: number;
  read: boolean;
  write: boolean;
  basePage: number;
  topPage: number;
  vp: number;
  /** the item describes physical pages (absent: virtual) */
  physical?: boolean;
}

export interface ModelCheck {
  item: number;
  key: number;
  va: number;
  len: number;
  write: boolean;
  /** the virtual port the request acts for; absent or -1: none (not checked) */
  reqVp?: number;
  /** physical-address request (absent: virtual) */
  physical?: boolean;
}

export type ModelWriteResult = 'ok' | 'bad_index' | 'bad_field';

const PAGE = 4096n;

function isInt(x: number): boolean {
  return typeof x === 'number' && Number.isFinite(x) && Math.floor(x) === x;
}

export class MemCheckerModel {
  private readonly table: ModelItem[];
  private readonly space: bigint;

  constructor(
    readonly items: number,
    readonly vaBits = 48,
    readonly maxLen = 2 ** 32,
  ) {
    this.space = 1n << BigInt(vaBits);
    this.table = Array.from({ length: items }, () => ({ valid: false, key: 0, read: false, write: false, basePage: 0, topPage: 0, vp: 0, physical: false }));
  }

  item(i: number): ModelItem {
    return { ...this.table[i]! };
  }

  /** What the hardware would answer to this write (without applying it). */
  classifyWrite(index: number, v: ModelItem): ModelWriteResult {
    if (!isInt(index) || index < 0 || index >= this.items) return 'bad_index';
    const pages = this.space / PAGE;
    if (!isInt(v.key) || v.key < 0 || BigInt(v.key) >= 1n << 32n) return 'bad_field';
    if (!isInt(v.basePage) || v.basePage < 0 || BigInt(v.basePage) >= pages) return 'bad_field';
    if (!isInt(v.topPage) || v.topPage < v.basePage || BigInt(v.topPage) >= pages) return 'bad_field';
    if (!isInt(v.vp) || v.vp < 0 || v.vp > 65535) return 'bad_field';
    return 'ok';
  }

  write(index: number, v: ModelItem): ModelWriteResult {
    const r = this.classifyWrite(index, v);
    if (r === 'ok') this.table[index] = { ...v };
    return r;
  }

  check(q: ModelCheck): { reason: ModelReason; vp: number } {
    return this.checkAgainst(q, (i) => this.table[i]!);
  }

  /** The verdict with the items taken from `itemAt` (e.g. a table as it was at some cycle). */
  checkAgainst(q: ModelCheck, itemAt: (index: number) => ModelItem): { reason: ModelReason; vp: number } {
    if (!isInt(q.item) || q.item < 0 || q.item >= this.items) return { reason: 'bad_request', vp: -1 };
    if (!isInt(q.key) || q.key < 0 || BigInt(q.key) >= 1n << 32n) return { reason: 'bad_request', vp: -1 };
    if (!isInt(q.va) || q.va < 0 || BigInt(q.va) >= this.space) return { reason: 'bad_request', vp: -1 };
    if (!isInt(q.len) || q.len < 1 || q.len > this.maxLen) return { reason: 'bad_request', vp: -1 };
    const start = BigInt(q.va);
    const end = start + BigInt(q.len); // exclusive
    if (end > this.space) return { reason: 'bad_request', vp: -1 };
    const reqVp = q.reqVp ?? -1;
    if (reqVp !== -1 && !(isInt(reqVp) && reqVp >= 0 && reqVp <= 65535)) return { reason: 'bad_request', vp: -1 };
    const it = itemAt(q.item);
    const vp = it.vp;
    if (!it.valid) return { reason: 'invalid_item', vp };
    if (reqVp !== -1 && reqVp !== vp) return { reason: 'vp_mismatch', vp };
    if (it.key !== q.key) return { reason: 'key_mismatch', vp };
    if (q.write ? !it.write : !it.read) return { reason: 'permission', vp };
    if ((it.physical ?? false) !== (q.physical ?? false)) return { reason: 'addr_mode', vp };
    const lo = BigInt(it.basePage) * PAGE;
    const hi = (BigInt(it.topPage) + 1n) * PAGE; // exclusive
    if (start < lo || end > hi) return { reason: 'out_of_range', vp };
    return { reason: 'ok', vp };
  }
}

/**
 * Round-robin arbitration, as specified: the requester right after the last one granted has the
 * highest priority (requester 0 before any grant), then the others in circular order.
 */
export class RoundRobinModel {
  private last: number;
  constructor(readonly n: number) {
    this.last = n - 1;
  }
  pick(requesting: readonly boolean[]): number {
    const order = [...Array(this.n).keys()].map((k) => (this.last + 1 + k) % this.n);
    const g = order.find((i) => requesting[i]);
    if (g === undefined) return -1;
    this.last = g;
    return g;
  }
}
