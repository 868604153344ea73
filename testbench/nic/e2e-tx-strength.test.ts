/**
 * The end-to-end sender (`E2eTx`, rtl/nic/e2e/e2eTx.ts) driven directly on its four channels and
 * its allocation, credit and completion ports (issue 19): the wait on a full `pktOut` and the
 * round-robin over the contexts; the report FIFO (16 entries) taking a context's entries only when
 * all of them fit, while `evOut` is held; answers in the wrong state ignored; the window's
 * acknowledgement clamp; entries handed in after a failure ignored; the `idle` view term by term;
 * an idle sender not evaluated. Node 0 sends to node 1; the answers are built here to the documented
 * fields.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Fifo, Simulator } from '../../rtl/kernel/index.ts';
import { E2eTx, type ErrorTemplate, SC_STATE_NAMES } from '../../rtl/nic/e2e/e2eTx.ts';
import type { E2eConfig } from '../../rtl/nic/e2e/types.ts';
import { NetPacket, packetCrc, PK_ACK, PK_CONN_ACK, PK_CONN_NACK, PK_CONN_REQ, PK_PUT } from '../../rtl/nic/link/index.ts';
import type { QueueEntry } from '../../rtl/nic/queues/types.ts';

function bench(cfg: Partial<E2eConfig> = {}) {
  const sim = new Simulator({});
  const ch = <T>(name: string): Channel<T> => new Channel<T>(sim, name, { capacity: 2, latency: 1 });
  const dataIn = ch<NetPacket>('data');
  const ctlIn = ch<NetPacket>('ctl');
  const pktOut = ch<NetPacket>('pkt');
  const evOut = ch<QueueEntry>('ev');
  const tx = new E2eTx(sim, 'tx', { senderContexts: 3, window: 4, timeout: 100, retries: 2, backoff: 20, ...cfg }, 0, dataIn, ctlIn, pktOut, evOut);
  let evals = 0;
  const tick = tx.tick.bind(tx);
  tx.tick = (t: number): number => {
    evals++;
    return tick(t);
  };
  const hold = { pkt: false, ev: false };
  const pkts: { cycle: number; p: NetPacket }[] = [];
  const evs: { cycle: number; e: QueueEntry }[] = [];
  const drain = (): void => {
    while (!hold.pkt && pktOut.canPop()) pkts.push({ cycle: sim.cycle, p: pktOut.pop() });
    while (!hold.ev && evOut.canPop()) evs.push({ cycle: sim.cycle, e: evOut.pop() });
  };
  const run = (n: number): void => {
    for (let i = 0; i < n; i++) {
      drain();
      sim.step(1);
    }
    drain();
  };
  const stat = (n: string): number => (sim.stats.get(`tx.${n}`) as { value: number }).value;
  /** packet `seq` of context c's transfer of n packets, as the transmit engine builds it */
  const data = (c: number, seq: number, n: number): NetPacket => {
    const p = Object.assign(new NetPacket(), { kind: PK_PUT, e2e: true, src: 0, dst: 1, ctx: c, serial: tx.serialOf(c), seq, total: n, last: seq === n - 1, data: Uint8Array.from([c, seq]) });
    p.crc = packetCrc(p);
    return p;
  };
  /** an answer of node 1 to context c's current connection */
  const answer = (kind: number, c: number, f: Partial<NetPacket> = {}): NetPacket => {
    const p = Object.assign(new NetPacket(), { kind, e2e: true, src: 1, dst: 0, ctx: c, serial: tx.serialOf(c), last: true }, f);
    p.crc = packetCrc(p);
    return p;
  };
  const push = (c: Channel<NetPacket>, ps: readonly NetPacket[], extra = 0): void => {
    for (const p of ps) {
      while (!c.canPush()) run(1);
      c.push(p);
    }
    run(extra);
  };
  return { sim, tx, dataIn, ctlIn, pktOut, evOut, hold, pkts, evs, run, stat, data, answer, push, evaluations: () => evals };
}

