import { Batch, type ChannelArray, type FifoArray } from './batch.ts';
import type { Scope } from './component.ts';

/**
 * Generated batches: a batch described by its ports and one step function (instance i's clock
 * cycle, register-transfer style), from which the kernel generates, when the design is built, a
 * loop specialised for the built design, as Verilator generates C++ for a built design:
 *
 * - the step function's text (`Function.prototype.toString`) is rewritten: every port access
 *   (`io.inp.canPop()`, `io.out.push(v)`, `io.fifo.count()`, `io.acc[i]`, ...) becomes the loads and
 *   stores it stands for, on typed arrays bound to local constants once per call, and the whole is
 *   wrapped in one loop over the instances (`new Function`, compiled once per distinct text);
 * - the order of evaluation is chosen from the channels' ends: consumers before producers where the
 *   graph permits (a chain or a ring: the last instance first; else a depth-first post-order), so
 *   that on a channel whose consumer runs first `canPop` needs no push stamp and on one whose
 *   producer runs first `canPush` needs no pop stamp: one stamp per channel where the graph allows.
 *
 * The step function is also the simple path: `evalOne(i, t)` runs it on port objects that call the
 * `ChannelArray` / `FifoArray` methods (every check included); the simulator's `shuffleSeed` runs
 * it in shuffled order in half of the cycles, so a design's equivalence tests check the generated
 * loop against it. What the step function may contain: its three parameters, locals declared with
 * `const` / `let`, the constants of the design (`consts`), `Math`, `Infinity`, `NaN`, `undefined`, and
 * ordinary statements and expressions; no nested functions, `this`, closures over other names or
 * template literals. A step function outside that subset (or text changed by an instrumenting tool)
 * is not generated: the batch runs `evalOne` in the loop of `Batch` (`generated` says why).
 *
 * Checks in the generated loop: a push to a full channel (held = capacity), a pop of an empty one
 * (held = 0) and the same on a FIFO throw the simple path's errors. A second push or pop on one
 * channel in a cycle, or a push into the slot freed by a pop in the same cycle, would need the
 * stamps the generated loop avoids loading: only the simple path detects them, so a design's tests
 * should run with `shuffleSeed` (as the equivalence tests do).
 */

/** An input or output port: instance i's channel of `array` is i + channel (a number) or channel[i * width + j]. */
export interface PortSpec {
  array: ChannelArray;
  /** the channel of instance i: i + offset, or a map (size x width entries, -1 for none) */
  channel: number | Int32Array;
  /** ports per instance for a map (a vector port, indexed by j; default 1) */
  width?: number;
}

type Regs = Int32Array | Uint32Array | Float64Array | Uint8Array | Int8Array | Uint16Array | Int16Array | Float32Array;

export interface BatchDesign {
  inputs?: Record<string, PortSpec>;
  outputs?: Record<string, PortSpec>;
  fifos?: Record<string, FifoArray>;
  /** per-instance registers: typed arrays indexed by the instance */
  regs?: Record<string, Regs>;
  /** numeric constants the step function names (defined as constants in the generated text) */
  consts?: Record<string, number>;
}

export interface InPort {
  canPop(j?: number): boolean;
  pop(j?: number): number;
  peek(j?: number): number;
  held(j?: number): number;
}
export interface OutPort {
  canPush(j?: number): boolean;
  push(v: number, j?: number): void;
  occupancy(j?: number): number;
}
export interface FifoPort {
  count(): number;
  head(): number;
  push(v: number): void;
  pop(): number;
}

/** The ports and registers a step function sees, typed from the design. */
export type BatchIO<D extends BatchDesign> = { [K in keyof D['inputs']]: InPort } & { [K in keyof D['outputs']]: OutPort } & {
  [K in keyof D['fifos']]: FifoPort;
} & { [K in keyof D['regs']]: D['regs'][K] };

export type StepFn<D extends BatchDesign> = (io: BatchIO<D>, i: number, t: number) => number;

interface Current {
  cur: number;
  now: number;
}

function chanOf(c: Current, p: PortSpec, j: number | undefined): number {
  const ch = p.channel;
  return typeof ch === 'number' ? c.cur + ch : ch[c.cur * (p.width ?? 1) + (j ?? 0)]!;
}

