/**
 * The HPU's local memory: instruction memory and scratchpad in one byte-addressed array from
 * address 0 (the core has separate fetch and data ports onto it, each single-cycle). Read-only
 * ranges (a program's code) reject stores. Addresses in [extBase, extLimit) belong to memory
 * outside the core (shared packet buffer, L2, host through DMA): accesses there go through the
 * core's stall input.
 */
export interface MemorySegment {
  vaddr: number;
  data: Uint8Array;
  memsz: number;
  writable: boolean;
}

export class HpuMemory {
  readonly bytes: Uint8Array;
  readonly s8: Int8Array;
  readonly s16: Int16Array;
  readonly u16: Uint16Array;
  readonly s32: Int32Array;
  private readonly roLo: number[] = [];
  private readonly roHi: number[] = [];
  /** the smallest range [roMin, roMax) holding every read-only range (an address outside it needs no search) */
  readonly roMin: number = 0;
  readonly roMax: number = 0;

  /** `buffer` (optional, `size` bytes): memory shared with other cores (the sPIN runtime's clusters and L2); default a new array. */
  constructor(readonly size: number, segments: readonly MemorySegment[], buffer?: ArrayBuffer) {
    if (!Number.isInteger(size) || size < 4 || size % 4 !== 0) throw new RangeError(`memory size ${size}: expected a positive multiple of 4`);
    if (buffer !== undefined && buffer.byteLength !== size) throw new RangeError(`shared memory of ${buffer.byteLength} bytes for a ${size}-byte HPU memory`);
    const buf = buffer ?? new ArrayBuffer(size);
    this.bytes = new Uint8Array(buf);
    this.s8 = new Int8Array(buf);
    this.s16 = new Int16Array(buf);
    this.u16 = new Uint16Array(buf);
    this.s32 = new Int32Array(buf);
    for (const s of segments) {
      if (s.vaddr < 0 || s.vaddr + s.memsz > size) throw new RangeError(`segment 0x${s.vaddr.toString(16)} + ${s.memsz} bytes does not fit in the ${size}-byte HPU memory`);
      this.bytes.set(s.data, s.vaddr);
      if (!s.writable) {
        this.roMin = this.roLo.length === 0 ? s.vaddr : Math.min(this.roMin, s.vaddr);
        this.roMax = Math.max(this.roMax, s.vaddr + s.memsz);
        this.roLo.push(s.vaddr);
        this.roHi.push(s.vaddr + s.memsz);
      }
    }
  }

  /** True when a store to `addr` would write a read-only range. */
  readOnly(addr: number): boolean {
    for (let i = 0; i < this.roLo.length; i++) if (addr >= this.roLo[i]! && addr < this.roHi[i]!) return true;
    return false;
  }
}
