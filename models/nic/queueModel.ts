/**
 * Golden transaction-level model of the host-memory queues (EQ, MPQ per VP; INTQ; EPQ), written
 * from docs/nic-rdma.md without the RTL: operations are applied in order and the model settles
 * (does everything that can be done) after each. It predicts every byte written to host memory,
 * every INTQ entry, the registers of every queue and the drop/discard counts.
 */

const ENTRY = { eq: 32, mpq: 128, intq: 16, epq: 128 } as const;
const KINDS = ['eq', 'mpq', 'intq', 'epq'] as const;
type Kind = (typeof KINDS)[number];
const INTERNAL_ROOM = 4;

interface Ring {
  base: number;
  size: number;
  prod: number;
  cons: number;
  overflows: number;
  /** virtual mode: the base is a virtual address of the VP, every entry checked against item / key and translated */
  virtual: boolean;
  item: number;
  key: number;
}

/**
 * How a virtual-mode entry's address becomes physical (supplied by the owner of the model: the
 * golden memory checker and address translation): the physical address, or minus the fault code
 * (1-7 the checker's reason, 17 no translation).
 */
export type ModelXlate = (vp: number, item: number, key: number, va: number, len: number) => number;

export interface ModelEntry {
  kind: number;
  vp: number;
  data: Uint8Array;
}

export interface ModelSw {
  /** consume: `count` more entries read; rptr: the consumer index set to `count` (the read-pointer register) */
  op: 'register' | 'consume' | 'rptr';
  kind: number;
  vp: number;
  base: number;
  size: number;
  count: number;
  virtual?: boolean;
  item?: number;
  key?: number;
}

function intqBytes(type: number, code: number, vp: number, info: number, addr = 0): Uint8Array {
  // type, code, vp (16 LE), info (32 LE), address 48 bits LE, 2 bytes pad
  const b = new Uint8Array(16);
  b[0] = type;
  b[1] = code;
  b[2] = vp & 0xff;
  b[3] = vp >>> 8;
  const u = info >>> 0;
  for (let i = 0; i < 4; i++) b[4 + i] = (u >>> (8 * i)) & 0xff;
  let a = addr;
  for (let i = 0; i < 6; i++) {
    b[8 + i] = a % 256;
    a = Math.floor(a / 256);
  }
  return b;
}

export class QueueModel {
  readonly rings = new Map<string, Ring>();
  /** every byte written to host memory: address -> value (the last write wins) */
  readonly mem = new Map<number, number>();
  /** every host write in order: address and length, while `keepWrites` (the default, for the queue test's order check) */
  readonly writes: { addr: number; len: number; kind: Kind }[] = [];
  /** keep the write log (off in the RDMA model, which never reads it: a long run would grow by one record per entry) */
  keepWrites = true;
  droppedFull = 0;
  droppedUnregistered = 0;
  epqDiscarded = 0;
  badEntries = 0;
  swRefused = 0;
  /** virtual-mode entries dropped for a refused check or a missing translation */
  faults = 0;
  private readonly sw: ModelSw[] = [];
  private readonly internal: ModelEntry[] = [];
  private readonly input: ModelEntry[] = [];

  constructor(
    readonly vps: number,
    readonly epqEnabled: boolean,
    readonly addrBits = 48,
    /** virtual-mode translation (absent: virtual registrations are refused) */
    readonly xlate: ModelXlate | null = null,
  ) {}

  private key(kind: number, vp: number): string | null {
    if (kind === 2) return 'intq';
    if (kind === 3) return 'epq';
    if ((kind === 0 || kind === 1) && Number.isInteger(vp) && vp >= 0 && vp < this.vps) return `${KINDS[kind]}${vp}`;
    return null;
  }

  ring(kind: number, vp = 0): Ring {
    const k = this.key(kind, vp);
    if (k === null) throw new RangeError(`no queue ${kind}/${vp}`);
    let r = this.rings.get(k);
    if (!r) {
      r = { base: 0, size: 0, prod: 0, cons: 0, overflows: 0, virtual: false, item: 0, key: 0 };
      this.rings.set(k, r);
    }
    return r;
  }

  /** The interrupt line: raised while the INTQ holds an entry. */
  get irq(): boolean {
    const r = this.ring(2);
    return r.prod > r.cons;
  }

  /** Entries still waiting (INTQ full or unregistered). */
  get waiting(): number {
    return this.internal.length + this.input.length + this.sw.length;
  }

  software(w: ModelSw): void {
    this.sw.push(w);
    this.settle();
  }

  entry(e: ModelEntry): void {
    this.input.push(e);
    this.settle();
  }

