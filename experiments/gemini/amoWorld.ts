/**
 * A standalone AMO unit with its node memory and one initiator per request port: the world the
 * AMO property tests, the linearizability check, the golden vectors and the benchmark drive.
 *
 * An initiator issues its own operations in program order, at most `window` outstanding (pushes
 * one per cycle while the window and the channel allow, after a random gap of 0 .. maxGap cycles
 * drawn from its seeded stream), and notes for each operation the cycle it was pushed (invocation)
 * and the cycle its response was popped (response).
 *
 * Two ways to use it:
 * - a history (the default, for tests, the linearizability check and the benchmark): a program
 *   array (which may grow; `wakeNow`), and every event kept in `events`;
 * - a stream (long runs, bench/soak): `keepEvents: false` and a program that is a function giving
 *   operation `seq` on demand (null: no more). Each event goes to `onIssue` as its request is
 *   pushed and to `onResponse` as its response is popped, and is then dropped: the initiator keeps only its outstanding operations and counts.
 */
import { Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { AmoUnit, type AmoUnitConfig } from '../../rtl/gemini/amo/unit.ts';
import { HostMemory, type HostMemoryConfig } from '../../rtl/gemini/hostMemory.ts';
import { AmoReq } from '../../rtl/gemini/types.ts';

export interface AmoOpSpec {
  op: number;
  addr: number;
  size?: number;
  a: bigint;
  b?: bigint;
}

export interface AmoEvent {
  initiator: number;
  /** position in the initiator's program */
  seq: number;
  spec: AmoOpSpec;
  invoke: number;
  response: number;
  req: AmoReq;
}

const M32 = 0xffffffffn;

export function toReq(s: AmoOpSpec, port: number, tag: number): AmoReq {
  const r = new AmoReq();
  r.port = port;
  r.tag = tag;
  r.op = s.op;
  r.addr = s.addr;
  r.size = s.size ?? 8;
  r.aHi = Number((s.a >> 32n) & M32);
  r.aLo = Number(s.a & M32);
  const b = s.b ?? 0n;
  r.bHi = Number((b >> 32n) & M32);
  r.bLo = Number(b & M32);
  return r;
}

export function oldValue(r: AmoReq): bigint {
  return (BigInt(r.oldHi >>> 0) << 32n) | BigInt(r.oldLo >>> 0);
}

/** An initiator's operations: a program array (may grow), or a function giving operation `seq` on demand (null: the end). */
export type AmoProgram = readonly AmoOpSpec[] | ((seq: number) => AmoOpSpec | null);

export interface AmoInitiatorOptions {
  /** keep every event in `events` (default true); false keeps nothing per completed operation */
  keepEvents?: boolean;
  /** called with each event the cycle its request is pushed */
  onIssue?: (e: AmoEvent) => void;
  /** called with each event the cycle its response is popped (then the initiator drops it unless it keeps events) */
  onResponse?: (e: AmoEvent) => void;
}

export class AmoInitiator extends Component {
  /** every event, in program order (only with keepEvents; empty otherwise) */
  readonly events: AmoEvent[] = [];
  /** operations pushed / answered so far */
  issued = 0;
  answered = 0;
  private next = 0;
  private outstanding = 0;
  private readyAt = 0;
  private readonly pending: AmoEvent[] = [];
  private readonly rng: Rng;
  private readonly keep: boolean;
  private readonly onIssue: ((e: AmoEvent) => void) | undefined;
  private readonly onResponse: ((e: AmoEvent) => void) | undefined;
  /** the next operation of a function program, drawn and not yet pushed */
  private peeked: AmoOpSpec | null = null;

  constructor(
    parent: Scope,
    name: string,
    private readonly unit: AmoUnit,
    readonly index: number,
    private readonly program: AmoProgram,
    private readonly window: number,
    private readonly maxGap: number,
    seed: number,
    opts: AmoInitiatorOptions = {},
  ) {
    super(parent, name);
    unit.req[index]!.bindProducer(this);
    unit.resp[index]!.bindConsumer(this);
    this.rng = new Rng(seed);
    this.keep = opts.keepEvents ?? true;
    this.onIssue = opts.onIssue;
    this.onResponse = opts.onResponse;
  }

  /** operations pushed and not yet answered */
  get inFlight(): number {
    return this.outstanding;
  }

  get done(): boolean {
    return !this.hasNext() && this.outstanding === 0;
  }

  /** the next operation in program order, or null if there is none (now) */
  private peekNext(): AmoOpSpec | null {
    const p = this.program;
    if (typeof p !== 'function') return this.next < p.length ? p[this.next]! : null;
    if (this.peeked === null) this.peeked = p(this.next);
    return this.peeked;
  }

  private hasNext(): boolean {
    return this.peekNext() !== null;
  }

  /** Give the initiator more operations (its program array must have grown). */
  wakeNow(): void {
    this.wake(this.sim.cycle);
  }

  tick(t: number): number {
    const resp = this.unit.resp[this.index]!;
    while (resp.canPop()) {
      const r = resp.pop();
      const e = this.pending.shift()!;
      if (e.req !== r) throw new Error(`${this.path}: response out of program order`);
      e.response = t;
      this.outstanding--;
      this.answered++;
      this.onResponse?.(e);
    }
    const req = this.unit.req[this.index]!;
    if (this.outstanding < this.window && t >= this.readyAt && req.canPush()) {
      const spec = this.peekNext();
      if (spec !== null) {
        const r = toReq(spec, this.index, this.next);
        const e: AmoEvent = { initiator: this.index, seq: this.next, spec, invoke: t, response: -1, req: r };
        req.push(r);
        if (this.keep) this.events.push(e);
        this.pending.push(e);
        this.peeked = null;
        this.next++;
        this.outstanding++;
        this.issued++;
        this.onIssue?.(e);
        this.readyAt = t + 1 + (this.maxGap > 0 ? this.rng.int(this.maxGap + 1) : 0);
      }
    }
    if (this.outstanding < this.window && this.hasNext()) return Math.max(t + 1, this.readyAt);
    return NEVER;
  }
}

export interface AmoWorldOptions {
  unit?: Partial<AmoUnitConfig>;
  memory?: Partial<HostMemoryConfig>;
  /** one program per initiator (request port): arrays, or functions for an endless stream */
  programs: AmoProgram[];
  window?: number;
  maxGap?: number;
  seed?: number;
  /** keep every event (default true; `events()` is empty without them) */
  keepEvents?: boolean;
  /** each event as its request is pushed */
  onIssue?: (e: AmoEvent) => void;
  /** each event as its response is popped */
  onResponse?: (e: AmoEvent) => void;
}

export interface AmoWorld {
  sim: Simulator;
  unit: AmoUnit;
  memory: HostMemory;
  initiators: AmoInitiator[];
  /** run until every initiator is done; returns the cycle count */
  run(maxCycles?: number): number;
  /** every kept event, in order of invocation (ties by initiator) */
  events(): AmoEvent[];
}

export function buildAmoWorld(o: AmoWorldOptions): AmoWorld {
  const sim = new Simulator();
  const ports = Math.max(1, o.programs.length);
  const memBytes = o.unit?.memBytes ?? o.memory?.bytes ?? 1 << 20;
  const memory = new HostMemory(sim, 'mem', { ...o.memory, bytes: memBytes });
  const unit = new AmoUnit(sim, 'amo', { ...o.unit, ports, memBytes }, { req: memory.req, resp: memory.resp });
  const root = new Rng(o.seed ?? 1);
  const initiators = o.programs.map((p, i) => new AmoInitiator(sim, `init${i}`, unit, i, p, o.window ?? 1, o.maxGap ?? 0, root.fork(i).u32(), { keepEvents: o.keepEvents, onIssue: o.onIssue, onResponse: o.onResponse }));
  return {
    sim,
    unit,
    memory,
    initiators,
    run(maxCycles = 1e9) {
      sim.runUntil(() => initiators.every((x) => x.done), maxCycles);
      return sim.cycle;
    },
    events() {
      return initiators.flatMap((x) => x.events).sort((a, b) => a.invoke - b.invoke || a.initiator - b.initiator);
    },
  };
}
