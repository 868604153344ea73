import { Channel, Component, type Counter, NEVER, Pipeline, Reg, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';
import { InputError } from '../../kernel/errors.ts';
import { MEM_READ, MEM_WRITE, AmoReq, MemReq } from '../types.ts';
import { amoAlu } from './alu.ts';
import { type AmoReplacement, AtomicCache } from './cache.ts';
import { AMO_ERR_ALIGN, AMO_ERR_OP, AMO_ERR_RANGE, AMO_ERR_SIZE, AMO_NAMES, AMO_OK } from './ops.ts';

export type AmoWritePolicy = 'write-back' | 'write-through';

/** AMO unit parameters (defaults in AMO_DEFAULTS). */
export interface AmoUnitConfig {
  /** request ports, each with its own request and response channel, round-robin arbitrated (default 1) */
  ports: number;
  /** words in the atomic cache (default 64) */
  cacheLines: number;
  /** ways per set (default 8; cacheLines for fully associative) */
  cacheWays: number;
  /** victim choice: 'lru' (default) or 'fifo' */
  replacement: AmoReplacement;
  /** 'write-back' (default: a word reaches host memory on eviction) or 'write-through' (every update is also written to memory) */
  writePolicy: AmoWritePolicy;
  /** cycles from accepting a request that hits to its response being visible (default 4, >= 2) */
  opCycles: number;
  /** bytes of the node memory behind the unit (requests beyond are rejected; default 1 MiB) */
  memBytes: number;
  /** response channel capacity per port (default 4) */
  respCapacity: number;
}

export const AMO_DEFAULTS: AmoUnitConfig = {
  ports: 1,
  cacheLines: 64,
  cacheWays: 8,
  replacement: 'lru',
  writePolicy: 'write-back',
  opCycles: 4,
  memBytes: 1 << 20,
  respCapacity: 4,
};

/** Validated configuration; InputError names the bad field. */
export function amoUnitConfig(p: Partial<AmoUnitConfig> = {}): AmoUnitConfig {
  const c = { ...AMO_DEFAULTS, ...p };
  const int = (k: keyof AmoUnitConfig, lo: number, hi: number): void => {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < lo || v > hi) throw new InputError(`AMO unit config: ${k} must be an integer in [${lo}, ${hi}], got ${String(v)}`);
  };
  int('ports', 1, 1024);
  int('cacheLines', 1, 1 << 20);
  int('cacheWays', 1, c.cacheLines);
  int('opCycles', 2, 1000);
  int('memBytes', 8, 2 ** 40);
  int('respCapacity', 2, 1 << 16);
  if (c.cacheLines % c.cacheWays !== 0) throw new InputError(`AMO unit config: cacheWays (${c.cacheWays}) must divide cacheLines (${c.cacheLines})`);
  if (c.memBytes % 8 !== 0) throw new InputError(`AMO unit config: memBytes (${c.memBytes}) must be a multiple of 8`);
  if (c.replacement !== 'lru' && c.replacement !== 'fifo') throw new InputError(`AMO unit config: replacement must be lru or fifo, got ${JSON.stringify(c.replacement)}`);
  if (c.writePolicy !== 'write-back' && c.writePolicy !== 'write-through') throw new InputError(`AMO unit config: writePolicy must be write-back or write-through, got ${JSON.stringify(c.writePolicy)}`);
  return c;
}

/** Controller states (the `state` register). */
export const AMO_IDLE = 0;
/** a miss was accepted: push the dirty victim's write-back (if any), then the fill read */
export const AMO_ISSUE = 1;
/** the fill read is in flight */
export const AMO_WAIT = 2;
export const AMO_STATE_NAMES = ['IDLE', 'ISSUE', 'WAIT'] as const;

/**
 * The Gemini AMO unit (seed 004): 64-bit atomic memory operations on one node's memory, executed
 * in the NIC against a small atomic cache, one operation at a time in acceptance order (which is
 * what makes every word linearizable). Per cycle, in this order:
 *
 * 1. Output: the response at the end of the response pipeline is pushed to its port's response
 *    channel; if that channel is full the pipeline stalls and nothing is accepted this cycle.
 * 2. Memory port (state ISSUE): push the dirty victim's write-back, or else the fill read
 *    (one memory push per cycle); after the read, state WAIT.
 * 3. Fill (state WAIT, a read response visible): install the word, execute the held operation
 *    (write-through: also push its write), enter the response pipeline; state IDLE.
 * 4. Accept (state IDLE): the round-robin arbiter grants one port with a visible request. A bad
 *    request (size other than 8, address not a multiple of 8, outside memory, unknown operation)
 *    is answered with its error code and changes nothing. A hit executes now (read-modify-write of
 *    the cache line in this cycle: a request accepted next cycle sees the new value) and its
 *    response is visible opCycles later. A miss picks its victim and goes to ISSUE.
 *
 * Write-through needs the memory port free in the cycle an operation executes; otherwise the
 * accept (or the fill) waits a cycle. Misses are blocking: while a fill is outstanding no other
 * request is accepted (the hardware's simplest ordering rule; see docs/gemini.md).
 */
