/**
 * Golden model of CORE-Direct (seed 001), written independently of rtl/coredirect (no shared code):
 * the recursive-doubling schedule, the MWR posting rule, and an untimed task machine that runs
 * posted queues in any order the dependencies allow. Tasks and queues are plain strings and
 * objects here, on purpose a different representation from the RTL's.
 */

export type GoldenStep = { kind: 'signal' | 'await'; peer: number };

/** The seed's recursive doubling (section IV) for m ranks, rank r. */
export function goldenSchedule(m: number, r: number): GoldenStep[] {
  const L = Math.floor(Math.log2(m));
  const n = 2 ** L;
  const steps: GoldenStep[] = [];
  const extra = m - n;
  if (r >= n) return [{ kind: 'signal', peer: r - n }, { kind: 'await', peer: r - n }];
  if (r < extra) steps.push({ kind: 'await', peer: r + n });
  for (let l = 0; l < L; l++) {
    const partner = r ^ (1 << l);
    steps.push({ kind: 'signal', peer: partner }, { kind: 'await', peer: partner });
  }
  if (r < extra) steps.push({ kind: 'signal', peer: r + n });
  return steps;
}

/** An MWR task in the golden model's own words. */
export type GTask =
  | { op: 'send' | 'write_imm' | 'write' | 'recv'; qp: number; signal?: boolean }
  | { op: 'wait'; queue: number | null; cq: number; count: number; signal?: boolean }
  | { op: 'send_enable' | 'recv_enable'; qp: number; upTo: number; signal?: boolean };

/** A queue entry after posting. */
export interface GEntry {
  op: string;
  qp?: number;
  cq?: number;
  count?: number;
  upTo?: number;
  enabledAtPost: boolean;
  signal: boolean;
}

/** The queues of one process: 'mq', 'sq<qp>', 'rq<qp>'. */
export type GQueues = Map<string, GEntry[]>;

/**
 * The posting rule, from the seed's text and Tables II-IV: in order; waits with no queue to the
 * MQ; sends/writes/receives to their QP, disabled once an MQ wait came before them in the MWR, each
 * followed by its enable (send_enable / recv_enable up to its own index) in the MQ.
 */
export function goldenPost(tasks: readonly GTask[], queues: GQueues): void {
  const q = (name: string): GEntry[] => {
    let l = queues.get(name);
    if (!l) queues.set(name, (l = []));
    return l;
  };
  let gated = false;
  for (const t of tasks) {
    const signal = t.signal === true;
    if (t.op === 'wait') {
      if (t.queue === null) {
        q('mq').push({ op: 'wait', cq: t.cq, count: t.count, enabledAtPost: true, signal });
        gated = true;
      } else q(`sq${t.queue}`).push({ op: 'wait', cq: t.cq, count: t.count, enabledAtPost: true, signal });
    } else if (t.op === 'send_enable' || t.op === 'recv_enable') {
      q('mq').push({ op: t.op, qp: t.qp, upTo: t.upTo, enabledAtPost: true, signal });
    } else {
      const name = `${t.op === 'recv' ? 'rq' : 'sq'}${t.qp}`;
      const list = q(name);
      list.push({ op: t.op, qp: t.qp, enabledAtPost: !gated, signal });
      q('mq').push({ op: t.op === 'recv' ? 'recv_enable' : 'send_enable', qp: t.qp, upTo: list.length - 1, enabledAtPost: true, signal: false });
    }
  }
}

/** One rank of the untimed machine: its queues, links (qp -> [peer rank, peer qp]) and CQ counts. */
export interface GRank {
  queues: GQueues;
  link: Map<number, [number, number]>;
  /** cq number of the send CQ and the MQ CQ (receive CQ of qp = qp) */
  sendCq: number;
}

export interface GOutcome {
  /** per rank: number of signalled completions */
  signals: number[];
  /** per rank: error text, if an enable named an entry never posted */
  errors: (string | null)[];
  /** per rank and queue: how many entries were executed/consumed */
  consumed: Map<string, number>[];
  /** per rank and CQ: completions produced */
  completions: Map<number, number>[];
  /** per rank, per queue: order of executed entries (index list), for the no-early-enable check */
  steps: number;
}

/**
 * Run every rank's posted queues to quiescence, taking any eligible head each step (the order is
 * chosen by `pick`, e.g. random): the end state must not depend on it.
 */
