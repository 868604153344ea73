/**
 * The MWR posting rule against the golden model (random MWRs), the MWR length limit and bad tasks,
 * and the HCA's reading of enable as "enable every posted entry up to index k" (idempotent), with
 * bad enables and overflowing posts reported while other queues go on.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { MwrError, postMwr, QueueHeads } from '../../rtl/coredirect/driver.ts';
import { Hca, N_ERROR, N_REJECT, noteKind } from '../../rtl/coredirect/hca.ts';
import { hcaParams } from '../../rtl/coredirect/params.ts';
import { F_DISABLED, F_SIGNAL, type MwrTask, NULL_QUEUE, type PostedEntry, Q_MQ, queueName, sqId, T_RDMA_WRITE_IMM, T_RECV, T_RECV_ENABLE, T_SEND, T_SEND_ENABLE, T_WAIT, TASK_NAMES, task } from '../../rtl/coredirect/tasks.ts';
import { type GEntry, goldenPost, type GQueues, type GTask } from '../../models/coredirect/golden.ts';

const QPS = 3;
const arbTask: fc.Arbitrary<MwrTask> = fc.oneof(
  fc.record({ kind: fc.constantFrom(T_SEND, T_RDMA_WRITE_IMM, T_RECV), qp: fc.integer({ min: 0, max: QPS - 1 }), sig: fc.boolean() }).map((r) => task(r.kind, r.qp, { flags: r.sig ? F_SIGNAL : 0 })),
  fc.record({ q: fc.integer({ min: -1, max: QPS - 1 }), cq: fc.integer({ min: 0, max: QPS + 1 }), n: fc.integer({ min: 1, max: 3 }) }).map((r) => task(T_WAIT, r.q, { cq: r.cq, count: r.n })),
  fc.record({ kind: fc.constantFrom(T_SEND_ENABLE, T_RECV_ENABLE), qp: fc.integer({ min: 0, max: QPS - 1 }), k: fc.integer({ min: 0, max: 5 }) }).map((r) => task(r.kind, r.qp, { index: r.k })),
);

function toGolden(t: MwrTask): GTask {
  const signal = (t.flags & F_SIGNAL) !== 0;
  switch (t.kind) {
    case T_WAIT:
      return { op: 'wait', queue: t.qp === NULL_QUEUE ? null : t.qp, cq: t.cq, count: t.count, signal };
    case T_SEND_ENABLE:
    case T_RECV_ENABLE:
      return { op: t.kind === T_SEND_ENABLE ? 'send_enable' : 'recv_enable', qp: t.qp, upTo: t.index, signal };
    default:
      return { op: t.kind === T_SEND ? 'send' : t.kind === T_RECV ? 'recv' : 'write_imm', qp: t.qp, signal };
  }
}

function rtlQueues(posted: PostedEntry[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const e of posted) {
    const name = queueName(e.queue);
    const l = m.get(name) ?? [];
    const what = `${TASK_NAMES[e.kind]}${e.kind === T_WAIT ? ` cq${e.cq}x${e.count}` : e.target >= 0 ? ` qp${e.qp}<=${e.target}` : ''}${e.flags & F_DISABLED ? ' disabled' : ''}${e.flags & F_SIGNAL ? ' signal' : ''}`;
    l.push(what);
    m.set(name, l);
  }
  return m;
}

function goldenQueues(q: GQueues): Map<string, string[]> {
  const m = new Map<string, string[]>();
  const op = (e: GEntry): string => (e.op === 'write_imm' ? 'rdma_write_imm' : e.op);
  for (const [name, list] of q) m.set(name, list.map((e) => `${op(e)}${e.op === 'wait' ? ` cq${e.cq}x${e.count}` : e.upTo !== undefined ? ` qp${e.qp}<=${e.upTo}` : ''}${e.enabledAtPost ? '' : ' disabled'}${e.signal ? ' signal' : ''}`));
  return m;
}

describe('MWR posting rule', () => {
  test.prop([fc.array(fc.array(arbTask, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 })])('equals the golden model on random MWR sequences', (mwrs) => {
    const heads = new QueueHeads(QPS);
    const posted: PostedEntry[] = [];
    const g: GQueues = new Map();
    for (const m of mwrs) {
      posted.push(...postMwr(m, heads, 16000));
      goldenPost(m.map(toGolden), g);
    }
    const a = rtlQueues(posted);
    const b = goldenQueues(g);
    expect(new Map([...a].sort())).toEqual(new Map([...b].sort()));
    const next = new Map<number, number>();
    for (const x of posted) {
      expect(x.index).toBe(next.get(x.queue) ?? 0); // each queue's entries are numbered 0, 1, 2...
      next.set(x.queue, x.index + 1);
    }
  });

  it('refuses an MWR over the length limit (the send-queue length) and bad tasks, posting nothing', () => {
    const heads = new QueueHeads(2);
    const long = Array.from({ length: 16001 }, () => task(T_SEND, 0));
    expect(() => postMwr(long, heads, 16000)).toThrow(MwrError);
    expect(() => postMwr(long, heads, 16000)).toThrow(/16001 tasks exceed the MWR length limit of 16000 \(the send-queue length\)/);
    expect(() => postMwr([task(T_SEND, 0), task(9, 0)], heads, 16000)).toThrow(/task 1: unknown task kind 9/);
    expect(() => postMwr([task(T_SEND, 5)], heads, 16000)).toThrow(/task 0: send: QP 5 out of range \[0, 2\)/);
    expect(() => postMwr([task(T_WAIT, NULL_QUEUE, { cq: 0, count: 0 })], heads, 16000)).toThrow(/wait: count 0/);
    expect(() => postMwr([], heads, 16000)).toThrow(/empty MWR/);
    expect(heads.pi).toEqual([0, 0, 0, 0]);
    expect(heads.mqPi).toBe(0);
    expect(postMwr(long.slice(0, 16000), heads, 16000)).toHaveLength(32000);
  });
});

/** Two nodes, one process each, QP 0 connected; returns helpers to post and run. */
function pair(over = {}) {
  const sim = new Simulator({ freqHz: 1e9 });
  const p = hcaParams({ taskNs: 10, rxNs: 5, ...over });
  const a = new Hca(sim, 'a', p, { qps: [2], ranks: [0], recvCqToHost: false, log: true });
  const b = new Hca(sim, 'b', p, { qps: [2], ranks: [1], recvCqToHost: false, log: true });
  Hca.connect(a, 0, 0, b, 0, 0);
  Hca.connect(a, 0, 1, b, 0, 1);
  a.finish();
  b.finish();
  const post = (batch: PostedEntry[]): void => {
    a.ports[0]!.doorbell.push(batch);
    sim.step(2000);
  };
  const arrived = (qp: number): number => b.events.filter((e) => e.queue === `in${qp}`).length;
  const notes = (): number[] => {
    const out: number[] = [];
    const ch = a.ports[0]!.notify;
    while (ch.canPop()) out.push(noteKind(ch.pop()));
    return out;
  };
  return { sim, a, b, post, arrived, notes };
}

