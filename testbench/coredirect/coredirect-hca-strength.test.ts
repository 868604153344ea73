/**
 * The CORE-Direct HCA (rtl/coredirect/hca.ts), the cases mutation testing (docs/verification.md)
 * found unchecked, driven directly through its doorbell and notification ports: the cycle of every
 * operation from the documented costs (docs/coredirect.md: a doorbell after PCIe latency, appended
 * entries visible the next cycle, a task `taskNs` + `ctxMissNs` on a context miss, a packet after
 * wire or loopback latency, an arrival `rxNs` (+ `rqFetchNs` for a send), a host notification PCIe
 * latency after the operation ends), all parameters distinct so that a wrong term shows; the
 * direct-mapped context cache; receiver-not-ready holding; the notification words; statistic,
 * channel and link names; the error paths with their messages; the MQ status line; jitter with
 * per-link order kept.
 */
import { describe, expect, it } from 'vitest';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { postMwr, postReceives, postSend, QueueHeads } from '../../rtl/coredirect/driver.ts';
import { Hca, N_ERROR, N_MEM, N_MWR_DONE, N_RECV, N_REJECT, noteArg, noteKind, noteReady } from '../../rtl/coredirect/hca.ts';
import { hcaParams, type HcaParams } from '../../rtl/coredirect/params.ts';
import { F_SIGNAL, NULL_QUEUE, type PostedEntry, Q_MQ, rqId, sqId, T_RDMA_WRITE, T_RDMA_WRITE_IMM, T_RECV, T_SEND, T_SEND_ENABLE, T_WAIT, task } from '../../rtl/coredirect/tasks.ts';

/** distinct costs: pcie 7, task 10, miss 3, wire 50, loopback 20, rx 5, receive-WQE fetch 2 */
const P: Partial<HcaParams> = { taskNs: 10, rxNs: 5, ctxMissNs: 3, rqFetchNs: 2, wireNs: 50, loopbackNs: 20, pcieNs: 7 };

function pair(over: Partial<HcaParams> = {}, qps = 1, recvCqToHost = true) {
  const sim = new Simulator({ freqHz: 1e9 });
  const p = hcaParams({ ...P, ...over });
  const a = new Hca(sim, 'a', p, { qps: [qps], ranks: [0], recvCqToHost, log: true });
  const b = new Hca(sim, 'b', p, { qps: [qps], ranks: [1], recvCqToHost, log: true });
  for (let j = 0; j < qps; j++) Hca.connect(a, 0, j, b, 0, j);
  a.finish();
  b.finish();
  const notes = (h: Hca, proc = 0): [number, number, number][] => {
    const out: [number, number, number][] = [];
    const ch = h.ports[proc]!.notify;
    while (ch.canPop()) {
      const w = ch.pop();
      out.push([noteReady(w), noteKind(w), noteArg(w)]);
    }
    return out;
  };
  const ev = (h: Hca) => h.events.map((e) => `${e.cycle} ${e.queue}.${e.index} ${e.kind}${e.target >= 0 ? ` qp${e.qp}<=${e.target}` : ''}`);
  return { sim, a, b, notes, ev, ha: new QueueHeads(qps), hb: new QueueHeads(qps) };
}

const stats = (sim: Simulator, who: string): Record<string, number> =>
  Object.fromEntries(
    Object.entries(sim.stats.toJSON())
      .filter(([k]) => k.startsWith(`${who}.`))
      .map(([k, v]) => [k.slice(who.length + 1), v as number]),
  );