export function goldenRun(ranks: GRank[], pick: (n: number) => number): GOutcome {
  const R = ranks.length;
  const head = ranks.map(() => new Map<string, number>());
  const enabledTo = ranks.map(() => new Map<string, number>());
  const cqCount = ranks.map(() => new Map<number, number>());
  const cqTaken = ranks.map(() => new Map<number, number>());
  const inflight = ranks.map(() => new Map<number, string[]>()); // qp -> arrived packet kinds not yet taken
  const signals = new Array<number>(R).fill(0);
  const errors: (string | null)[] = new Array<string | null>(R).fill(null);
  const get = <K>(m: Map<K, number>, k: K): number => m.get(k) ?? 0;
  let steps = 0;
  for (;;) {
    const moves: (() => void)[] = [];
    for (let r = 0; r < R; r++) {
      const rk = ranks[r]!;
      for (const [name, list] of rk.queues) {
        if (name.startsWith('rq')) continue;
        if (name === 'mq' && errors[r] !== null) continue;
        const h = get(head[r]!, name);
        const e = list[h];
        if (!e) continue;
        if (!e.enabledAtPost && h >= get(enabledTo[r]!, name)) continue;
        if (e.op === 'wait' && get(cqCount[r]!, e.cq!) - get(cqTaken[r]!, e.cq!) < e.count!) continue;
        moves.push(() => {
          head[r]!.set(name, h + 1);
          if (e.op === 'wait') cqTaken[r]!.set(e.cq!, get(cqTaken[r]!, e.cq!) + e.count!);
          else if (e.op === 'send_enable' || e.op === 'recv_enable') {
            const target = `${e.op === 'send_enable' ? 'sq' : 'rq'}${e.qp}`;
            if (e.upTo! >= (rk.queues.get(target)?.length ?? 0)) {
              errors[r] = `${target} entry ${e.upTo} never posted`;
              return;
            }
            enabledTo[r]!.set(target, Math.max(get(enabledTo[r]!, target), e.upTo! + 1));
          } else {
            const [peer, pqp] = rk.link.get(e.qp!)!;
            const l = inflight[peer]!.get(pqp) ?? [];
            l.push(e.op);
            inflight[peer]!.set(pqp, l);
            cqCount[r]!.set(rk.sendCq, get(cqCount[r]!, rk.sendCq) + 1);
          }
          if (e.signal) signals[r]!++;
        });
      }
      for (const [qp, pk] of inflight[r]!) {
        if (pk.length === 0) continue;
        const kind = pk[0]!;
        const rq = `rq${qp}`;
        if (kind === 'send') {
          const h = get(head[r]!, rq);
          const e = rk.queues.get(rq)?.[h];
          if (!e || (!e.enabledAtPost && h >= get(enabledTo[r]!, rq))) continue;
        }
        moves.push(() => {
          pk.shift();
          if (kind === 'send') head[r]!.set(rq, get(head[r]!, rq) + 1);
          if (kind !== 'write') cqCount[r]!.set(qp, get(cqCount[r]!, qp) + 1);
        });
      }
    }
    if (moves.length === 0) break;
    moves[pick(moves.length)]!();
    steps++;
  }
  return { signals, errors, consumed: head, completions: cqCount, steps };
}

/**
 * The order one rank's executed entries must respect, from its posted queues and how many entries
 * of each queue ran (goldenRun's `consumed`): for every executed entry, named `<queue>.<index>`,
 * the events that must have happened strictly before it:
 * - the previous entry of its own queue (queues run in order);
 * - for an entry posted disabled, the MQ enable that first reached its index (`mq.<k>`);
 * - for a wait, the completion that makes its count (`cq<c>#<n>`: the n-th completion on CQ c since
 *   the start, n the completions this wait and the earlier waits on c consumed).
 * Waits on one CQ must all sit in one queue (otherwise which completions a wait consumes depends on
 * timing); an Error says so.
 */
export function goldenOrder(queues: GQueues, consumed: Map<string, number>): Map<string, string[]> {
  const order = new Map<string, string[]>();
  const cqQueue = new Map<number, string>();
  const taken = new Map<number, number>();
  const mq = queues.get('mq') ?? [];
  for (const [name, list] of [...queues].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    const n = consumed.get(name) ?? 0;
    for (let i = 0; i < n; i++) {
      const e = list[i]!;
      const before: string[] = [];
      if (i > 0) before.push(`${name}.${i - 1}`);
      if (!e.enabledAtPost) {
        const want = name.startsWith('sq') ? 'send_enable' : 'recv_enable';
        const k = mq.findIndex((m) => m.op === want && `${name.slice(0, 2)}${m.qp}` === name && m.upTo! >= i && m.upTo! < list.length);
        if (k < 0 || k >= (consumed.get('mq') ?? 0)) throw new Error(`golden order: ${name}.${i} ran but no MQ enable reaches it`);
        before.push(`mq.${k}`);
      }
      if (e.op === 'wait') {
        const owner = cqQueue.get(e.cq!) ?? name;
        if (owner !== name) throw new Error(`golden order: waits on CQ ${e.cq} in ${owner} and ${name}: which completions each consumes depends on timing`);
        cqQueue.set(e.cq!, name);
        const t = (taken.get(e.cq!) ?? 0) + e.count!;
        taken.set(e.cq!, t);
        before.push(`cq${e.cq}#${t}`);
      }
      order.set(`${name}.${i}`, before);
    }
  }
  return order;
}

/** The MWR checks the driver makes before posting anything (the golden model's own reading). */
export function goldenReject(tasks: readonly { op: string; qp: number; cq?: number; count?: number; upTo?: number }[], qps: number, limit: number): 'empty' | 'too_long' | 'unknown_kind' | 'bad_field' | null {
  if (tasks.length === 0) return 'empty';
  if (tasks.length > limit) return 'too_long';
  const known = ['send', 'write_imm', 'write', 'recv', 'wait', 'send_enable', 'recv_enable'];
  for (const t of tasks) {
    if (!known.includes(t.op)) return 'unknown_kind';
    if (t.op === 'wait') {
      if (t.qp !== -1 && !(t.qp >= 0 && t.qp < qps)) return 'bad_field';
      if (!(t.cq! >= 0 && t.cq! <= qps + 1) || !(t.count! >= 1 && t.count! <= 0xffff)) return 'bad_field';
    } else if (!(t.qp >= 0 && t.qp < qps)) return 'bad_field';
    else if ((t.op === 'send_enable' || t.op === 'recv_enable') && !(t.upTo! >= 0)) return 'bad_field';
  }
  return null;
}