// the simple path's ports: the ChannelArray / FifoArray methods with every check
class InImpl implements InPort {
  constructor(
    private readonly c: Current,
    private readonly p: PortSpec,
  ) {}
  canPop(j?: number): boolean {
    return this.p.array.canPop(chanOf(this.c, this.p, j), this.c.now);
  }
  pop(j?: number): number {
    return this.p.array.pop(chanOf(this.c, this.p, j), this.c.now);
  }
  peek(j?: number): number {
    return this.p.array.peek(chanOf(this.c, this.p, j));
  }
  held(j?: number): number {
    return this.p.array.held(chanOf(this.c, this.p, j));
  }
}
class OutImpl implements OutPort {
  constructor(
    private readonly c: Current,
    private readonly p: PortSpec,
  ) {}
  canPush(j?: number): boolean {
    return this.p.array.canPush(chanOf(this.c, this.p, j), this.c.now);
  }
  push(v: number, j?: number): void {
    this.p.array.push(chanOf(this.c, this.p, j), v, this.c.now);
  }
  occupancy(j?: number): number {
    return this.p.array.occupancy(chanOf(this.c, this.p, j), this.c.now);
  }
}
class FifoImpl implements FifoPort {
  constructor(
    private readonly c: Current,
    private readonly f: FifoArray,
  ) {}
  count(): number {
    return this.f.count(this.c.cur);
  }
  head(): number {
    return this.f.head(this.c.cur);
  }
  push(v: number): void {
    this.f.push(this.c.cur, v);
  }
  pop(): number {
    return this.f.pop(this.c.cur);
  }
}

/** What the generated loop gets: the design's arrays, in the order the generated text names them. */
interface Plan {
  arrays: ChannelArray[];
  fifos: FifoArray[];
  maps: Int32Array[];
  regs: Regs[];
  order: Int32Array | null;
  size: number;
}
type Generated = (plan: Plan, t: number) => number;

// generated loops by text: batches with the same step function and port structure share one
const generatedByText = new Map<string, Generated>();

/**
 * A batch described by a design and a step function (see the top of this file). Subclasses call
 * `define(design, step)` in their constructor, after making their FIFOs and registers.
 */
export abstract class GeneratedBatch extends Batch {
  private declare cur: Current;
  private declare io: unknown;
  private declare step: (io: unknown, i: number, t: number) => number;
  private declare gen: Generated | null;
  /** the same loop writing every stamp (for traces: a channel's push and pop signals read them) */
  private declare genTraced: Generated | null;
  private declare plan: Plan | null;
  /** null when the generated loop runs; else why not (the batch then runs evalOne for each instance) */
  declare generated: string | null;
  /** the generated loop's text (empty when not generated) */
  declare generatedText: string;
  private declare traced: (() => string) | null;

  constructor(parent: Scope, name: string, size: number) {
    super(parent, name, size);
    this.cur = { cur: 0, now: 0 };
    this.gen = null;
    this.genTraced = null;
    this.plan = null;
    this.generated = 'define() not called';
    this.generatedText = '';
    this.traced = null;
  }

  /** the text of the loop used while the batch is traced (empty when not generated) */
  get generatedTracedText(): string {
    return this.traced === null ? '' : this.traced();
  }

  protected define<D extends BatchDesign>(design: D, step: StepFn<D>): void {
    const io: Record<string, unknown> = {};
    const names = new Set<string>();
    const claim = (n: string): void => {
      if (names.has(n)) throw new Error(`${this.path}: port or register name ${n} used twice`);
      names.add(n);
    };
    for (const [n, p] of Object.entries(design.inputs ?? {})) {
      claim(n);
      checkPort(this, n, p);
      p.array.bindConsumer(this);
      io[n] = new InImpl(this.cur, p);
    }
    for (const [n, p] of Object.entries(design.outputs ?? {})) {
      claim(n);
      checkPort(this, n, p);
      p.array.bindProducer(this);
      io[n] = new OutImpl(this.cur, p);
    }
    for (const [n, f] of Object.entries(design.fifos ?? {})) {
      claim(n);
      if (f.owner !== this) throw new Error(`${this.path}: FIFO ${n} belongs to ${f.owner.path}`);
      io[n] = new FifoImpl(this.cur, f);
    }
    for (const [n, r] of Object.entries(design.regs ?? {})) {
      claim(n);
      if (r.length < this.size) throw new RangeError(`${this.path}: register ${n} has ${r.length} entries for ${this.size} instances`);
      io[n] = r;
    }
    this.io = io;
    this.step = step as (io: unknown, i: number, t: number) => number;
    try {
      const src = step.toString();
      const fast = generate(this, design, src, false);
      this.gen = compiled(fast.text);
      this.plan = fast.plan;
      this.generated = null;
      this.generatedText = fast.text;
      // the traced loop (the same text writing every stamp) is made when first needed
      this.traced = () => generate(this, design, src, true).text;
    } catch (e) {
      if (!(e instanceof NotGenerated)) throw e;
      this.generated = e.message;
    }
  }

  evalOne(i: number, t: number): number {
    const c = this.cur;
    c.cur = i;
    c.now = t;
    return this.step(this.io, i, t);
  }

  override evalAll(t: number): number {
    let g = this.gen;
    if (this._traced && g !== null) g = this.genTraced ??= compiled(this.traced!());
    return g === null ? super.evalAll(t) : g(this.plan!, t);
  }
}

function compiled(text: string): Generated {
  let g = generatedByText.get(text);
  if (g === undefined) {
    try {
      g = new Function(text)() as Generated;
    } catch (err) {
      throw new NotGenerated(`generated text does not compile: ${(err as Error).message}`);
    }
    generatedByText.set(text, g);
  }
  return g;
}

