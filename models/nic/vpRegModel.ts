/**
 * Golden model of the virtual-port register file (docs/nic-frontend.md, "Virtual ports"), from the
 * documented register map and refusal rules, sharing no code with rtl/nic/vp. It takes CPU stores
 * in program order (the PCIe path keeps them in order and splits each at multiples of the
 * write-combining size) and predicts the registers, the HDQ window writes, the doorbells, the
 * queue-engine operations (registrations and read pointers, EQ / MPQ per VP and INTQ / EPQ from the
 * kernel's control page after the VP pages) and the refused stores with the VP each is reported on.
 */

export interface VpModelParams {
  pioVps: number;
  dmaVps: number;
  pageBytes: number;
  barBase: number;
  wcBytes: number;
}

export type VpModelEvent =
  | { kind: 'hdq'; vp: number; offset: number; data: number[] }
  | { kind: 'doorbell'; vp: number; count: number }
  /** to the queue engine: a registration (base, size; size 0 unregisters) or a new read pointer */
  | { kind: 'queue'; op: 'register' | 'rptr'; queue: 'eq' | 'mpq' | 'intq' | 'epq'; vp: number; base: number; size: number; ptr: number; virtual: boolean; item: number; key: number }
  | { kind: 'error'; vp: number; error: string; addr: number };

const REGS: Record<number, string> = { 0: 'key', 8: 'eq_base', 16: 'eq_size', 24: 'mpq_base', 32: 'mpq_size', 40: 'sdq_base', 48: 'sdq_size', 56: 'doorbell', 64: 'hdq_free', 72: 'eq_rptr', 80: 'mpq_rptr', 88: 'eq_wptr', 96: 'mpq_wptr' };
const CONTROL: Record<number, string> = { 0: 'intq_base', 8: 'intq_size', 16: 'intq_rptr', 24: 'epq_base', 32: 'epq_size', 40: 'epq_rptr' };
const READ_ONLY = new Set(['hdq_free', 'eq_wptr', 'mpq_wptr']);
const SDQ_ONLY = new Set(['sdq_base', 'sdq_size', 'doorbell']);

export class VpRegModel {
  /** stored registers by VP and name */
  readonly regs: Map<string, bigint>[];
  /** the control page's registers */
  readonly control = new Map<string, bigint>();
  readonly events: VpModelEvent[] = [];

  constructor(readonly p: VpModelParams) {
    this.regs = Array.from({ length: p.pioVps + p.dmaVps }, () => new Map<string, bigint>());
  }

  get(vp: number, name: string): number {
    return Number(this.regs[vp]!.get(name) ?? 0n);
  }

  /** A CPU store by `writer` (-1 = kernel). */
  store(writer: number, addr: number, data: Uint8Array): void {
    let off = 0;
    while (off < data.length) {
      const a = addr + off;
      const n = Math.min(this.p.wcBytes - (a % this.p.wcBytes), data.length - off);
      this.piece(writer, a, data.subarray(off, off + n));
      off += n;
    }
  }

