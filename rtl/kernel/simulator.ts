import { childPath, isComponent, NEVER, withQueueName, type Component, type Scope, type Signal } from './component.ts';
import { Rng } from './rng.ts';
import { StatsRegistry } from './stats.ts';
import { SlabSpace } from './slab.ts';

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
  // Fields the hot paths read come first (V8 lays fields out in the order they are created), and
  // every field starts with a value of its final type: channel and FIFO operations read `cycle`.
  /** The current cycle while evaluating; the next cycle to evaluate between steps (read-only). */
  cycle = 0;
  /** Cycle a wake must name to join the run lists (cycle + 1 while evaluating, cycle between steps). */
  private base = 0;
  private evaluating = false;
  private heapT = new Float64Array(256);
  private heapC = new Int32Array(256);
  private heapN = 0;
  private traceTouched = false;
  /** Number of (component, cycle) evaluations performed (diagnostics; differs with skipping). */
  evaluations = 0;
  readonly skipping: boolean = true;
  readonly freqHz: number = 1e9;
  readonly path = '';
  readonly sim: Simulator = this;
  readonly stats = new StatsRegistry();

  private readonly comps: Component[] = [];
  private readonly units: TraceUnit[] = [];
  /**
   * Every path must be unique. Each scope keeps the names used in it (components, channels, FIFOs):
   * a component in its `names`, the simulator in `topNames`, so that checking costs no path string
   * per unit. A plain scope object (`{ sim, path }`) stands for the component at its path, if there
   * is one when it is used (found through `byPath`, built on first use); the units of a plain scope
   * naming no component are kept by their whole path in `loosePaths`.
   */
  private readonly topNames = new Set<string>();
  private byPath: Map<string, Component> | null = null;
  private readonly loosePaths = new Set<string>();
  private readonly state: Resettable[] = [];
  private readonly tracers: Tracer[] = [];
  private readonly shuffle: Rng | null = null;
  private readonly space: SlabSpace;

  // Components are grouped by class. Each group is evaluated by its own generated loop, so the
  // tick() call site in that loop sees one class only and V8 inlines tick and the channel methods
  // it calls; a single shared loop over all classes would be megamorphic and several times slower.
  private readonly groups: Group[] = [];

  constructor(opts: SimulatorOptions = {}) {
    const f = opts.freqHz ?? 1e9;
    if (!(f > 0) || !Number.isFinite(f)) throw new RangeError(`freqHz must be a positive finite number, got ${f}`);
    this.freqHz = f;
    this.skipping = opts.skipping ?? true;
    this.shuffle = opts.shuffleSeed === undefined ? null : new Rng(opts.shuffleSeed);
    this.space = new SlabSpace(this, 'a simulator');
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
  _register(c: Component, parent: Scope, name: string): void {
    if (this.evaluating) throw new Error(`cannot add component ${c.path} during a cycle`);
    this.claim(parent, name, 'duplicate component path');
    if (this.byPath !== null) this.byPath.set(c.path, c);
    c._id = this.comps.length;
    this.comps.push(c);
    this.units.push(c);
    const ctor = c.constructor;
    let g = this.groups.find((x) => x.ctor === ctor);
    if (!g) {
      g = makeGroup(ctor);
      this.groups.push(g);
    }
    growGroup(g, c);
    c._grp = g;
    // A new component is evaluated once at the next cycle so it can start work.
    this.wakeAt(c, this.cycle);
  }

  /**
   * @internal registers a traceable unit that is not a component (a channel or FIFO) named `name`
   * in scope `parent` (its path is `parent.path` + '.' + `name`).
   */
  _registerUnit(u: TraceUnit, parent: Scope, name: string): void {
    this.claim(parent, name, 'duplicate path');
    this.units.push(u);
  }

  /** Records `name` as used in scope `parent`; throws `<what> <path>` if it is used there already. */
  private claim(parent: Scope, name: string, what: string): void {
    if (parent === this) {
      // one hash operation: a name already there leaves the size unchanged
      const top = this.topNames;
      const n = top.size;
      top.add(name);
      if (top.size === n || this.loosePaths.has(name)) throw new Error(`${what} ${name}`);
      return;
    }
    let owner: Component | undefined;
    if (isComponent(parent)) owner = parent;
    else {
      if (this.byPath === null) {
        this.byPath = new Map();
        for (const c of this.comps) this.byPath.set(c.path, c);
      }
      owner = this.byPath.get(parent.path);
    }
    if (owner === undefined) {
      const p = childPath(parent, name);
      if (this.loosePaths.has(p) || this.byPath!.has(p)) throw new Error(`${what} ${p}`);
      this.loosePaths.add(p);
      return;
    }
    const names = withQueueName(owner._info.names, name);
    if (names === null || (this.loosePaths.size > 0 && this.loosePaths.has(childPath(parent, name)))) throw new Error(`${what} ${childPath(parent, name)}`);
    owner._info.names = names;
  }

  /** @internal this simulator's share of the slot slab (channels and FIFOs allocate their slots there) */
  _slab(): SlabSpace {
    return this.space;
  }

  /** Set the cycle counter and its copies in the slab (the queues read "now" there). */
  private setCycle(c: number): void {
    this.cycle = c;
    this.space.setClock(c);
  }

  /** @internal registers a state element reset by reset(). */
  _registerState(s: Resettable): void {
    this.state.push(s);
  }

  get components(): readonly Component[] {
    return this.comps;
  }
  /** Every traceable unit; a batch (batch.ts) stands for the units of its channels and FIFOs, made on demand. */
  get traceUnits(): readonly TraceUnit[] {
    const out: TraceUnit[] = [];
    for (const u of this.units) {
      const x = (u as { _expandUnits?: () => TraceUnit[] })._expandUnits;
      if (x === undefined) out.push(u);
      else for (const v of x.call(u)) out.push(v);
    }
    return out;
  }

  /** @internal the evaluation-order shuffler (shuffleSeed), or null: batches shuffle their instances with it */
  _shuffleRng(): Rng | null {
    return this.shuffle;
  }
  find(path: string): Component | undefined {
    return this.comps.find((c) => c.path === path);
  }

  /** Synchronous reset: cycle 0, every register/channel/SRAM/statistic to its reset value, every component runs at cycle 0. */
  reset(): void {
    if (this.evaluating) throw new Error('reset during a cycle');
    this.setCycle(0);
    this.base = 0;
    this.evaluations = 0;
    for (const s of this.state) s.reset();
    for (const c of this.comps) c.reset();
    this.stats.reset();
    this.heapN = 0;
    for (const g of this.groups) {
      g.lo = g.hi = 0;
      g.np = 0;
    }
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
      const s = c._stamp;
      if (s === base) return;
      c._stamp = base;
      // queued for the cycle being evaluated and not run yet: it stays in its run list (see Group)
      if (s === base - 1 && this.evaluating) return;
      const g = c._grp;
      g.pend[g.np++] = c;
    } else if (when > base) {
      if (when !== NEVER) this.heapPush(when, c._id);
    } else {
      throw new Error(`${c.path}: wake-up at cycle ${when} is in the past (earliest is ${base})`);
    }
  }

  /**
   * The components of group g that dropped out of its run list in cycle t (their tick returned a
   * later cycle or NEVER; the loop collects them, so it holds no call besides tick and stays small
   * enough for V8 to inline tick and the channel methods into it).
   */
  private dropAll(g: Group, t: number): void {
    const n = g.nd;
    g.nd = 0;
    for (let i = 0; i < n; i++) this.drop(g.drop[i]!, g.dropW[i]!, t);
  }

  /**
   * Component c dropped out in cycle t; its tick returned w. Besides a known wake-up at w, it must
   * run whenever an input entry becomes poppable: entries already in flight (also those pushed in
   * t after c ran) wake it when the first of them arrives (it then drops out again and is scheduled
   * for the next), and each input gets it as subscriber, whom the input's next push wakes. Inputs
   * of a busy component have no subscriber, so a push to a busy consumer costs one null check.
   * Likewise an output that is full as its producer sees it wakes the producer when a slot frees.
   */
  private drop(c: Component, w: number, t: number): void {
    if (w !== NEVER) {
      if (!(w > t)) throw new Error(`${c.path}.tick(${t}) returned ${w}; must be > ${t} or NEVER`);
      this.heapPush(w, c._id);
    }
    for (let ch = c._info.firstIn; ch !== null; ch = ch._nextIn) {
      const r = ch._nextReady(t);
      if (r !== NEVER) this.wakeAt(c, r);
      ch._subscribe(c);
    }
    for (let ch = c._info.firstOut; ch !== null; ch = ch._nextOut) ch._subscribeProducer(c, t);
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
    const idle = this.skipping && !this.anyQueued() && this.heapN === 0;
    throw new SimulationLimitError(
      `runUntil: condition not met within ${maxCycles} cycles (cycles ${start} to ${end})` +
        (idle ? '; every component is idle with no wake-up pending (deadlock or missing stimulus)' : ''),
    );
  }

  private anyQueued(): boolean {
    for (const g of this.groups) if (g.lo !== g.hi || g.np > 0) return true;
    return false;
  }

  /** Evaluate cycles [cycle, end). Returns true if the predicate became true (cycle then points at the cycle before which it held). */
  private runTo(end: number, predicate: (() => boolean) | null): boolean {
    if (this.evaluating) throw new Error('step/runUntil called from inside a cycle');
    const tracing = this.tracers.length > 0;
    const groups = this.groups;
    const ng = groups.length;
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
            g.pend[g.np++] = c;
          }
        }
        // Components woken since the last cycle join the run lists, in front of the ones that stayed busy.
        let queued = 0;
        for (let k = 0; k < ng; k++) {
          const g = groups[k]!;
          const act = g.act;
          const pend = g.pend;
          const mask = g.mask;
          let lo = g.lo;
          // in front of the list: the last woken (initially: the last registered) is evaluated first
          for (let j = 0; j < g.np; j++) {
            lo = (lo - 1) & mask;
            act[lo] = pend[j]!;
          }
          g.np = 0;
          g.lo = lo;
          queued += (g.hi - lo) & mask;
        }
        if (queued === 0 && !this.traceTouched) {
          // Everyone idle: jump to the next wake-up (or the end).
          const next = this.heapN > 0 ? this.heapT[0]! : end;
          this.setCycle(next < end ? next : end);
          this.base = this.cycle;
          continue;
        }
        this.traceTouched = false;
        this.evaluations += queued;
        if (this.shuffle !== null) this.shuffleGroups(true);
        this.evaluating = true;
        this.base = t + 1;
        try {
          // Later-registered groups and components first: designs are usually built from sources
          // to sinks, so a consumer runs before its producer, has already asked for t + 1 when the
          // producer pushes to it, and the push needs no wake-up. (Order never changes results.)
          if (tracing) {
            for (let k = ng - 1; k >= 0; k--) {
              const g = groups[k]!;
              if (g.lo === g.hi) continue;
              g.runTraced(g, g.lo, t, this);
              if (g.nd !== 0) this.dropAll(g, t);
            }
          } else {
            for (let k = ng - 1; k >= 0; k--) {
              const g = groups[k]!;
              if (g.lo === g.hi) continue;
              g.run(g, g.lo, t, this);
              if (g.nd !== 0) this.dropAll(g, t);
            }
          }
        } finally {
          this.evaluating = false;
        }
      } else {
        if (this.shuffle !== null) this.shuffleGroups(false);
        this.evaluating = true;
        this.base = t + 1;
        try {
          for (let k = ng - 1; k >= 0; k--) {
            const g = groups[k]!;
            g.runAll(g.members, g.members.length, t);
          }
          this.evaluations += this.comps.length;
        } finally {
          this.evaluating = false;
        }
      }
      if (tracing) for (const tr of this.tracers) tr.sample(t);
      this.setCycle(t + 1);
      this.base = this.cycle;
      if (predicate !== null && predicate()) return true;
    }
    return false;
  }

  private shuffleGroups(active: boolean): void {
    const rng = this.shuffle!;
    shuffleList(this.groups, 0, this.groups.length, rng);
    for (const g of this.groups) {
      if (active) shuffleRing(g, rng);
      else shuffleList(g.members, 0, g.members.length, rng);
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

function shuffleRing(g: Group, rng: Rng): void {
  const n = (g.hi - g.lo) & g.mask;
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const a = (g.lo + i) & g.mask;
    const b = (g.lo + j) & g.mask;
    const tmp = g.act[a]!;
    g.act[a] = g.act[b]!;
    g.act[b] = tmp;
  }
}

function shuffleList<T>(items: T[], lo: number, hi: number, rng: Rng): void {
  for (let i = hi - 1; i > lo; i--) {
    const j = lo + rng.int(i - lo + 1);
    const tmp = items[i]!;
    items[i] = items[j]!;
    items[j] = tmp;
  }
}

/**
 * @internal components of one class and the generated loops that evaluate them.
 * `act` is a ring (length mask + 1, more than the members); `act[lo..hi)` is the run list of the
 * coming cycle, evaluated in order. A component that asks for t + 1 stays in it (the list is compacted
 * in the same pass, so a busy component costs no list work); one that sleeps drops out (into
 * `drop[0..nd)`, with its tick's return value in `dropW`, handled after the loop). A component's
 * `_stamp` is the cycle it is queued for (-1 once it dropped out). A wake-up for t + 1 of a component
 * still waiting for its turn in cycle t (stamp t) only sets its stamp, and the loop keeps it; a
 * wake-up of a component in neither list puts it into `pend`, which joins the front of the run list
 * at the start of the next cycle. So each component is in at most one list, components keep their
 * places, and a consumer woken by its producer runs before it from then on: its producer's pushes
 * then find it already queued and need no wake-up call.
 */
export interface Group {
  readonly ctor: unknown;
  readonly members: Component[];
  act: Component[];
  mask: number;
  lo: number;
  hi: number;
  pend: Component[];
  np: number;
  drop: Component[];
  dropW: Float64Array;
  nd: number;
  /** evaluates act[lo..hi) in skipping mode, keeps the components that asked for t + 1, sets hi and nd */
  readonly run: (g: Group, lo: number, t: number, sim: Simulator) => void;
  /** the same, and marks the cycle as touched when a traced component ran */
  readonly runTraced: (g: Group, lo: number, t: number, sim: Simulator) => void;
  /** evaluates every member (no skipping) */
  readonly runAll: (members: Component[], n: number, t: number) => void;
}

// The loops below are compiled once per component class (new Function gives each its own
// feedback, so each tick() call site is monomorphic). They contain no user input.
const RUN_SKIPPING = (traced: boolean): string => `
  const act = g.act;
  const mask = g.mask;
  const hi = g.hi;
  const t1 = t + 1;
  let i = lo;
  // first pass: while every component stays, the list needs no compaction
  for (; i !== hi; i = (i + 1) & mask) {
    const c = act[i];
    const w = c.tick(t);
    ${traced ? 'if (c._traced) sim._touch();' : ''}
    if (w === t1 || c._stamp === t1) c._stamp = t1;
    else {
      c._stamp = -1;
      g.drop[0] = c;
      g.dropW[0] = w;
      break;
    }
  }
  if (i === hi) {
    g.nd = 0;
    return;
  }
  // one dropped out at i: the rest moves up over it
  const drop = g.drop;
  const dropW = g.dropW;
  let k = i;
  let nd = 1;
  for (i = (i + 1) & mask; i !== hi; i = (i + 1) & mask) {
    const c = act[i];
    const w = c.tick(t);
    if (w === t1 || c._stamp === t1) {
      c._stamp = t1;
      act[k] = c;
      k = (k + 1) & mask;
    } else {
      c._stamp = -1;
      drop[nd] = c;
      dropW[nd] = w;
      nd++;
    }
    ${traced ? 'if (c._traced) sim._touch();' : ''}
  }
  g.hi = k;
  g.nd = nd;`;
const RUN_ALL = `for (let i = n - 1; i >= 0; i--) members[i].tick(t);`;

function makeGroup(ctor: unknown): Group {
  // an identifier made of the class name's letters and digits (the code never contains user text)
  const cls = typeof ctor === 'function' ? ctor.name : '';
  const name = cls.replace(/[^A-Za-z0-9]/g, '') || 'anonymous';
  return {
    ctor,
    members: [],
    act: [],
    mask: -1,
    lo: 0,
    hi: 0,
    pend: [],
    np: 0,
    drop: [],
    dropW: new Float64Array(0),
    nd: 0,
    run: compile(`run_${name}`, 'g, lo, t, sim', RUN_SKIPPING(false)) as Group['run'],
    runTraced: compile(`runTraced_${name}`, 'g, lo, t, sim', RUN_SKIPPING(true)) as Group['runTraced'],
    runAll: compile(`runAll_${name}`, 'members, n, t', RUN_ALL) as Group['runAll'],
  };
}

/** A fresh function (own feedback) named after the class, so profiles show which group's loop runs. */
function compile(name: string, params: string, body: string): unknown {
  return new Function(`return function ${name}(${params}) {${body}\n};`)();
}

/** Add a member (between cycles). The ring doubles when full; the run list moves to its start. */
function growGroup(g: Group, c: Component): void {
  g.members.push(c);
  if (g.members.length <= g.mask) return;
  const size = Math.max(8, 2 * (g.mask + 1));
  const n = (g.hi - g.lo) & g.mask;
  // filled with c (never read outside the live ranges) so the arrays stay packed
  const act: Component[] = [];
  const pend: Component[] = [];
  const drop: Component[] = [];
  for (let i = 0; i < size; i++) {
    act.push(i < n ? g.act[(g.lo + i) & g.mask]! : c);
    pend.push(i < g.np ? g.pend[i]! : c);
    drop.push(c);
  }
  g.act = act;
  g.pend = pend;
  g.drop = drop;
  g.dropW = new Float64Array(size);
  g.mask = size - 1;
  g.lo = 0;
  g.hi = n;
}