function checkPort(b: Batch, name: string, p: PortSpec): void {
  const a = p.array;
  const w = p.width ?? 1;
  if (!Number.isInteger(w) || w < 1) throw new RangeError(`${b.path}: port ${name}: width must be an integer >= 1, got ${w}`);
  if (typeof p.channel === 'number') {
    if (!Number.isInteger(p.channel) || p.channel < 0 || p.channel + b.size > a.size || w !== 1)
      throw new RangeError(`${b.path}: port ${name}: channel offset ${p.channel} (width ${w}) does not fit ${a.size} channels for ${b.size} instances`);
    return;
  }
  if (p.channel.length !== b.size * w) throw new RangeError(`${b.path}: port ${name}: map has ${p.channel.length} entries, expected ${b.size} x ${w}`);
  for (const k of p.channel) if (k < -1 || k >= a.size) throw new RangeError(`${b.path}: port ${name}: channel ${k} out of 0..${a.size - 1}`);
}

class NotGenerated extends Error {}

/** a port's stamp test is elided when at most this many instances need it (tested by instance number) */
const MAX_EXCEPTIONS = 4;

// ---- the step function's text -------------------------------------------------------------

interface Tok {
  kind: 'id' | 'num' | 'str' | 'punct';
  text: string;
}

const PUNCT3 = ['===', '!==', '>>>', '**=', '<<=', '>>=', '...', '&&=', '||=', '??='];
const PUNCT2 = ['=>', '==', '!=', '<=', '>=', '&&', '||', '??', '?.', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<', '>>', '**'];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let p = 0;
  const n = src.length;
  while (p < n) {
    const c = src[p]!;
    if (/\s/.test(c)) {
      p++;
      continue;
    }
    if (src.startsWith('//', p)) {
      const e = src.indexOf('\n', p);
      p = e < 0 ? n : e;
      continue;
    }
    if (src.startsWith('/*', p)) {
      const e = src.indexOf('*/', p + 2);
      if (e < 0) throw new NotGenerated('unterminated comment');
      p = e + 2;
      continue;
    }
    const id = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(p, p + 200));
    if (id) {
      out.push({ kind: 'id', text: id[0] });
      p += id[0].length;
      continue;
    }
    const num = /^(?:0[xXbBoO][0-9a-fA-F_]+n?|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?)/.exec(src.slice(p, p + 200));
    if (num && /[\d.]/.test(c)) {
      if (num[0] !== '.') {
        out.push({ kind: 'num', text: num[0] });
        p += num[0].length;
        continue;
      }
    }
    if (c === '"' || c === "'") {
      let e = p + 1;
      while (e < n && src[e] !== c) e += src[e] === '\\' ? 2 : 1;
      if (e >= n) throw new NotGenerated('unterminated string');
      out.push({ kind: 'str', text: src.slice(p, e + 1) });
      p = e + 1;
      continue;
    }
    if (c === '`') throw new NotGenerated('template literal in the step function');
    const three = PUNCT3.find((x) => src.startsWith(x, p));
    const two = three ?? PUNCT2.find((x) => src.startsWith(x, p));
    const t = two ?? c;
    out.push({ kind: 'punct', text: t });
    p += t.length;
  }
  return out;
}

const KEYWORDS = new Set(['const', 'let', 'if', 'else', 'return', 'for', 'while', 'do', 'break', 'continue', 'true', 'false', 'null', 'typeof', 'switch', 'case', 'default']);
const GLOBALS = new Set(['Math', 'Infinity', 'NaN', 'undefined', 'Number']);
const FORBIDDEN = new Set(['function', 'this', 'class', 'new', 'yield', 'await', 'arguments', 'eval', 'var', 'with', 'delete', 'import', 'super', 'async', 'try', 'throw']);

/** index of the token closing the bracket at `open` */
function closing(toks: Tok[], open: number): number {
  let d = 0;
  for (let k = open; k < toks.length; k++) {
    const x = toks[k]!.text;
    if (toks[k]!.kind !== 'punct') continue;
    if (x === '(' || x === '[' || x === '{') d++;
    else if (x === ')' || x === ']' || x === '}') {
      d--;
      if (d === 0) return k;
    }
  }
  throw new NotGenerated('unbalanced brackets in the step function');
}

/** split the tokens between two brackets at top-level commas */
function splitArgs(toks: Tok[]): Tok[][] {
  if (toks.length === 0) return [];
  const out: Tok[][] = [[]];
  let d = 0;
  for (const t of toks) {
    if (t.kind === 'punct' && (t.text === '(' || t.text === '[' || t.text === '{')) d++;
    if (t.kind === 'punct' && (t.text === ')' || t.text === ']' || t.text === '}')) d--;
    if (d === 0 && t.kind === 'punct' && t.text === ',') out.push([]);
    else out.at(-1)!.push(t);
  }
  return out;
}