const T = (vp: number, tag = 0x33): ErrorTemplate => ({ vp, opcode: 2, userTag: tag, eventData: 0x1234, peerNode: 1, peerVp: 5, length: 64 });
const state = (b: ReturnType<typeof bench>, c: number): string => SC_STATE_NAMES[b.tx.state[c]!]!;

/** allocates context c for n packets, connects it and hands it all n packets (the window permitting) */
function open(b: ReturnType<typeof bench>, n: number, t: ErrorTemplate = T(-1)): number {
  const c = b.tx.alloc(1, n, t);
  b.run(3);
  b.push(b.ctlIn, [b.answer(PK_CONN_ACK, c, { rctx: 7 })], 3);
  return c;
}

describe('E2eTx: outputs', () => {
  it('packets wait while pktOut is full; the contexts with something to send are served round-robin, one packet per cycle', () => {
    const b = bench({ senderContexts: 3 });
    b.hold.pkt = true;
    for (let k = 0; k < 3; k++) b.tx.alloc(1, 2, T(-1, k));
    b.run(10);
    expect([b.pktOut.held(), b.stat('conn_requests')]).toEqual([2, 2]);
    b.hold.pkt = false;
    b.run(10);
    expect(b.pkts.map((x) => [x.p.kind, x.p.ctx])).toEqual([0, 1, 2].map((c) => [PK_CONN_REQ, c]));
    expect(b.stat('conn_requests')).toBe(3);
    // all three open, each given two packets (one a cycle): context 0's two fill pktOut, then the grant goes round 1 and 2
    b.push(b.ctlIn, [0, 1, 2].map((c) => b.answer(PK_CONN_ACK, c)), 3);
    b.hold.pkt = true;
    b.push(b.dataIn, [0, 1, 2].flatMap((c) => [b.data(c, 0, 2), b.data(c, 1, 2)]), 10);
    b.hold.pkt = false;
    b.run(20);
    expect(b.pkts.slice(3).map((x) => [x.p.ctx, x.p.seq])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [2, 0],
      [1, 1],
      [2, 1],
    ]);
    expect(b.stat('data_sent')).toBe(6);
  });

  it('a closed context\'s entries go to the report FIFO (16) only when all of them fit; evOut drains it one per cycle', () => {
    const b = bench({ senderContexts: 8, window: 2 });
    b.hold.ev = true;
    const cs = [0, 1, 2, 3, 4, 5, 6].map((k) => open(b, 1, T(3, 0x40 + k)));
    for (const c of cs) {
      b.push(b.dataIn, [b.data(c, 0, 1)], 0);
      b.tx.complete(c, [{ kind: 0, vp: 9, data: Uint8Array.from([c]) }]);
    }
    b.run(10);
    // contexts 0 .. 5 close with an error (3 entries each), 6 without (1 entry)
    for (const c of cs) b.push(b.ctlIn, [b.answer(PK_ACK, c, { fin: true, seq: 1, reason: c < 6 ? 6 : 0 })], 2);
    b.run(10);
    // evOut holds 2, the FIFO 16: 0 .. 4 (15 entries, 2 of them in evOut), 5 (3: fits exactly), 6 (1) waits for room
    expect([b.evOut.held(), b.tx.inUse, state(b, 5), state(b, 6), b.tx.idle]).toEqual([2, 1, 'free', 'report', false]);
    expect(b.stat('completed')).toBe(7);
    b.hold.ev = false;
    b.run(40);
    expect([b.tx.inUse, state(b, 6), b.tx.idle]).toEqual([0, 'free', true]);
    const got = b.evs.map((x) => [x.e.kind, x.e.vp, x.e.data[0], x.e.data[2], x.e.data[4]]);
    const want = cs.flatMap((c) => (c < 6 ? [[0, 9, c, undefined, undefined], [0, 3, 3, 6, 0x40 + c], [2, 0, 1, 3, 0x40 + c]] : [[0, 9, c, undefined, undefined]]));
    expect(got).toEqual(want);
    expect(b.evs.map((x) => x.cycle - b.evs[0]!.cycle)).toEqual([0, 0, ...[...Array(b.evs.length - 2).keys()].map((k) => k + 2)]);
  });

  it('an error on a template with VP 0 is reported (event and INTQ entry); with VP -1 only the engine\'s entries', () => {
    for (const vp of [0, -1]) {
      const b = bench();
      const c = open(b, 1, T(vp));
      b.push(b.dataIn, [b.data(c, 0, 1)], 3);
      b.tx.complete(c, [{ kind: 0, vp: 9, data: Uint8Array.from([42]) }]);
      b.push(b.ctlIn, [b.answer(PK_ACK, c, { fin: true, seq: 1, reason: 8 })], 10);
      expect(b.evs.map((x) => [x.e.kind, x.e.vp, x.e.data[0], x.e.data[2]])).toEqual(vp === 0 ? [[0, 9, 42, undefined], [0, 0, 3, 8], [2, 0, 1, 0]] : [[0, 9, 42, undefined]]);
      expect(b.pkts[0]!.p.srcVp).toBe(0);
    }
  });
});

