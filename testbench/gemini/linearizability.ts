/**
 * Linearizability checker for one 64-bit word under AMOs (Wing & Gong's search, with Lowe's
 * memoisation as the pruning): is there a serial order of all operations that (1) keeps each
 * initiator's program order, (2) keeps real-time order (an operation that responded before another
 * was invoked comes first), (3) explains every fetched value (each fetching operation returns the
 * word's value just before it in the order), and (4) ends in the observed final value?
 *
 * The search extends a prefix one operation at a time. Its state is the per-initiator frontier
 * (how many of each initiator's operations are placed) plus the word's value; the set of visited
 * states is remembered, so two prefixes that reach the same frontier with the same value are
 * explored once (the pruning that makes a few hundred operations feasible). A candidate is the
 * next operation of some initiator whose invocation is not after the earliest response among all
 * unplaced operations (responses of one initiator come in program order, so that minimum is over
 * the initiators' next operations).
 */
export interface HistoryOp {
  initiator: number;
  invoke: number;
  response: number;
  /** new value given the old one */
  apply: (old: bigint) => bigint;
  /** the value returned (fetching operations only) */
  fetched?: bigint;
  label?: string;
}

export interface LinResult {
  ok: boolean;
  /** states explored */
  states: number;
  /** a witness order (indices into each initiator's list, as [initiator, position]) when ok */
  order?: [number, number][];
}

/** `byInitiator[i]` is initiator i's operations in program order. */
export function checkLinearizable(byInitiator: HistoryOp[][], initial: bigint, final: bigint, maxStates = 2_000_000): LinResult {
  const n = byInitiator.length;
  const total = byInitiator.reduce((s, l) => s + l.length, 0);
  const front = new Array<number>(n).fill(0);
  const seen = new Set<string>();
  const order: [number, number][] = [];
  let states = 0;

  const dfs = (value: bigint, placed: number): boolean => {
    if (placed === total) return value === final;
    const key = `${front.join(',')}:${value.toString(16)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    if (++states > maxStates) throw new Error(`linearizability search gave up after ${maxStates} states`);
    let minResp = Infinity;
    for (let i = 0; i < n; i++) {
      const op = byInitiator[i]![front[i]!];
      if (op !== undefined && op.response < minResp) minResp = op.response;
    }
    for (let i = 0; i < n; i++) {
      const op = byInitiator[i]![front[i]!];
      if (op === undefined || op.invoke > minResp) continue;
      if (op.fetched !== undefined && op.fetched !== value) continue;
      front[i]!++;
      order.push([i, front[i]! - 1]);
      if (dfs(op.apply(value), placed + 1)) return true;
      order.pop();
      front[i]!--;
    }
    return false;
  };
  const ok = dfs(initial, 0);
  return ok ? { ok, states, order: [...order] } : { ok, states };
}
