import type { Group, Simulator } from './simulator.ts';
import type { Counter, Histogram, HistogramOptions } from './stats.ts';

/** Returned by tick() to say "evaluate me again only when an input arrives". */
export const NEVER = Number.POSITIVE_INFINITY;

/** A named place in the design hierarchy. Components and the simulator top are scopes. */
export interface Scope {
  readonly path: string;
  readonly sim: Simulator;
}

export type SignalValue = number | bigint;

/** A traceable value: name, bit width and a getter that reads current (never next) state. */
export interface Signal {
  readonly name: string;
  readonly width: number;
  readonly get: () => SignalValue;
}

export function childPath(parent: Scope | null, name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_\[\]]*$/.test(name)) throw new Error(`invalid name '${name}': use letters, digits, _ and [] (paths are joined with '.')`);
  return parent === null || parent.path === '' ? name : `${parent.path}.${name}`;
}

/**
 * A hardware block stepped by the simulator.
 *
 * Contract (what makes evaluation order and activity skipping irrelevant):
 * - tick(t) reads only current state: Reg.q, channel heads (canPop/peek),
 *   channel space (canPush), SRAM contents as of the start of the cycle.
 * - It writes only next state: Reg.d, channel push/pop, SRAM writes, counters.
 * - It returns the next cycle at which it must run even if no input arrives:
 *   t + 1 while it has work in flight, a later cycle for a known wake-up, or
 *   NEVER when it waits only for its input channels (a push wakes the consumer
 *   when the data becomes visible; a pop from a full channel wakes the producer).
 * - Evaluating it in a cycle where it has nothing to do changes nothing
 *   (it is idempotent when idle), and it counts events, never evaluations.
 */
/** @internal cold per-component state */
export interface ComponentInfo {
  readonly path: string;
  id: number;
  traced: boolean;
  sigs: Signal[] | null;
  /**
   * The first channel this component consumes (bindConsumer) and produces (bindProducer), checked
   * when it goes to sleep; the others follow through the channels' own `_nextIn` / `_nextOut`
   * links (an intrusive list: no array per component, whose header and elements took 112 bytes
   * per component of a large design).
   */
  firstIn: ChannelLinks | null;
  firstOut: ChannelLinks | null;
  /** FIFOs built so far without a name (they are named fifo0, fifo1, ...) */
  fifos: number;
  /** names used in this component's scope: its channels, FIFOs and child components (checked for duplicates; null while none) */
  names: QueueNames | null;
}

/** @internal the names used in a scope: a short list, a set once it grows */
export type QueueNames = string[] | Set<string>;

/**
 * @internal `names` with `name` added (a list is replaced by one exactly a name longer: a list grown by push
 * keeps 17 slots, 150 bytes more per component), or null if it was there already
 */
export function withQueueName(names: QueueNames | null, name: string): QueueNames | null {
  if (names === null) return [name];
  if (names instanceof Set) {
    if (names.has(name)) return null;
    names.add(name);
    return names;
  }
  if (names.includes(name)) return null;
  if (names.length >= QUEUE_NAMES_LIST) return new Set(names).add(name);
  const out = new Array<string>(names.length + 1);
  for (let i = 0; i < names.length; i++) out[i] = names[i]!;
  out[names.length] = name;
  return out;
}

/** @internal whether a scope is a component (else the simulator or a plain scope object) */
export function isComponent(s: Scope): s is Component {
  return s instanceof Component;
}

/** a scope's queue names move from a list to a set beyond this many */
export const QUEUE_NAMES_LIST = 16;

/** @internal what the simulator needs of a component's channels when the component goes to sleep */
export interface ChannelLinks {
  /** the next input channel of the same consumer (bind order) */
  readonly _nextIn: ChannelLinks | null;
  /** the next output channel of the same producer (bind order) */
  readonly _nextOut: ChannelLinks | null;
  /** the first cycle after t at which a held entry becomes poppable (NEVER if none) */
  _nextReady(t: number): number;
  /** the consumer went to sleep: the next push wakes it */
  _subscribe(c: Component): void;
  /** the producer went to sleep in cycle t */
  _subscribeProducer(c: Component, t: number): void;
}

export abstract class Component implements Scope {
  // Fields are `declare`d and created by the constructor in this order, the ones the scheduler
  // touches every cycle first: a field declared the plain way would first be defined as undefined,
  // and V8 would then treat it as a tagged value of any type (checks on every access).
  /** @internal cycle for which this component is queued (-1 when it is not) */
  declare _stamp: number;
  declare readonly sim: Simulator;
  /** @internal state the scheduler and the tick never touch (kept out of the object: its hot fields, and the subclass's, share fewer cache lines) */
  declare readonly _info: ComponentInfo;
  /** @internal the simulator's group for this component's class (set by the simulator) */
  declare _grp: Group;

  constructor(parent: Scope, name: string) {
    this._stamp = -1;
    this.sim = parent.sim;
    this._info = { path: childPath(parent, name), id: -1, traced: false, sigs: null, firstIn: null, firstOut: null, fifos: 0, names: null };
    this.sim._register(this, parent, name);
  }

  get path(): string {
    return this._info.path;
  }

  /** @internal index in the simulator's component list */
  get _id(): number {
    return this._info.id;
  }
  set _id(v: number) {
    this._info.id = v;
  }

  /** @internal set when a tracer includes this component */
  get _traced(): boolean {
    return this._info.traced;
  }
  set _traced(v: boolean) {
    this._info.traced = v;
  }

  /** @internal signals declared by this component */
  get _signals(): Signal[] {
    return (this._info.sigs ??= []);
  }

  /** Evaluate one cycle; see the class contract. */
  abstract tick(t: number): number;

  /** Return plain fields to their reset values (registers, channels and SRAMs are reset by the simulator). */
  reset(): void {}

  /** Ask to be evaluated at cycle `when` (at least the next cycle). */
  wake(when: number): void {
    this.sim.wakeAt(this, when);
  }

  counter(name: string): Counter {
    return this.sim.stats.counter(`${this.path}.${name}`);
  }

  histogram(name: string, opts?: HistogramOptions): Histogram {
    return this.sim.stats.histogram(`${this.path}.${name}`, opts);
  }

  /** Declare a traceable signal (shown in VCD and available to line traces). */
  signal(name: string, width: number, get: () => SignalValue): void {
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`${this.path}.${name}: signal width must be a positive integer`);
    if (this._signals.some((s) => s.name === name)) throw new Error(`${this.path}: signal ${name} declared twice`);
    this._signals.push({ name, width, get });
  }

  /** One short text for the line trace (optional). Reads current state only. */
  lineTrace?(): string;
}
