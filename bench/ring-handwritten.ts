/**
 * The benchmark ring written by hand, without the kernel: the baseline the kernel's figure is
 * compared with. Same hardware and the same two-phase timing as rtl/examples/ring.ts:
 *
 * - stage 0 emits one token per cycle (data = cycle number) and checks the tokens that come back
 *   (each must equal its emitted value + N, in order);
 * - each of the N stages pops a token from its input channel when its 16-entry FIFO has room and
 *   forwards the FIFO's head with data + 1 over a channel of capacity 2 and latency 1;
 * - a channel push in cycle t is poppable from t + 1, and the producer sees a pop one cycle late
 *   (registered credit); a FIFO push in t is poppable from t + 1 and a FIFO pop frees its slot
 *   from t + 1. So the result does not depend on the order the stages are evaluated in.
 *
 * Plain code as one would write it for one design: an object per channel and per FIFO with typed
 * arrays, cycle stamps for the two-phase rules, every stage evaluated every cycle, everything in
 * one loop (no components, no scheduler, no calls).
 */

const FIFO_DEPTH = 16;
const CHANNEL_CAPACITY = 2;

interface Chan {
  /** payload and cycle from which it can be popped, per slot */
  data: Float64Array;
  ready: Float64Array;
  head: number;
  n: number;
  /** cycle of the last pop and pops in it (the producer sees them one cycle late) */
  popT: number;
  popN: number;
}

interface Queue {
  data: Float64Array;
  head: number;
  n: number;
  pushT: number;
  pushN: number;
  popT: number;
  popN: number;
}

export interface HandRing {
  /** simulate n more cycles */
  step(n: number): void;
  readonly cycle: number;
  readonly received: number;
  readonly errors: number;
}

export function buildHandRing(stages: number): HandRing {
  if (!Number.isInteger(stages) || stages < 1) throw new RangeError(`ring needs at least one stage, got ${stages}`);
  // channel i goes from stage i to stage i + 1; channel `stages` returns to stage 0
  const ch: Chan[] = [];
  for (let i = 0; i <= stages; i++) ch.push({ data: new Float64Array(CHANNEL_CAPACITY), ready: new Float64Array(CHANNEL_CAPACITY), head: 0, n: 0, popT: -1, popN: 0 });
  const q: Queue[] = [];
  for (let i = 0; i < stages; i++) q.push({ data: new Float64Array(FIFO_DEPTH), head: 0, n: 0, pushT: -1, pushN: 0, popT: -1, popN: 0 });
  let size = 1024;
  while (size < (FIFO_DEPTH + CHANNEL_CAPACITY) * (stages + 1)) size *= 2;
  const sent = new Float64Array(size);
  const mask = size - 1;
  let sentHead = 0;
  let sentTail = 0;
  let received = 0;
  let errors = 0;
  let cycle = 0;

  function step(cycles: number): void {
    const end = cycle + cycles;
    for (let t = cycle; t < end; t++) {
      // stage 0: take back every visible token, then emit one
      const back = ch[stages]!;
      while (back.n > 0 && back.ready[back.head]! <= t) {
        const v = back.data[back.head]!;
        back.head = back.head + 1 === CHANNEL_CAPACITY ? 0 : back.head + 1;
        back.n--;
        if (back.popT !== t) {
          back.popT = t;
          back.popN = 1;
        } else back.popN++;
        if (v !== sent[sentHead]! + stages) errors++;
        sentHead = (sentHead + 1) & mask;
        received++;
      }
      const first = ch[0]!;
      if (first.n + (first.popT === t ? first.popN : 0) < CHANNEL_CAPACITY) {
        let s = first.head + first.n;
        if (s >= CHANNEL_CAPACITY) s -= CHANNEL_CAPACITY;
        first.data[s] = t;
        first.ready[s] = t + 1;
        first.n++;
        sent[sentTail] = t;
        sentTail = (sentTail + 1) & mask;
      }
      // stages 1..N
      for (let i = 0; i < stages; i++) {
        const a = ch[i]!;
        const b = ch[i + 1]!;
        const f = q[i]!;
        // input channel -> FIFO when the head token is visible and the FIFO has room
        if (a.n > 0 && a.ready[a.head]! <= t && f.n + (f.popT === t ? f.popN : 0) < FIFO_DEPTH) {
          const v = a.data[a.head]!;
          a.head = a.head + 1 === CHANNEL_CAPACITY ? 0 : a.head + 1;
          a.n--;
          if (a.popT !== t) {
            a.popT = t;
            a.popN = 1;
          } else a.popN++;
          let s = f.head + f.n;
          if (s >= FIFO_DEPTH) s -= FIFO_DEPTH;
          f.data[s] = v;
          f.n++;
          if (f.pushT !== t) {
            f.pushT = t;
            f.pushN = 1;
          } else f.pushN++;
        }
        // FIFO -> output channel, data + 1, when an entry pushed before t waits and there is credit
        if (f.n - (f.pushT === t ? f.pushN : 0) > 0 && b.n + (b.popT === t ? b.popN : 0) < CHANNEL_CAPACITY) {
          const v = f.data[f.head]!;
          f.head = f.head + 1 === FIFO_DEPTH ? 0 : f.head + 1;
          f.n--;
          if (f.popT !== t) {
            f.popT = t;
            f.popN = 1;
          } else f.popN++;
          let s = b.head + b.n;
          if (s >= CHANNEL_CAPACITY) s -= CHANNEL_CAPACITY;
          b.data[s] = v + 1;
          b.ready[s] = t + 1;
          b.n++;
        }
      }
    }
    cycle = end;
  }

  return {
    step,
    get cycle() {
      return cycle;
    },
    get received() {
      return received;
    },
    get errors() {
      return errors;
    },
  };
}