  private refusal(w: ModelSw): string {
    const k = this.key(w.kind, w.vp);
    if (k === null) return 'no such queue';
    const eb = ENTRY[KINDS[w.kind]!];
    if (w.op === 'register') {
      if (w.size === 0) return '';
      if (w.virtual === true) {
        if (w.kind > 1) return 'virtual';
        if (this.xlate === null) return 'no translation';
        const ok = (v: number | undefined, hi: number): boolean => v !== undefined && Number.isInteger(v) && v >= 0 && v <= hi;
        if (!ok(w.item, 0xffff) || !ok(w.key, 0xffffffff)) return 'item/key';
      }
      const pow2 = Number.isInteger(w.size) && w.size >= 1 && w.size <= 65536 && Number.isInteger(Math.log2(w.size));
      if (!pow2) return 'size';
      if (!Number.isInteger(w.base) || w.base < 0 || w.base % eb !== 0) return 'base';
      if (w.base + w.size * eb > 2 ** this.addrBits) return 'range';
      return '';
    }
    const r = this.ring(w.kind, w.vp);
    if (w.op === 'rptr') return Number.isInteger(w.count) && w.count >= r.cons && w.count <= r.prod ? '' : 'pointer';
    if (!Number.isInteger(w.count) || w.count < 1 || w.count > r.prod - r.cons) return 'count';
    return '';
  }

  private put(kind: Kind, r: Ring, data: Uint8Array, at?: number): void {
    const addr = at ?? r.base + (r.prod % r.size) * ENTRY[kind];
    for (let i = 0; i < data.length; i++) this.mem.set(addr + i, data[i]!);
    if (this.keepWrites) this.writes.push({ addr, len: data.length, kind });
    r.prod++;
  }

  private intqTakes(): boolean {
    const r = this.ring(2);
    return r.size > 0 && r.prod - r.cons < r.size;
  }

  /** Try the entry at the head of the input; true when it was consumed. */
  private tryInput(): boolean {
    const e = this.input[0];
    if (e === undefined) return false;
    const k = this.key(e.kind, e.vp);
    const room = this.internal.length < INTERNAL_ROOM;
    if (k === null || e.data.length !== ENTRY[KINDS[e.kind]!]) {
      if (!room) return false;
      this.badEntries++;
      const vp = Number.isInteger(e.vp) && e.vp >= 0 && e.vp <= 0xffff ? e.vp : 0xffff;
      const kind = Number.isInteger(e.kind) && e.kind >= 0 && e.kind <= 255 ? e.kind : 255;
      this.internal.push({ kind: 2, vp: 0, data: intqBytes(5, kind, vp, e.data.length) });
      this.input.shift();
      return true;
    }
    const kind = KINDS[e.kind]!;
    const r = this.ring(e.kind, e.vp);
    if (kind === 'intq') {
      if (!this.intqTakes()) return false;
      this.put('intq', r, e.data);
    } else if (kind === 'epq' && (!this.epqEnabled || r.size === 0)) {
      this.epqDiscarded++;
    } else if (r.size === 0) {
      if (!room) return false;
      this.droppedUnregistered++;
      this.internal.push({ kind: 2, vp: 0, data: intqBytes(4, e.kind, e.vp, 0) });
    } else if (r.prod - r.cons >= r.size) {
      if (!room) return false;
      this.droppedFull++;
      r.overflows++;
      this.internal.push({ kind: 2, vp: 0, data: intqBytes(3, e.kind, kind === 'epq' ? 0xffff : e.vp, 0) });
    } else if (r.virtual) {
      // checked and translated: written at the physical address, or dropped and reported
      const va = r.base + (r.prod % r.size) * ENTRY[kind];
      const pa = this.xlate!(e.vp, r.item, r.key, va, e.data.length);
      if (pa < 0) {
        if (!room) return false;
        this.faults++;
        this.internal.push({ kind: 2, vp: 0, data: intqBytes(6, e.kind, e.vp, -pa, va) });
      } else this.put(kind, r, e.data, pa);
    } else {
      this.put(kind, r, e.data);
    }
    this.input.shift();
    return true;
  }

  private trySw(): boolean {
    const w = this.sw[0];
    if (w === undefined) return false;
    const why = this.refusal(w);
    if (why !== '') {
      if (this.internal.length >= INTERNAL_ROOM) return false;
      this.swRefused++;
      const vp = Number.isInteger(w.vp) && w.vp >= 0 && w.vp <= 0xffff ? w.vp : 0xffff;
      const kind = Number.isInteger(w.kind) && w.kind >= 0 && w.kind <= 255 ? w.kind : 255;
      this.internal.push({ kind: 2, vp: 0, data: intqBytes(5, kind, vp, (w.op === 'register' ? w.size : w.count) >>> 0) });
    } else {
      const r = this.ring(w.kind, w.vp);
      if (w.op === 'register') {
        r.base = w.size === 0 ? 0 : w.base;
        r.size = w.size;
        r.prod = r.cons = r.overflows = 0;
        r.virtual = w.size !== 0 && w.virtual === true;
        r.item = r.virtual ? w.item! : 0;
        r.key = r.virtual ? w.key! : 0;
      } else if (w.op === 'rptr') r.cons = w.count;
      else r.cons += w.count;
    }
    this.sw.shift();
    return true;
  }

  private settle(): void {
    for (;;) {
      let moved = this.trySw();
      const head = this.internal[0];
      if (head !== undefined && this.intqTakes()) {
        this.put('intq', this.ring(2), head.data);
        this.internal.shift();
        moved = true;
      } else if (this.tryInput()) moved = true;
      if (!moved) return;
    }
  }
}