describe('E2eTx: answers', () => {
  it('a CONN_ACK while backing off and an ACK while connecting are ignored; a NACK in back-off is not counted again', () => {
    const b = bench({ backoff: 50, timeout: 1000 });
    const c = b.tx.alloc(1, 3, T(-1));
    b.run(3);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 2 })], 3);
    expect([state(b, c), b.tx.ackedOf(c)]).toEqual(['connect', 0]);
    b.push(b.ctlIn, [b.answer(PK_CONN_NACK, c)], 3);
    expect([state(b, c), b.stat('conn_nacked')]).toEqual(['backoff', 1]);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, c), b.answer(PK_CONN_NACK, c), b.answer(PK_ACK, c, { seq: 1 })], 3);
    expect([state(b, c), b.stat('conn_nacked'), b.tx.ackedOf(c)]).toEqual(['backoff', 1, 0]);
    b.run(60);
    expect(state(b, c)).toBe('connect');
    expect(b.pkts.filter((x) => x.p.kind === PK_CONN_REQ).length).toBe(2);
  });

  it('acknowledgements: at most nPk - 1 counted before the close, never moved back; a NACK goes back to the oldest unacknowledged; an ACK from another node ignored', () => {
    const b = bench({ window: 8, timeout: 1000 });
    const c = open(b, 6);
    b.push(b.dataIn, [0, 1, 2, 3, 4, 5].map((k) => b.data(c, k, 6)), 10);
    expect(b.pkts.filter((x) => x.p.kind === PK_PUT).map((x) => x.p.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 9 })], 3);
    expect(b.tx.ackedOf(c)).toBe(5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 2 }), b.answer(PK_ACK, c, { seq: 1, src: 2 })], 3);
    expect(b.tx.ackedOf(c)).toBe(5);
    const n0 = b.pkts.length;
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 3, nack: true })], 5);
    expect(b.pkts.slice(n0).map((x) => x.p.seq)).toEqual([5]);
    expect([b.stat('data_resent'), b.tx.ackedOf(c)]).toEqual([1, 5]);
  });

  it('after a failure the engine\'s late entries are ignored and its late packets discarded, also while the failed context waits to report', () => {
    const b = bench({ senderContexts: 8, timeout: 30, retries: 0, window: 2 });
    b.hold.ev = true;
    // six closes with an error, 3 entries each, fill evOut (2) and the report FIFO (16)
    for (let k = 0; k < 6; k++) {
      const c = open(b, 1, T(3, 0x40 + k));
      b.push(b.dataIn, [b.data(c, 0, 1)], 2);
      b.tx.complete(c, [{ kind: 0, vp: 9, data: Uint8Array.from([k]) }]);
      b.push(b.ctlIn, [b.answer(PK_ACK, c, { fin: true, seq: 1, reason: 6 })], 2);
    }
    expect([b.evOut.held(), b.tx.inUse]).toEqual([2, 0]);
    // a seventh connection gets no answer after its CONN_ACK: the timeout fails it; its report waits for room
    const c = open(b, 3, T(4, 0x77));
    const serial = b.tx.serialOf(c);
    b.push(b.dataIn, [b.data(c, 0, 3)], 40);
    expect([b.stat('failed'), b.stat('timeouts'), state(b, c), b.tx.inUse]).toEqual([1, 1, 'report', 1]);
    expect(b.tx.gone(c, serial)).toBe(true);
    b.tx.complete(c, [{ kind: 0, vp: 9, data: Uint8Array.from([1]) }]);
    b.push(b.dataIn, [b.data(c, 1, 3), b.data(c, 2, 3)], 5);
    expect(b.dataIn.held()).toBe(0);
    b.hold.ev = false;
    b.run(40);
    expect(b.evs.slice(18).map((x) => [x.e.kind, x.e.vp, x.e.kind === 0 ? x.e.data[2] : x.e.data[1], x.e.data[4]])).toEqual([
      [0, 4, 22, 0x77],
      [2, 0, 22, 0x77],
    ]);
    expect([b.tx.inUse, b.tx.gone(c, serial), b.tx.idle]).toEqual([0, true, true]);
  });

  it('answers with nothing in use are taken as they come, two in one cycle included (ignored, the input not blocked)', () => {
    const b = bench();
    b.run(10);
    b.ctlIn.push(b.answer(PK_ACK, 0, { seq: 1 }));
    b.ctlIn.push(b.answer(PK_CONN_ACK, 1));
    b.run(10);
    expect([b.ctlIn.held(), b.tx.idle, b.tx.inUse]).toEqual([0, true, 0]);
  });
});

