/**
 * Reliable end-to-end layer, strength (issue 19): the sender (`E2eTx`, node 0) and the receiver
 * (`E2eRx`, node 1) alone on a `NetLink`, driven by small engines written here to the documented
 * ports (docs/nic-rdma.md, "Reliable end-to-end"): every transfer's packets reach the receive
 * engine exactly once and in order, with drops and bit errors, with an engine that ignores the
 * credit port, with contexts running out; the closing entries, the error event and INTQ entry of a
 * refused or failed transfer byte by byte; the timeout and back-off schedules; ACK cadence; the
 * idle timer; answers of other connections ignored; the closed table; the configuration at every
 * bound; statistic names.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Channel, Simulator } from '../../rtl/kernel/index.ts';
import { type E2eDone, E2eRx, RC_STATE_NAMES } from '../../rtl/nic/e2e/e2eRx.ts';
import { E2eTx, type ErrorTemplate, SC_STATE_NAMES } from '../../rtl/nic/e2e/e2eTx.ts';
import { E2E_DEFAULTS, type E2eConfig, e2eConfig } from '../../rtl/nic/e2e/types.ts';
import { type LinkConfig, NetLink, NetPacket, packetCrc, PK_ACK, PK_CONN_ACK, PK_CONN_NACK, PK_CONN_REQ, PK_PUT } from '../../rtl/nic/link/index.ts';
import type { QueueEntry } from '../../rtl/nic/queues/types.ts';
import { expectIntegerBounds } from '../lib/configBounds.ts';

interface Transfer {
  /** packets */
  n: number;
  /** the receive engine's status at the end (0 or an error code) */
  code: number;
  /** VP of the error template (-1: none) */
  vp: number;
}

interface Seen {
  kind: number;
  cycle: number;
  p: NetPacket;
}

/**
 * Node 0 sends (E2eTx, engine here), node 1 receives (E2eRx, receive engine here); node 0's E2eRx
 * takes node 1's answers and hands them to the E2eTx. `greedy`: the engine ignores the credit port.
 */
