/**
 * The CORE-Direct golden model's own outputs (models/coredirect/golden.ts), the cases mutation
 * testing (docs/verification.md) found unchecked: the driver checks (goldenReject) at every bound
 * of every field, deterministically; the error text of an enable that names an entry never posted
 * (goldenRun); goldenOrder's refusals (a disabled entry that ran with no MQ enable reaching it;
 * waits on one CQ in two queues, named in sorted order); the extra ranks of a barrier whose size is
 * not a power of two.
 */
import { describe, expect, it } from 'vitest';
import { type GEntry, goldenOrder, goldenPost, type GQueues, goldenReject, goldenRun, goldenSchedule } from '../../models/coredirect/golden.ts';

describe('golden driver checks at their bounds', () => {
  const Q = 3;
  const ok = (t: { op: string; qp: number; cq?: number; count?: number; upTo?: number }, limit = 4) => goldenReject([t], Q, limit);

  it('empty, too long, the limit itself', () => {
    expect(goldenReject([], Q, 4)).toBe('empty');
    const t = { op: 'send', qp: 0 };
    expect(goldenReject([t, t, t, t], Q, 4)).toBeNull();
    expect(goldenReject([t, t, t, t, t], Q, 4)).toBe('too_long');
  });

  it('kinds: every known one is accepted, anything else is unknown', () => {
    for (const op of ['send', 'write_imm', 'write', 'recv']) expect(ok({ op, qp: 0 }), op).toBeNull();
    for (const op of ['send_enable', 'recv_enable']) expect(ok({ op, qp: 0, upTo: 0 }), op).toBeNull();
    expect(ok({ op: 'wait', qp: -1, cq: 0, count: 1 })).toBeNull();
    for (const op of ['', 'fetch_add', 'Send']) expect(ok({ op, qp: 0 })).toBe('unknown_kind');
  });

  it('QPs, CQs, counts and enable indices at both bounds', () => {
    for (const op of ['send', 'write_imm', 'write', 'recv', 'send_enable', 'recv_enable']) {
      expect(ok({ op, qp: Q - 1, upTo: 0 }), op).toBeNull();
      expect(ok({ op, qp: Q, upTo: 0 }), op).toBe('bad_field');
      expect(ok({ op, qp: -1, upTo: 0 }), op).toBe('bad_field');
    }
    for (const op of ['send_enable', 'recv_enable']) {
      expect(ok({ op, qp: 0, upTo: -1 }), op).toBe('bad_field');
      expect(ok({ op, qp: 0, upTo: 1e9 }), op).toBeNull();
    }
    // an index is not checked for the other kinds
    expect(ok({ op: 'send', qp: 0, upTo: -1 })).toBeNull();
    const w = (over: { qp?: number; cq?: number; count?: number }) => ok({ op: 'wait', qp: -1, cq: 0, count: 1, ...over });
    for (const qp of [-1, 0, Q - 1]) expect(w({ qp })).toBeNull();
    for (const qp of [-2, Q]) expect(w({ qp })).toBe('bad_field');
    for (const cq of [0, Q + 1]) expect(w({ cq })).toBeNull();
    for (const cq of [-1, Q + 2]) expect(w({ cq })).toBe('bad_field');
    for (const count of [1, 0xffff]) expect(w({ count })).toBeNull();
    for (const count of [0, 0x10000]) expect(w({ count })).toBe('bad_field');
    // the first bad task decides; a bad field after an unknown kind is still unknown_kind
    expect(goldenReject([{ op: 'nope', qp: 0 }, { op: 'send', qp: 9 }], Q, 4)).toBe('unknown_kind');
    expect(goldenReject([{ op: 'send', qp: 9 }, { op: 'nope', qp: 0 }], Q, 4)).toBe('bad_field');
  });
});