describe('E2eTx: timers and the window', () => {
  const puts = (b: ReturnType<typeof bench>): number[] => b.pkts.filter((x) => x.p.kind === PK_PUT).map((x) => x.p.seq);
  const reqs = (b: ReturnType<typeof bench>): number[] => b.pkts.filter((x) => x.p.kind === PK_CONN_REQ).map((x) => x.cycle);

  it('every answer starts the retry count again: retries + 1 timeouts in a row fail the transfer, counted from the last answer', () => {
    const b = bench({ timeout: 50, retries: 2, window: 8 });
    const c = b.tx.alloc(1, 3, T(2));
    b.run(120); // two requests unanswered: two timeouts
    expect([reqs(b).length, b.stat('timeouts')]).toEqual([3, 2]);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, c)], 2);
    b.push(b.dataIn, [0, 1, 2].map((k) => b.data(c, k, 3)), 110); // two data timeouts
    expect([b.stat('timeouts'), b.stat('failed'), state(b, c)]).toEqual([4, 0, 'open']);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 1 })], 2);
    b.run(140);
    expect([b.stat('timeouts'), b.stat('failed'), state(b, c)]).toEqual([6, 0, 'open']);
    b.run(20);
    expect([b.stat('timeouts'), b.stat('failed')]).toEqual([7, 1]);
  });

  it('an open context with everything it was given acknowledged waits for the engine without timing out', () => {
    const b = bench({ timeout: 40, retries: 0, window: 8 });
    const c = open(b, 4);
    b.push(b.dataIn, [b.data(c, 0, 4), b.data(c, 1, 4)], 5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 2 })], 200);
    expect([b.stat('timeouts'), b.stat('data_resent'), state(b, c)]).toEqual([0, 0, 'open']);
    b.push(b.dataIn, [b.data(c, 2, 4), b.data(c, 3, 4)], 5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 4, fin: true })], 5);
    expect([b.stat('timeouts'), b.stat('completed'), puts(b)]).toEqual([0, 1, [0, 1, 2, 3]]);
  });

  it('a context that fails before its request could leave (pktOut full) sends nothing more', () => {
    const b = bench({ timeout: 30, retries: 0 });
    b.hold.pkt = true;
    for (let k = 0; k < 3; k++) b.tx.alloc(1, 1, T(-1));
    b.run(60);
    expect([b.stat('failed'), b.tx.inUse, b.pktOut.held()]).toEqual([3, 0, 2]);
    b.hold.pkt = false;
    b.run(20);
    expect([reqs(b).length, b.stat('conn_requests')]).toEqual([2, 2]);
    // a new connection (context 0) sends its own request, and only that
    b.tx.alloc(1, 1, T(-1));
    b.run(10);
    expect(b.pkts.slice(2).map((x) => [x.p.kind, x.p.ctx])).toEqual([[PK_CONN_REQ, 0]]);
  });

  it('after a timeout the resend starts at the oldest unacknowledged packet and skips what an ACK acknowledges meanwhile', () => {
    const b = bench({ timeout: 60, retries: 3, window: 8 });
    const c = open(b, 6);
    b.push(b.dataIn, [0, 1, 2, 3, 4, 5].map((k) => b.data(c, k, 6)), 10);
    b.hold.pkt = true;
    b.run(70);
    expect([b.stat('timeouts'), b.pktOut.held()]).toEqual([1, 2]);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 4 })], 3);
    b.hold.pkt = false;
    b.run(10);
    expect(puts(b)).toEqual([0, 1, 2, 3, 4, 5, 0, 1, 4, 5]);
    expect([b.stat('data_sent'), b.stat('data_resent')]).toEqual([6, 4]);
  });

  it('a packet beyond the window waits at dataIn (an engine ignoring the credit port); the buffered ones are resent intact', () => {
    const b = bench({ timeout: 1000, window: 2 });
    const c = open(b, 4);
    b.push(b.dataIn, [0, 1, 2].map((k) => b.data(c, k, 4)), 5);
    expect([b.dataIn.held(), puts(b)]).toEqual([1, [0, 1]]);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 0, nack: true })], 5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 1 })], 5);
    const sent = b.pkts.filter((x) => x.p.kind === PK_PUT);
    expect(sent.map((x) => [x.p.seq, ...x.p.data!])).toEqual([
      [0, c, 0],
      [1, c, 1],
      [0, c, 0],
      [1, c, 1],
      [2, c, 2],
    ]);
    expect(new Set(sent.map((x) => x.p)).size).toBe(5); // a fresh copy each time
    expect(b.dataIn.held()).toBe(0);
  });
});