function rig(e2e: Partial<E2eConfig>, link: Partial<LinkConfig> = {}, greedy = false, holdDone = (_t: number): boolean => false) {
  const sim = new Simulator({});
  const net = new NetLink(sim, 'link', { latency: 20, bytesPerCycle: 64, ...link });
  const ch = <T>(name: string): Channel<T> => new Channel<T>(sim, name, { capacity: 2, latency: 1 });
  const dataIn = ch<NetPacket>('data');
  const ans = ch<NetPacket>('ans');
  const ev = ch<QueueEntry>('ev');
  const tx = new E2eTx(sim, 'tx', e2e, 0, dataIn, ans, net.txIn[0]!, ev);
  const rxA = new E2eRx(sim, 'rxa', e2e, 0, 2, net.ctlOut[0]!, ans, ch('acka'), ch('fwda'), ch('donea'));
  const fwd = ch<NetPacket>('fwd');
  const done = ch<E2eDone>('done');
  const rx = new E2eRx(sim, 'rx', e2e, 1, 2, net.ctlOut[1]!, ch('ansb'), net.txIn[1]!, fwd, done);
  const queue: Transfer[] = [];
  const entries: { cycle: number; e: QueueEntry }[] = [];
  /** per transfer (by index): sequence numbers reaching the receive engine */
  const got = new Map<number, number[]>();
  const seen: Seen[] = [];
  net.onDeliver = (p, cycle) => seen.push({ kind: p.kind, cycle, p });
  // the engine's current transfer: its context, serial, next packet
  let cur: { i: number; c: number; serial: number; k: number } | null = null;
  let started = 0;
  const owner = new Map<string, number>(); // "ctx/serial" -> transfer index
  const pendingDone: E2eDone[] = [];
  const engines = (): void => {
    // transmit engine: one transfer at a time, one packet per cycle
    if (cur === null && started < queue.length) {
      const t = queue[started]!;
      const tmpl: ErrorTemplate = { vp: t.vp, opcode: 1, userTag: 0x100 + started, eventData: 0xabc00 + started, peerNode: 1, peerVp: 2, length: 1000 * t.n };
      const c = tx.alloc(1, t.n, tmpl);
      if (c >= 0) {
        cur = { i: started, c, serial: tx.serialOf(c), k: 0 };
        owner.set(`${c}/${cur.serial}`, started);
        started++;
      }
    }
    if (cur !== null && dataIn.canPush()) {
      if (tx.gone(cur.c, cur.serial)) cur = null;
      else if (greedy || cur.k - tx.ackedOf(cur.c) < tx.cfg.window) {
        const p = new NetPacket();
        p.kind = PK_PUT;
        p.e2e = true;
        p.src = 0;
        p.dst = 1;
        p.ctx = cur.c;
        p.serial = cur.serial;
        p.seq = cur.k;
        p.total = queue[cur.i]!.n;
        p.last = cur.k === queue[cur.i]!.n - 1;
        p.data = Uint8Array.from([cur.i, cur.k & 0xff, 7, 7]);
        p.crc = packetCrc(p);
        dataIn.push(p);
        if (p.last) {
          tx.complete(cur.c, [{ kind: 0, vp: 9, data: Uint8Array.from([cur.i]) }]);
          cur = null;
        } else cur.k++;
      }
    }
    // receive engine
    while (fwd.canPop()) {
      const p = fwd.pop();
      const i = owner.get(`${p.ctx}/${p.serial}`)!;
      got.set(i, [...(got.get(i) ?? []), p.seq]);
      expect([...p.data!], 'the payload reaches the engine intact').toEqual([i, p.seq & 0xff, 7, 7]);
      if (p.last) pendingDone.push({ rctx: p.rctx, code: queue[i]!.code });
    }
    if (pendingDone.length > 0 && done.canPush() && !holdDone(sim.cycle)) done.push(pendingDone.shift()!);
    while (ev.canPop()) entries.push({ cycle: sim.cycle, e: ev.pop() });
  };
  const run = (cycles: number): void => {
    for (let i = 0; i < cycles; i++) {
      engines();
      sim.step(1);
    }
  };
  const until = (cond: () => boolean, max = 200000): void => {
    for (let i = 0; i < max && !cond(); i++) run(1);
    expect(cond(), 'the run ends').toBe(true);
  };
  const settled = (): boolean => started === queue.length && cur === null && tx.inUse === 0 && rx.inUse === 0 && tx.idle && pendingDone.length === 0 && !ev.canPop();
  const stat = (path: string): number => (sim.stats.get(path) as { value: number }).value;
  return { sim, net, tx, rx, rxA, queue, entries, got, seen, run, until, settled, stat };
}

/** the error event (EQ, 32 bytes) and INTQ entry (16 bytes) of transfer i of the rig, as documented */
function errorEntries(i: number, t: Transfer, code: number): number[][] {
  const ev = new Array<number>(32).fill(0);
  ev[0] = 3; // error
  ev[1] = 1; // opcode
  ev[2] = code;
  ev[4] = (0x100 + i) & 0xff;
  ev[5] = (0x100 + i) >> 8;
  ev[6] = 1; // peer node
  ev[8] = 2; // peer VP
  const ed = 0xabc00 + i;
  for (let b = 0; b < 4; b++) ev[12 + b] = (ed >>> (8 * b)) & 0xff;
  const len = 1000 * t.n;
  for (let b = 0; b < 4; b++) ev[16 + b] = (len >>> (8 * b)) & 0xff;
  const iq = new Array<number>(16).fill(0);
  iq[0] = 1; // error
  iq[1] = code;
  iq[2] = t.vp;
  iq[4] = (0x100 + i) & 0xff;
  iq[5] = (0x100 + i) >> 8;
  return [ev, iq];
}

/**
 * what the sender must report for each transfer: its entry, then the error event and INTQ entry of a
 * refusal, one transfer's entries together (transfers may close in any order under faults)
 */