describe('HCA: cycles of each operation', () => {
  it('a send and its enable, the arrival on a posted receive, the receive CQE to the host', () => {
    const { sim, a, b, notes, ev, ha, hb } = pair();
    b.ports[0]!.doorbell.push(postReceives(0, 1, hb));
    a.ports[0]!.doorbell.push(postMwr([task(T_SEND, 0, { flags: F_SIGNAL }), task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1, flags: F_SIGNAL })], ha, 10));
    sim.step(300);
    // doorbell at 0 + pcie 7, appended, visible at 8: the send runs 8 .. 8 + 10 + 3 (miss) = 21;
    // the MQ's enable runs at 21 (its own context misses too); the packet arrives at 21 + 50 = 71
    expect(ev(a)).toEqual(['8 sq0.0 send', '21 mq.0 send_enable qp0<=0']);
    // taken at 71: rx 5 + miss 3 + receive-WQE fetch 2 = 10, the CQE reaches the host 7 later
    expect(ev(b)).toEqual(['71 in0.-1 send', '71 rq0.0 recv']);
    expect(notes(b)).toEqual([[88, N_RECV, 0]]);
    // a's signalled send tells its host at 21 + 7; the MQ's wait never runs (nothing arrives at a)
    expect(notes(a)).toEqual([[28, N_MWR_DONE, 0]]);
    expect(a.mqStatus(0)).toBe('MQ task 1 wait on CQ 0: 0 of 1 completions');
    expect(b.mqStatus(0)).toBe('MQ empty');
    expect(stats(sim, 'a')).toEqual({ arrivals: 0, ctx_misses: 2, mq_errors: 0, noop_enables: 1, rejected_posts: 0, rnr_stalls: 0, tasks: 2 });
    expect(stats(sim, 'b')).toEqual({ arrivals: 1, ctx_misses: 1, mq_errors: 0, noop_enables: 0, rejected_posts: 0, rnr_stalls: 0, tasks: 0 });
    expect(a.cqProduced[0]!.map((r) => r.q)).toEqual([0, 1, 0]);
    expect(b.cqProduced[0]!.map((r) => r.q)).toEqual([1, 0, 0]);
  });

  it('a round trip: the wait runs once the reply arrives; contexts hit on reuse; RDMA writes with immediate need no receive', () => {
    const { sim, a, b, notes, ev, ha, hb } = pair({}, 1, false);
    a.ports[0]!.doorbell.push(postMwr([task(T_RDMA_WRITE_IMM, 0), task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1, flags: F_SIGNAL })], ha, 10));
    b.ports[0]!.doorbell.push(postMwr([task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1 }), task(T_RDMA_WRITE_IMM, 0, { flags: F_SIGNAL })], hb, 10));
    sim.step(400);
    // a: write 8 (cost 13), enable 21 (13); packet at b at 71
    // b: MQ = [wait, enable], sq0 = [write, disabled]: the wait is parked until the CQE; the arrival
    //    at 71 costs 5 + 3 (QP 0's context is new to b) = 8; the wait runs at 79 (the MQ's context
    //    misses: 13), the write's enable at 92 (hit: 10), the write at 102 (QP 0's context was
    //    loaded by the arrival: 10): it arrives at a at 162, b's host is told at 112 + 7
    expect(ev(b)).toEqual(['71 in0.-1 rdma_write_imm', '79 mq.0 wait', '92 mq.1 send_enable qp0<=0', '102 sq0.0 rdma_write_imm']);
    expect(notes(b)).toEqual([[119, N_MWR_DONE, 0]]);
    // a: arrival at 162 (hit: 5), the wait at 167 (hit: 10), signalled: the host sees it at 177 + 7
    expect(ev(a)).toEqual(['8 sq0.0 rdma_write_imm', '21 mq.0 send_enable qp0<=0', '162 in0.-1 rdma_write_imm', '167 mq.1 wait']);
    expect(notes(a)).toEqual([[184, N_MWR_DONE, 0]]);
    expect(stats(sim, 'b').ctx_misses).toBe(2);
    expect(stats(sim, 'a').ctx_misses).toBe(2);
    expect(a.mqStatus(0)).toBe('MQ empty');
  });

  it('a direct-mapped context cache of one entry misses on every change of QP', () => {
    const { sim, a, ev, ha } = pair({ ctxEntries: 1 }, 2);
    a.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 0, ha), postSend(T_RDMA_WRITE_IMM, 1, ha)]);
    sim.step(20);
    a.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 1, ha), postSend(T_RDMA_WRITE_IMM, 0, ha)]);
    sim.step(200);
    // first batch: sq0 at 8 (13), sq1 at 21 (13); second batch visible at 28: round robin from
    // after sq1 wraps to sq0 at 34, which misses (the slot holds QP 1), and sq1 at 47 misses again
    expect(ev(a)).toEqual(['8 sq0.0 rdma_write_imm', '21 sq1.0 rdma_write_imm', '34 sq0.1 rdma_write_imm', '47 sq1.1 rdma_write_imm']);
    expect(stats(sim, 'a').ctx_misses).toBe(4);
    // with two entries QP 0 and QP 1 sit in different slots: only the first touch of each misses
    const two = pair({ ctxEntries: 2 }, 2);
    two.a.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 0, two.ha), postSend(T_RDMA_WRITE_IMM, 1, two.ha), postSend(T_RDMA_WRITE_IMM, 0, two.ha), postSend(T_RDMA_WRITE_IMM, 1, two.ha)]);
    two.sim.step(200);
    expect(two.ev(two.a)).toEqual(['8 sq0.0 rdma_write_imm', '21 sq1.0 rdma_write_imm', '34 sq0.1 rdma_write_imm', '44 sq1.1 rdma_write_imm']);
    expect(stats(two.sim, 'a').ctx_misses).toBe(2);
  });

  it('an RDMA write lands in host memory: a memory note naming the QP, no completion, no receive WQE', () => {
    const { sim, a, b, notes, ev, ha } = pair({}, 3, false);
    a.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE, 2, ha)]);
    sim.step(200);
    expect(ev(a)).toEqual(['8 sq2.0 rdma_write']);
    expect(ev(b)).toEqual(['71 in2.-1 rdma_write']);
    expect(notes(b)).toEqual([[71 + 8 + 7, N_MEM, 2]]);
    expect(b.cqProduced[0]!.map((r) => r.q)).toEqual([0, 0, 0, 0, 0]);
    // the sender's send CQ (after the three receive CQs) counts it
    expect(a.cqProduced[0]!.map((r) => r.q)).toEqual([0, 0, 0, 1, 0]);
  });
});