describe('E2eTx: idle and evaluation', () => {
  it('idle: no context in use, nothing at either input, nothing in the report FIFO; each alone makes it false', () => {
    const b = bench();
    expect([b.tx.idle, b.tx.inUse]).toEqual([true, 0]);
    // a packet at dataIn (of no connection: discarded when taken)
    b.dataIn.push(b.data(2, 0, 1));
    b.sim.step(1);
    expect([b.tx.idle, b.dataIn.canPop()]).toEqual([false, true]);
    b.run(2);
    expect(b.tx.idle).toBe(true);
    // an answer at ctlIn (of no connection: ignored)
    b.ctlIn.push(b.answer(PK_ACK, 1));
    b.sim.step(1);
    expect(b.tx.idle).toBe(false);
    b.run(2);
    expect(b.tx.idle).toBe(true);
    // a context in use
    const c = b.tx.alloc(1, 1, T(2));
    expect([b.tx.idle, b.tx.inUse]).toEqual([false, 1]);
    // entries in the report FIFO only: the context closed and freed while evOut is held
    b.hold.ev = true;
    b.run(3);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, c)], 2);
    b.push(b.dataIn, [b.data(c, 0, 1)], 2);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { fin: true, seq: 1, reason: 5 })], 5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { fin: true, seq: 1, reason: 5 })], 5); // a second close: stale, ignored
    expect([b.tx.inUse, b.evOut.held(), b.tx.idle]).toEqual([0, 2, true]);
    // (the two error entries are in evOut: the FIFO is empty) now with one in the FIFO
    const d = b.tx.alloc(1, 1, T(2));
    b.run(3);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, d)], 2);
    b.push(b.dataIn, [b.data(d, 0, 1)], 2);
    b.tx.complete(d, [{ kind: 0, vp: 9, data: Uint8Array.from([5]) }]);
    b.push(b.ctlIn, [b.answer(PK_ACK, d, { fin: true, seq: 1, reason: 0 })], 5);
    expect([b.tx.inUse, b.evOut.held(), b.tx.idle]).toEqual([0, 2, false]);
    b.hold.ev = false;
    b.run(5);
    expect(b.tx.idle).toBe(true);
    expect(b.evs.map((x) => x.e.kind)).toEqual([0, 2, 0]);
  });

  it('an idle sender is not evaluated; a context in use keeps it running every cycle; entries left in the report FIFO leave one per cycle', () => {
    const b = bench({ timeout: 40, retries: 1 });
    b.run(300);
    expect(b.evaluations()).toBeLessThan(3);
    const e0 = b.evaluations();
    b.tx.alloc(1, 1, T(1));
    b.run(300);
    // CONN_REQ at once, again after 40 cycles, then the failure at the second timeout: 80 cycles, then 3 entries
    expect([b.stat('conn_requests'), b.stat('failed')]).toEqual([2, 1]);
    expect(b.evaluations() - e0).toBeGreaterThanOrEqual(80);
    expect(b.evaluations() - e0).toBeLessThan(86);
    expect(b.evs.map((x) => x.cycle - b.evs[0]!.cycle)).toEqual([0, 1]);
    // two packets at dataIn in the same cycle (of no connection): both taken
    b.dataIn.push(b.data(2, 0, 1));
    b.dataIn.push(b.data(2, 1, 2));
    b.run(10);
    expect(b.dataIn.held()).toBe(0);
  });
});

