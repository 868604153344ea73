import { NEVER, type Component, type Scope, type Signal } from './component.ts';
import { Rng } from './rng.ts';
import { StatsRegistry } from './stats.ts';

/** Something with state the simulator returns to its reset value (registers, channels, SRAMs...). */
export interface Resettable {
  reset(): void;
}

/** A unit whose signals a tracer may include: components and channels. */
export interface TraceUnit {
  readonly path: string;
  _traced: boolean;
  readonly _signals: Signal[];
  /** mark as traced (and whatever else must then be visited to keep the trace exact) */
  _markTraced?(): void;
}

/** A trace sink sampled at the end of every visited cycle. */
export interface Tracer {
  /** Called once when attached, with the units it selected. */
  sample(t: number): void;
  /** Called by Simulator.closeTraces with the first cycle not simulated. */
  close(endCycle: number): void;
}

export interface SimulatorOptions {
  /** Clock frequency in Hz (default 1 GHz). Used for cycle/ns/us conversion and the VCD timescale. */
  freqHz?: number;
  /** Activity skipping (default true): idle components are not evaluated and idle time is jumped over. */
  skipping?: boolean;
  /** Test aid: shuffle the evaluation order within every cycle with this seed. Results must not change. */
  shuffleSeed?: number;
}

export class SimulationLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulationLimitError';
  }
}

/**
 * The cycle kernel. All state is two-phase and committed lazily by cycle
 * stamps (a Reg written in cycle t shows the new value from t + 1; a channel
 * push in t is visible to the consumer from t + latency), so there is no
 * commit loop: a cycle is just the evaluation of the components that are awake.
 */
export class Simulator implements Scope {
  readonly path = '';
  readonly sim: Simulator = this;
  readonly freqHz: number;
  readonly skipping: boolean;
  readonly stats = new StatsRegistry();

  /** The current cycle while evaluating; the next cycle to evaluate between steps. */
  cycle = 0;
  /** Number of (component, cycle) evaluations performed (diagnostics; differs with skipping). */
  evaluations = 0;

  private readonly comps: Component[] = [];
  private readonly units: TraceUnit[] = [];
  private readonly state: Resettable[] = [];
  private readonly tracers: Tracer[] = [];
  private readonly shuffle: Rng | null;

  // Components are grouped by class. Each group is evaluated by its own generated loop, so the
  // tick() call site in that loop sees one class only and V8 inlines tick and the channel methods
  // it calls; a single shared loop over all classes would be megamorphic and several times slower.
  private readonly groups: Group[] = [];
  /** Components queued in the groups' `next` lists (for cycle `base`). */
  private woken = 0;
  /** Cycle a wake must name to join the `next` lists (cycle + 1 while evaluating, cycle between steps). */
  private base = 0;
  private heapT = new Float64Array(256);
  private heapC = new Int32Array(256);
  private heapN = 0;
  private evaluating = false;
  private traceTouched = false;

  constructor(opts: SimulatorOptions = {}) {
    const f = opts.freqHz ?? 1e9;
    if (!(f > 0) || !Number.isFinite(f)) throw new RangeError(`freqHz must be a positive finite number, got ${f}`);
    this.freqHz = f;
    this.skipping = opts.skipping ?? true;
    this.shuffle = opts.shuffleSeed === undefined ? null : new Rng(opts.shuffleSeed);
  }

  /** Clock period in nanoseconds. */
  get periodNs(): number {
    return 1e9 / this.freqHz;
  }
  cyclesToNs(cycles: number): number {
    return (cycles * 1e9) / this.freqHz;
  }
  cyclesToUs(cycles: number): number {
    return (cycles * 1e6) / this.freqHz;
  }
  nsToCycles(ns: number): number {
    return (ns * this.freqHz) / 1e9;
  }

  /** @internal called by the Component constructor */
  _register(c: Component): void {
    if (this.evaluating) throw new Error(`cannot add component ${c.path} during a cycle`);
    if (this.comps.some((x) => x.path === c.path)) throw new Error(`duplicate component path ${c.path}`);
    c._id = this.comps.length;
    this.comps.push(c);
    this.units.push(c);
    const ctor = c.constructor;
    let g = this.groups.find((x) => x.ctor === ctor);
    if (!g) {
      g = makeGroup(ctor);
      this.groups.push(g);
    }
    g.members.push(c);
    g.cur.push(c);
    g.next.push(c);
    c._grp = g;
    // A new component is evaluated once at the next cycle so it can start work.
    this.wakeAt(c, this.evaluating ? this.cycle + 1 : this.cycle);
  }

  /** @internal registers a traceable unit that is not a component (a channel). */
  _registerUnit(u: TraceUnit): void {
    if (this.units.some((x) => x.path === u.path)) throw new Error(`duplicate path ${u.path}`);
    this.units.push(u);
  }