describe('HCA: receiver not ready', () => {
  it('a send without a receive WQE is held (rx cost), later packets of its QP queue behind it, other QPs go on; taken in order once a receive is posted', () => {
    // rx 20 here, so that the cost of holding a packet shows in the next arrival's cycle
    const { sim, a, b, notes, ev, ha, hb } = pair({ rxNs: 20 }, 2);
    a.ports[0]!.doorbell.push([postSend(T_SEND, 0, ha), postSend(T_RDMA_WRITE_IMM, 0, ha), postSend(T_RDMA_WRITE_IMM, 1, ha)]);
    sim.step(200);
    // round robin: sq0.0 at 8 (13), sq1.0 at 21 (miss: 13), sq0.1 at 34 (hit: 10): arrivals at 71, 84, 94
    expect(ev(a)).toEqual(['8 sq0.0 send', '21 sq1.0 rdma_write_imm', '34 sq0.1 rdma_write_imm']);
    // 71: held (20); 91: QP 1's write (arrived at 84) goes on (20 + miss 3); 114: QP 0's write is
    // held behind the send (20)
    expect(ev(b)).toEqual(['91 in1.-1 rdma_write_imm']);
    expect(stats(sim, 'b').rnr_stalls).toBe(2);
    expect(notes(b)).toEqual([[91 + 23 + 7, N_RECV, 1]]);
    b.ports[0]!.doorbell.push(postReceives(0, 1, hb)); // pushed at 200, visible 207, appended 208
    sim.step(100);
    // the held send takes the WQE at 208 (20 + miss 3 + fetch 2 = 25), then the write at 233 (20)
    expect(ev(b).slice(1)).toEqual(['208 in0.-1 send', '208 rq0.0 recv', '233 in0.-1 rdma_write_imm']);
    expect(notes(b)).toEqual([
      [208 + 25 + 7, N_RECV, 0],
      [233 + 20 + 7, N_RECV, 0],
    ]);
    expect(stats(sim, 'b')).toMatchObject({ arrivals: 3, rnr_stalls: 2 });
    expect(b.cqProduced[0]!.map((r) => r.q)).toEqual([2, 1, 0, 0]);
  });

  it('an idle HCA sleeps until the earliest packet in flight on any of its links', () => {
    const sim = new Simulator({ freqHz: 1e9 });
    const p = hcaParams(P);
    const h = new Hca(sim, 'h', p, { qps: [3], ranks: [0], recvCqToHost: false, log: true });
    const a = new Hca(sim, 'a', p, { qps: [1], ranks: [1], recvCqToHost: false, log: true });
    Hca.connect(h, 0, 0, h, 0, 1); // h's first inbound link: its loopback (QP 0 -> QP 1)
    Hca.connect(h, 0, 2, a, 0, 0); // its second: from a
    h.finish();
    a.finish();
    a.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 0, new QueueHeads(1))]);
    sim.step(20);
    h.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 0, new QueueHeads(3))]);
    sim.step(200);
    // a's write at 8 arrives at 71; h's own, posted at 20, runs at 28 (13) and is back over the
    // loopback at 28 + 13 + 20 = 61: the idle HCA (from 41) must wake for it at 61, not at 71
    expect(h.events.map((e) => `${e.cycle} ${e.queue}`)).toEqual(['28 sq0', '61 in1', '71 in2']);
  });

  it('a disabled receive holds the send until an enable reaches it; then the held send goes', () => {
    const { sim, b, ev, ha, hb, a } = pair();
    // b posts a disabled receive (behind an MQ wait on its send CQ, which a later send satisfies)
    b.ports[0]!.doorbell.push(postMwr([task(T_WAIT, NULL_QUEUE, { cq: 1, count: 1 }), task(T_RECV, 0)], hb, 10));
    a.ports[0]!.doorbell.push([postSend(T_SEND, 0, ha)]);
    sim.step(150);
    expect(ev(b)).toEqual([]);
    expect(stats(sim, 'b').rnr_stalls).toBe(1);
    b.ports[0]!.doorbell.push([postSend(T_RDMA_WRITE_IMM, 0, hb)]);
    sim.step(400);
    // pushed at 150, visible 157, appended: 158 b's write (13) -> send CQ; 171 the wait (MQ miss: 13);
    // 184 the recv enable (10); 194 the held send (5 + QP 0's context, loaded by the write + fetch 2)
    expect(ev(b)).toEqual(['158 sq0.0 rdma_write_imm', '171 mq.0 wait', '184 mq.1 recv_enable qp0<=0', '194 in0.-1 send', '194 rq0.0 recv']);
    expect(ev(a)).toEqual(['8 sq0.0 send', '221 in0.-1 rdma_write_imm']);
  });
});