describe('E2eTx: requests and names', () => {
  const reqs = (b: ReturnType<typeof bench>, c: number): number => b.pkts.filter((x) => x.p.kind === PK_CONN_REQ && x.p.ctx === c).length;

  it('a request due again (timeout) but not yet out when the CONN_ACK or CONN_NACK arrives is not sent', () => {
    for (const kind of [PK_CONN_ACK, PK_CONN_NACK]) {
      const b = bench({ timeout: 30, retries: 3, backoff: 500 });
      const c = b.tx.alloc(1, 1, T(-1));
      b.run(3);
      b.hold.pkt = true;
      b.tx.alloc(1, 1, T(-1));
      b.tx.alloc(1, 1, T(-1));
      b.run(35); // pktOut full with the other two requests; c's timer runs out: its request waits
      expect([b.stat('timeouts'), reqs(b, c), b.pktOut.held()]).toEqual([3, 1, 2]); // all three timed out
      b.push(b.ctlIn, [b.answer(kind, c)], 3);
      expect(state(b, c)).toBe(kind === PK_CONN_ACK ? 'open' : 'backoff');
      b.hold.pkt = false;
      b.run(10);
      expect(reqs(b, c)).toBe(1);
    }
  });

  it('a CONN_NACK starts the retry count again; a reused context backs off from backoff x 1 again', () => {
    const b = bench({ timeout: 40, retries: 1, backoff: 20 });
    const c = b.tx.alloc(1, 1, T(-1));
    b.run(45); // one timeout: tries 1
    expect([b.stat('timeouts'), reqs(b, c)]).toEqual([1, 2]);
    b.push(b.ctlIn, [b.answer(PK_CONN_NACK, c)], 1);
    b.run(20 + 45); // back-off, the request again, one more timeout: tries 1 again, not failed
    expect([b.stat('timeouts'), b.stat('failed'), state(b, c)]).toEqual([2, 0, 'connect']);
    b.push(b.ctlIn, [b.answer(PK_CONN_NACK, c)], 1); // second NACK: 40 cycles
    b.run(45);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, c)], 2);
    b.push(b.dataIn, [b.data(c, 0, 1)], 2);
    b.push(b.ctlIn, [b.answer(PK_ACK, c, { seq: 1, fin: true })], 5);
    expect([b.stat('completed'), b.tx.inUse]).toEqual([1, 0]);
    // the same context again: its first NACK backs off 20 cycles, not 80
    const d = b.tx.alloc(1, 1, T(-1));
    expect(d).toBe(c);
    b.run(3);
    const n0 = reqs(b, c);
    b.push(b.ctlIn, [b.answer(PK_CONN_NACK, c)], 0);
    const t0 = b.sim.cycle;
    b.run(30);
    const again = b.pkts.filter((x) => x.p.kind === PK_CONN_REQ && x.p.ctx === c).slice(n0);
    expect(again.length).toBe(1);
    expect(again[0]!.cycle - t0).toBeLessThan(25);
  });

  it('its report FIFO is named reports, its round-robin pointer arb', () => {
    const b = bench({ senderContexts: 3 });
    expect(() => new Fifo<number>(b.tx, 2, { name: 'reports' })).toThrow('duplicate path tx.reports');
    expect(b.tx._signals.map((x) => [x.name, x.width])).toEqual([['arb', 2]]);
  });
});