function join(toks: Tok[]): string {
  let s = '';
  let prev: Tok | null = null;
  for (const t of toks) {
    if (prev !== null && (prev.kind !== 'punct' || t.kind !== 'punct')) s += ' ';
    else if (prev !== null && /[-+]/.test(prev.text.at(-1)!) && /^[-+]/.test(t.text)) s += ' ';
    s += t.text;
    prev = t;
  }
  return s;
}

/** parameters and body of a function's text: `function f(a, b) { ... }`, a method, or `(a, b) => { ... }` */
function splitFunction(src: string): { params: string[]; body: Tok[] } {
  const toks = tokenize(src);
  const open = toks.findIndex((t) => t.text === '(');
  if (open < 0) throw new NotGenerated('no parameter list');
  const close = closing(toks, open);
  const params = splitArgs(toks.slice(open + 1, close)).map((p) => {
    if (p.length !== 1 || p[0]!.kind !== 'id') throw new NotGenerated(`parameter ${join(p)} is not a plain name`);
    return p[0]!.text;
  });
  let b = close + 1;
  if (toks[b]?.text === '=>') b++;
  if (toks[b]?.text !== '{') throw new NotGenerated('the step function has no block body');
  const end = closing(toks, b);
  if (end !== toks.length - 1) throw new NotGenerated('text after the step function body');
  return { params, body: toks.slice(b + 1, end) };
}

// ---- evaluation order and stamps ------------------------------------------------------------

/** How a port's instance learns of the other end's transfer in this cycle (canPop: a push; canPush: a pop). */
type Test = 'none' | 'carry' | 'stamp';

interface PortUse {
  name: string;
  spec: PortSpec;
  input: boolean;
  array: number;
  map: number;
  /** the test for every instance but those in exc (which use the stamp) */
  test: Test;
  exc: number[];
  /** for test 'carry': the input port whose pop in the previous iteration is this cycle's pop */
  carry: string;
  /** which instances must write this port's own stamp (push: pushT, pop: popT): 'all', none ([]), or a few */
  store: 'all' | number[];
}

/** channel ends per array: producer and consumer instance of every channel and the port used (-1: not this batch) */
interface Ends {
  prod: Int32Array[];
  cons: Int32Array[];
  /** the port (index into names) producing / consuming each channel */
  prodPort: Int32Array[];
  consPort: Int32Array[];
  names: string[];
}

function portChannel(p: PortSpec, i: number, j: number): number {
  return typeof p.channel === 'number' ? i + p.channel : p.channel[i * (p.width ?? 1) + j]!;
}

function ends(b: Batch, design: BatchDesign, arrays: ChannelArray[]): Ends {
  const prod = arrays.map((a) => new Int32Array(a.size).fill(-1));
  const cons = arrays.map((a) => new Int32Array(a.size).fill(-1));
  const consPort = arrays.map((a) => new Int32Array(a.size));
  const prodPort = arrays.map((a) => new Int32Array(a.size));
  const names: string[] = [];
  const mark = (name: string, p: PortSpec, into: Int32Array[], what: string): void => {
    const a = arrays.indexOf(p.array);
    const x = into[a]!;
    const ports = (into === cons ? consPort : prodPort)[a]!;
    const ix = names.push(name) - 1;
    for (let i = 0; i < b.size; i++) {
      for (let j = 0; j < (p.width ?? 1); j++) {
        const k = portChannel(p, i, j);
        if (k < 0) continue;
        if (x[k] !== -1) throw new Error(`${p.array.pathOf(k)}: two ${what}s in ${b.path} (instances ${x[k]} and ${i})`);
        x[k] = i;
        ports[k] = ix;
      }
    }
  };
  for (const [n, p] of Object.entries(design.outputs ?? {})) mark(n, p, prod, 'producer');
  for (const [n, p] of Object.entries(design.inputs ?? {})) mark(n, p, cons, 'consumer');
  return { prod, cons, prodPort, consPort, names };
}

/**
 * The instances' order: consumers before producers where the graph permits. 'down' (the last
 * instance first) when every channel between two instances goes from a lower to a higher one (a
 * chain or a ring), 'up' for the reverse, else a depth-first post-order over producer -> consumer
 * (a consumer finishes before its producers; the channels closing a cycle keep their stamps).
 */
