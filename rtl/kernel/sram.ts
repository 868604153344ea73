import { childPath, type Scope } from './component.ts';
import type { Simulator } from './simulator.ts';

export type SramFieldType = 'u8' | 'u16' | 'u32' | 'i32' | 'f64';
type Store = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

export interface SramOptions {
  /** Number of entries (rows). */
  depth: number;
  /** Named fields, each stored in its own typed array (structure of arrays). */
  fields: Record<string, SramFieldType>;
  /** Cycles from read() to the response (>= 1, default 1). */
  readLatency?: number;
  /** Reads that may be issued per cycle (default 1). */
  readPorts?: number;
  /** Rows that may be written per cycle (default 1). */
  writePorts?: number;
}

const BYTES: Record<SramFieldType, number> = { u8: 1, u16: 2, u32: 4, i32: 4, f64: 8 };

function allocate(type: SramFieldType, n: number): Store {
  switch (type) {
    case 'u8':
      return new Uint8Array(n);
    case 'u16':
      return new Uint16Array(n);
    case 'u32':
      return new Uint32Array(n);
    case 'i32':
      return new Int32Array(n);
    case 'f64':
      return new Float64Array(n);
  }
}

/**
 * Register file / SRAM backed by typed arrays: `depth` rows of named fields.
 *
 * Timing: read(port, addr, tag) issued in cycle t returns the row as it was at the start of t
 * (writes of cycle t are not visible: read-first) at exactly cycle t + readLatency, through
 * respValid/respAddr/respTag/resp. write(port, addr, field, value) takes effect at the clock edge
 * (visible from t + 1). Port limits are checked per cycle. A 1,048,576-row table with a u32 tag,
 * a u32 payload and a u8 flag takes 9 MiB.
 */
export class Sram {
  readonly path: string;
  readonly depth: number;
  readonly readLatency: number;
  readonly readPorts: number;
  readonly writePorts: number;
  readonly fieldNames: readonly string[];
  private readonly sim: Simulator;
  private readonly stores: Store[];
  // pending writes of the cycle `pendCycle`
  private pendCycle = -1;
  private pendN = 0;
  private readonly pendAddr: Float64Array;
  private readonly pendField: Int32Array;
  private readonly pendVal: Float64Array;
  private readonly writeCycle: Float64Array; // per write port: last cycle used
  private readonly writeAddr: Float64Array; // per write port: row written in that cycle
  // read response rings: per port, lat+1 slots indexed by due cycle
  private readonly ring: number;
  private readonly respDue: Float64Array;
  private readonly respAddrs: Float64Array;
  private readonly respTags: Float64Array;
  private readonly respData: Float64Array; // [port][slot][field]
  private readonly readCycle: Float64Array;