describe('golden task machine and order: errors', () => {
  it('an enable naming an entry never posted stops the MQ with a message naming queue and index', () => {
    const queues: GQueues = new Map();
    goldenPost([{ op: 'send', qp: 0 }, { op: 'recv_enable', qp: 1, upTo: 2 }, { op: 'send', qp: 0, signal: true }], queues);
    const out = goldenRun([{ queues, link: new Map([[0, [1, 0] as [number, number]]]), sendCq: 2 }, { queues: new Map(), link: new Map(), sendCq: 2 }], () => 0);
    expect(out.errors).toEqual(['rq1 entry 2 never posted', null]);
    // the MQ stopped at the bad enable: the second send's enable never ran, the send itself (enabled at posting) did
    expect(out.consumed[0]!.get('mq')).toBe(2);
    expect(out.signals[0]).toBe(1);
    // four moves: sq0.0, mq.0, mq.1 (the error), sq0.1; rank 1 has no receive for the send
    expect(out.steps).toBe(4);
  });

  it('a disabled entry that ran without an MQ enable reaching it is refused', () => {
    const e = (op: string, enabledAtPost: boolean, extra: Partial<GEntry> = {}): GEntry => ({ op, enabledAtPost, signal: false, ...extra });
    const queues: GQueues = new Map([
      ['sq0', [e('send', false, { qp: 0 })]],
      ['mq', [e('wait', true, { cq: 1, count: 1 }), e('send_enable', true, { qp: 0, upTo: 0 })]],
    ]);
    // the enable ran (mq consumed 2): sq0.0 follows it
    expect(goldenOrder(queues, new Map([['mq', 2], ['sq0', 1]])).get('sq0.0')).toEqual(['mq.1']);
    // it did not (mq consumed 1): refused
    expect(() => goldenOrder(queues, new Map([['mq', 1], ['sq0', 1]]))).toThrow('golden order: sq0.0 ran but no MQ enable reaches it');
    // no enable for that queue at all
    const none: GQueues = new Map([['sq0', [e('send', false, { qp: 0 })]]]);
    expect(() => goldenOrder(none, new Map([['sq0', 1]]))).toThrow('golden order: sq0.0 ran but no MQ enable reaches it');
    // an enable of another QP or of a receive queue does not reach it
    const other: GQueues = new Map([
      ['sq0', [e('send', false, { qp: 0 })]],
      ['mq', [e('send_enable', true, { qp: 1, upTo: 0 }), e('recv_enable', true, { qp: 0, upTo: 0 })]],
    ]);
    expect(() => goldenOrder(other, new Map([['mq', 2], ['sq0', 1]]))).toThrow('golden order: sq0.0 ran but no MQ enable reaches it');
    // an enable naming an index the queue never got (the MQ error case) enables nothing
    const beyond: GQueues = new Map([
      ['sq0', [e('send', false, { qp: 0 })]],
      ['mq', [e('send_enable', true, { qp: 0, upTo: 1 })]],
    ]);
    expect(() => goldenOrder(beyond, new Map([['mq', 1], ['sq0', 1]]))).toThrow('golden order: sq0.0 ran but no MQ enable reaches it');
  });

  it('waits on one CQ in two queues are refused, the queues named in sorted order', () => {
    const w: GEntry = { op: 'wait', cq: 2, count: 1, enabledAtPost: true, signal: false };
    // inserted rq0, sq0, mq; the order goes through queues sorted by name: mq, then rq0, then sq0
    const queues: GQueues = new Map([
      ['rq0', [{ op: 'recv', enabledAtPost: true, signal: false }]],
      ['sq0', [w]],
      ['mq', [w]],
    ]);
    expect(() => goldenOrder(queues, new Map([['rq0', 1], ['sq0', 1], ['mq', 1]]))).toThrow('golden order: waits on CQ 2 in mq and sq0: which completions each consumes depends on timing');
    // the order's keys come out sorted by queue name
    const q2: GQueues = new Map([
      ['rq0', [{ op: 'recv', enabledAtPost: true, signal: false }]],
      ['sq1', [{ ...w, cq: 1 }]],
      ['mq', [w, w]],
    ]);
    expect([...goldenOrder(q2, new Map([['sq1', 1], ['rq0', 1], ['mq', 2]])).keys()]).toEqual(['mq.0', 'mq.1', 'rq0.0', 'sq1.0']);
    expect(goldenOrder(q2, new Map([['sq1', 1], ['rq0', 1], ['mq', 2]])).get('mq.1')).toEqual(['mq.0', 'cq2#2']);
  });
});

describe('golden schedule: extra ranks', () => {
  it('6 ranks: 4 and 5 signal 0 and 1 and wait for them; 0 and 1 wait first and signal last', () => {
    expect(goldenSchedule(6, 4)).toEqual([
      { kind: 'signal', peer: 0 },
      { kind: 'await', peer: 0 },
    ]);
    expect(goldenSchedule(6, 1)).toEqual([
      { kind: 'await', peer: 5 },
      { kind: 'signal', peer: 0 },
      { kind: 'await', peer: 0 },
      { kind: 'signal', peer: 3 },
      { kind: 'await', peer: 3 },
      { kind: 'signal', peer: 5 },
    ]);
    expect(goldenSchedule(6, 2)).toEqual([
      { kind: 'signal', peer: 3 },
      { kind: 'await', peer: 3 },
      { kind: 'signal', peer: 0 },
      { kind: 'await', peer: 0 },
    ]);
  });
});