  /** @internal registers a state element reset by reset(). */
  _registerState(s: Resettable): void {
    this.state.push(s);
  }

  get components(): readonly Component[] {
    return this.comps;
  }
  get traceUnits(): readonly TraceUnit[] {
    return this.units;
  }
  find(path: string): Component | undefined {
    return this.comps.find((c) => c.path === path);
  }

  /** Synchronous reset: cycle 0, every register/channel/SRAM/statistic to its reset value, every component runs at cycle 0. */
  reset(): void {
    if (this.evaluating) throw new Error('reset during a cycle');
    this.cycle = 0;
    this.base = 0;
    this.evaluations = 0;
    for (const s of this.state) s.reset();
    for (const c of this.comps) c.reset();
    this.stats.reset();
    this.heapN = 0;
    this.woken = 0;
    for (const g of this.groups) g.nextN = 0;
    for (const c of this.comps) {
      c._stamp = -1;
      this.wakeAt(c, 0);
    }
  }

  /**
   * Schedule component c at cycle `when`. While a cycle t is evaluated, `when`
   * must be > t; between steps it must be >= the next cycle.
   */
  wakeAt(c: Component, when: number): void {
    if (!this.skipping) return;
    const base = this.base;
    if (when === base) {
      if (c._stamp !== base) {
        c._stamp = base;
        const g = c._grp;
        g.next[g.nextN++] = c;
        this.woken++;
      }
    } else if (when > base) {
      if (when !== NEVER) this.heapPush(when, c._id);
    } else {
      throw new Error(`${c.path}: wake-up at cycle ${when} is in the past (earliest is ${base})`);
    }
  }

  /** @internal used by the generated group loops for a tick() that returned a cycle after t + 1 */
  _later(c: Component, w: number, t: number): void {
    if (!(w > t)) throw new Error(`${c.path}.tick(${t}) returned ${w}; must be > ${t} or NEVER`);
    this.heapPush(w, c._id);
  }

  /** @internal used by the generated group loops */
  _queued(): void {
    this.woken++;
  }

  /** @internal a traced channel or register was touched this cycle: visit the next cycle for sampling. */
  _touch(): void {
    this.traceTouched = true;
  }

  /** Attach a tracer; it is sampled at the end of every visited cycle until closeTraces(). */
  addTracer(t: Tracer): void {
    this.tracers.push(t);
  }

  /** Close every tracer (flushes files). */
  closeTraces(): void {
    for (const t of this.tracers) t.close(this.cycle);
    this.tracers.length = 0;
    for (const u of this.units) u._traced = false;
  }