const e = (queue: number, index: number, kind: number, over: Partial<PostedEntry> = {}): PostedEntry => ({ queue, index, kind, qp: 0, cq: -1, count: 0, target: -1, flags: 0, ...over });

describe('HCA: enable every posted entry up to index k', () => {
  it('releases exactly the entries up to k, is idempotent, and a never-posted index stops only the MQ', () => {
    const { a, post, arrived, notes } = pair();
    post([0, 1, 2].map((i) => e(sqId(0), i, T_RDMA_WRITE_IMM, { flags: F_DISABLED })));
    expect(arrived(0)).toBe(0);
    post([e(Q_MQ, 0, T_SEND_ENABLE, { target: 1 })]);
    expect(arrived(0)).toBe(2); // entries 0 and 1
    post([e(Q_MQ, 1, T_SEND_ENABLE, { target: 0 })]);
    expect(arrived(0)).toBe(2); // already enabled: a no-op
    expect(a.sim.stats.toJSON()['a.noop_enables']).toBe(1);
    post([e(Q_MQ, 2, T_SEND_ENABLE, { target: 2 })]);
    expect(arrived(0)).toBe(3);
    post([e(Q_MQ, 3, T_SEND_ENABLE, { target: 7 })]);
    expect(a.errors.at(-1)).toMatch(/MQ task 3 \(send_enable of sq0 up to index 7\): entry 7 was never posted \(that queue holds indices below 3\)/);
    expect(notes()).toContain(N_ERROR);
    // the MQ is stopped: a later enable does not run; but QP 1's send queue goes on
    post([e(sqId(0), 3, T_RDMA_WRITE_IMM, { flags: F_DISABLED }), e(Q_MQ, 4, T_SEND_ENABLE, { target: 3 }), e(sqId(1), 0, T_RDMA_WRITE_IMM, { qp: 1 })]);
    expect(arrived(0)).toBe(3);
    expect(arrived(1)).toBe(1);
  });

  it('refuses a post that would overflow a queue, as a whole, and keeps going', () => {
    const { a, post, arrived, notes } = pair({ sqLength: 4 });
    post([0, 1, 2, 3, 4].map((i) => e(sqId(0), i, T_RDMA_WRITE_IMM, { flags: F_DISABLED })));
    expect(a.errors.at(-1)).toMatch(/post of 5 entries refused: it would overflow sq0 \(0 of 4 entries in use\); nothing was posted/);
    expect(notes()).toContain(N_REJECT);
    expect(a.sq[0]![0]!.pi.q).toBe(0);
    post([e(sqId(0), 0, T_RDMA_WRITE_IMM), e(sqId(1), 0, T_RDMA_WRITE_IMM, { qp: 1 })]);
    expect(arrived(0)).toBe(1);
    expect(arrived(1)).toBe(1);
    for (const q of [...a.sq[0]!, a.mq[0]!]) expect(q.maxOccupancy).toBeLessThanOrEqual(q.length);
  });
});