describe('E2eTx: a context reused', () => {
  it('a failed connection\'s packet still at dataIn when its context is allocated again is discarded, not sent in the new connection', () => {
    const b = bench({ timeout: 30, retries: 0, window: 1 });
    const c = open(b, 3);
    const old = b.tx.serialOf(c);
    b.push(b.dataIn, [b.data(c, 0, 3), b.data(c, 1, 3), b.data(c, 2, 3)], 0);
    // the window (1) is full: 1 and 2 wait at dataIn until the timeout fails the connection
    for (let i = 0; i < 100 && state(b, c) !== 'free'; i++) b.run(1);
    expect([state(b, c), b.dataIn.held(), b.stat('failed')]).toEqual(['free', 1, 1]);
    const d = b.tx.alloc(1, 2, T(-1));
    expect([d, b.tx.serialOf(d) !== old, b.tx.gone(c, old)]).toEqual([c, true, true]);
    b.run(3);
    expect(b.dataIn.held()).toBe(0);
    b.push(b.ctlIn, [b.answer(PK_CONN_ACK, d)], 5);
    const n0 = b.pkts.length;
    b.push(b.dataIn, [b.data(d, 0, 2)], 5);
    expect(b.pkts.slice(n0).map((x) => [x.p.kind, x.p.serial, x.p.seq])).toEqual([[PK_PUT, b.tx.serialOf(d), 0]]);
  });
});

describe('E2eTx: retransmission buffers', () => {
  it('a context closing leaves the other contexts\' buffered packets intact (more contexts than window slots)', () => {
    const b = bench({ senderContexts: 3, window: 2, timeout: 1000 });
    const c0 = open(b, 3);
    b.push(b.dataIn, [b.data(c0, 0, 3), b.data(c0, 1, 3)], 5);
    const c1 = open(b, 2);
    b.push(b.dataIn, [b.data(c1, 0, 2), b.data(c1, 1, 2)], 5);
    const c2 = open(b, 1);
    b.push(b.dataIn, [b.data(c2, 0, 1)], 5);
    b.push(b.ctlIn, [b.answer(PK_ACK, c2, { seq: 1, fin: true })], 5);
    expect([c0, c1, c2, b.stat('completed')]).toEqual([0, 1, 2, 1]);
    const n0 = b.pkts.length;
    b.push(b.ctlIn, [b.answer(PK_ACK, c0, { seq: 0, nack: true }), b.answer(PK_ACK, c1, { seq: 0, nack: true })], 10);
    expect(b.pkts.slice(n0).map((x) => [x.p.ctx, x.p.seq, x.p.serial, ...x.p.data!])).toEqual([
      [0, 0, b.tx.serialOf(0), 0, 0],
      [1, 0, b.tx.serialOf(1), 1, 0],
      [0, 1, b.tx.serialOf(0), 0, 1],
      [1, 1, b.tx.serialOf(1), 1, 1],
    ]);
  });
});