  /** Run n cycles. */
  step(n = 1): void {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`step: cycle count must be a non-negative integer, got ${n}`);
    this.runTo(this.cycle + n, null);
  }

  /**
   * Run until predicate() is true (checked before every visited cycle and at
   * the end) or throw SimulationLimitError after maxCycles. Returns the cycle
   * at which the predicate held.
   */
  runUntil(predicate: () => boolean, maxCycles: number): number {
    if (!(maxCycles >= 0)) throw new RangeError(`runUntil: maxCycles must be >= 0, got ${maxCycles}`);
    const start = this.cycle;
    const end = start + maxCycles;
    if (predicate()) return this.cycle;
    const hit = this.runTo(end, predicate);
    if (hit) return this.cycle;
    const idle = this.skipping && this.woken === 0 && this.heapN === 0;
    throw new SimulationLimitError(
      `runUntil: condition not met within ${maxCycles} cycles (cycles ${start} to ${end})` +
        (idle ? '; every component is idle with no wake-up pending (deadlock or missing stimulus)' : ''),
    );
  }

  /** Evaluate cycles [cycle, end). Returns true if the predicate became true (cycle then points at the cycle before which it held). */
  private runTo(end: number, predicate: (() => boolean) | null): boolean {
    if (this.evaluating) throw new Error('step/runUntil called from inside a cycle');
    const tracing = this.tracers.length > 0;
    const groups = this.groups;
    while (this.cycle < end) {
      const t = this.cycle;
      if (this.skipping) {
        // Move heap entries due now into the groups' lists.
        while (this.heapN > 0 && this.heapT[0]! <= t) {
          const c = this.comps[this.heapC[0]!]!;
          this.heapPop();
          if (c._stamp !== t) {
            c._stamp = t;
            const g = c._grp;
            g.next[g.nextN++] = c;
            this.woken++;
          }
        }
        if (this.woken === 0 && !this.traceTouched) {
          // Everyone idle: jump to the next wake-up (or the end).
          const next = this.heapN > 0 ? this.heapT[0]! : end;
          this.cycle = next < end ? next : end;
          this.base = this.cycle;
          continue;
        }
        this.traceTouched = false;
        this.evaluations += this.woken;
        this.woken = 0;
        // The lists filled for cycle t become the current lists; new wakes go to fresh ones for t + 1.
        for (let k = 0; k < groups.length; k++) {
          const g = groups[k]!;
          const cur = g.next;
          g.next = g.cur;
          g.cur = cur;
          g.curN = g.nextN;
          g.nextN = 0;
        }
        if (this.shuffle !== null) this.shuffleGroups(true);
        this.evaluating = true;
        this.base = t + 1;
        try {
          for (let k = 0; k < groups.length; k++) {
            const g = groups[k]!;
            if (g.curN > 0) g.run(g, g.curN, t, this);
          }
        } finally {
          this.evaluating = false;
        }
      } else {
        if (this.shuffle !== null) this.shuffleGroups(false);
        this.evaluating = true;
        this.base = t + 1;
        try {
          for (let k = 0; k < groups.length; k++) {
            const g = groups[k]!;
            g.runAll(g.members, g.members.length, t);
          }
          this.evaluations += this.comps.length;
        } finally {
          this.evaluating = false;
        }
      }
      if (tracing) for (const tr of this.tracers) tr.sample(t);
      this.cycle = t + 1;
      this.base = this.cycle;
      if (predicate !== null && predicate()) return true;
    }
    return false;
  }

  private shuffleGroups(active: boolean): void {
    const rng = this.shuffle!;
    shuffleList(this.groups, this.groups.length, rng);
    for (const g of this.groups) {
      if (active) shuffleList(g.cur, g.curN, rng);
      else shuffleList(g.members, g.members.length, rng);
    }
  }

  private heapPush(time: number, id: number): void {
    if (this.heapN === this.heapT.length) {
      const t2 = new Float64Array(this.heapN * 2);
      t2.set(this.heapT);
      this.heapT = t2;
      const c2 = new Int32Array(this.heapN * 2);
      c2.set(this.heapC);
      this.heapC = c2;
    }
    const ht = this.heapT;
    const hc = this.heapC;
    let i = this.heapN++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = ht[p]!;
      if (pt < time || (pt === time && hc[p]! <= id)) break;
      ht[i] = pt;
      hc[i] = hc[p]!;
      i = p;
    }
    ht[i] = time;
    hc[i] = id;
  }

  private heapPop(): void {
    const ht = this.heapT;
    const hc = this.heapC;
    const n = --this.heapN;
    if (n === 0) return;
    const time = ht[n]!;
    const id = hc[n]!;
    let i = 0;
    for (;;) {
      let l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      if (r < n && (ht[r]! < ht[l]! || (ht[r] === ht[l] && hc[r]! < hc[l]!))) l = r;
      if (ht[l]! > time || (ht[l] === time && hc[l]! >= id)) break;
      ht[i] = ht[l]!;
      hc[i] = hc[l]!;
      i = l;
    }
    ht[i] = time;
    hc[i] = id;
  }
}

function shuffleList<T>(items: T[], n: number, rng: Rng): void {
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
}

/** @internal components of one class and the generated loops that evaluate them */
export interface Group {
  readonly ctor: unknown;
  readonly members: Component[];
  cur: Component[];
  curN: number;
  next: Component[];
  nextN: number;
  /** evaluates cur[0..n) in skipping mode and queues components that asked for t + 1 */
  readonly run: (g: Group, n: number, t: number, sim: Simulator) => void;
  /** evaluates every member (no skipping) */
  readonly runAll: (members: Component[], n: number, t: number) => void;
}

// The two loops below are compiled once per component class (new Function gives each its own
// feedback, so each tick() call site is monomorphic). They contain no user input.
const RUN_SKIPPING = `
  const cur = g.cur;
  const t1 = t + 1;
  for (let i = 0; i < n; i++) {
    const c = cur[i];
    const w = c.tick(t);
    if (w === t1) {
      if (c._stamp !== t1) {
        c._stamp = t1;
        g.next[g.nextN++] = c;
        sim._queued();
      }
    } else if (w !== Infinity) sim._later(c, w, t);
    if (c._traced) sim._touch();
  }`;
const RUN_ALL = `for (let i = 0; i < n; i++) members[i].tick(t);`;

function makeGroup(ctor: unknown): Group {
  return {
    ctor,
    members: [],
    cur: [],
    curN: 0,
    next: [],
    nextN: 0,
    run: new Function('g', 'n', 't', 'sim', RUN_SKIPPING) as Group['run'],
    runAll: new Function('members', 'n', 't', RUN_ALL) as Group['runAll'],
  };
}
