import { Channel, Component, type Counter, NEVER, Pipeline, type Scope } from '../kernel/index.ts';
import { type Completion, MEM_NOTIFY, MEM_READ, MEM_STATUS, type MemReq } from './types.ts';

/** Host memory parameters. */
export interface HostMemoryConfig {
  /** bytes of memory (default 1 MiB; the model keeps 64-bit words for AMO traffic) */
  bytes: number;
  /** cycles from taking a read to its response being pushed (DRAM + northbridge; default 80) */
  readCycles: number;
  /**
   * data bytes per cycle the host end moves in total, reads and writes together (default Infinity:
   * one transaction a cycle whatever its size). A transaction of b data bytes holds the port for
   * b / bytesPerCycle cycles (fractional, like a Lane: exact over many transactions).
   */
  bytesPerCycle: number;
}

export const HOST_MEMORY_DEFAULTS: HostMemoryConfig = { bytes: 1 << 20, readCycles: 80, bytesPerCycle: Infinity };

/**
 * One node's memory as the NIC sees it through HyperTransport: takes at most one transaction per
 * cycle from `req` in order, and no more data than `bytesPerCycle` allows (reads and writes share
 * that budget: the host end of the link, see docs/gemini.md); a posted write updates the word (8-byte writes) at once; a read is answered
 * on `resp` readCycles later, in order (a read sees every write taken before it); a write with
 * `ack` is acknowledged the same way; a completion write (MEM_NOTIFY) writes its completion word
 * and completes its owner in the cycle it is taken; the FMA's status answer (MEM_STATUS) completes
 * its owner (the CPU's read) and writes nothing. Every transaction names its own address: a word
 * transaction whose address is not an aligned word inside the memory is an error of the block that
 * made it (thrown, never written elsewhere). The host CPU's
 * own loads and stores (`load64`, `store64`) go straight to these words: they do not pass the
 * NIC, so the AMO unit's cache never sees them (the non-coherence the seed describes).
 */
export class HostMemory extends Component {
  readonly cfg: HostMemoryConfig;
  readonly req: Channel<MemReq>;
  readonly resp: Channel<MemReq>;
  readonly words: Uint32Array;
  private readonly pipe: Pipeline<MemReq>;
  /** first cycle (fractional) the port is free again: the shared read/write data path */
  private freeAt = 0;
  readonly stats: { reads: Counter; writes: Counter; readBytes: Counter; writeBytes: Counter };

  constructor(parent: Scope, name: string, cfg: Partial<HostMemoryConfig> = {}) {
    super(parent, name);
    const c = { ...HOST_MEMORY_DEFAULTS, ...cfg };
    if (!Number.isInteger(c.readCycles) || c.readCycles < 2) throw new RangeError(`${this.path}: readCycles must be an integer >= 2, got ${c.readCycles}`);
    if (!Number.isInteger(c.bytes) || c.bytes < 8 || c.bytes % 8 !== 0) throw new RangeError(`${this.path}: bytes must be a positive multiple of 8, got ${c.bytes}`);
    if (!(c.bytesPerCycle > 0)) throw new RangeError(`${this.path}: bytesPerCycle must be > 0, got ${c.bytesPerCycle}`);
    this.cfg = c;
    this.req = new Channel<MemReq>(this, 'req', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.resp = new Channel<MemReq>(this, 'resp', { capacity: 4, latency: 1 }).bindProducer(this);
    this.words = new Uint32Array(c.bytes / 4);
    this.pipe = new Pipeline<MemReq>(this, 'read_pipe', c.readCycles - 1);
    this.stats = { reads: this.counter('reads'), writes: this.counter('writes'), readBytes: this.counter('read_bytes'), writeBytes: this.counter('write_bytes') };
  }

  override reset(): void {
    this.freeAt = 0;
  }

  /** Host CPU load of the 64-bit word at a byte address (little-endian halves). */
  load64(addr: number): { hi: number; lo: number } {
    const i = this.wordIndex(addr);
    return { hi: this.words[i + 1]!, lo: this.words[i]! };
  }

  /** Host CPU store of a 64-bit word. */
  store64(addr: number, hi: number, lo: number): void {
    const i = this.wordIndex(addr);
    this.words[i] = lo >>> 0;
    this.words[i + 1] = hi >>> 0;
  }

  private wordIndex(addr: number): number {
    if (!Number.isInteger(addr) || addr % 8 !== 0 || addr < 0 || addr + 8 > this.cfg.bytes) throw new RangeError(`${this.path}: word address ${addr} is not an aligned address inside ${this.cfg.bytes} bytes`);
    return addr / 4;
  }

  tick(t: number): number {
    const pipe = this.pipe;
    let stalled = false;
    if (pipe.valid()) {
      if (this.resp.canPush()) this.resp.push(pipe.take());
      else {
        pipe.stall();
        stalled = true;
      }
    }
    const free = t >= this.freeAt;
    if (!stalled && free && this.req.canPop()) {
      const m = this.req.pop();
      this.freeAt = Math.max(t, this.freeAt) + Math.max(1, m.bytes / this.cfg.bytesPerCycle);
      const word = m.bytes === 8 && m.kind !== MEM_STATUS;
      if (word) this.wordIndex(m.addr);
      else if (m.kind !== MEM_STATUS && (!Number.isInteger(m.addr) || m.addr < 0 || m.addr + m.bytes > this.cfg.bytes)) throw new RangeError(`${this.path}: ${m.bytes}-byte transaction at address ${m.addr} is outside ${this.cfg.bytes} bytes`);
      if (m.kind === MEM_STATUS) {
        if (m.owner !== null) (m.owner as Completion).doneCycle = t;
      } else if (m.kind === MEM_READ) {
        if (word) {
          m.lo = this.words[m.addr / 4]!;
          m.hi = this.words[m.addr / 4 + 1]!;
        }
        m.resp = true;
        pipe.push(m);
        this.stats.reads.inc();
        this.stats.readBytes.inc(m.bytes);
      } else {
        if (m.kind === MEM_NOTIFY && m.owner !== null) (m.owner as Completion).doneCycle = t;
        if (m.ack) {
          m.resp = true;
          pipe.push(m);
        }
        if (word) {
          this.words[m.addr / 4] = m.lo >>> 0;
          this.words[m.addr / 4 + 1] = m.hi >>> 0;
        }
        this.stats.writes.inc();
        this.stats.writeBytes.inc(m.bytes);
      }
    }
    if (stalled || (this.req.canPop() && t + 1 >= this.freeAt)) return t + 1;
    const r = Math.min(pipe.readyCycle(), this.req.canPop() ? Math.ceil(this.freeAt) : Infinity);
    return r === Infinity ? NEVER : r;
  }
}
