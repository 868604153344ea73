/**
 * Trace-driven ATC runs (the `atc sweep` command and the benchmark): a driver component issues the
 * trace's lookups, at most one per cycle and at most `window` outstanding (a requester with that
 * many tags), and takes every response.
 */
import { Component, NEVER, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { Atc, ATC_ERROR, AtcReq, type AtcConfig, buildAtcWithHost } from '../../rtl/nic/atc/index.ts';
import type { HostMemConfig } from '../../rtl/nic/hostmem/index.ts';
import { runUntilReporting } from '../run-reporting.ts';

export class AtcTraceDriver extends Component {
  private readonly pool: AtcReq[];
  private readonly free: Int32Array;
  private nFree: number;
  private next = 0;
  completed = 0;
  errors = 0;
  /** responses whose tag was not outstanding (would be a duplicate or a corrupted tag) */
  unexpected = 0;
  private readonly outstanding: Uint8Array;
  /** an array trace is replayed from its start, wrapping (and restarts on reset); a sampler is endless */
  private readonly trace: Float64Array | null = null;
  private readonly sampler: (() => number) | null = null;
  private pos = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly atc: Atc,
    trace: Float64Array | (() => number),
    private total: number,
    readonly window: number,
  ) {
    super(parent, name);
    if (typeof trace === 'function') this.sampler = trace;
    else {
      if (trace.length === 0) throw new RangeError('driver trace is empty');
      this.trace = trace;
    }
    if (!Number.isInteger(window) || window < 1) throw new RangeError(`driver window must be a positive integer, got ${window}`);
    atc.req.bindProducer(this);
    atc.resp.bindConsumer(this);
    this.pool = Array.from({ length: window }, (_, i) => {
      const r = new AtcReq();
      r.tag = i;
      return r;
    });
    this.free = new Int32Array(window);
    this.outstanding = new Uint8Array(window);
    for (let i = 0; i < window; i++) this.free[i] = window - 1 - i;
    this.nFree = window;
  }

  get done(): boolean {
    return this.completed >= this.total;
  }

  /** Continue with `more` requests taken from the trace; for repeated benchmark chunks. */
  extend(more: number): void {
    this.total += more;
    this.wake(this.sim.cycle);
  }

  override reset(): void {
    this.next = 0;
    this.pos = 0;
    this.completed = 0;
    this.errors = 0;
    this.unexpected = 0;
    this.outstanding.fill(0);
    for (let i = 0; i < this.window; i++) this.free[i] = this.window - 1 - i;
    this.nFree = this.window;
  }

  tick(t: number): number {
    const resp = this.atc.resp;
    while (resp.canPop()) {
      const r = resp.pop();
      const tag = r.tag;
      if (this.outstanding[tag] !== 1) this.unexpected++;
      this.outstanding[tag] = 0;
      if (r.status === ATC_ERROR) this.errors++;
      this.free[this.nFree++] = tag;
      this.completed++;
    }
    const req = this.atc.req;
    if (this.next < this.total && this.nFree > 0 && req.canPush()) {
      const tag = this.free[--this.nFree]!;
      const r = this.pool[tag]!;
      if (this.trace !== null) {
        r.va = this.trace[this.pos]!;
        this.pos = this.pos + 1 === this.trace.length ? 0 : this.pos + 1;
      } else r.va = this.sampler!();
      r.physical = false;
      r.status = -1;
      this.outstanding[tag] = 1;
      req.push(r);
      this.next++;
    }
    if (this.next < this.total && this.nFree > 0 && req.canPush()) return t + 1;
    return NEVER;
  }
}

export interface AtcRunOptions {
  atc: Partial<AtcConfig>;
  host: Partial<HostMemConfig>;
  trace: Float64Array | (() => number);
  requests: number;
  window: number;
  skipping?: boolean;
  /** progress of long runs: called between chunks of simulated cycles and at the end with the requests completed */
  onProgress?: (completed: number) => void;
}

export interface AtcRunResult {
  ways: number;
  sets: number;
  entries: number;
  replacement: string;
  requests: number;
  hit_rate: number;
  avg_latency_cycles: number;
  p99_latency_cycles: number;
  mshr_stall_cycles: number;
  hits: number;
  misses: number;
  merged_misses: number;
  evictions: number;
  cycles: number;
}

export interface AtcBench {
  sim: Simulator;
  atc: Atc;
  driver: AtcTraceDriver;
}

export function buildAtcBench(o: AtcRunOptions): AtcBench {
  const sim = new Simulator({ skipping: o.skipping ?? true });
  const { atc } = buildAtcWithHost(sim, o.atc, o.host);
  const driver = new AtcTraceDriver(sim, 'driver', atc, o.trace, o.requests, o.window);
  return { sim, atc, driver };
}

/** Run the whole trace and summarise. */
export function runAtcTrace(o: AtcRunOptions): AtcRunResult {
  const { sim, atc, driver } = buildAtcBench(o);
  const report = o.onProgress;
  runUntilReporting(sim, () => driver.done, 1e12, report && (() => report(driver.completed)));
  report?.(driver.completed);
  if (driver.unexpected !== 0) throw new Error(`ATC returned ${driver.unexpected} responses that were not outstanding`);
  const s = atc.stats;
  return {
    ways: atc.cfg.ways,
    sets: atc.sets,
    entries: atc.cfg.entries,
    replacement: atc.cfg.replacement,
    requests: o.requests,
    hit_rate: atc.hitRate(),
    avg_latency_cycles: s.latency.mean(),
    p99_latency_cycles: s.latency.percentile(0.99),
    mshr_stall_cycles: atc.mshrStallCycles,
    hits: s.hits.value,
    misses: s.misses.value,
    merged_misses: s.merged.value,
    evictions: s.evictions.value,
    cycles: sim.cycle,
  };
}