function expectReports(r: ReturnType<typeof rig>, failed: ReadonlySet<number> = new Set()): void {
  const want = new Map<number, [number, number, number[]][]>();
  r.queue.forEach((t, i) => {
    const code = failed.has(i) ? 22 : t.code;
    const w: [number, number, number[]][] = failed.has(i) ? [] : [[0, 9, [i]]];
    if (code !== 0 && t.vp >= 0) {
      const [e, q] = errorEntries(i, t, code);
      w.push([0, t.vp, e!], [2, 0, q!]);
    }
    if (w.length > 0) want.set(i, w);
  });
  const got = r.entries.map(({ e }) => [e.kind, e.vp, [...e.data]] as [number, number, number[]]);
  const order = [...new Set(got.map(([k, vp, d]) => (k === 0 && vp === 9 ? d[0]! : k === 0 ? d[4]! + 256 * d[5]! - 0x100 : d[4]! + 256 * d[5]! - 0x100)))];
  expect(order.slice().sort((a, b) => a - b)).toEqual([...want.keys()]);
  expect(got).toEqual(order.flatMap((i) => want.get(i)!));
}

const SMALL: Partial<E2eConfig> = { senderContexts: 2, receiverContexts: 2, window: 4, ackEvery: 2, timeout: 400, retries: 6, backoff: 32, rxBuffer: 3 };

describe('end-to-end: every transfer exactly once, in order', () => {
  it('random transfers over a lossy, corrupting link, with a credit-respecting or a greedy engine: each packet reaches the engine once, in order; the reports as documented; every context freed', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.integer({ min: 1, max: 12 }), code: fc.constantFrom(0, 0, 5), vp: fc.constantFrom(-1, 3) }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom(0, 0.05, 0.15),
        fc.constantFrom(0, 5e-4),
        fc.integer({ min: 1, max: 1e6 }),
        fc.boolean(),
        fc.record({ window: fc.integer({ min: 1, max: 5 }), ackEvery: fc.integer({ min: 1, max: 4 }), rxBuffer: fc.integer({ min: 1, max: 4 }) }),
        (ts, dropProb, ber, seed, greedy, w) => {
          const r = rig({ ...SMALL, ...w, retries: 30 }, { dropProb, ber, seed }, greedy);
          r.queue.push(...ts);
          r.until(r.settled);
          ts.forEach((t, i) => expect(r.got.get(i), `transfer ${i}`).toEqual([...Array(t.n).keys()]));
          expectReports(r);
          expect([r.stat('tx.completed'), r.stat('tx.failed'), r.stat('rx.closed'), r.stat('rx.admitted')]).toEqual([ts.length, 0, ts.length, ts.reduce((a, t) => a + t.n, 0)]);
          // (with ackEvery above the window the sender waits for its timeout at every window, and a transfer's last packet dropped at a full receive buffer has no successor to NACK it: both wait for the timeout)
          if (dropProb === 0 && ber === 0 && w.ackEvery <= w.window && r.stat('rx.buffer_drops') === 0) expect([r.stat('tx.data_resent'), r.stat('tx.timeouts'), r.stat('tx.data_sent')]).toEqual([0, 0, ts.reduce((a, t) => a + t.n, 0)]);
        },
      ),
      // no shrinking: a failing case is reported as drawn (a hung transfer makes every shrink step run to the cycle limit, which turns a mutation run's kill into a timeout)
      { numRuns: 40, endOnFailure: true },
    );
  });

  it('fault-free: an ACK every ackEvery packets admitted (none for the last: the close answers it), one CONN_REQ per connection, statistics by name', () => {
    for (const ackEvery of [1, 3, 4]) {
      const r = rig({ ...SMALL, window: 16, ackEvery });
      r.queue.push({ n: 13, code: 0, vp: 3 }, { n: 4, code: 0, vp: 3 });
      r.until(r.settled);
      const acks = r.seen.filter((s) => s.kind === PK_ACK && !s.p.fin);
      expect(acks.map((s) => s.p.seq)).toEqual([...[...Array(12).keys()].map((k) => k + 1).filter((k) => k % ackEvery === 0), ...[1, 2, 3].filter((k) => k % ackEvery === 0)]);
      expect(acks.every((s) => !s.p.nack)).toBe(true);
      const fins = r.seen.filter((s) => s.kind === PK_ACK && s.p.fin);
      expect(fins.map((s) => [s.p.seq, s.p.reason, s.p.dst, s.p.src])).toEqual([
        [13, 0, 0, 1],
        [4, 0, 0, 1],
      ]);
      const reqs = r.seen.filter((s) => s.kind === PK_CONN_REQ);
      expect(reqs.map((s) => [s.p.ctx, s.p.total, s.p.last, s.p.srcVp, s.p.dst, packetCrc(s.p) === s.p.crc])).toEqual([
        [0, 13, true, 3, 1, true],
        [1, 4, true, 3, 1, true], // context 0 is still open: the engine allocates the next one after its last packet
      ]);
      expect(r.seen.filter((s) => s.kind === PK_CONN_ACK).map((s) => s.p.rctx)).toEqual([0, 1]);
      const names = ['connections', 'completed', 'failed', 'conn_requests', 'conn_nacked', 'data_sent', 'data_resent', 'timeouts', 'alloc_refused'];
      expect(names.map((n) => r.stat(`tx.${n}`))).toEqual([2, 2, 0, 2, 0, 17, 0, 0, 0]);
      const rnames = ['admitted', 'duplicates', 'gaps', 'crc_errors', 'buffer_drops', 'unknown', 'conn_accepted', 'conn_refused', 'closed', 'expired'];
      expect(rnames.map((n) => r.stat(`rx.${n}`))).toEqual([17, 0, 0, 0, 0, 0, 2, 0, 2, 0]);
    }
  });

  it('the sender contexts run out: allocation refused (counted) until one is free; the lowest free context is taken', () => {
    const r = rig({ ...SMALL, senderContexts: 2 });
    const c0 = r.tx.alloc(1, 1, { vp: -1, opcode: 0, userTag: 0, eventData: 0, peerNode: 1, peerVp: 0, length: 0 });
    const c1 = r.tx.alloc(1, 1, { vp: -1, opcode: 0, userTag: 0, eventData: 0, peerNode: 1, peerVp: 0, length: 0 });
    expect([c0, c1, r.tx.inUse]).toEqual([0, 1, 2]);
    expect(r.tx.alloc(1, 1, { vp: -1, opcode: 0, userTag: 0, eventData: 0, peerNode: 1, peerVp: 0, length: 0 })).toBe(-1);
    expect(r.stat('tx.alloc_refused')).toBe(1);
    expect([r.tx.state[0], r.tx.state[1]].map((s) => SC_STATE_NAMES[s!])).toEqual(['connect', 'connect']);
    expect(RC_STATE_NAMES).toEqual(['free', 'open', 'drain']);
  });
});