  private piece(writer: number, addr: number, d: Uint8Array): void {
    const vps = this.p.pioVps + this.p.dmaVps;
    const page = Math.floor((addr - this.p.barBase) / this.p.pageBytes);
    const inPage = addr - this.p.barBase - page * this.p.pageBytes;
    const refuse = (error: string, vp: number): void => {
      this.events.push({ kind: 'error', vp: writer >= 0 ? writer : vp, error, addr });
    };
    if (addr < this.p.barBase || page > vps) return refuse('bad_address', addr < this.p.barBase ? -1 : page);
    if (page === vps) return this.controlStore(writer, inPage, d, refuse);
    if (writer >= 0 && writer !== page) return refuse('foreign_vp', page);
    const pio = page < this.p.pioVps;
    if (inPage >= 0x800) {
      if (!pio) return refuse('not_this_kind', page);
      this.events.push({ kind: 'hdq', vp: page, offset: inPage - 0x800, data: [...d] });
      return;
    }
    const name = REGS[inPage - (inPage % 8)];
    if (name === 'key' && writer >= 0) return refuse('privileged', page);
    if (name !== undefined && SDQ_ONLY.has(name) && pio) return refuse('not_this_kind', page);
    if (inPage % 8 !== 0 || d.length !== 8) return refuse('bad_access', page);
    if (name === undefined) return refuse('bad_register', page);
    if (READ_ONLY.has(name)) return refuse('read_only', page);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(d[i]!);
    if (v >= 1n << 48n) return refuse('bad_value', page);
    const isPow2 = (x: bigint): boolean => x >= 1n && x <= 65536n && (x & (x - 1n)) === 0n;
    if (name === 'key' && v >= 1n << 32n) return refuse('bad_value', page);
    // EQ / MPQ: base bit 0 = virtual mode; size bits 32-47 = the item of a virtual queue
    const queueReg = name === 'eq_base' || name === 'mpq_base' || name === 'eq_size' || name === 'mpq_size';
    if (name.endsWith('_base') && v % 64n !== 0n && !(queueReg && v % 64n === 1n)) return refuse('bad_value', page);
    const sz = queueReg ? v % (1n << 32n) : v;
    if (name.endsWith('_size') && !isPow2(sz) && !(sz === 0n && name !== 'sdq_size')) return refuse('bad_value', page);
    if (name === 'doorbell') {
      const size = this.regs[page]!.get('sdq_size') ?? 0n;
      if (size === 0n || v < 1n || v > size) return refuse('bad_doorbell', page);
      this.events.push({ kind: 'doorbell', vp: page, count: Number(v) });
      return;
    }
    this.regs[page]!.set(name, v);
    const q = name.startsWith('eq_') ? 'eq' : 'mpq';
    if (name === 'eq_size' || name === 'mpq_size') {
      const b = this.regs[page]!.get(`${q}_base`) ?? 0n;
      const virtual = b % 64n === 1n;
      const item = virtual ? Number(v >> 32n) : 0;
      this.events.push({ kind: 'queue', op: 'register', queue: q, vp: page, base: Number(b - (b % 64n)), size: Number(sz), ptr: 0, virtual, item, key: virtual ? this.get(page, 'key') : 0 });
    }
    if (name === 'eq_rptr' || name === 'mpq_rptr') this.events.push({ kind: 'queue', op: 'rptr', queue: q, vp: page, base: 0, size: 0, ptr: Number(v), virtual: false, item: 0, key: 0 });
  }

  /** A store to the control page: kernel only, INTQ and EPQ registration and read pointers. */
  private controlStore(writer: number, inPage: number, d: Uint8Array, refuse: (e: string, vp: number) => void): void {
    const page = this.p.pioVps + this.p.dmaVps;
    if (writer >= 0) return refuse('privileged', page);
    if (inPage % 8 !== 0 || d.length !== 8) return refuse('bad_access', page);
    const name = CONTROL[inPage];
    if (name === undefined) return refuse('bad_register', page);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(d[i]!);
    if (v >= 1n << 48n) return refuse('bad_value', page);
    if (name.endsWith('_base') && v % 64n !== 0n) return refuse('bad_value', page);
    if (name.endsWith('_size') && v !== 0n && !(v <= 65536n && (v & (v - 1n)) === 0n)) return refuse('bad_value', page);
    this.control.set(name, v);
    const q = name.startsWith('intq') ? 'intq' : 'epq';
    if (name.endsWith('_size')) this.events.push({ kind: 'queue', op: 'register', queue: q, vp: 0, base: Number(this.control.get(`${q}_base`) ?? 0n), size: Number(v), ptr: 0, virtual: false, item: 0, key: 0 });
    if (name.endsWith('_rptr')) this.events.push({ kind: 'queue', op: 'rptr', queue: q, vp: 0, base: 0, size: 0, ptr: Number(v), virtual: false, item: 0, key: 0 });
  }
}