export class AmoUnit extends Component {
  readonly cfg: AmoUnitConfig;
  readonly req: Channel<AmoReq>[];
  readonly resp: Channel<AmoReq>[];
  /** to host memory (producer: this) */
  readonly memReq: Channel<MemReq>;
  /** from host memory (consumer: this) */
  readonly memResp: Channel<MemReq>;
  readonly cache: AtomicCache;
  readonly state: Reg;
  /** route of this unit's reads on the host-to-NIC direction */
  memRoute = 0;

  private readonly arb: RoundRobinArbiter;
  private readonly pipe: Pipeline<AmoReq>;
  private readonly wt: boolean;
  private readonly alu = new Uint32Array(2);
  private held: AmoReq | null = null;
  private heldLine = -1;
  private wbPending = false;
  private readonly reqVisible: (i: number) => boolean;
  readonly stats: { ops: Counter; hits: Counter; misses: Counter; errors: Counter; writebacks: Counter; memWrites: Counter; outputStalls: Counter };

  /** `mem`: existing channels to host memory to bind to (else the unit makes its own, for a link to bind) */
  constructor(parent: Scope, name: string, cfg: Partial<AmoUnitConfig> = {}, mem?: { req: Channel<MemReq>; resp: Channel<MemReq> }) {
    super(parent, name);
    const c = amoUnitConfig(cfg);
    this.cfg = c;
    this.wt = c.writePolicy === 'write-through';
    this.req = [];
    this.resp = [];
    for (let p = 0; p < c.ports; p++) {
      this.req.push(new Channel<AmoReq>(this, `req${p}`, { capacity: 2, latency: 1 }).bindConsumer(this));
      this.resp.push(new Channel<AmoReq>(this, `resp${p}`, { capacity: c.respCapacity, latency: 1 }).bindProducer(this));
    }
    this.memReq = (mem?.req ?? new Channel<MemReq>(this, 'mem_req', { capacity: 4, latency: 1 })).bindProducer(this);
    this.memResp = (mem?.resp ?? new Channel<MemReq>(this, 'mem_resp', { capacity: 2, latency: 1 })).bindConsumer(this);
    this.cache = new AtomicCache(c.cacheLines, c.cacheWays, c.replacement);
    this.state = new Reg(this, 'state', 2, AMO_IDLE);
    this.arb = new RoundRobinArbiter(this, 'arb', c.ports);
    this.pipe = new Pipeline<AmoReq>(this, 'resp_pipe', c.opCycles - 1);
    const req = this.req;
    this.reqVisible = (i: number): boolean => req[i]!.canPop();
    this.stats = {
      ops: this.counter('ops'),
      hits: this.counter('hits'),
      misses: this.counter('misses'),
      errors: this.counter('bad_requests'),
      writebacks: this.counter('writebacks'),
      memWrites: this.counter('mem_writes'),
      outputStalls: this.counter('output_stall_cycles'),
    };
  }

  override reset(): void {
    this.cache.reset();
    this.held = null;
    this.heldLine = -1;
    this.wbPending = false;
  }

  /** Requests accepted and not yet answered. */
  get inFlight(): number {
    return this.pipe.occupancy() + (this.held !== null ? 1 : 0);
  }

  /**
   * Backdoor, outside a cycle (the driver's cache flush): write every dirty word to `write(word
   * address, hi, lo)` and mark it clean. Returns the number of words written.
   */
  writeBackAll(write: (addr: number, hi: number, lo: number) => void): number {
    const k = this.cache;
    let n = 0;
    for (let i = 0; i < k.lines; i++) {
      if (k.valid[i] !== 0 && k.dirty[i] !== 0) {
        write(k.tag[i]! * 8, k.hi[i]!, k.lo[i]!);
        k.dirty[i] = 0;
        n++;
      }
    }
    return n;
  }

  /** The cached value of the word at `addr`, or null (probe for tests and traces). */
  cached(addr: number): { hi: number; lo: number; dirty: boolean } | null {
    const i = this.cache.find(addr / 8);
    return i < 0 ? null : { hi: this.cache.hi[i]!, lo: this.cache.lo[i]!, dirty: this.cache.dirty[i] !== 0 };
  }