function chooseOrder(size: number, e: Ends): 'down' | 'up' | Int32Array {
  let down = true;
  let up = true;
  let edges = 0;
  for (let a = 0; a < e.prod.length; a++) {
    const p = e.prod[a]!;
    const c = e.cons[a]!;
    for (let k = 0; k < p.length; k++) {
      if (p[k]! < 0 || c[k]! < 0 || p[k] === c[k]) continue;
      if (c[k]! < p[k]!) down = false;
      else up = false;
      edges++;
    }
  }
  if (down) return 'down';
  if (up) return 'up';
  // successors of every instance (compressed rows)
  const first = new Int32Array(size + 1);
  for (let a = 0; a < e.prod.length; a++) for (let k = 0; k < e.prod[a]!.length; k++) if (e.prod[a]![k]! >= 0 && e.cons[a]![k]! >= 0 && e.prod[a]![k] !== e.cons[a]![k]) first[e.prod[a]![k]! + 1]!++;
  for (let i = 0; i < size; i++) first[i + 1] = first[i + 1]! + first[i]!;
  const succ = new Int32Array(edges);
  const fill = first.slice(0, size);
  for (let a = 0; a < e.prod.length; a++) for (let k = 0; k < e.prod[a]!.length; k++) if (e.prod[a]![k]! >= 0 && e.cons[a]![k]! >= 0 && e.prod[a]![k] !== e.cons[a]![k]) succ[fill[e.prod[a]![k]!]!++] = e.cons[a]![k]!;
  const order = new Int32Array(size);
  const seen = new Uint8Array(size);
  const stack = new Int32Array(size);
  const at = new Int32Array(size);
  let n = 0;
  for (let s = 0; s < size; s++) {
    if (seen[s] !== 0) continue;
    let sp = 0;
    stack[0] = s;
    at[0] = first[s]!;
    seen[s] = 1;
    while (sp >= 0) {
      const top = stack[sp]!;
      if (at[sp]! === first[top + 1]) {
        order[n++] = top;
        sp--;
        continue;
      }
      const next = succ[at[sp]!++]!;
      if (seen[next] === 0) {
        seen[next] = 1;
        sp++;
        stack[sp] = next;
        at[sp] = first[next]!;
      }
    }
  }
  return order;
}

/**
 * Every port's test and stamp stores. An input port's canPop needs the push stamp only where the
 * channel's producer is outside the batch, the instance itself, or ran before it; an output
 * port's canPush needs the pop stamp only where the consumer is outside, itself, or ran before it
 * and not in the iteration just before through a scalar input port (then that iteration's pop is
 * carried in a local). A port writes its own stamp only where some reader tests it: the other end
 * outside the batch, or an instance whose test is the stamp (or always, when traced).
 */
function planPorts(b: Batch, design: BatchDesign, arrays: ChannelArray[], e: Ends, pos: Int32Array, maps: Int32Array[]): Map<string, PortUse> {
  const uses = new Map<string, PortUse>();
  const classify = (name: string, spec: PortSpec, input: boolean): void => {
    const a = arrays.indexOf(spec.array);
    const w = spec.width ?? 1;
    // per instance: 0 no test, 1 the stamp, 2 the carried pop of input port `via`
    const kinds = new Uint8Array(b.size);
    let via = -1;
    for (let i = 0; i < b.size; i++) {
      let kind = 0;
      for (let j = 0; j < w; j++) {
        const k = portChannel(spec, i, j);
        if (k < 0) continue;
        const other = input ? e.prod[a]![k]! : e.cons[a]![k]!;
        let kk = 1;
        if (other < 0 || other === i) kk = 1;
        else if (pos[other]! > pos[i]!) kk = 0;
        else if (!input && w === 1 && pos[other] === pos[i]! - 1) {
          const v = e.consPort[a]![k]!;
          if ((design.inputs![e.names[v]!]!.width ?? 1) === 1 && (via < 0 || via === v)) {
            via = v;
            kk = 2;
          }
        }
        if (kind === 0) kind = kk;
        else if (kk !== kind && kk !== 0) kind = 1;
      }
      kinds[i] = kind;
    }
    let none = 0;
    let carry = 0;
    for (let i = 0; i < b.size; i++) {
      if (kinds[i] === 0) none++;
      else if (kinds[i] === 2) carry++;
    }
    // the most common test; every other instance uses the stamp
    const best = carry > none ? 2 : none > 0 ? 0 : 1;
    const exc: number[] = [];
    for (let i = 0; i < b.size && exc.length <= MAX_EXCEPTIONS; i++) if (kinds[i] !== best) exc.push(i);
    const uniform = best !== 1 && exc.length <= MAX_EXCEPTIONS;
    let map = -1;
    if (typeof spec.channel !== 'number') {
      map = maps.indexOf(spec.channel);
      if (map < 0) map = maps.push(spec.channel) - 1;
    }
    uses.set(name, {
      name,
      spec,
      input,
      array: a,
      map,
      test: uniform ? (best === 2 ? 'carry' : 'none') : 'stamp',
      exc: uniform ? exc : [],
      carry: uniform && best === 2 ? e.names[via]! : '',
      store: 'all',
    });
  };
  for (const [n, p] of Object.entries(design.inputs ?? {})) classify(n, p, true);
  for (const [n, p] of Object.entries(design.outputs ?? {})) classify(n, p, false);
  // does the reader of channel k's stamp (the other end) test it?
  const tests = (u: PortUse | undefined, i: number): boolean => u === undefined || u.test === 'stamp' || u.exc.includes(i);
  for (const u of uses.values()) {
    const w = u.spec.width ?? 1;
    const at: number[] = [];
    for (let i = 0; i < b.size && at.length <= MAX_EXCEPTIONS; i++) {
      for (let j = 0; j < w; j++) {
        const k = portChannel(u.spec, i, j);
        if (k < 0) continue;
        const other = u.input ? e.prod[u.array]![k]! : e.cons[u.array]![k]!;
        const reader = other < 0 ? undefined : uses.get(e.names[(u.input ? e.prodPort : e.consPort)[u.array]![k]!]!);
        if (other < 0 || tests(reader, other)) {
          at.push(i);
          break;
        }
      }
    }
    u.store = at.length <= MAX_EXCEPTIONS ? at : 'all';
  }
  return uses;
}