describe('HCA: structure, loopback, errors', () => {
  it('ports, link names and latencies; two processes on one HCA talk over the loopback', () => {
    const sim = new Simulator({ freqHz: 1e9 });
    const p = hcaParams(P);
    const h = new Hca(sim, 'hca0', p, { qps: [2, 1], ranks: [4, 5], recvCqToHost: true, log: true });
    const g = new Hca(sim, 'g', p, { qps: [1], ranks: [6], recvCqToHost: true, log: true });
    Hca.connect(h, 0, 1, h, 1, 0);
    Hca.connect(h, 0, 0, g, 0, 0);
    h.finish();
    g.finish();
    expect(h.ports.map((x) => [x.doorbell.path, x.doorbell.capacity, x.doorbell.latency, x.notify.path, x.notify.capacity, x.notify.latency])).toEqual([
      ['hca0.p0_doorbell', 64, 7, 'hca0.p0_notify', 1 << 20, 1],
      ['hca0.p1_doorbell', 64, 7, 'hca0.p1_notify', 1 << 20, 1],
    ]);
    expect(h.qpn(0, 1)).toBe(1);
    expect(h.qpn(1, 0)).toBe(3);
    const links = sim.components.find((c) => c === h)!;
    expect(links).toBe(h);
    const hp = new QueueHeads(2);
    h.ports[1]!.doorbell.push(postReceives(0, 1, new QueueHeads(1)));
    h.ports[0]!.doorbell.push([postSend(T_SEND, 1, hp)]);
    sim.step(200);
    // process 0's sq1 at 8 (13) -> loopback 20 -> process 1 takes it at 41 (5 + 3 + 2)
    expect(h.events.map((e) => `${e.cycle} p${e.proc} ${e.queue}.${e.index} ${e.kind}`)).toEqual(['8 p0 sq1.0 send', '41 p1 in0.-1 send', '41 p1 rq0.0 recv']);
    const ch = h.ports[1]!.notify;
    const w = ch.pop();
    expect([noteReady(w), noteKind(w), noteArg(w)]).toEqual([41 + 10 + 7, N_RECV, 0]);
    expect(h.cqProduced.map((cs) => cs.map((r) => r.q))).toEqual([
      [0, 0, 1, 0],
      [1, 0, 0],
    ]);
    expect(() => Hca.connect(h, 0, 4096, g, 0, 0)).toThrow(new RangeError('QP index above 4095 (4096, 0)'));
    expect(() => Hca.connect(h, 0, 0, g, 0, 4096)).toThrow(new RangeError('QP index above 4095 (0, 4096)'));
  });

  it('a post naming a queue the process lacks, or overflowing one, is refused with the reason; the host is told', () => {
    const { sim, a, notes } = pair({ mqLength: 2 }, 1);
    const e = (queue: number, index: number, kind: number): PostedEntry => ({ queue, index, kind, qp: 0, cq: -1, count: 0, target: -1, flags: 0 });
    a.ports[0]!.doorbell.push([e(sqId(0), 0, T_RDMA_WRITE_IMM), e(sqId(1), 0, T_RDMA_WRITE_IMM)]);
    a.ports[0]!.doorbell.push([e(rqId(3), 0, T_RECV)]);
    a.ports[0]!.doorbell.push([e(-3, 0, T_RECV)]);
    a.ports[0]!.doorbell.push([e(Q_MQ, 0, T_SEND_ENABLE), e(Q_MQ, 1, T_SEND_ENABLE), e(Q_MQ, 2, T_SEND_ENABLE)]);
    sim.step(100);
    expect(a.errors).toEqual([
      'rank 0: post of 2 entries refused: it names queue sq1, which process 0 does not have; nothing was posted',
      'rank 0: post of 1 entries refused: it names queue rq3, which process 0 does not have; nothing was posted',
      `rank 0: post of 1 entries refused: it names queue ${-3 % 2 === 0 ? 'sq' : 'rq'}${-3 >> 1}, which process 0 does not have; nothing was posted`,
      'rank 0: post of 3 entries refused: it would overflow mq (0 of 2 entries in use); nothing was posted',
    ]);
    // one note per refusal, one cycle apart (one batch per cycle), carrying the error's number
    expect(notes(a)).toEqual([
      [7 + 7, N_REJECT, 0],
      [8 + 7, N_REJECT, 1],
      [9 + 7, N_REJECT, 2],
      [10 + 7, N_REJECT, 3],
    ]);
    expect(stats(sim, 'a')).toMatchObject({ rejected_posts: 4, tasks: 0 });
    expect(a.sq[0]![0]!.pi.q).toBe(0);
    // exactly full is taken
    a.ports[0]!.doorbell.push([e(Q_MQ, 0, T_WAIT), e(Q_MQ, 1, T_WAIT)].map((x) => ({ ...x, cq: 0, count: 1 })));
    sim.step(20);
    expect(a.mq[0]!.pi.q).toBe(2);
    expect(stats(sim, 'a').rejected_posts).toBe(4);
  });

  it('a send on a QP that is not connected, an unknown task kind: errors with the place; the MQ stops on the kind only', () => {
    const sim = new Simulator({ freqHz: 1e9 });
    const a = new Hca(sim, 'a', hcaParams(P), { qps: [2], ranks: [3], recvCqToHost: false, log: true });
    a.finish();
    const e = (queue: number, index: number, kind: number, flags = 0): PostedEntry => ({ queue, index, kind, qp: 1, cq: -1, count: 0, target: -1, flags });
    a.ports[0]!.doorbell.push([e(sqId(1), 0, T_SEND, F_SIGNAL), e(sqId(1), 1, 9)]);
    sim.step(100);
    expect(a.errors).toEqual(['rank 3: send on QP 1, which is not connected', 'rank 3: unknown task kind 9 at sq1 index 1']);
    const ch = a.ports[0]!.notify;
    const got: [number, number, number][] = [];
    while (ch.canPop()) {
      const w = ch.pop();
      got.push([noteReady(w), noteKind(w), noteArg(w)]);
    }
    // the failed send is not signalled; errors are told at the start of the task + pcie
    expect(got).toEqual([
      [8 + 7, N_ERROR, 0],
      [21 + 7, N_ERROR, 1],
    ]);
    expect(stats(sim, 'a')).toMatchObject({ mq_errors: 2, tasks: 2 });
    expect(a.mqFailed).toEqual([true]);
    expect(a.mqStatus(0)).toBe('MQ in error state');
    a.ports[0]!.doorbell.push([{ ...e(Q_MQ, 0, 12), qp: -1 }]);
    sim.step(50);
    expect(a.events.map((x) => x.kind)).toEqual(['send', '9']);
  });

  it('an enable of a never-posted entry stops that process MQ only; the status line names the head task', () => {
    const sim = new Simulator({ freqHz: 1e9 });
    const a = new Hca(sim, 'a', hcaParams(P), { qps: [1, 1], ranks: [0, 1], recvCqToHost: false, log: true });
    a.finish();
    const en = (index: number, target: number, kind = T_SEND_ENABLE): PostedEntry => ({ queue: Q_MQ, index, kind, qp: 0, cq: -1, count: 0, target, flags: 0 });
    const w = (index: number): PostedEntry => ({ queue: Q_MQ, index, kind: T_WAIT, qp: -1, cq: 2, count: 3, target: -1, flags: 0 });
    a.ports[0]!.doorbell.push([en(0, 0), w(1)]);
    a.ports[1]!.doorbell.push([en(0, 0, 6), w(1)]);
    expect(a.mqStatus(0)).toBe('MQ empty');
    sim.step(100);
    expect(a.errors).toEqual([
      'rank 0: MQ task 0 (send_enable of sq0 up to index 0): entry 0 was never posted (that queue holds indices below 0); the MQ stops, other queues go on',
      'rank 1: MQ task 0 (recv_enable of rq0 up to index 0): entry 0 was never posted (that queue holds indices below 0); the MQ stops, other queues go on',
    ]);
    expect(a.mqStatus(0)).toBe('MQ in error state');
    expect(a.mqFailed).toEqual([true, true]);
    expect(a.events.map((x) => `${x.proc} ${x.queue}.${x.index} ${x.kind}`)).toEqual(['0 mq.0 send_enable', '1 mq.0 recv_enable']);
    // a fresh HCA: a wait at the MQ head
    const s2 = new Simulator({ freqHz: 1e9 });
    const b = new Hca(s2, 'b', hcaParams(P), { qps: [1], ranks: [0], recvCqToHost: false });
    b.finish();
    b.ports[0]!.doorbell.push([w(0)]);
    s2.step(50);
    expect(b.mqStatus(0)).toBe('MQ task 0 wait on CQ 2: 0 of 3 completions');
    b.ports[0]!.doorbell.push([{ ...en(1, 5), kind: T_RECV }]);
  });

  it('jitter delays each packet by a draw in [0, jitterNs] and keeps the order of a link', () => {
    for (const seed of [1, 2, 3]) {
      const sim = new Simulator({ freqHz: 1e9 });
      const p = hcaParams({ ...P, ctxMissNs: 0 });
      const a = new Hca(sim, 'a', p, { qps: [2], ranks: [0], recvCqToHost: false, log: true, jitterNs: 40, rng: new Rng(seed) });
      const b = new Hca(sim, 'b', p, { qps: [2], ranks: [1], recvCqToHost: false, log: true });
      Hca.connect(a, 0, 0, b, 0, 0);
      Hca.connect(a, 0, 1, b, 0, 1);
      a.finish();
      b.finish();
      const ha = new QueueHeads(2);
      a.ports[0]!.doorbell.push(Array.from({ length: 8 }, (_, i) => postSend(T_RDMA_WRITE_IMM, i & 1, ha)));
      sim.step(1000);
      const sent = a.events.map((e) => e.cycle);
      expect(sent).toEqual([8, 18, 28, 38, 48, 58, 68, 78]);
      // the jitter the HCA drew, in the order it drew them (one per packet)
      const r = new Rng(seed);
      let last = 0;
      const due = sent.map((t) => (last = Math.max(last, t + 10 + 50 + r.int(41))));
      const got = b.events.map((e) => e.cycle);
      expect(got).toHaveLength(8);
      // the engine takes one packet per rx cost (5) and never before it is due
      let free = 0;
      const want = due.map((d) => (free = Math.max(free, d) + 5) - 5);
      expect(got).toEqual(want);
      expect(new Set(due.map((d, i) => d - sent[i]! - 60)).size).toBeGreaterThan(1);
    }
  });
});
