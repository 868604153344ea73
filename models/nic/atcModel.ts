/**
 * Golden model of the ATC for serial stimulus (one request at a time, each issued after the
 * previous response; fixed PCIe latency without jitter), from the specification in
 * docs/nic-memory.md; shares no code with rtl/nic. It predicts every response (status, physical
 * address, the page a fill evicted) and its latency, and the cost of a refresh:
 *
 * - hit, bypass, error and buffer-mode lookups: `hitLatency` cycles from acceptance to the response;
 * - a miss: readLatency + 1 (the ATT read is sent in the accept cycle, the completion is visible
 *   readLatency later and the first waiter is answered in that cycle);
 * - refresh of [base, top]: probe (top - base + 1 cycles) when that is at most refreshProbeMax,
 *   else sweep (one cycle per set); buffer mode: the number of buffer entries in the range, at
 *   least 1; a malformed range: 1. The done register is visible that many cycles after the refresh
 *   request is accepted.
 * - the ATT: page p maps to frame (p + 2^18) mod 2^(paBits - 12) until software writes it.
 */
import { type PolicyName, SetAssocCacheModel } from './cacheModel.ts';

export interface AtcModelConfig {
  entries: number;
  ways: number;
  policy: PolicyName;
  mode: 'cache' | 'buffer';
  bufferBasePage: number;
  hitLatency: number;
  readLatency: number;
  /** resolved crossover (pages) */
  refreshProbeMax: number;
  vaBits: number;
  paBits: number;
}

export type ModelStatus = 'hit' | 'miss' | 'bypass' | 'fault' | 'error';

export interface ModelLookup {
  status: ModelStatus;
  /** physical address, null for fault/error */
  pa: number | null;
  /** page evicted by this miss's fill, null if none */
  evicted: number | null;
  /** cycles from acceptance to the response being visible */
  latency: number;
}

/** The host-memory ATT as software sees it. */
export class AttModel {
  private readonly entries = new Map<number, { frame: number; valid: boolean }>();
  constructor(readonly paBits: number) {}
  get(page: number): { frame: number; valid: boolean } {
    const e = this.entries.get(page);
    if (e) return { ...e };
    const frame = Number((BigInt(page) + (1n << 18n)) % (1n << BigInt(this.paBits - 12)));
    return { frame, valid: true };
  }
  set(page: number, frame: number, valid: boolean): void {
    this.entries.set(page, { frame, valid });
  }
}

export class AtcSerialModel {
  readonly cache: SetAssocCacheModel;
  readonly att: AttModel;
  private readonly buffer = new Map<number, { frame: number; valid: boolean }>();

  constructor(readonly cfg: AtcModelConfig) {
    this.cache = new SetAssocCacheModel(cfg.entries, cfg.ways, cfg.policy);
    this.att = new AttModel(cfg.paBits);
  }

  lookup(va: number, physical: boolean): ModelLookup {
    const c = this.cfg;
    const fast = c.hitLatency;
    if (!Number.isInteger(va) || va < 0 || BigInt(va) >= 1n << BigInt(c.vaBits)) return { status: 'error', pa: null, evicted: null, latency: fast };
    if (physical) return { status: 'bypass', pa: va, evicted: null, latency: fast };
    const page = Math.floor(va / 4096);
    const off = va % 4096;
    if (c.mode === 'buffer') {
      const e = this.buffer.get(page);
      if (e && e.valid) return { status: 'hit', pa: e.frame * 4096 + off, evicted: null, latency: fast };
      return { status: 'fault', pa: null, evicted: null, latency: fast };
    }
    const l = this.cache.lookup(page);
    if (l.hit) return { status: 'hit', pa: l.pfn! * 4096 + off, evicted: null, latency: fast };
    const e = this.att.get(page);
    if (!e.valid) return { status: 'fault', pa: null, evicted: null, latency: c.readLatency + 1 };
    const f = this.cache.fill(page, e.frame);
    return { status: 'miss', pa: e.frame * 4096 + off, evicted: f.evicted, latency: c.readLatency + 1 };
  }

  attWrite(page: number, frame: number, valid: boolean): void {
    this.att.set(page, frame, valid);
  }

  /** Software preload of a buffer entry: 'ok' or 'rejected' (not buffer mode / outside the buffer / bad frame). */
  preload(page: number, frame: number, valid: boolean): 'ok' | 'rejected' {
    const c = this.cfg;
    if (c.mode !== 'buffer' || !Number.isInteger(page) || page < c.bufferBasePage || page >= c.bufferBasePage + c.entries) return 'rejected';
    if (!Number.isInteger(frame) || frame < 0 || BigInt(frame) >= 1n << BigInt(c.paBits - 12)) return 'rejected';
    this.buffer.set(page, { frame, valid });
    return 'ok';
  }

  refresh(base: number, top: number): { mode: 'probe' | 'sweep' | 'buffer' | 'bad'; cycles: number; removed: number[] } {
    const c = this.cfg;
    if (!Number.isInteger(base) || !Number.isInteger(top) || base < 0 || top < base) return { mode: 'bad', cycles: 1, removed: [] };
    if (c.mode === 'buffer') {
      const removed: number[] = [];
      for (const [p, e] of this.buffer) {
        if (p >= base && p <= top) {
          if (e.valid) removed.push(p);
          this.buffer.delete(p);
        }
      }
      const lo = Math.max(base, c.bufferBasePage);
      const hi = Math.min(top, c.bufferBasePage + c.entries - 1);
      return { mode: 'buffer', cycles: Math.max(1, hi - lo + 1), removed: removed.sort((a, b) => a - b) };
    }
    const removed = this.cache.invalidateRange(base, top);
    const pages = top - base + 1;
    if (pages <= c.refreshProbeMax) return { mode: 'probe', cycles: pages, removed };
    return { mode: 'sweep', cycles: c.entries / c.ways, removed };
  }
}
