/**
 * The benchmark ring of rtl/examples/ring.ts in bare JavaScript, without the kernel: the baselines
 * of goal 1 of issue 17 ("the kernel ring at >= 0.9 of the fastest bare hand-written ring").
 * Same hardware, same cycle behaviour, same checks as the kernel ring and bench/verilog/ring.sv:
 *
 * - the source emits one token per cycle (data = cycle number) into channel 0 when it has room,
 *   takes back every token visible on channel N and checks that it equals its emitted value + N,
 *   in order;
 * - stage k (1..N) moves the head of channel k - 1 into its 16-entry FIFO when the FIFO has room,
 *   and the FIFO's head + 1 into channel k when that has room;
 * - a channel is a 2-entry FIFO (capacity 2, latency 1): a push in cycle t can be popped from
 *   t + 1, and a pop frees its slot from t + 1 (the producer sees the pop one cycle late); a stage
 *   FIFO behaves the same way. Every decision uses the state at the start of the cycle.
 *
 * Two versions, both measured by the kernel suite (the goal uses the faster one):
 * - `class`: what the issue describes: an object per stage holding a Uint32Array(16) FIFO with its
 *   head and count and the stage's output channel (a Uint32Array(2) with head and count), an
 *   eval() loop over all stages computing the next values (take / give), then a commit() loop
 *   applying them;
 * - `flat`: all state in typed arrays (structure of arrays) and one fused pass per cycle, stages
 *   visited from the last to the first so that every stage still sees its input channel as at the
 *   start of the cycle, with the one-cycle credit kept as "popped by the consumer this cycle".
 * Tokens are 32 bits (as in ring.sv); a run would have to pass 2^32 cycles to wrap.
 */

const DEPTH = 16;
const CAP = 2;

export interface BareRing {
  /** simulate n more cycles */
  step(n: number): void;
  /** cycles simulated, tokens back at the source, wrong ones among them */
  counts(): { cycle: number; received: number; errors: number };
}

/**
 * The source's record of the tokens in flight (a power-of-two ring big enough for every token the
 * ring can hold) and its check of the returning ones. Called once or twice per cycle, not per stage.
 */
class Source {
  private readonly sent: Uint32Array;
  private readonly mask: number;
  private head = 0;
  private tail = 0;
  cycle = 0;
  received = 0;
  errors = 0;

  constructor(private readonly stages: number) {
    let size = 1024;
    while (size < (DEPTH + CAP) * (stages + 1)) size *= 2;
    this.sent = new Uint32Array(size);
    this.mask = size - 1;
  }

  emit(t: number): void {
    this.sent[this.tail] = t;
    this.tail = (this.tail + 1) & this.mask;
  }

  back(v: number): void {
    if (v !== ((this.sent[this.head]! + this.stages) >>> 0)) this.errors++;
    this.head = (this.head + 1) & this.mask;
    this.received++;
  }

  counts(): { cycle: number; received: number; errors: number } {
    return { cycle: this.cycle, received: this.received, errors: this.errors };
  }
}

function checkStages(stages: number): void {
  if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`ring needs at least one stage, got ${stages}`);
}

/** One stage of the `class` version: its FIFO, its output channel and the decisions of the cycle. */
class Stage {
  readonly fifo = new Uint32Array(DEPTH);
  head = 0;
  count = 0;
  readonly ch = new Uint32Array(CAP);
  chHead = 0;
  chCount = 0;
  /** decisions of this cycle (eval), applied by commit */
  take = false;
  give = false;
  /** the stage feeding this one (its channel is this stage's input); set after construction */
  prev: Stage = this;

  eval(): void {
    this.take = this.prev.chCount !== 0 && this.count !== DEPTH;
    this.give = this.count !== 0 && this.chCount !== CAP;
  }

  commit(): void {
    if (this.give) {
      const v = this.fifo[this.head]! + 1;
      this.head = (this.head + 1) & (DEPTH - 1);
      this.count--;
      this.ch[(this.chHead + this.chCount) & (CAP - 1)] = v;
      this.chCount++;
    }
    if (this.take) {
      const p = this.prev;
      const v = p.ch[p.chHead]!;
      p.chHead = (p.chHead + 1) & (CAP - 1);
      p.chCount--;
      this.fifo[(this.head + this.count) & (DEPTH - 1)] = v;
      this.count++;
    }
  }
}

