/**
 * The slot slab: one process-wide Float64Array (SLAB in queues.ts) holding the slots of every
 * channel and FIFO (cycle stamps and numeric payloads) and each simulator's clock entries.
 *
 * Why one array: the hot queue methods index SLAB, a constant of their own module, so V8 compiles
 * each access to a load at a fixed base address, with no typed-array object to fetch and no bounds
 * limit to load; a queue finds "now" at SLAB[ck], its simulator's clock entry, instead of following
 * this.sim.cycle; and the slots of the queues of one design sit side by side in memory. Together
 * this makes queue operations about twice as cheap as with a typed array per queue.
 *
 * Allocation: each simulator takes chunks of CHUNK entries (the first one starts with its clock
 * entry) and hands out consecutive ranges of them to its queues; a queue larger than half a chunk
 * gets a range of its own. Queues start small and grow (see queues.ts), so a queue's storage follows
 * its peak occupancy, not its capacity; the space a queue leaves when it grows is reused. When a simulator is garbage-collected its ranges return to the pool
 * (FinalizationRegistry), so long test runs that create many simulators reuse the space. The slab
 * reserves address space; the operating system commits pages as they are first written.
 */
import { SLAB_SIZE, slabClock, slabZero } from './queues.ts';

const CHUNK = 512;
const SIZE = SLAB_SIZE;

/** free ranges [start, length] sorted by start, coalesced */
const free: number[][] = [];
/** entries [bump, SIZE) were never handed out */
let bump = 0;

function take(n: number, who: string): number {
  for (let i = 0; i < free.length; i++) {
    const r = free[i]!;
    if (r[1]! >= n) {
      const p = r[0]!;
      if (r[1] === n) free.splice(i, 1);
      else {
        r[0] = p + n;
        r[1] = r[1]! - n;
      }
      return p;
    }
  }
  if (bump + n <= SIZE) {
    const p = bump;
    bump += n;
    return p;
  }
  throw new RangeError(
    `netoffload kernel: the slot slab is full (${SIZE} entries for the channels and FIFOs of all live simulators; ` +
      `${n} more requested by ${who}). Drop references to finished simulators, or use fewer or smaller queues.`,
  );
}

function give(p: number, n: number): void {
  let i = 0;
  while (i < free.length && free[i]![0]! < p) i++;
  free.splice(i, 0, [p, n]);
  // coalesce with the next and the previous range
  if (i + 1 < free.length && p + n === free[i + 1]![0]) {
    free[i]![1]! += free[i + 1]![1]!;
    free.splice(i + 1, 1);
  }
  if (i > 0 && free[i - 1]![0]! + free[i - 1]![1]! === p) {
    free[i - 1]![1]! += free[i]![1]!;
    free.splice(i, 1);
  }
}

const registry = new FinalizationRegistry<number[]>((ranges) => {
  for (let i = 0; i < ranges.length; i += 2) give(ranges[i]!, ranges[i + 1]!);
});

/** A simulator's share of the slab: its clock entry and the ranges of its queues. */
export class SlabSpace {
  /** position of the owner's clock entries (its current cycle, and FREE - that cycle: see queues.ts) */
  readonly clock: number;
  /** ranges owned, as start, length pairs (returned to the pool when the owner is collected) */
  private readonly ranges: number[] = [];
  private top = 0;
  private lim = 0;
  /** freed parts of chunks, by length (queues that grew left them) */
  private readonly bins = new Map<number, number[]>();

  constructor(
    owner: object,
    private readonly label: string,
  ) {
    registry.register(owner, this.ranges);
    this.clock = this.alloc(2);
    slabClock(this.clock, 0);
  }

  /** n consecutive entries (zeroed when fresh; reused entries keep their old contents) */
  alloc(n: number): number {
    const bin = this.bins.get(n);
    if (bin !== undefined && bin.length > 0) return bin.pop()!;
    if (this.top + n > this.lim) {
      if (n > CHUNK / 2) return this.range(n);
      this.top = this.range(CHUNK);
      this.lim = this.top + CHUNK;
    }
    const p = this.top;
    this.top += n;
    return p;
  }

  /** Give back n entries from p (allocated by alloc). */
  free(p: number, n: number): void {
    for (let i = 0; i < this.ranges.length; i += 2) {
      if (this.ranges[i] === p && this.ranges[i + 1] === n && n > CHUNK / 2) {
        this.ranges.splice(i, 2);
        give(p, n);
        return;
      }
    }
    let bin = this.bins.get(n);
    if (bin === undefined) this.bins.set(n, (bin = []));
    bin.push(p);
  }

  private range(n: number): number {
    const p = take(n, this.label);
    this.ranges.push(p, n);
    slabZero(p, n);
    return p;
  }

  /** Bytes of the slab this owner holds (its ranges, whole chunks included: they are zeroed, so committed). */
  bytes(): number {
    let n = 0;
    for (let i = 1; i < this.ranges.length; i += 2) n += this.ranges[i]!;
    return 8 * n;
  }

  /** The owner's clock moved to cycle c. */
  setClock(c: number): void {
    slabClock(this.clock, c);
  }
}
