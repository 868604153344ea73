/**
 * Transaction-level golden model of the descriptor path of the TH Express-2 front end
 * (docs/nic-frontend.md, "SDQ", "Readout"): for each VP, the descriptors that must be dispatched,
 * in order, and the refusals it must get. Shares no code with rtl/.
 *
 * DMA VPs: software registers a ring (entries of `entryBytes`), writes descriptors into entries
 * and rings doorbells. An accepted doorbell of n announces the next n entries of the ring (from
 * entry 0 on, wrapping), with the contents they hold at that moment (software does not rewrite an
 * entry before its descriptor was dispatched). A dispatched descriptor is the entry's first 64
 * bytes if its size field (byte 0, bits 5:4) is 0, else the whole entry.
 * Doorbell rules, first failing wins: a process storing into another VP's page (foreign_vp, on the
 * writer); no ring, count 0 or above the ring size (bad_doorbell, register file); the count of
 * descriptors announced and not yet known to be released, plus n, above the ring size
 * (sdq_overflow). The model learns of releases from `released()` (the test calls it with
 * dispatched descriptors, a lower bound of what the NIC has fetched), so a doorbell it accepts is
 * accepted by the NIC; a test that wants an exact overflow first drains the VP.
 * PIO VPs: every whole descriptor written (the test never overfills the HDQ) is dispatched in order.
 */
export interface ModelRefusal {
  vp: number;
  error: string;
}

interface Ring {
  size: number;
  entries: Map<number, number[]>;
  /** ring index of the oldest announced, unreleased entry */
  head: number;
  /** announced and not released */
  out: number;
}

export class SdqOrderModel {
  private readonly rings = new Map<number, Ring>();
  private readonly want = new Map<number, number[][]>();
  readonly refusals: ModelRefusal[] = [];

  constructor(
    readonly pioVps: number,
    readonly dmaVps: number,
    readonly entryBytes: number,
  ) {}

  /** The kernel registered (SDQ_BASE, SDQ_SIZE) of a DMA VP. */
  register(vp: number, size: number): void {
    this.rings.set(vp, { size, entries: new Map(), head: 0, out: 0 });
  }

  /** Software wrote ring entry `index` of `vp`. */
  write(vp: number, index: number, bytes: Uint8Array): void {
    const r = this.rings.get(vp);
    if (!r) throw new Error(`model: VP ${vp} has no ring`);
    const e = Array.from({ length: this.entryBytes }, (_, i) => bytes[i] ?? 0);
    r.entries.set(index, e);
  }

  /** Ring index the next announced descriptor of `vp` comes from. */
  tail(vp: number): number {
    const r = this.rings.get(vp)!;
    return (r.head + r.out) % r.size;
  }

  /** Announced and not released (what the test may not exceed). */
  outstanding(vp: number): number {
    const r = this.rings.get(vp);
    return r ? r.out : 0;
  }

  private list(vp: number): number[][] {
    let l = this.want.get(vp);
    if (!l) this.want.set(vp, (l = []));
    return l;
  }

  /** A doorbell store of `count` by `writer` (a VP, or -1 for the kernel) into `vp`'s page. */
  doorbell(writer: number, vp: number, count: number): string {
    let err = '';
    let on = vp;
    const r = this.rings.get(vp);
    if (writer !== -1 && writer !== vp) {
      err = 'foreign_vp';
      on = writer;
    } else if (!r || count < 1 || count > r.size) err = 'bad_doorbell';
    else if (r.out + count > r.size) err = 'sdq_overflow';
    if (err !== '') {
      this.refusals.push({ vp: on, error: err });
      return err;
    }
    const ring = r!;
    for (let k = 0; k < count; k++) {
      const e = ring.entries.get((ring.head + ring.out + k) % ring.size) ?? new Array<number>(this.entryBytes).fill(0);
      this.list(vp).push(((e[0]! >> 4) & 3) === 0 ? e.slice(0, 64) : e.slice());
    }
    ring.out += count;
    return '';
  }

  /** `k` more descriptors of `vp` were dispatched (their entries may be reused). */
  released(vp: number, k: number): void {
    const r = this.rings.get(vp);
    if (!r) return;
    if (k > r.out) throw new Error(`model: VP ${vp} released ${k} descriptors with ${r.out} outstanding`);
    r.head = (r.head + k) % r.size;
    r.out -= k;
  }

  /** A whole descriptor written into PIO VP `vp`'s HDQ. */
  pio(vp: number, bytes: Uint8Array): void {
    this.list(vp).push([...bytes]);
  }

  /** The descriptors `vp` must dispatch, in order. */
  expected(vp: number): number[][] {
    return this.want.get(vp) ?? [];
  }
}