// ---- generation ------------------------------------------------------------------------------

function literal(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

const pow2 = (n: number): boolean => (n & (n - 1)) === 0;

function generate(b: GeneratedBatch, design: BatchDesign, src: string, traced: boolean): { text: string; plan: Plan } {
  const { params, body } = splitFunction(src);
  if (params.length !== 3) throw new NotGenerated(`the step function takes ${params.length} parameters, expected (io, i, t)`);
  const [io, iv, tv] = params as [string, string, string];
  const consts = design.consts ?? {};
  for (const n of [...params, ...Object.keys(consts)]) if (n.startsWith('$') || KEYWORDS.has(n) || GLOBALS.has(n) || FORBIDDEN.has(n)) throw new NotGenerated(`name ${n} is reserved`);

  const arrays: ChannelArray[] = [];
  const maps: Int32Array[] = [];
  const fifos: FifoArray[] = [];
  const regs: Regs[] = [];
  for (const p of [...Object.values(design.inputs ?? {}), ...Object.values(design.outputs ?? {})]) if (!arrays.includes(p.array)) arrays.push(p.array);
  const e = ends(b, design, arrays);
  const ord = chooseOrder(b.size, e);
  const pos = new Int32Array(b.size);
  for (let j = 0; j < b.size; j++) pos[ord === 'down' ? b.size - 1 - j : ord === 'up' ? j : ord[j]!] = j;
  const ports = planPorts(b, design, arrays, e, pos, maps);
  const fifoIx = new Map(Object.entries(design.fifos ?? {}).map(([n, f]) => [n, fifos.push(f) - 1]));
  const regIx = new Map(Object.entries(design.regs ?? {}).map(([n, r]) => [n, regs.push(r) - 1]));

  const declared = new Set<string>();
  const temps: string[] = [];
  const tmp = (): string => {
    const n = `$v${temps.length}`;
    temps.push(n);
    return n;
  };
  const usedArrays = new Set<number>();
  const usedFifos = new Set<number>();
  const carries = new Set<string>();
  for (const u of ports.values()) if (u.test === 'carry') carries.add(u.carry);

  /** x + 1 wrapped at n (x a plain name) */
  const inc = (x: string, n: number): string => (pow2(n) ? `(${x} + 1) & ${n - 1}` : `${x} + 1 === ${n} ? 0 : ${x} + 1`);
  /** slot of entry n after head h, wrapped at d (h, n plain names or numbers) */
  const slot = (h: string, n: string, d: number): string => {
    if (pow2(d)) return `((${h} + ${n}) & ${d - 1})`;
    const s = tmp();
    return `(${s} = ${h} + ${n}, ${s} >= ${d} ? ${s} - ${d} : ${s})`;
  };
  const chanExpr = (u: PortUse, j: string | null): string => {
    const ch = u.spec.channel;
    if (typeof ch === 'number') {
      if (j !== null) throw new NotGenerated(`port ${u.name} is not a vector port`);
      return ch === 0 ? iv : `(${iv} + ${ch})`;
    }
    const w = u.spec.width ?? 1;
    return w === 1 ? `$m${u.map}[${iv}]` : `$m${u.map}[${iv} * ${w} + (${j ?? '0'})]`;
  };
  const either = (exc: number[], stamped: string, plain: string): string =>
    exc.length === 0 ? plain : `(${exc.map((x) => `${iv} === ${x}`).join(' || ')} ? ${stamped} : ${plain})`;
  const store = (u: PortUse, what: string): string => {
    if (traced || u.store === 'all') return `, ${what}`;
    if (u.store.length === 0) return '';
    return `, (${u.store.map((x) => `${iv} === ${x}`).join(' || ')}) && (${what})`;
  };

  const access = (port: string, meth: string, args: string[]): string => {
    const f = fifoIx.get(port);
    if (f !== undefined) {
      usedFifos.add(f);
      const F = `$f${f}`;
      const N = `${F}N`;
      const H = `${F}H`;
      const d = fifos[f]!.depth;
      if (meth === 'count' && args.length === 0) return N;
      if (meth === 'head' && args.length === 0) return `${F}d[${iv} * ${d} + ${H}]`;
      if (meth === 'push' && args.length === 1) {
        const v = tmp();
        return `(${v} = (${args[0]}), ${N} >= ${d} && ${F}._fullError(${iv}), ${F}d[${iv} * ${d} + ${slot(H, N, d)}] = ${v}, ${N}++, undefined)`;
      }
      if (meth === 'pop' && args.length === 0) {
        const h = tmp();
        return `(${N} <= 0 && ${F}._emptyError(${iv}), ${h} = ${H}, ${H} = ${inc(h, d)}, ${N}--, ${F}d[${iv} * ${d} + ${h}])`;
      }
      throw new NotGenerated(`FIFO ${port}: no method ${meth} with ${args.length} arguments`);
    }
    const u = ports.get(port);
    if (u === undefined) throw new NotGenerated(`${io}.${port}: no such port, FIFO or register`);
    const A = `$a${u.array}`;
    usedArrays.add(u.array);
    const cap = arrays[u.array]!.capacity;
    const allowed: Record<string, number> = u.input ? { canPop: 1, pop: 1, peek: 1, held: 1 } : { canPush: 1, occupancy: 1, push: 2 };
    const max = allowed[meth];
    if (max === undefined || args.length > max) throw new NotGenerated(`${u.input ? 'input' : 'output'} port ${port}: no method ${meth} with ${args.length} arguments`);
    const k = chanExpr(u, meth === 'push' ? (args[1] ?? null) : (args[0] ?? null));
    if (meth === 'held') return `${A}n[${k}]`;
    if (meth === 'peek') {
      const K = tmp();
      return `(${K} = ${k}, ${A}d[${K} * ${cap} + ${A}h[${K}]])`;
    }
    if (meth === 'canPop') {
      const K = tmp();
      return either(u.test === 'stamp' ? [] : u.exc, `(${K} = ${k}, ${A}n[${K}] - (${A}u[${K}] === ${tv} ? 1 : 0) > 0)`, u.test === 'stamp' ? `(${K} = ${k}, ${A}n[${K}] - (${A}u[${K}] === ${tv} ? 1 : 0) > 0)` : `(${A}n[${k}] > 0)`);
    }
    if (meth === 'canPush' || meth === 'occupancy') {
      const K = tmp();
      const stamped = `(${K} = ${k}, ${A}n[${K}] + (${A}o[${K}] === ${tv} ? 1 : 0))`;
      const plain = u.test === 'stamp' ? stamped : u.test === 'carry' ? `(${A}n[${k}] + $cp_${u.carry})` : `${A}n[${k}]`;
      const occ = either(u.test === 'stamp' ? [] : u.exc, stamped, plain);
      return meth === 'canPush' ? `(${occ} < ${cap})` : occ;
    }
    if (meth === 'push') {
      const K = tmp();
      const v = tmp();
      const n = tmp();
      return `(${v} = (${args[0]}), ${K} = ${k}, ${n} = ${A}n[${K}], ${n} >= ${cap} && ${A}$._pushError(${K}, ${tv}), ${A}d[${K} * ${cap} + ${slot(`${A}h[${K}]`, n, cap)}] = ${v}, ${A}n[${K}] = ${n} + 1${store(u, `${A}u[${K}] = ${tv}`)}, $mv${u.array} = true, undefined)`;
    }
    // pop
    const K = tmp();
    const n = tmp();
    const h = tmp();
    const cy = carries.has(port) ? `, $cy_${port} = 1` : '';
    return `(${K} = ${k}, ${n} = ${A}n[${K}], ${n} <= 0 && ${A}$._popError(${K}, ${tv}), ${h} = ${A}h[${K}], ${A}h[${K}] = ${inc(h, cap)}, ${A}n[${K}] = ${n} - 1${store(u, `${A}o[${K}] = ${tv}`)}${cy}, $mv${u.array} = true, ${A}d[${K} * ${cap} + ${h}])`;
  };

  const rewrite = (toks: Tok[]): string => {
    const out: string[] = [];
    let inDecl = 0;
    let depth = 0;
    for (let p = 0; p < toks.length; p++) {
      const t = toks[p]!;
      const prevDot = p > 0 && toks[p - 1]!.text === '.';
      if (t.kind === 'punct') {
        if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
        if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
        if (t.text === ';' && depth === inDecl - 1) inDecl = 0;
        if (t.text === '=>' || t.text === '?.') throw new NotGenerated(`'${t.text}' in the step function`);
        out.push(t.text);
        continue;
      }
      if (t.kind !== 'id' || prevDot) {
        out.push(t.text);
        continue;
      }
      const x = t.text;
      if (FORBIDDEN.has(x)) throw new NotGenerated(`'${x}' in the step function`);
      if (x.startsWith('$')) throw new NotGenerated(`name ${x} is reserved`);
      if (x === 'const' || x === 'let') {
        inDecl = depth + 1;
        const n = toks[p + 1];
        if (n?.kind !== 'id') throw new NotGenerated('destructuring in the step function');
        declared.add(n.text);
        out.push(x);
        continue;
      }
      if (inDecl > 0 && depth === inDecl - 1 && toks[p - 1]?.text === ',') declared.add(x);
      if (x === 'return') {
        let q = p + 1;
        let d = 0;
        while (q < toks.length && !(d === 0 && toks[q]!.text === ';')) {
          const y = toks[q]!;
          if (y.kind === 'punct' && '([{'.includes(y.text)) d++;
          if (y.kind === 'punct' && ')]}'.includes(y.text)) d--;
          if (d < 0) break;
          q++;
        }
        const val = toks.slice(p + 1, q);
        out.push(`{ $w = ${val.length > 0 ? `(${rewrite(val)})` : 'undefined'}; break $body; }`);
        p = toks[q]?.text === ';' ? q : q - 1;
        continue;
      }
      if (x === io) {
        const nm = toks[p + 2];
        if (toks[p + 1]?.text !== '.' || nm?.kind !== 'id') throw new NotGenerated(`${io} used other than as ${io}.<port>`);
        const r = regIx.get(nm.text);
        if (r !== undefined) {
          out.push(`$r${r}`);
          p += 2;
          continue;
        }
        const meth = toks[p + 4];
        if (toks[p + 3]?.text !== '.' || meth?.kind !== 'id' || toks[p + 5]?.text !== '(') throw new NotGenerated(`${io}.${nm.text} is not called as ${io}.${nm.text}.<method>(...)`);
        const close = closing(toks, p + 5);
        const args = splitArgs(toks.slice(p + 6, close)).map(rewrite);
        out.push(access(nm.text, meth.text, args));
        p = close;
        continue;
      }
      if (KEYWORDS.has(x) || GLOBALS.has(x) || x === iv || x === tv || Object.hasOwn(consts, x) || declared.has(x) || (toks[p + 1]?.text === ':' && isLabel(toks, p))) {
        out.push(x);
        continue;
      }
      throw new NotGenerated(`the step function names ${x}: not a parameter, a local, a constant of the design or an allowed global`);
    }
    return out.join(' ');
  };

  const inner = rewrite(body);
  const lines: string[] = [];
  const cls = (b.constructor as { name?: string }).name?.replace(/[^A-Za-z0-9]/g, '') || 'anonymous';
  lines.push(`return function generated_${cls}${traced ? '_traced' : ''}($p, ${tv}) {`);
  for (const a of usedArrays) {
    lines.push(`const $a${a}$ = $p.arrays[${a}], $a${a}n = $a${a}$.n, $a${a}h = $a${a}$.hd, $a${a}d = $a${a}$.data, $a${a}u = $a${a}$.pushT, $a${a}o = $a${a}$.popT;`);
    lines.push(`let $mv${a} = false;`);
  }
  for (const f of usedFifos) lines.push(`const $f${f} = $p.fifos[${f}], $f${f}n = $f${f}.n, $f${f}h = $f${f}.hd, $f${f}d = $f${f}.data;`, `let $f${f}N = 0, $f${f}H = 0;`);
  for (let m = 0; m < maps.length; m++) lines.push(`const $m${m} = $p.maps[${m}];`);
  for (let r = 0; r < regs.length; r++) lines.push(`const $r${r} = $p.regs[${r}];`);
  for (const [n, v] of Object.entries(consts)) {
    if (typeof v !== 'number') throw new NotGenerated(`constant ${n} is not a number`);
    lines.push(`const ${n} = ${literal(v)};`);
  }
  for (const c of carries) lines.push(`let $cy_${c} = 0, $cp_${c} = 0;`);
  if (temps.length > 0) lines.push(`let ${temps.join(', ')};`);
  lines.push(`let $next = Infinity, $w = 0;`);
  if (ord === 'down') lines.push(`for (let ${iv} = $p.size - 1; ${iv} >= 0; ${iv}--) {`);
  else if (ord === 'up') lines.push(`for (let ${iv} = 0; ${iv} < $p.size; ${iv}++) {`);
  else lines.push(`const $ord = $p.order;`, `for (let $j = 0; $j < $ord.length; $j++) {`, `const ${iv} = $ord[$j];`);
  for (const c of carries) lines.push(`$cp_${c} = $cy_${c}; $cy_${c} = 0;`);
  for (const f of usedFifos) lines.push(`$f${f}N = $f${f}n[${iv}]; $f${f}H = $f${f}h[${iv}];`);
  lines.push(`$w = NaN;`, `$body: { ${inner} }`);
  for (const f of usedFifos) lines.push(`$f${f}n[${iv}] = $f${f}N; $f${f}h[${iv}] = $f${f}H;`);
  lines.push(`if ($w < $next) $next = $w;`, `}`);
  for (const a of usedArrays) lines.push(`if ($mv${a}) $a${a}$.moved = ${tv};`);
  lines.push(`return $next;`, `};`);
  const text = lines.join('\n');
  return { text, plan: { arrays, fifos, maps, regs, order: typeof ord === 'string' ? null : ord, size: b.size } };
}

/** `x:` at the start of a statement (a label), not an object key or a conditional's branch */
function isLabel(toks: Tok[], p: number): boolean {
  const prev = toks[p - 1]?.text;
  return prev === undefined || prev === ';' || prev === '{' || prev === '}';
}
