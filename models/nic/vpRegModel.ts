/**
 * Golden model of the virtual-port register file (docs/nic-frontend.md, "Virtual ports"), from the
 * documented register map and refusal rules, sharing no code with rtl/nic/vp. It takes CPU stores
 * in program order (the PCIe path keeps them in order and splits each at multiples of the
 * write-combining size) and predicts the registers, the HDQ window writes, the doorbells and the
 * refused stores with the VP each is reported on.
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
  | { kind: 'error'; vp: number; error: string; addr: number };

const REGS: Record<number, string> = { 0: 'key', 8: 'eq_base', 16: 'eq_size', 24: 'mpq_base', 32: 'mpq_size', 40: 'sdq_base', 48: 'sdq_size', 56: 'doorbell', 64: 'hdq_free' };
const SDQ_ONLY = new Set(['sdq_base', 'sdq_size', 'doorbell']);

export class VpRegModel {
  /** stored registers by VP and name */
  readonly regs: Map<string, bigint>[];
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
    if (addr < this.p.barBase || page >= vps) return refuse('bad_address', addr < this.p.barBase ? -1 : page);
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
    if (name === 'hdq_free') return refuse('read_only', page);
    let v = 0n;
    for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(d[i]!);
    if (v >= 1n << 48n) return refuse('bad_value', page);
    const isPow2 = (x: bigint): boolean => x >= 1n && x <= 65536n && (x & (x - 1n)) === 0n;
    if (name === 'key' && v >= 1n << 32n) return refuse('bad_value', page);
    if (name.endsWith('_base') && v % 64n !== 0n) return refuse('bad_value', page);
    if (name.endsWith('_size') && !isPow2(v)) return refuse('bad_value', page);
    if (name === 'doorbell') {
      const size = this.regs[page]!.get('sdq_size') ?? 0n;
      if (size === 0n || v < 1n || v > size) return refuse('bad_doorbell', page);
      this.events.push({ kind: 'doorbell', vp: page, count: Number(v) });
      return;
    }
    this.regs[page]!.set(name, v);
  }
}