  constructor(parent: Scope, name: string, opts: SramOptions) {
    this.sim = parent.sim;
    this.path = childPath(parent, name);
    const { depth } = opts;
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`${this.path}: depth must be a positive integer, got ${depth}`);
    this.depth = depth;
    this.readLatency = opts.readLatency ?? 1;
    this.readPorts = opts.readPorts ?? 1;
    this.writePorts = opts.writePorts ?? 1;
    for (const [k, v] of [['readLatency', this.readLatency], ['readPorts', this.readPorts], ['writePorts', this.writePorts]] as const) {
      if (!Number.isInteger(v) || v < 1) throw new RangeError(`${this.path}: ${k} must be an integer >= 1, got ${v}`);
    }
    this.fieldNames = Object.keys(opts.fields);
    if (this.fieldNames.length === 0) throw new RangeError(`${this.path}: at least one field is required`);
    this.stores = this.fieldNames.map((f) => {
      const ty = opts.fields[f]!;
      if (!(ty in BYTES)) throw new RangeError(`${this.path}: field ${f} has unknown type ${ty}`);
      return allocate(ty, depth);
    });
    const nf = this.fieldNames.length;
    const maxPend = this.writePorts * nf;
    this.pendAddr = new Float64Array(maxPend);
    this.pendField = new Int32Array(maxPend);
    this.pendVal = new Float64Array(maxPend);
    this.writeCycle = new Float64Array(this.writePorts).fill(-1);
    this.writeAddr = new Float64Array(this.writePorts).fill(-1);
    this.ring = this.readLatency + 1;
    this.respDue = new Float64Array(this.readPorts * this.ring).fill(-1);
    this.respAddrs = new Float64Array(this.readPorts * this.ring);
    this.respTags = new Float64Array(this.readPorts * this.ring);
    this.respData = new Float64Array(this.readPorts * this.ring * nf);
    this.readCycle = new Float64Array(this.readPorts).fill(-1);
    this.sim._registerState(this);
  }

  /** Bytes of storage held by the table (not counting per-port response registers). */
  get storageBytes(): number {
    return this.stores.reduce((a, s) => a + s.byteLength, 0);
  }

  /** Index of a field, for the fast numeric accessors. */
  field(name: string): number {
    const i = this.fieldNames.indexOf(name);
    if (i < 0) throw new Error(`${this.path}: no field ${name} (fields: ${this.fieldNames.join(', ')})`);
    return i;
  }

  private sync(): void {
    if (this.pendN > 0 && this.pendCycle < this.sim.cycle) {
      for (let i = 0; i < this.pendN; i++) this.stores[this.pendField[i]!]![this.pendAddr[i]!] = this.pendVal[i]!;
      this.pendN = 0;
    }
  }

  private checkAddr(addr: number): void {
    if (!(addr >= 0 && addr < this.depth) || !Number.isInteger(addr)) throw new RangeError(`${this.path}: address ${addr} out of range [0, ${this.depth})`);
  }

  /** Issue a read on `port`; the response appears at cycle now + readLatency. */
  read(port: number, addr: number, tag = 0): void {
    this.checkAddr(addr);
    const t = this.sim.cycle;
    if (!(port >= 0 && port < this.readPorts)) throw new RangeError(`${this.path}: read port ${port} out of range [0, ${this.readPorts})`);
    if (this.readCycle[port] === t) throw new Error(`${this.path}: read port ${port} used twice in cycle ${t}`);
    this.readCycle[port] = t;
    this.sync();
    const due = t + this.readLatency;
    const slot = port * this.ring + (due % this.ring);
    this.respDue[slot] = due;
    this.respAddrs[slot] = addr;
    this.respTags[slot] = tag;
    const nf = this.stores.length;
    for (let f = 0; f < nf; f++) this.respData[slot * nf + f] = this.stores[f]![addr]!;
  }

  private slot(port: number): number {
    const t = this.sim.cycle;
    const s = port * this.ring + (t % this.ring);
    return this.respDue[s] === t ? s : -1;
  }

  /** A read issued readLatency cycles ago on this port responds in this cycle. */
  respValid(port: number): boolean {
    return this.slot(port) >= 0;
  }
  respAddr(port: number): number {
    return this.respAddrs[this.need(port)]!;
  }
  respTag(port: number): number {
    return this.respTags[this.need(port)]!;
  }
  resp(port: number, field: number): number {
    return this.respData[this.need(port) * this.stores.length + field]!;
  }
  private need(port: number): number {
    const s = this.slot(port);
    if (s < 0) throw new Error(`${this.path}: no read response on port ${port} in cycle ${this.sim.cycle}`);
    return s;
  }

  /**
   * Write one field of a row at the clock edge. All fields written to one row in one cycle
   * through the same port count as one row write.
   */
  write(port: number, addr: number, field: number, value: number): void {
    this.checkAddr(addr);
    const t = this.sim.cycle;
    if (!(port >= 0 && port < this.writePorts)) throw new RangeError(`${this.path}: write port ${port} out of range [0, ${this.writePorts})`);
    if (this.writeCycle[port] === t) {
      if (this.writeAddr[port] !== addr) throw new Error(`${this.path}: write port ${port} used for two rows in cycle ${t}`);
    } else {
      this.writeCycle[port] = t;
      this.writeAddr[port] = addr;
    }
    if (!(field >= 0 && field < this.stores.length)) throw new RangeError(`${this.path}: field index ${field} out of range`);
    this.sync();
    if (this.pendN > 0 && this.pendCycle !== t) throw new Error(`${this.path}: internal: stale pending writes`);
    this.pendCycle = t;
    // a second write of the same row/field in one cycle replaces the first
    for (let i = 0; i < this.pendN; i++) {
      if (this.pendAddr[i] === addr && this.pendField[i] === field) {
        this.pendVal[i] = value;
        return;
      }
    }
    if (this.pendN === this.pendAddr.length) throw new Error(`${this.path}: too many writes in cycle ${t}`);
    this.pendAddr[this.pendN] = addr;
    this.pendField[this.pendN] = field;
    this.pendVal[this.pendN] = value;
    this.pendN++;
  }

  /**
   * Asynchronous (register-file style) read of the committed contents: the row as at the start
   * of this cycle. Not counted against read ports; use for flop-based tables.
   */
  peek(addr: number, field: number): number {
    this.sync();
    return this.stores[field]![addr]!;
  }

  /**
   * Backdoor load (testbench/preload only, outside a cycle's evaluation): writes the
   * contents immediately without port accounting.
   */
  load(addr: number, field: number, value: number): void {
    this.checkAddr(addr);
    this.sync();
    this.stores[field]![addr] = value;
  }

  /** Backdoor fill of a whole field. */
  fill(field: number, value: number): void {
    this.sync();
    this.stores[field]!.fill(value);
  }

  reset(): void {
    for (const s of this.stores) s.fill(0);
    this.pendN = 0;
    this.pendCycle = -1;
    this.writeCycle.fill(-1);
    this.writeAddr.fill(-1);
    this.respDue.fill(-1);
    this.readCycle.fill(-1);
  }
}
