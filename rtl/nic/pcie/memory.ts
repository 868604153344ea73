/**
 * Host memory as bytes: a sparse map of 4 KiB pages, zero where never written. Written by the root
 * complex (posted writes) and by software (the testbench, between cycles); read by the root
 * complex when it serves a read request.
 */
const PAGE = 4096;

export class HostBytes {
  private readonly pages = new Map<number, Uint8Array>();

  constructor(readonly addrBits = 48) {
    if (!Number.isInteger(addrBits) || addrBits < 13 || addrBits > 52) throw new RangeError(`host memory: addrBits must be an integer in [13, 52], got ${addrBits}`);
  }

  private check(addr: number, len: number): void {
    if (!Number.isInteger(addr) || addr < 0 || !Number.isInteger(len) || len < 0 || addr + len > 2 ** this.addrBits) {
      throw new RangeError(`host memory: range [${addr}, ${addr} + ${len}) is not inside [0, 2^${this.addrBits})`);
    }
  }

  write(addr: number, data: Uint8Array): void {
    this.check(addr, data.length);
    let i = 0;
    while (i < data.length) {
      const a = addr + i;
      const pn = Math.floor(a / PAGE);
      const off = a - pn * PAGE;
      const n = Math.min(PAGE - off, data.length - i);
      let p = this.pages.get(pn);
      if (p === undefined) {
        p = new Uint8Array(PAGE);
        this.pages.set(pn, p);
      }
      p.set(data.subarray(i, i + n), off);
      i += n;
    }
  }

  /** Copy `len` bytes at `addr` into `out` at `at`. */
  readInto(addr: number, len: number, out: Uint8Array, at = 0): void {
    this.check(addr, len);
    let i = 0;
    while (i < len) {
      const a = addr + i;
      const pn = Math.floor(a / PAGE);
      const off = a - pn * PAGE;
      const n = Math.min(PAGE - off, len - i);
      const p = this.pages.get(pn);
      if (p === undefined) out.fill(0, at + i, at + i + n);
      else out.set(p.subarray(off, off + n), at + i);
      i += n;
    }
  }

  read(addr: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    this.readInto(addr, len, out);
    return out;
  }

  /** Pages holding data (written at least once). */
  get pageCount(): number {
    return this.pages.size;
  }
}
