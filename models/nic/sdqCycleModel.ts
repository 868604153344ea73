/**
 * Cycle-level golden model of the SDQ's VP scheduler, buffer and the readout across HDQ and SDQ
 * (docs/nic-frontend.md, "SDQ" and "Readout"), for the scheduler/readout vectors. Shares no code
 * with rtl/: it is written from the documented cycle rules, with its own queue model, and keeps
 * no buffer-entry numbers (only how many entries are free and, per VP, a list of fetches).
 *
 * The scenario's surroundings (what the vector harness drives): doorbells pushed into the SDQ's
 * doorbell channel at given cycles; PIO descriptors pushed into their VP's head channel (each PIO
 * VP's in arrival order, when the channel has room); a responder that takes every descriptor read
 * the cycle after it was issued and answers read k (issue order) with one completion carrying all
 * its bytes, pushed at the earliest cycle >= issue + latency[k] (one per cycle; among due reads
 * the earliest due first, then the earlier issued); a consumer that takes a dispatched descriptor
 * every cycle outside its stall windows, and takes every error at once.
 */

export type ModelPolicy = 'round-robin' | 'fixed-priority' | 'oldest-first';

export interface SchedScenario {
  pioVps: number;
  dmaVps: number;
  depth: number;
  maxReads: number;
  batch: number;
  policy: ModelPolicy;
  /** ring size (entries) of each DMA VP, index j = vp - pioVps; 0 = no ring */
  rings: number[];
  doorbells: { cycle: number; vp: number; count: number }[];
  pio: { cycle: number; vp: number }[];
  /** latency of read k (issue order), >= 2; reads beyond the list use the last value */
  latencies: number[];
  /** [start, end): the consumer takes nothing in these cycles */
  stalls: [number, number][];
  cycles: number;
}

export interface SchedOutcome {
  /** [issue cycle, vp, first ring index, entries]; reads issued in the run's last cycle are left out (the responder sees a read a cycle later) */
  reads: [number, number, number, number][];
  /** [readout grant cycle, vp, per-VP seq, ring index (-1 for PIO: its per-VP number instead)] */
  dispatch: [number, number, number, number][];
  /** [cycle, vp, kind] with kind 12 sdq_overflow, 13 sdq_unregistered */
  errors: [number, number, number][];
}

/** A registered channel: a push at t is visible from t + lat; a pop frees room from t + 1. */
class Q<T> {
  private items: { v: T; vis: number }[] = [];
  private popCycle = -1;
  private popsThen = 0;
  constructor(
    private readonly cap: number,
    private readonly lat: number,
  ) {}
  canPop(t: number): boolean {
    return this.items.length > 0 && this.items[0]!.vis <= t;
  }
  canPush(t: number): boolean {
    return this.items.length + (this.popCycle === t ? this.popsThen : 0) < this.cap;
  }
  push(t: number, v: T): void {
    if (!this.canPush(t)) throw new Error('model: push into a full queue');
    this.items.push({ v, vis: t + this.lat });
  }
  pop(t: number): T {
    if (!this.canPop(t)) throw new Error('model: pop from an empty queue');
    if (this.popCycle !== t) {
      this.popCycle = t;
      this.popsThen = 0;
    }
    this.popsThen++;
    return this.items.shift()!.v;
  }
}

interface Fetch {
  vp: number;
  index: number;
  filled: boolean;
}
interface Head {
  vp: number;
  seq: number;
  index: number;
}