  tick(t: number): number {
    // 1. output
    let stalled = false;
    const pipe = this.pipe;
    if (pipe.valid()) {
      const r = pipe.out();
      const ch = this.resp[r.port]!;
      if (ch.canPush()) {
        pipe.take();
        r.doneCycle = t + 1;
        ch.push(r);
      } else {
        pipe.stall();
        stalled = true;
        this.stats.outputStalls.inc();
      }
    }
    const st = this.state.q;
    // 2. memory port: write-back, then fill read
    if (st === AMO_ISSUE && this.memReq.canPush()) {
      const k = this.cache;
      const line = this.heldLine;
      if (this.wbPending) {
        this.pushWrite(k.tag[line]! * 8, k.hi[line]!, k.lo[line]!);
        this.stats.writebacks.inc();
        this.wbPending = false;
      } else {
        const m = new MemReq();
        m.kind = MEM_READ;
        m.addr = this.held!.addr;
        m.bytes = 8;
        m.route = this.memRoute;
        this.memReq.push(m);
        this.state.d = AMO_WAIT;
      }
    }
    // 3. fill
    if (st === AMO_WAIT && !stalled && this.memResp.canPop() && (!this.wt || this.memReq.canPush())) {
      const m = this.memResp.pop();
      const r = this.held!;
      this.cache.install(this.heldLine, r.addr / 8, m.hi >>> 0, m.lo >>> 0);
      this.execute(t, r, this.heldLine);
      this.held = null;
      this.heldLine = -1;
      this.state.d = AMO_IDLE;
    }
    // 4. accept
    if (st === AMO_IDLE && !stalled && (!this.wt || this.memReq.canPush())) {
      const p = this.arb.grant(this.reqVisible);
      if (p >= 0) this.accept(t, this.req[p]!.pop(), p);
    }
    // next wake-up
    if (stalled || this.state.d !== this.state.q) return t + 1;
    const s = this.state.d;
    if (s === AMO_ISSUE) return t + 1;
    if (s === AMO_WAIT && this.memResp.canPop()) return t + 1;
    if (s === AMO_IDLE) for (let p = 0; p < this.req.length; p++) if (this.req[p]!.canPop()) return t + 1;
    const rc = pipe.readyCycle();
    return rc === Infinity ? NEVER : rc;
  }

  private accept(t: number, r: AmoReq, port: number): void {
    r.port = port;
    r.acceptCycle = t;
    const status = this.validate(r);
    if (status !== AMO_OK) {
      r.status = status;
      r.hit = false;
      this.stats.errors.inc();
      this.pipe.push(r);
      return;
    }
    const k = this.cache;
    const word = r.addr / 8;
    const i = k.find(word);
    if (i >= 0) {
      k.touch(i);
      r.hit = true;
      this.stats.hits.inc();
      this.execute(t, r, i);
      return;
    }
    r.hit = false;
    this.stats.misses.inc();
    const v = k.victim(word);
    this.wbPending = k.valid[v] !== 0 && k.dirty[v] !== 0;
    k.valid[v] = 0; // the line is reserved for the fill
    this.held = r;
    this.heldLine = v;
    this.state.d = AMO_ISSUE;
  }

  private validate(r: AmoReq): number {
    if (r.size !== 8) return AMO_ERR_SIZE;
    if (!Number.isInteger(r.addr) || r.addr % 8 !== 0) return AMO_ERR_ALIGN;
    if (r.addr < 0 || r.addr + 8 > this.cfg.memBytes) return AMO_ERR_RANGE;
    if (!Number.isInteger(r.op) || r.op < 0 || r.op >= AMO_NAMES.length) return AMO_ERR_OP;
    return AMO_OK;
  }

  /** Read-modify-write of cache line i; the response enters the pipeline. */
  private execute(_t: number, r: AmoReq, i: number): void {
    const k = this.cache;
    const oh = k.hi[i]!;
    const ol = k.lo[i]!;
    const out = this.alu;
    amoAlu(r.op, oh, ol, r.aHi >>> 0, r.aLo >>> 0, r.bHi >>> 0, r.bLo >>> 0, out);
    r.oldHi = oh;
    r.oldLo = ol;
    r.status = AMO_OK;
    k.hi[i] = out[0]!;
    k.lo[i] = out[1]!;
    if (this.wt) {
      this.pushWrite(r.addr, out[0]!, out[1]!);
      k.dirty[i] = 0;
    } else k.dirty[i] = 1;
    this.stats.ops.inc();
    this.pipe.push(r);
  }

  private pushWrite(addr: number, hi: number, lo: number): void {
    const m = new MemReq();
    m.kind = MEM_WRITE;
    m.addr = addr;
    m.bytes = 8;
    m.hi = hi;
    m.lo = lo;
    this.memReq.push(m);
    this.stats.memWrites.inc();
  }
}