/** The `class` version: an object per stage, eval() over all stages, then commit() over all. */
export function buildClassRing(stages: number): BareRing {
  checkStages(stages);
  // list[0] is the source's output channel (only its ch fields are used); list[k] is stage k
  const list: Stage[] = [];
  for (let i = 0; i <= stages; i++) list.push(new Stage());
  for (let i = 1; i <= stages; i++) list[i]!.prev = list[i - 1]!;
  const src = list[0]!;
  const last = list[stages]!;
  const source = new Source(stages);

  function step(cycles: number): void {
    const end = source.cycle + cycles;
    for (let t = source.cycle; t < end; t++) {
      // eval: every decision from the state at the start of the cycle
      const back = last.chCount; // tokens visible to the source
      const emit = src.chCount !== CAP;
      for (let i = 1; i <= stages; i++) list[i]!.eval();
      // commit
      for (let i = 1; i <= stages; i++) list[i]!.commit();
      for (let k = 0; k < back; k++) {
        const v = last.ch[last.chHead]!;
        last.chHead = (last.chHead + 1) & (CAP - 1);
        last.chCount--;
        source.back(v);
      }
      if (emit) {
        src.ch[(src.chHead + src.chCount) & (CAP - 1)] = t;
        src.chCount++;
        source.emit(t);
      }
    }
    source.cycle = end;
  }

  return { step, counts: () => source.counts() };
}

/** The `flat` version: typed arrays and one fused pass per cycle from the last stage to the first. */
export function buildFlatRing(stages: number): BareRing {
  checkStages(stages);
  // stage k (1..N): FIFO data at k * DEPTH, head fh[k], count fc[k]; channel k (0 = the source's)
  // data at k * CAP, head chh[k], count chc[k]
  const fd = new Uint32Array((stages + 1) * DEPTH);
  const fh = new Int32Array(stages + 1);
  const fc = new Int32Array(stages + 1);
  const cd = new Uint32Array((stages + 1) * CAP);
  const chh = new Int32Array(stages + 1);
  const chc = new Int32Array(stages + 1);
  const source = new Source(stages);

  function step(cycles: number): void {
    const end = source.cycle + cycles;
    for (let t = source.cycle; t < end; t++) {
      // the source takes back every visible token (all of channel N: nothing was pushed yet this cycle)
      let popped = chc[stages]!;
      for (let k = 0; k < popped; k++) {
        const h = chh[stages]!;
        chh[stages] = (h + 1) & (CAP - 1);
        source.back(cd[stages * CAP + h]!);
      }
      chc[stages] = 0;
      // stages N..1: channel k - 1 is still as at the start of the cycle; channel k's start-of-cycle
      // count is its count now plus what its consumer popped this cycle (the registered credit)
      for (let k = stages; k >= 1; k--) {
        const outStart = chc[k]! + popped;
        let n = fc[k]!;
        let h = fh[k]!;
        const base = k * DEPTH;
        if (n !== 0 && outStart !== CAP) {
          const v = fd[base + h]! + 1;
          h = (h + 1) & (DEPTH - 1);
          n--;
          const c = chc[k]!;
          cd[k * CAP + ((chh[k]! + c) & (CAP - 1))] = v;
          chc[k] = c + 1;
        }
        popped = 0;
        const j = k - 1;
        if (chc[j] !== 0 && fc[k] !== DEPTH) {
          const ih = chh[j]!;
          fd[base + ((h + n) & (DEPTH - 1))] = cd[j * CAP + ih]!;
          n++;
          chh[j] = (ih + 1) & (CAP - 1);
          chc[j] = chc[j]! - 1;
          popped = 1;
        }
        fh[k] = h;
        fc[k] = n;
      }
      // the source emits when channel 0 had room at the start of the cycle
      const c0 = chc[0]!;
      if (c0 + popped !== CAP) {
        cd[(chh[0]! + c0) & (CAP - 1)] = t;
        chc[0] = c0 + 1;
        source.emit(t);
      }
    }
    source.cycle = end;
  }

  return { step, counts: () => source.counts() };
}