export function runSchedModel(s: SchedScenario): SchedOutcome {
  const P = s.pioVps;
  const D = s.dmaVps;
  const N = P + D;
  const out: SchedOutcome = { reads: [], dispatch: [], errors: [] };
  // channels
  const dbQ = new Q<{ vp: number; count: number }>(4, 1);
  const readQ = new Q<{ k: number; fetches: Fetch[] }>(4, 1);
  const cplQ = new Q<{ k: number }>(64, 1);
  const heads = Array.from({ length: N }, () => new Q<Head>(2, 1));
  const outQ = new Q<Head & { grant: number }>(2, 1);
  const errQ = new Q<[number, number, number]>(4, 1);
  // harness state
  const pioWaiting: number[] = Array.from({ length: P }, () => 0);
  const pioSeq: number[] = Array.from({ length: P }, () => 0);
  const responding: { k: number; due: number; fetches: Fetch[] }[] = [];
  let readsSeen = 0;
  const latency = (k: number): number => s.latencies[Math.min(k, s.latencies.length - 1)]!;
  // SDQ state
  const vp = Array.from({ length: D }, (_, j) => ({
    size: 0,
    latched: false,
    next: 0, // ring index of the next fetch
    ready: 0, // announced, not requested
    pending: 0, // announced, not fetched
    list: [] as Fetch[], // reserved entries in ring order
    seq: 0,
    stamp: 0,
    j,
  }));
  let free = s.depth;
  let readsOut = 0;
  const readsInFlight = new Map<number, Fetch[]>();
  let rrSched = 0;
  let rrOut = 0;
  let issued = 0;
  const stalled = (t: number): boolean => s.stalls.some(([a, b]) => t >= a && t < b);
  let di = 0;
  let pi = 0;

  for (let t = 0; t < s.cycles; t++) {
    // ---- harness: doorbells and PIO descriptors
    while (di < s.doorbells.length && s.doorbells[di]!.cycle === t) {
      const d = s.doorbells[di++]!;
      dbQ.push(t, { vp: d.vp, count: d.count });
    }
    while (pi < s.pio.length && s.pio[pi]!.cycle === t) pioWaiting[s.pio[pi++]!.vp]!++;
    for (let v = 0; v < P; v++) {
      if (pioWaiting[v]! > 0 && heads[v]!.canPush(t)) {
        heads[v]!.push(t, { vp: v, seq: pioSeq[v]!, index: -1 });
        pioSeq[v]!++;
        pioWaiting[v]!--;
      }
    }
    // ---- harness: responder
    if (readQ.canPop(t)) {
      const r = readQ.pop(t);
      responding.push({ k: r.k, due: t - 1 + latency(readsSeen), fetches: r.fetches });
      readsSeen++;
    }
    let best = -1;
    for (let i = 0; i < responding.length; i++) {
      const x = responding[i]!;
      if (x.due <= t && (best < 0 || x.due < responding[best]!.due || (x.due === responding[best]!.due && x.k < responding[best]!.k))) best = i;
    }
    if (best >= 0) {
      cplQ.push(t, { k: responding[best]!.k });
      responding.splice(best, 1);
    }
    // ---- SDQ, stage 1: issue
    if (readsOut < s.maxReads && free > 0 && readQ.canPush(t)) {
      const cands = vp.filter((x) => x.ready > 0);
      let g: (typeof vp)[number] | undefined;
      if (cands.length > 0) {
        if (s.policy === 'fixed-priority') g = cands[0];
        else if (s.policy === 'oldest-first') g = cands.reduce((a, b) => (b.stamp < a.stamp ? b : a));
        else g = cands.find((x) => x.j >= rrSched) ?? cands[0];
      }
      if (g) {
        if (s.policy === 'round-robin') rrSched = (g.j + 1) % D;
        const n = Math.min(g.ready, s.batch, g.size - g.next, free);
        const fetches: Fetch[] = [];
        for (let m = 0; m < n; m++) fetches.push({ vp: P + g.j, index: g.next + m, filled: false });
        g.list.push(...fetches);
        out.reads.push([t, P + g.j, g.next, n]);
        readQ.push(t, { k: issued, fetches });
        readsInFlight.set(issued, fetches);
        issued++;
        readsOut++;
        free -= n;
        g.next = (g.next + n) % g.size;
        g.ready -= n;
        if (g.ready > 0) g.stamp = t + 0.5; // behind every VP that became a candidate up to t
      }
    }
    // ---- SDQ, stage 2: list heads into head channels
    for (const x of vp) {
      const f = x.list[0];
      if (f && f.filled && heads[P + x.j]!.canPush(t)) {
        heads[P + x.j]!.push(t, { vp: P + x.j, seq: x.seq++, index: f.index });
        x.list.shift();
        free++;
      }
    }
    // ---- SDQ, stage 3: one completion
    if (cplQ.canPop(t)) {
      const { k } = cplQ.pop(t);
      const fs = readsInFlight.get(k)!;
      readsInFlight.delete(k);
      for (const f of fs) {
        f.filled = true;
        vp[f.vp - P]!.pending--;
      }
      readsOut--;
    }
    // ---- SDQ, stage 4: one doorbell (errors always have room: the consumer drains them)
    if (dbQ.canPop(t) && errQ.canPush(t)) {
      const d = dbQ.pop(t);
      const j = d.vp - P;
      if (j < 0 || j >= D) errQ.push(t, [t, d.vp, 13]);
      else {
        const x = vp[j]!;
        if (x.pending === 0 && (!x.latched || x.size !== s.rings[j])) {
          x.size = s.rings[j]!;
          x.latched = true;
          x.next = 0;
        }
        if (x.size === 0) errQ.push(t, [t, d.vp, 13]);
        else if (x.pending + d.count > x.size) errQ.push(t, [t, d.vp, 12]);
        else {
          if (x.ready === 0) x.stamp = t;
          x.ready += d.count;
          x.pending += d.count;
        }
      }
    }
    // ---- readout
    if (outQ.canPush(t)) {
      for (let k = 0; k < N; k++) {
        const v = (rrOut + k) % N;
        if (heads[v]!.canPop(t)) {
          const h = heads[v]!.pop(t);
          outQ.push(t, { ...h, grant: t });
          rrOut = (v + 1) % N;
          break;
        }
      }
    }
    // ---- consumer
    if (!stalled(t) && outQ.canPop(t)) {
      const h = outQ.pop(t);
      out.dispatch.push([h.grant, h.vp, h.seq, h.index]);
    }
    while (errQ.canPop(t)) out.errors.push(errQ.pop(t));
  }
  // the responder observes a read the cycle after its issue: one issued in the last cycle is not seen
  out.reads = out.reads.filter((r) => r[0] < s.cycles - 1);
  return out;
}
