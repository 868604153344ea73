/**
 * Golden model of the Gemini AMO unit, written independently of rtl/gemini/amo/ (it imports only
 * the operation-code and status tables): 64-bit words as BigInt, the semantics of each operation
 * written from the seed and Cray's DMAPP definitions, and the atomic cache as per-set recency
 * lists, so hit/miss and the host-visible memory (what write-backs have reached) are predicted too.
 */
import { AMO_ERR_ALIGN, AMO_ERR_OP, AMO_ERR_RANGE, AMO_ERR_SIZE, AMO_NAMES, AMO_OK } from '../../rtl/gemini/amo/ops.ts';

const MASK64 = (1n << 64n) - 1n;

/** New value of a word under an operation (by name); operands are 64-bit unsigned BigInts. */
export function amoApply(name: string, old: bigint, a: bigint, b: bigint): bigint {
  switch (name) {
    case 'ADD':
    case 'FADD':
      return (old + a) & MASK64;
    case 'AND':
    case 'FAND':
      return old & a;
    case 'OR':
      return old | a;
    case 'XOR':
    case 'FXOR':
      return old ^ a;
    case 'FCSWAP':
      return old === b ? a : old;
    case 'AX':
    case 'FAX':
      return (old & a) ^ b;
    default:
      throw new Error(`golden AMO: no operation named ${name}`);
  }
}

export function isFetching(name: string): boolean {
  return name.startsWith('F');
}

export interface GoldenAmoConfig {
  cacheLines: number;
  cacheWays: number;
  replacement: 'lru' | 'fifo';
  writePolicy: 'write-back' | 'write-through';
  memBytes: number;
}

export interface GoldenAmoResult {
  status: number;
  /** the old value (for every successful operation) */
  old: bigint;
  hit: boolean;
  /** a dirty word the fill evicted, written back to memory: its address and value */
  writeBack: { addr: bigint; value: bigint } | null;
}

/**
 * The unit's state: `host` is what the node's memory holds (the host's view), `cached` the words in
 * the atomic cache (each with a dirty flag). Operations are applied in the order given, which is the
 * unit's acceptance order.
 */
export class GoldenAmoUnit {
  readonly host = new Map<bigint, bigint>();
  /** per set: word addresses, least recently used (or first inserted) first */
  private readonly order: bigint[][];
  private readonly cached = new Map<bigint, { v: bigint; dirty: boolean }>();
  private readonly sets: number;

  constructor(readonly cfg: GoldenAmoConfig) {
    this.sets = cfg.cacheLines / cfg.cacheWays;
    this.order = Array.from({ length: this.sets }, () => []);
  }

  hostRead(addr: bigint): bigint {
    return this.host.get(addr) ?? 0n;
  }

  /** A host CPU store: memory only; a cached copy is left as it is (non-coherent). */
  hostWrite(addr: bigint, v: bigint): void {
    this.host.set(addr, v & MASK64);
  }

  /** The value an AMO would see now: the cached copy if there is one, else memory. */
  current(addr: bigint): bigint {
    const c = this.cached.get(addr);
    return c ? c.v : this.hostRead(addr);
  }

  /** Write back every dirty word (the driver's flush). */
  flush(): void {
    for (const [a, c] of this.cached) {
      if (c.dirty) {
        this.host.set(a, c.v);
        c.dirty = false;
      }
    }
  }

  op(opCode: number, addr: number, size: number, a: bigint, b: bigint): GoldenAmoResult {
    if (size !== 8) return { status: AMO_ERR_SIZE, old: 0n, hit: false, writeBack: null };
    if (!Number.isInteger(addr) || addr % 8 !== 0) return { status: AMO_ERR_ALIGN, old: 0n, hit: false, writeBack: null };
    if (addr < 0 || addr + 8 > this.cfg.memBytes) return { status: AMO_ERR_RANGE, old: 0n, hit: false, writeBack: null };
    const name = AMO_NAMES[opCode];
    if (name === undefined) return { status: AMO_ERR_OP, old: 0n, hit: false, writeBack: null };
    const w = BigInt(addr);
    const set = this.order[Number((w / 8n) % BigInt(this.sets))]!;
    let line = this.cached.get(w);
    const hit = line !== undefined;
    let writeBack: { addr: bigint; value: bigint } | null = null;
    if (line) {
      if (this.cfg.replacement === 'lru') {
        set.splice(set.indexOf(w), 1);
        set.push(w);
      }
    } else {
      if (set.length === this.cfg.cacheWays) {
        const victim = set.shift()!;
        const v = this.cached.get(victim)!;
        if (v.dirty) {
          this.host.set(victim, v.v);
          writeBack = { addr: victim, value: v.v };
        }
        this.cached.delete(victim);
      }
      line = { v: this.hostRead(w), dirty: false };
      this.cached.set(w, line);
      set.push(w);
    }
    const old = line.v;
    line.v = amoApply(name, old, a & MASK64, b & MASK64);
    if (this.cfg.writePolicy === 'write-through') this.host.set(w, line.v);
    else line.dirty = true;
    return { status: AMO_OK, old, hit, writeBack };
  }
}

/** Timing of a serial AMO unit (docs/gemini.md, cycle behaviour), for vectors. */
export interface GoldenAmoTiming {
  /** cycles from acceptance of a hit (or a rejected request) to its response being visible */
  opCycles: number;
  /** cycles host memory takes from taking a read to pushing its response */
  readCycles: number;
}

/**
 * Cycles from acceptance to the response being visible, for one operation on an otherwise idle
 * unit: a rejected request or a hit answers opCycles later; a miss waits for its fill: the read is
 * pushed the cycle after acceptance, spends one cycle in the channel to memory, readCycles in
 * memory and one cycle back (readCycles + 2 more), plus one cycle when the dirty victim's
 * write-back goes out on the memory port first.
 */
export function goldenAmoLatency(r: GoldenAmoResult, t: GoldenAmoTiming): number {
  if (r.status !== AMO_OK || r.hit) return t.opCycles;
  return t.opCycles + t.readCycles + 2 + (r.writeBack !== null ? 1 : 0);
}
