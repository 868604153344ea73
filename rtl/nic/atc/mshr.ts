import { AttRead } from '../hostmem/hostmem.ts';
import type { AtcReq } from './types.ts';

export const MSHR_FREE = 0;
/** waiting for its ATT read (not yet issued when needIssue is set, else in flight) */
export const MSHR_PENDING = 1;
/** the fill is back: its waiters are being answered, one per free output cycle */
export const MSHR_DRAINING = 2;

/**
 * Miss-status holding registers: a small fully associative file, one entry per page with a fill
 * outstanding. Each entry holds the page and its address-space id (the VP), its state, the waiting requests (the primary miss first,
 * then merged misses in arrival order, up to `targets`), a needIssue bit (the ATT read still has
 * to be sent), a stale bit (a refresh covering the page started while the read was in flight: the
 * returning data must not be installed or returned; the read is sent again) and the fill data.
 * The (asid, page) match (findPending) is a CAM over all entries; allocation takes the lowest free
 * entry. Each entry owns the ATT-read descriptor it sends to host memory (no allocation per read).
 */
export class MshrFile {
  readonly state: Uint8Array;
  readonly page: Float64Array;
  readonly asid: Uint16Array;
  /** the read descriptor of each entry (reused) */
  readonly reads: AttRead[];
  readonly needIssue: Uint8Array;
  readonly stale: Uint8Array;
  readonly nWait: Int32Array;
  readonly drainPos: Int32Array;
  readonly fillPfn: Float64Array;
  readonly fillFault: Uint8Array;
  /** waiters[m * targets + k] */
  readonly waiters: (AtcReq | null)[];
  private free: number;

  constructor(
    readonly count: number,
    readonly targets: number,
  ) {
    this.state = new Uint8Array(count);
    this.page = new Float64Array(count);
    this.asid = new Uint16Array(count);
    this.reads = Array.from({ length: count }, (_, m) => {
      const r = new AttRead();
      r.tag = m;
      return r;
    });
    this.needIssue = new Uint8Array(count);
    this.stale = new Uint8Array(count);
    this.nWait = new Int32Array(count);
    this.drainPos = new Int32Array(count);
    this.fillPfn = new Float64Array(count);
    this.fillFault = new Uint8Array(count);
    this.waiters = new Array<AtcReq | null>(count * targets).fill(null);
    this.free = count;
  }

  /** Entries in use. */
  get busy(): number {
    return this.count - this.free;
  }

  /** The PENDING entry for `page` of address space `asid`, or -1. */
  findPending(page: number, asid: number): number {
    for (let m = 0; m < this.count; m++) if (this.state[m] === MSHR_PENDING && this.page[m] === page && this.asid[m] === asid) return m;
    return -1;
  }

  /** Allocate the lowest free entry for (`asid`, `page`) with `first` as its primary miss; -1 when all are busy. */
  alloc(page: number, asid: number, first: AtcReq): number {
    if (this.free === 0) return -1;
    for (let m = 0; m < this.count; m++) {
      if (this.state[m] === MSHR_FREE) {
        this.state[m] = MSHR_PENDING;
        this.page[m] = page;
        this.asid[m] = asid;
        this.needIssue[m] = 1;
        this.stale[m] = 0;
        this.nWait[m] = 1;
        this.drainPos[m] = 0;
        this.waiters[m * this.targets] = first;
        this.free--;
        return m;
      }
    }
    throw new Error('MSHR file: free count says an entry is free but none is (corrupt state)');
  }

  /** Add a merged miss; false when the entry already holds `targets` requests. */
  merge(m: number, r: AtcReq): boolean {
    const n = this.nWait[m]!;
    if (n >= this.targets) return false;
    this.waiters[m * this.targets + n] = r;
    this.nWait[m] = n + 1;
    return true;
  }

  release(m: number): void {
    const base = m * this.targets;
    for (let k = 0; k < this.nWait[m]!; k++) this.waiters[base + k] = null;
    this.state[m] = MSHR_FREE;
    this.nWait[m] = 0;
    this.needIssue[m] = 0;
    this.stale[m] = 0;
    this.free++;
  }

  reset(): void {
    this.state.fill(0);
    this.needIssue.fill(0);
    this.stale.fill(0);
    this.nWait.fill(0);
    this.drainPos.fill(0);
    this.waiters.fill(null);
    this.free = this.count;
  }
}