describe('end-to-end: timers', () => {
  it('a dead link: CONN_REQ every timeout cycles, retries + 1 timeouts, then e2e_failed (error event and INTQ entry), the context freed; data of the failed connection discarded', () => {
    for (const retries of [0, 3]) {
      const r = rig({ ...SMALL, timeout: 100, retries }, { dropProb: 1, faultMask: 1 });
      const sent: number[] = [];
      const push = r.net.txIn[0]!.push.bind(r.net.txIn[0]!);
      r.net.txIn[0]!.push = (p: NetPacket) => {
        if (p.kind === PK_CONN_REQ) sent.push(r.sim.cycle);
        push(p);
      };
      r.queue.push({ n: 3, code: 0, vp: 4 });
      r.until(r.settled);
      // the timer counts from the allocation (the first request leaves one cycle later): it runs out timeout - 1 cycles after that request, then every timeout cycles
      expect(sent.map((c) => c - sent[0]!)).toEqual([...Array(retries + 1).keys()].map((k) => (k === 0 ? 0 : 100 * k - 1)));
      expect([r.stat('tx.timeouts'), r.stat('tx.failed'), r.stat('tx.completed'), r.stat('tx.conn_requests')]).toEqual([retries + 1, 1, 0, retries + 1]);
      expect(r.entries[0]!.cycle - sent[0]!).toBeGreaterThanOrEqual(100 * (retries + 1));
      expect(r.entries[0]!.cycle - sent[0]!).toBeLessThan(100 * (retries + 1) + 6);
      expectReports(r, new Set([0]));
    }
  });

  it('an open connection whose answers are lost: resends from the oldest unacknowledged packet every timeout, then fails', () => {
    const r = rig({ ...SMALL, timeout: 150, retries: 2, window: 8 }, { faultMask: 2 });
    // every answer lost once the connection is open
    const cut = r.net.onDeliver!;
    r.net.onDeliver = (p, cycle) => {
      cut(p, cycle);
      if (p.kind === PK_CONN_ACK) r.net.cfg.dropProb = 1;
    };
    r.queue.push({ n: 5, code: 0, vp: 2 });
    r.until(r.settled);
    const data = r.seen.filter((s) => s.kind === PK_PUT).map((s) => s.p.seq);
    // first pass 0..4, then each timeout resends from 0 (nothing acknowledged)
    expect(data).toEqual([0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    // the receiver closed the transfer at the first pass; the resends get the (lost) closing ACK again from the closed table
    expect([r.stat('tx.data_sent'), r.stat('tx.data_resent'), r.stat('tx.timeouts'), r.stat('rx.closed'), r.stat('rx.duplicates')]).toEqual([5, 10, 3, 1, 0]);
    expect(r.seen.filter((s) => s.kind === PK_ACK && s.p.fin).length).toBe(0);
    expectReports(r, new Set([0]));
  });

  it('a lost closing ACK: the sender resends its last packet, the receiver answers from the closed table with the status', () => {
    const r = rig({ ...SMALL, timeout: 200, retries: 4 });
    let fins = 0;
    const prev = r.net.onDeliver!;
    r.net.onDeliver = (p, cycle) => prev(p, cycle);
    // drop the first closing ACK: the link draws no faults for port 1 until it is sent
    const push = r.net.txIn[1]!.push.bind(r.net.txIn[1]!);
    r.net.txIn[1]!.push = (p: NetPacket) => {
      if (p.kind === PK_ACK && p.fin && fins++ === 0) return;
      push(p);
    };
    r.queue.push({ n: 3, code: 6, vp: 5 });
    r.until(r.settled);
    expect(r.got.get(0)).toEqual([0, 1, 2]);
    const f = r.seen.filter((s) => s.kind === PK_ACK && s.p.fin);
    expect(f.map((s) => [s.p.seq, s.p.reason])).toEqual([[3, 6]]);
    expect([r.stat('tx.data_resent'), r.stat('tx.timeouts'), r.stat('rx.closed'), r.stat('tx.completed')]).toEqual([1, 1, 1, 1]);
    expectReports(r);
  });

  it('CONN_NACK back-off: backoff x 2^min(NACKs so far, 4) between the answers and the next request', () => {
    let hold = true;
    const r = rig({ ...SMALL, receiverContexts: 1, backoff: 40, timeout: 5000, retries: 1 }, {}, false, () => hold);
    r.queue.push({ n: 1, code: 0, vp: -1 }, { n: 1, code: 0, vp: -1 });
    r.until(() => r.stat('tx.conn_nacked') >= 8);
    hold = false;
    r.until(r.settled);
    const nack = r.seen.filter((s) => s.kind === PK_CONN_NACK).map((s) => s.cycle);
    const req = r.seen.filter((s) => s.kind === PK_CONN_REQ && s.p.ctx === 1).map((s) => s.cycle);
    // request k + 1 reaches the receiver a fixed path time after NACK k reached the sender, plus the back-off
    const gaps = nack.slice(0, 8).map((c, k) => req[k + 1]! - c - 40 * 2 ** Math.min(k, 4));
    expect(new Set(gaps).size).toBe(1);
    expect([r.stat('tx.completed'), r.stat('tx.timeouts'), r.stat('rx.conn_refused')]).toEqual([2, 0, nack.length]);
    expectReports(r);
  });

  it('an open receiver context with no packet for rxIdle cycles is freed, in the cycle its timer reaches 0', () => {
    const r = rig({ ...SMALL, timeout: 100, retries: 1, rxIdle: 500 });
    const cut = r.net.onDeliver!;
    let last = -1;
    r.net.onDeliver = (p, cycle) => {
      cut(p, cycle);
      if (p.kind === PK_CONN_ACK) r.net.cfg.dropProb = 1;
      if (p.dst === 1) last = cycle;
    };
    r.queue.push({ n: 2, code: 0, vp: -1 });
    r.until(() => r.stat('tx.failed') === 1);
    // the last packet (its CONN_REQ) was on the receiver's input in cycle last + 1, which loaded the timer: free rxIdle - 1 cycles after that
    r.until(() => r.sim.cycle >= last + 500);
    expect(r.rx.inUse).toBe(1);
    r.run(1);
    expect([r.rx.inUse, r.stat('rx.expired')]).toEqual([0, 1]);
  });
});

describe('end-to-end: foreign packets', () => {
  const fake = (kind: number, f: Partial<NetPacket>): NetPacket => {
    const p = Object.assign(new NetPacket(), { kind, e2e: true, last: true }, f);
    p.crc = packetCrc(p);
    return p;
  };

  it('answers of another connection (context out of range, other serial, other node) and connection answers to an open connection are ignored by the sender; an answer with a bad CRC is dropped', () => {
    let hold = true;
    const r = rig({ ...SMALL, window: 16, timeout: 3000 }, {}, false, () => hold);
    r.queue.push({ n: 6, code: 0, vp: 3 });
    // the connection open (its CONN_ACK at the sender) and the receive engine holding the close: foreign closing ACKs and NACKs
    r.until(() => r.seen.some((s) => s.kind === PK_CONN_ACK));
    r.run(5);
    const bad = [
      fake(PK_ACK, { src: 1, dst: 0, ctx: 5, serial: 1, fin: true, reason: 9 }),
      fake(PK_ACK, { src: 1, dst: 0, ctx: -1, serial: 1, fin: true, reason: 9 }),
      fake(PK_ACK, { src: 1, dst: 0, ctx: 0, serial: 2, fin: true, reason: 9 }),
      fake(PK_CONN_NACK, { src: 1, dst: 0, ctx: 0, serial: 1 }),
      fake(PK_CONN_ACK, { src: 1, dst: 0, ctx: 0, serial: 1, rctx: 1 }),
      fake(PK_ACK, { src: 0, dst: 0, ctx: 0, serial: 1, fin: true, reason: 9 }),
    ];
    for (const p of bad) {
      r.until(() => r.net.txIn[1]!.canPush());
      r.net.txIn[1]!.push(p);
      r.run(1);
    }
    r.run(100);
    expect(r.tx.state[0]).toBe(3); // still open
    hold = false;
    r.until(r.settled);
    expect(r.got.get(0)).toEqual([0, 1, 2, 3, 4, 5]);
    expectReports(r);
    expect(r.stat('tx.data_resent')).toBe(0);
    // a CRC error on an answer: dropped at the receiver side, counted
    const r2 = rig({ ...SMALL, window: 16 });
    r2.queue.push({ n: 2, code: 0, vp: 3 });
    const broken = fake(PK_ACK, { src: 1, dst: 0, ctx: 0, serial: 1, fin: true, reason: 9 });
    broken.crc ^= 1;
    r2.run(2);
    r2.net.txIn[1]!.push(broken);
    r2.until(r2.settled);
    expectReports(r2);
    expect(r2.stat('rxa.crc_errors')).toBe(1);
  });

  it('the receiver: packets naming no sender context or node are unknown; data of no connection unknown; a CONN_REQ with a bad CRC dropped; data of a closed connection gets the closing ACK with its status', () => {
    const r = rig({ ...SMALL, window: 16 });
    r.queue.push({ n: 2, code: 7, vp: -1 });
    r.until(r.settled);
    const before = r.seen.length;
    const badReq = fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: 1, serial: 1, total: 3 });
    badReq.crc ^= 4;
    const pkts = [
      fake(PK_PUT, { src: 0, dst: 1, ctx: 2, serial: 1, seq: 0 }), // ctx = senderContexts
      fake(PK_PUT, { src: 0, dst: 1, ctx: -1, serial: 1, seq: 0 }),
      fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: 1.5, serial: 1 }),
      fake(PK_CONN_REQ, { src: 2, dst: 1, ctx: 0, serial: 1 }), // node = nodes
      fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: 2, serial: 1 }), // ctx = senderContexts
      fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: -1, serial: 1 }),
      fake(PK_PUT, { src: 2, dst: 1, ctx: 0, serial: 1, seq: 0 }), // node = nodes
      fake(PK_PUT, { src: 0, dst: 1, ctx: 1, serial: 1, seq: 0 }), // no such connection
      fake(PK_PUT, { src: 0, dst: 1, ctx: 0, serial: 2, seq: 0 }), // not the closed serial
      badReq,
      fake(PK_PUT, { src: 0, dst: 1, ctx: 0, serial: 1, seq: 1, total: 2 }), // the closed connection
    ];
    for (const p of pkts) {
      r.until(() => r.net.txIn[0]!.canPush());
      r.net.txIn[0]!.push(p);
      r.run(1);
    }
    r.run(200);
    expect([r.stat('rx.unknown'), r.stat('rx.crc_errors'), r.stat('rx.conn_accepted'), r.stat('rx.conn_refused')]).toEqual([9, 1, 1, 0]);
    const ans = r.seen.slice(before).filter((s) => s.p.dst === 0);
    expect(ans.map((s) => [s.kind, s.p.fin, s.p.seq, s.p.reason, s.p.ctx, s.p.serial, packetCrc(s.p) === s.p.crc])).toEqual([[PK_ACK, true, 2, 7, 0, 1, true]]);
  });

  it('a repeated CONN_REQ of an open connection is answered with the same receiver context', () => {
    const r = rig({ ...SMALL, receiverContexts: 3 });
    const req = fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: 1, serial: 4, total: 9 });
    const other = fake(PK_CONN_REQ, { src: 0, dst: 1, ctx: 0, serial: 4, total: 9 });
    for (const p of [req, other, req]) {
      r.net.txIn[0]!.push(p);
      r.run(3);
    }
    r.run(100);
    expect(r.seen.filter((s) => s.kind === PK_CONN_ACK).map((s) => [s.p.ctx, s.p.serial, s.p.rctx, s.p.dst])).toEqual([
      [1, 4, 0, 0],
      [0, 4, 1, 0],
      [1, 4, 0, 0],
    ]);
    expect([r.rx.inUse, r.stat('rx.conn_accepted')]).toEqual([2, 2]);
  });
});

