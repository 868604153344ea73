/**
 * CORE-Direct's small parts, the cases mutation testing (docs/verification.md) found unchecked:
 * the HCA parameters at every bound with their messages; the task and queue numbering; the
 * recursive-doubling schedule and MWR against the golden model's schedule for every rank of every
 * size up to 160 (and some larger); the driver's task checks at every bound with their messages and
 * against the golden model's checks; the work queue against a plain list model of its pointers
 * (posting, enabling, consuming, growth past its storage); the pending arbiter against a plain
 * round-robin model. The properties run with a fixed seed: @fast-check/vitest puts the seed in the
 * test's name, and Stryker re-runs a mutant's covering tests by name, so a property with a random
 * seed is never run against a mutant (it counts as survived).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Component, NEVER, Simulator } from '../../rtl/kernel/index.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { HCA_DEFAULTS, hcaParams, type HcaParams } from '../../rtl/coredirect/params.ts';
import { barrierMwr, barrierOps, barrierPeers, checkProcs, MAX_PROCS } from '../../rtl/coredirect/barrier.ts';
import { MwrError, postMwr, postReceives, postSend, QueueHeads, taskProblem } from '../../rtl/coredirect/driver.ts';
import { WorkQueue } from '../../rtl/coredirect/workQueue.ts';
import { PendingArbiter } from '../../rtl/coredirect/pendingArbiter.ts';
import {
  F_DISABLED,
  F_SIGNAL,
  type MwrTask,
  mqCq,
  NULL_QUEUE,
  type PostedEntry,
  Q_MQ,
  queueName,
  recvCq,
  rqId,
  sendCq,
  sqId,
  T_RDMA_WRITE,
  T_RDMA_WRITE_IMM,
  T_RECV,
  T_RECV_ENABLE,
  T_SEND,
  T_SEND_ENABLE,
  T_WAIT,
  TASK_NAMES,
  task,
} from '../../rtl/coredirect/tasks.ts';
import { goldenReject, goldenSchedule } from '../../models/coredirect/golden.ts';

class Owner extends Component {
  tick(): number {
    return NEVER;
  }
}

describe('HCA parameters', () => {
  const limits: [keyof HcaParams, number, number][] = [
    ['sqLength', 1, 1 << 24],
    ['rqLength', 1, 1 << 24],
    ['mqLength', 1, 1 << 24],
    ['taskNs', 1, 1e7],
    ['ctxMissNs', 0, 1e7],
    ['ctxEntries', 1, 1 << 20],
    ['rxNs', 1, 1e7],
    ['rqFetchNs', 0, 1e7],
    ['wireNs', 1, 1e7],
    ['loopbackNs', 1, 1e7],
    ['pcieNs', 1, 1e7],
  ];

  it('the defaults', () => {
    expect(hcaParams()).toEqual({ sqLength: 16000, rqLength: 16000, mqLength: 16000, taskNs: 129, ctxMissNs: 138, ctxEntries: 64, rxNs: 250, rqFetchNs: 100, wireNs: 700, loopbackNs: 300, pcieNs: 400 });
    expect(hcaParams()).toEqual(HCA_DEFAULTS);
    expect(hcaParams({})).not.toBe(HCA_DEFAULTS);
  });

  it('every parameter at both bounds is taken; just outside, a fraction or not a number is an InputError naming it', () => {
    for (const [k, lo, hi] of limits) {
      expect(hcaParams({ [k]: lo })[k], k).toBe(lo);
      expect(hcaParams({ [k]: hi })[k], k).toBe(hi);
      // the others keep their defaults
      expect({ ...hcaParams({ [k]: lo }), [k]: HCA_DEFAULTS[k] }).toEqual(HCA_DEFAULTS);
      for (const bad of [lo - 1, hi + 1, lo + 0.5, '3' as unknown as number]) {
        let err: unknown;
        try {
          hcaParams({ [k]: bad });
        } catch (e) {
          err = e;
        }
        expect(err, `${k} = ${String(bad)}`).toBeInstanceOf(InputError);
        expect((err as Error).message).toBe(`HCA parameter ${k} must be an integer in [${lo}, ${hi}], got ${String(bad)}`);
      }
    }
  });

  it('an unknown parameter is an InputError listing the parameters', () => {
    expect(() => hcaParams({ wire: 3 } as unknown as Partial<HcaParams>)).toThrow(InputError);
    expect(() => hcaParams({ wire: 3 } as unknown as Partial<HcaParams>)).toThrow(`unknown HCA parameter 'wire' (parameters: ${limits.map((l) => l[0]).join(', ')})`);
  });
});

describe('task and queue numbering', () => {
  it('opcodes, names, completion queues, queue ids and names', () => {
    expect([T_SEND, T_RDMA_WRITE_IMM, T_RDMA_WRITE, T_RECV, T_WAIT, T_SEND_ENABLE, T_RECV_ENABLE]).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(TASK_NAMES).toEqual(['send', 'rdma_write_imm', 'rdma_write', 'recv', 'wait', 'send_enable', 'recv_enable']);
    expect([F_SIGNAL, F_DISABLED, NULL_QUEUE, Q_MQ]).toEqual([1, 2, -1, -1]);
    expect([recvCq(3), sendCq(3), mqCq(3)]).toEqual([3, 3, 4]);
    expect([sqId(5), rqId(5)]).toEqual([10, 11]);
    expect([queueName(Q_MQ), queueName(sqId(0)), queueName(rqId(0)), queueName(sqId(7)), queueName(rqId(12))]).toEqual(['mq', 'sq0', 'rq0', 'sq7', 'rq12']);
    expect(task(T_SEND, 2)).toEqual({ kind: 0, qp: 2, cq: -1, count: 0, index: -1, flags: 0 });
    expect(task(T_WAIT, -1, { cq: 3, count: 2 })).toEqual({ kind: 4, qp: -1, cq: 3, count: 2, index: -1, flags: 0 });
  });
});

describe('recursive-doubling barrier', () => {
  it('every rank of every size 2 .. 160 (and some larger) follows the golden schedule', () => {
    const sizes = [...Array.from({ length: 159 }, (_, i) => i + 2), 255, 256, 257, 1000, 1024, 1025];
    for (const m of sizes)
      for (let r = 0; r < m; r++) {
        const ops = barrierOps(m, r);
        expect(ops.map((o) => ({ kind: o.send ? 'signal' : 'await', peer: o.peer })), `${m}/${r}`).toEqual(goldenSchedule(m, r));
      }
  });

  it('process counts 2 .. 65536 and ranks 0 .. m-1; anything else is an InputError naming it', () => {
    expect(MAX_PROCS).toBe(65536);
    expect(() => checkProcs(2)).not.toThrow();
    expect(() => checkProcs(65536)).not.toThrow();
    for (const m of [1, 65537, 2.5, Number.NaN, 2 ** 53]) {
      expect(() => checkProcs(m)).toThrow(InputError);
      expect(() => checkProcs(m)).toThrow(`process count ${m}: must be an integer in [2, 65536]`);
    }
    expect(barrierOps(65536, 65535)).toHaveLength(32);
    for (const r of [-1, 5, 0.5, Number.NaN]) {
      expect(() => barrierOps(5, r)).toThrow(InputError);
      expect(() => barrierOps(5, r)).toThrow(`rank ${r} out of range [0, 5)`);
    }
    expect(() => barrierOps(1, 0)).toThrow('process count 1');
  });

  it('peers in order of first use; the MWR: a send or RDMA write with immediate per signal, an MQ wait for one completion on the peer QP receive CQ per await, the last task signalled', () => {
    const ops = barrierOps(6, 1); // 6 ranks: rank 1 waits for 5, doubles with 0 and 3, signals 5
    expect(ops).toEqual([
      { send: false, peer: 5 },
      { send: true, peer: 0 },
      { send: false, peer: 0 },
      { send: true, peer: 3 },
      { send: false, peer: 3 },
      { send: true, peer: 5 },
    ]);
    const peers = barrierPeers(ops);
    expect(peers).toEqual([5, 0, 3]);
    const qpOf = (p: number): number => peers.indexOf(p);
    for (const rdma of [false, true]) {
      const kind = rdma ? T_RDMA_WRITE_IMM : T_SEND;
      expect(barrierMwr(ops, qpOf, rdma)).toEqual([
        task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1 }),
        task(kind, 1),
        task(T_WAIT, NULL_QUEUE, { cq: 1, count: 1 }),
        task(kind, 2),
        task(T_WAIT, NULL_QUEUE, { cq: 2, count: 1 }),
        task(kind, 0, { flags: F_SIGNAL }),
      ]);
    }
    // an extra rank: signal, then wait; the wait is the signalled task
    expect(barrierMwr(barrierOps(5, 4), () => 0, false)).toEqual([task(T_SEND, 0), task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1, flags: F_SIGNAL })]);
  });
});

describe('driver: task checks', () => {
  const Q = 3;
  const bad = (t: MwrTask): string | null => taskProblem(t, Q);

  it('every field at its bounds, with the message naming it', () => {
    for (const k of [-1, 7, 1.5, Number.NaN]) expect(bad(task(k, 0))).toBe(`unknown task kind ${JSON.stringify(k)} (kinds: ${TASK_NAMES.join(', ')})`);
    expect(bad({ ...task(T_SEND, 0), kind: '0' as unknown as number })).toBe(`unknown task kind "0" (kinds: ${TASK_NAMES.join(', ')})`);
    for (const k of [T_SEND, T_RDMA_WRITE_IMM, T_RDMA_WRITE, T_RECV]) {
      const n = TASK_NAMES[k];
      expect(bad(task(k, 0))).toBeNull();
      expect(bad(task(k, Q - 1))).toBeNull();
      expect(bad(task(k, Q))).toBe(`${n}: QP ${Q} out of range [0, ${Q})`);
      expect(bad(task(k, -1))).toBe(`${n}: QP -1 out of range [0, ${Q})`);
      expect(bad(task(k, 0.5))).toBe(`${n}: QP 0.5 out of range [0, ${Q})`);
      expect(bad(task(k, 0, { flags: F_SIGNAL }))).toBeNull();
      for (const f of [F_DISABLED, 3, 4, -1, 0.5]) expect(bad(task(k, 0, { flags: f }))).toBe(`${n}: flags ${f} (only the signal flag, 1, may be set)`);
      // an index is not checked for these kinds
      expect(bad(task(k, 0, { index: -5 }))).toBeNull();
    }
    for (const k of [T_SEND_ENABLE, T_RECV_ENABLE]) {
      const n = TASK_NAMES[k];
      expect(bad(task(k, 1, { index: 0 }))).toBeNull();
      expect(bad(task(k, 1, { index: 2 ** 40 }))).toBeNull();
      for (const i of [-1, 0.5, 2 ** 53]) expect(bad(task(k, 1, { index: i }))).toBe(`${n}: index ${i} must be a non-negative integer`);
      expect(bad(task(k, Q, { index: 0 }))).toBe(`${n}: QP ${Q} out of range [0, ${Q})`);
      expect(bad(task(k, 0, { index: 0, flags: 2 }))).toBe(`${n}: flags 2 (only the signal flag, 1, may be set)`);
    }
    // waits: queue -1 or a QP; CQ 0 .. qps + 1; count 1 .. 65535; flags and index not checked
    const w = (over: Partial<MwrTask>): string | null => bad(task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1, ...over }));
    for (const qp of [-1, 0, Q - 1]) expect(w({ qp })).toBeNull();
    for (const qp of [-2, Q, 0.5]) expect(w({ qp })).toBe(`wait: queue ${qp} is neither a QP in [0, ${Q}) nor -1 (the management queue)`);
    for (const cq of [0, Q + 1]) expect(w({ cq })).toBeNull();
    for (const cq of [-1, Q + 2, 1.5]) expect(w({ cq })).toBe(`wait: completion queue ${cq} out of range [0, ${Q + 1}]`);
    for (const count of [1, 65535]) expect(w({ count })).toBeNull();
    for (const count of [0, 65536, 1.5]) expect(w({ count })).toBe(`wait: count ${count} must be an integer in [1, 65535]`);
    expect(w({ flags: 6, index: -9 })).toBeNull();
  });

  test.prop([
    fc.array(
      fc.record({
        kind: fc.integer({ min: -1, max: 7 }),
        qp: fc.integer({ min: -2, max: Q }),
        cq: fc.integer({ min: -1, max: Q + 2 }),
        count: fc.integer({ min: 0, max: 3 }),
        index: fc.integer({ min: -1, max: 3 }),
      }),
      { minLength: 0, maxLength: 5 },
    ),
    fc.integer({ min: 1, max: 6 }),
  ], { seed: 19 })('accepts and refuses exactly what the golden model does', (ts, limit) => {
    const tasks = ts.map((t) => ({ ...t, flags: 0 }));
    const ops = ['send', 'write_imm', 'write', 'recv', 'wait', 'send_enable', 'recv_enable'];
    const want = goldenReject(
      tasks.map((t) => ({ op: ops[t.kind] ?? 'bogus', qp: t.qp, cq: t.cq, count: t.count, upTo: t.index })),
      Q,
      limit,
    );
    const heads = new QueueHeads(Q);
    let got: string | null = null;
    try {
      postMwr(tasks, heads, limit);
    } catch (e) {
      expect(e).toBeInstanceOf(MwrError);
      const m = (e as Error).message;
      got = /empty MWR/.test(m) ? 'empty' : /exceed the MWR length limit/.test(m) ? 'too_long' : /unknown task kind/.test(m) ? 'unknown_kind' : 'bad_field';
      expect(heads.pi.every((x) => x === 0) && heads.mqPi === 0).toBe(true);
    }
    expect(got).toBe(want);
  });

  it('the MWR length limit is inclusive; messages carry the poster and the task index', () => {
    const heads = new QueueHeads(2);
    expect(postMwr([task(T_SEND, 0), task(T_RECV, 1)], heads, 2, 'rank 9 MWR')).toHaveLength(4);
    expect(() => postMwr([task(T_SEND, 0), task(T_SEND, 0), task(T_SEND, 0)], heads, 2, 'rank 9 MWR')).toThrow('rank 9 MWR: 3 tasks exceed the MWR length limit of 2 (the send-queue length)');
    expect(() => postMwr([], heads, 2, 'rank 9 MWR')).toThrow('rank 9 MWR: empty MWR (it needs at least one task)');
    expect(() => postMwr([task(T_SEND, 0), task(T_SEND, 2)], heads, 5)).toThrow('MWR: task 1: send: QP 2 out of range [0, 2)');
    const e = new MwrError('x');
    expect(e).toBeInstanceOf(InputError);
    expect(e.name).toBe('MwrError');
  });

  it('posting: entries, indices, flags and enables of every kind; plain receives and sends', () => {
    const heads = new QueueHeads(2);
    expect(heads.pi).toEqual([0, 0, 0, 0]);
    const out = postMwr(
      [task(T_RDMA_WRITE, 1, { flags: F_SIGNAL }), task(T_WAIT, 1, { cq: 2, count: 3, flags: F_SIGNAL }), task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1 }), task(T_RECV, 0), task(T_SEND_ENABLE, 1, { index: 4, flags: F_SIGNAL }), task(T_RECV_ENABLE, 0, { index: 2 })],
      heads,
      10,
    );
    const E = (queue: number, index: number, kind: number, qp: number, cq: number, count: number, target: number, flags: number): PostedEntry => ({ queue, index, kind, qp, cq, count, target, flags });
    expect(out).toEqual([
      E(sqId(1), 0, T_RDMA_WRITE, 1, -1, 0, -1, F_SIGNAL),
      E(Q_MQ, 0, T_SEND_ENABLE, 1, -1, 0, 0, 0),
      E(sqId(1), 1, T_WAIT, -1, 2, 3, -1, F_SIGNAL),
      E(Q_MQ, 1, T_WAIT, -1, 0, 1, -1, 0),
      E(rqId(0), 0, T_RECV, 0, -1, 0, -1, F_DISABLED),
      E(Q_MQ, 2, T_RECV_ENABLE, 0, -1, 0, 0, 0),
      E(Q_MQ, 3, T_SEND_ENABLE, 1, -1, 0, 4, F_SIGNAL),
      E(Q_MQ, 4, T_RECV_ENABLE, 0, -1, 0, 2, 0),
    ]);
    expect(heads.pi).toEqual([0, 1, 2, 0]);
    expect(heads.mqPi).toBe(5);
    expect([heads.next(Q_MQ), heads.next(sqId(1)), heads.next(rqId(0))]).toEqual([5, 2, 1]);
    expect(postReceives(0, 2, heads)).toEqual([E(rqId(0), 1, T_RECV, 0, -1, 0, -1, 0), E(rqId(0), 2, T_RECV, 0, -1, 0, -1, 0)]);
    expect(postReceives(1, 0, heads)).toEqual([]);
    expect(postSend(T_RDMA_WRITE, 1, heads)).toEqual(E(sqId(1), 2, T_RDMA_WRITE, 1, -1, 0, -1, 0));
    expect(heads.pi).toEqual([0, 3, 3, 0]);
  });
});

describe('work queue against a list model', () => {
  interface Op {
    op: 'post' | 'enable' | 'consume' | 'step';
    n: number;
    disabled: boolean;
  }
  test.prop(
    [
      fc.integer({ min: 1, max: 40 }),
      fc.array(
        fc.record({ op: fc.constantFrom('post', 'post', 'enable', 'consume', 'consume', 'step'), n: fc.integer({ min: 0, max: 12 }), disabled: fc.boolean() }) as fc.Arbitrary<Op>,
        { minLength: 1, maxLength: 60 },
      ),
    ],
    { numRuns: 60, seed: 19 },
  )('pointers, head fields, eligibility, room and occupancy', (length, ops) => {
    const sim = new Simulator();
    const o = new Owner(sim, 'o');
    const q = new WorkQueue(o, 'w', length);
    expect(o._signals.map((s) => [s.name, s.width])).toEqual([
      ['w_pi', 32],
      ['w_en', 32],
      ['w_ci', 32],
    ]);
    // the model: every posted entry, consumed below ci, enabled below en
    const posted: { flags: number; kind: number; qp: number; cq: number; count: number; target: number }[] = [];
    let ci = 0;
    let en = 0;
    let maxOcc = 0;
    const check = (): void => {
      const pi = posted.length;
      expect([q.pi.q, q.ci.q, q.en.q]).toEqual([pi, ci, en]);
      expect(q.occupancy()).toBe(pi - ci);
      for (const n of [0, 1, length - (pi - ci), length - (pi - ci) + 1]) expect(q.fits(n)).toBe(pi - ci + n <= length);
      const h = posted[ci];
      const enabled = h !== undefined && (ci < en || (h.flags & F_DISABLED) === 0);
      expect(q.headEnabled()).toBe(enabled);
      expect(q.headDisabled()).toBe(h !== undefined && !enabled);
      if (h !== undefined) expect([q.headKind(), q.headFlags(), q.headQp(), q.headCq(), q.headCount(), q.headTarget()]).toEqual([h.kind, h.flags, h.qp, h.cq, h.count, h.target]);
      for (let i = ci; i < pi; i++) expect(q.isEnabled(i)).toBe(i < en || (posted[i]!.flags & F_DISABLED) === 0);
      expect(q.maxOccupancy).toBe(maxOcc);
    };
    let serial = 0;
    for (const x of ops) {
      if (x.op === 'post') {
        const n = Math.min(x.n, length - (posted.length - ci));
        const batch: PostedEntry[] = [];
        for (let i = 0; i < n; i++) {
          serial++;
          const e = { queue: 0, index: posted.length + i, kind: serial % 7, qp: serial * 3, cq: -serial, count: serial * 5, target: serial * 2 ** 33, flags: (x.disabled ? F_DISABLED : 0) | (serial & 1) };
          batch.push(e);
        }
        // appended in two doorbells of the same cycle, as the HCA appends one entry at a time
        q.append(batch, 0, n >> 1);
        q.append(batch, n >> 1, n);
        sim.step(1);
        for (const e of batch) posted.push({ flags: e.flags, kind: e.kind, qp: e.qp, cq: e.cq, count: e.count, target: e.target });
        maxOcc = Math.max(maxOcc, posted.length - ci);
      } else if (x.op === 'enable') {
        const k = x.n;
        const ok = q.enableUpTo(k);
        expect(ok).toBe(k < posted.length);
        // a second, lower enable in the same cycle does not lower it
        if (ok && k > 0) expect(q.enableUpTo(k - 1)).toBe(true);
        sim.step(1);
        if (ok) en = Math.max(en, k + 1);
      } else if (x.op === 'consume') {
        if (ci < posted.length) {
          q.consumeHead();
          sim.step(1);
          ci++;
        }
      } else sim.step(1);
      check();
    }
  });

  it('an entry posted out of step with the producer index is an error naming both', () => {
    const sim = new Simulator();
    const q = new WorkQueue(new Owner(sim, 'o'), 'w', 8);
    const e = (index: number): PostedEntry => ({ queue: 0, index, kind: T_SEND, qp: 0, cq: -1, count: 0, target: -1, flags: 0 });
    q.append([e(0)], 0, 1);
    expect(() => q.append([e(0)], 0, 1)).toThrow('work queue: entry index 0 posted at producer index 1 (driver and HCA out of step)');
    sim.step(1);
    expect(q.pi.q).toBe(1);
    // the range [from, to) only
    q.append([e(5), e(1), e(2), e(9)], 1, 3);
    sim.step(1);
    expect(q.pi.q).toBe(3);
  });
});

describe('pending arbiter against a round-robin model', () => {
  test.prop(
    [
      fc.constantFrom(1, 2, 5, 31, 32, 33, 63, 64, 65, 100),
      fc.array(fc.record({ marks: fc.array(fc.tuple(fc.nat(), fc.boolean()), { maxLength: 8 }), ready: fc.array(fc.nat(), { maxLength: 12 }), mask: fc.nat() }), { minLength: 1, maxLength: 30 }),
    ],
    { numRuns: 80, seed: 19 },
  )('grants the first marked and ready requester at or after the pointer, wrapping; the pointer moves past it', (n, rounds) => {
    const sim = new Simulator();
    const o = new Owner(sim, 'o');
    const arb = new PendingArbiter(o, 'arb', n);
    expect(o._signals.map((s) => [s.name, s.width])).toEqual([['arb', Math.max(1, Math.ceil(Math.log2(n + 1)))]]);
    const marked = new Array<boolean>(n).fill(false);
    let ptr = 0;
    for (const r of rounds) {
      for (const [i, m] of r.marks) {
        arb.mark(i % n, m);
        marked[i % n] = m;
      }
      const ready = new Set(r.ready.map((i) => i % n));
      // sometimes every requester is ready
      if (r.mask % 4 === 0) for (let i = 0; i < n; i++) ready.add(i);
      let want = -1;
      for (let k = 0; k < n; k++) {
        const i = (ptr + k) % n;
        if (marked[i] && ready.has(i)) {
          want = i;
          break;
        }
      }
      const asked: number[] = [];
      const got = arb.grant((i) => {
        asked.push(i);
        return ready.has(i);
      });
      expect(got).toBe(want);
      // only marked requesters are asked, each at most once
      for (const i of asked) expect(marked[i]).toBe(true);
      expect(new Set(asked).size).toBe(asked.length);
      sim.step(1);
      if (want >= 0) ptr = (want + 1) % n;
      // the pointer register (a traced signal) holds the next start, wrapped to 0 after n - 1
      expect(Number(o._signals[0]!.get())).toBe(ptr);
    }
  });
});