describe('end-to-end configuration', () => {
  const ints: [keyof E2eConfig, number, number][] = [
    ['senderContexts', 1, 1024],
    ['receiverContexts', 1, 1024],
    ['window', 1, 1024],
    ['ackEvery', 1, 1024],
    ['timeout', 16, 1e9],
    ['retries', 0, 1000],
    ['backoff', 1, 1e9],
    ['rxBuffer', 1, 1024],
    ['rxIdle', 16, 1e12],
  ];
  it.each(ints)('%s: both bounds accepted; below, above and non-integer refused with the range', (k, lo, hi) => expectIntegerBounds(e2eConfig, 'e2e config', k, lo, hi));
  it('defaults as documented, rxIdle = timeout x (retries + 2) unless given; an unknown parameter is named', () => {
    const d = { senderContexts: 16, receiverContexts: 16, window: 16, ackEvery: 4, timeout: 3000, retries: 8, backoff: 256, rxBuffer: 16 };
    expect(E2E_DEFAULTS).toEqual(d);
    expect(e2eConfig()).toEqual({ ...d, rxIdle: 30000 });
    expect(e2eConfig({ timeout: 100, retries: 3 }).rxIdle).toBe(500);
    expect(e2eConfig({ timeout: 100, rxIdle: 77 }).rxIdle).toBe(77);
    expect(() => e2eConfig({ speed: 1 } as never)).toThrow('e2e config: unknown parameter speed');
  });
});
