/**
 * The end-to-end receiver (`E2eRx`, rtl/nic/e2e/e2eRx.ts) driven directly on its five channels
 * (issue 19): the waits on a full output (the answer FIFO and `ackOut`, the sender side's `toTx`,
 * the receive buffer and `fwdOut`), each output draining one entry per cycle as soon as it has room;
 * the `quiet` view term by term; an idle receiver not evaluated, a busy one evaluated until its work
 * is out. Node 1 receives from nodes 0 and 2 (`nodes` 3); the packets are built here to the
 * documented fields.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Fifo, Simulator } from '../../rtl/kernel/index.ts';
import { type E2eDone, E2eRx } from '../../rtl/nic/e2e/e2eRx.ts';
import type { E2eConfig } from '../../rtl/nic/e2e/types.ts';
import { NetPacket, packetCrc, PK_ACK, PK_CONN_ACK, PK_CONN_NACK, PK_CONN_REQ, PK_PUT } from '../../rtl/nic/link/index.ts';

type Port = 'toTx' | 'ack' | 'fwd';

function bench(cfg: Partial<E2eConfig> = {}) {
  const sim = new Simulator({});
  const ch = <T>(name: string): Channel<T> => new Channel<T>(sim, name, { capacity: 2, latency: 1 });
  const ctlIn = ch<NetPacket>('ctl');
  const toTx = ch<NetPacket>('totx');
  const ackOut = ch<NetPacket>('ackout');
  const fwdOut = ch<NetPacket>('fwd');
  const doneIn = ch<E2eDone>('done');
  const rx = new E2eRx(sim, 'rx', { receiverContexts: 2, senderContexts: 4, rxBuffer: 3, ackEvery: 2, timeout: 100, retries: 1, ...cfg }, 1, 3, ctlIn, toTx, ackOut, fwdOut, doneIn);
  let evals = 0;
  const tick = rx.tick.bind(rx);
  rx.tick = (t: number): number => {
    evals++;
    return tick(t);
  };
  const hold: Record<Port, boolean> = { toTx: false, ack: false, fwd: false };
  const out: Record<Port, { cycle: number; p: NetPacket }[]> = { toTx: [], ack: [], fwd: [] };
  const chans: Record<Port, Channel<NetPacket>> = { toTx, ack: ackOut, fwd: fwdOut };
  /** the consumers of the three outputs take everything they can, unless held */
  const drain = (): void => {
    for (const k of ['toTx', 'ack', 'fwd'] as const) while (!hold[k] && chans[k].canPop()) out[k].push({ cycle: sim.cycle, p: chans[k].pop() });
  };
  const run = (n: number): void => {
    for (let i = 0; i < n; i++) {
      drain();
      sim.step(1);
    }
    drain();
  };
  const stat = (n: string): number => (sim.stats.get(`rx.${n}`) as { value: number }).value;
  const evaluations = (): number => evals;
  return { sim, rx, ctlIn, doneIn, hold, out, run, stat, evaluations, chans };
}

/** a packet from `src` (sender context `ctx`, connection `serial`) to node 1, CRC set */
function pk(kind: number, f: Partial<NetPacket> = {}): NetPacket {
  const p = Object.assign(new NetPacket(), { kind, e2e: true, src: 0, dst: 1, ctx: 0, serial: 1, last: kind !== PK_PUT }, f);
  p.crc = packetCrc(p);
  return p;
}

/** pushes the packets into ctlIn as fast as it takes them (two per cycle at most), then runs `extra` cycles */
function feed(b: ReturnType<typeof bench>, ps: readonly NetPacket[], extra = 0): void {
  for (const p of ps) {
    while (!b.ctlIn.canPush()) b.run(1);
    b.ctlIn.push(p);
  }
  b.run(extra);
}

const cycles = (xs: readonly { cycle: number }[]): number[] => xs.map((x) => x.cycle - xs[0]!.cycle);
const consecutive = (n: number): number[] => [...Array(n).keys()];

describe('E2eRx: full outputs', () => {
  it('answers wait at the input while the answer FIFO (4) and ackOut (2) are full; released, they leave one per cycle, in order, and the waiting packets are taken', () => {
    const b = bench({ receiverContexts: 1 });
    b.hold.ack = true;
    // one connection accepted, then 8 requests of other sender contexts: each refused with a CONN_NACK
    const reqs = [pk(PK_CONN_REQ, { ctx: 0 }), ...[1, 2, 3].map((ctx) => pk(PK_CONN_REQ, { ctx })), ...[0, 1, 2, 3].map((ctx) => pk(PK_CONN_REQ, { src: 2, ctx }))];
    feed(b, reqs.slice(0, 2), 10);
    feed(b, reqs.slice(2, 4), 10);
    feed(b, reqs.slice(4, 6), 10);
    // ackOut holds 2, the FIFO 4: the 7th packet waits at the input, untaken and uncounted
    expect([b.chans.ack.held(), b.stat('conn_accepted'), b.stat('conn_refused'), b.rx.quiet]).toEqual([2, 1, 5, false]);
    expect(b.ctlIn.held()).toBe(0);
    feed(b, reqs.slice(6, 8), 10);
    expect([b.stat('conn_refused'), b.ctlIn.held()]).toEqual([5, 2]);
    b.hold.ack = false;
    b.run(30);
    expect(b.out.ack.map((a) => [a.p.kind, a.p.dst, a.p.ctx])).toEqual([[PK_CONN_ACK, 0, 0], ...[1, 2, 3].map((c) => [PK_CONN_NACK, 0, c]), ...[0, 1, 2, 3].map((c) => [PK_CONN_NACK, 2, c])]);
    // the two in the channel at once; the receiver sees the pops a cycle later (registered credit), then one per cycle
    expect(cycles(b.out.ack)).toEqual([0, 0, 2, 3, 4, 5, 6, 7]);
    expect([b.stat('conn_refused'), b.ctlIn.held()]).toEqual([7, 0]);
  });

  it('answers for this NIC\'s senders wait while toTx is full (a bad-CRC one too) and pass one per cycle, in order, once it has room; nothing else waits for toTx', () => {
    const b = bench();
    b.hold.toTx = true;
    const bad = pk(PK_ACK, { seq: 5 });
    bad.crc ^= 1;
    const answers = [pk(PK_CONN_ACK, { rctx: 1 }), pk(PK_CONN_NACK, { ctx: 1 }), pk(PK_ACK, { seq: 3, ctx: 2 }), bad, pk(PK_ACK, { seq: 4, ctx: 3 })];
    feed(b, answers.slice(0, 2), 5);
    feed(b, answers.slice(2, 4), 5);
    expect([b.chans.toTx.held(), b.ctlIn.held(), b.stat('crc_errors'), b.rx.quiet]).toEqual([2, 2, 0, false]);
    // a CONN_REQ behind them waits too (one input, in order)
    b.hold.toTx = false;
    feed(b, [answers[4]!, pk(PK_CONN_REQ, { ctx: 2 })], 20);
    expect(b.out.toTx.map((a) => [a.p.kind, a.p.ctx])).toEqual([
      [PK_CONN_ACK, 0],
      [PK_CONN_NACK, 1],
      [PK_ACK, 2],
      [PK_ACK, 3],
    ]);
    expect(b.out.toTx[0]!.p).toBe(answers[0]); // the packet itself is handed on
    expect([b.stat('crc_errors'), b.stat('conn_accepted'), b.out.ack.length]).toEqual([1, 1, 1]);
    expect(cycles(b.out.toTx.slice(0, 2))).toEqual([0, 0]);
  });

  it('the receive buffer holds rxBuffer packets while fwdOut is full; a packet finding it full is dropped (counted, no answer); released, the buffer drains one per cycle', () => {
    const b = bench({ rxBuffer: 3, ackEvery: 8 });
    b.hold.fwd = true;
    feed(b, [pk(PK_CONN_REQ, { total: 8 })], 5);
    const data = [...Array(8).keys()].map((seq) => pk(PK_PUT, { seq, total: 8, last: seq === 7 }));
    feed(b, data.slice(0, 6), 10);
    // 2 in fwdOut, 3 in the buffer, the 6th dropped
    expect([b.chans.fwd.held(), b.stat('admitted'), b.stat('buffer_drops'), b.out.ack.length]).toEqual([2, 5, 1, 1]);
    b.hold.fwd = false;
    b.run(1);
    b.hold.fwd = true; // take the two, then stop again: the buffer refills fwdOut, one per cycle
    b.run(4);
    expect([b.out.fwd.length, b.chans.fwd.held()]).toEqual([2, 2]);
    b.hold.fwd = false;
    b.run(10);
    expect(b.out.fwd.map((f) => f.p.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(cycles(b.out.fwd)).toEqual([0, 0, 5, 5, 7]);
    expect(b.out.fwd.every((f) => f.p.rctx === 0)).toBe(true);
    // the next packet finds a gap (5 was dropped): one NACK for 5
    feed(b, [data[6]!], 5);
    expect(b.out.ack.slice(1).map((a) => [a.p.kind, a.p.seq, a.p.nack])).toEqual([[PK_ACK, 5, true]]);
  });

  it('the end of a transfer waits while the answer FIFO is full; the closing ACK follows the answers before it', () => {
    const b = bench({ ackEvery: 1 });
    b.hold.ack = true;
    feed(b, [pk(PK_CONN_REQ, { total: 5 })], 3);
    feed(b, [...Array(5).keys()].map((seq) => pk(PK_PUT, { seq, total: 5, last: seq === 4 })), 10);
    // CONN_ACK and 4 ACKs (the last packet is answered by the close): 2 in ackOut, 3 in the FIFO
    expect([b.chans.ack.held(), b.stat('admitted'), b.rx.inUse]).toEqual([2, 5, 1]);
    const r = b.out.fwd.find((f) => f.p.last)!.p.rctx;
    feed(b, [pk(PK_CONN_REQ, { ctx: 1 })], 10); // fills the FIFO (4)
    b.doneIn.push({ rctx: r, code: 0 });
    b.run(10);
    expect([b.doneIn.held(), b.rx.inUse, b.stat('closed')]).toEqual([1, 2, 0]);
    b.hold.ack = false;
    b.run(20);
    expect(b.out.ack.map((a) => [a.p.kind, a.p.ctx, a.p.seq, a.p.fin])).toEqual([
      [PK_CONN_ACK, 0, 0, false],
      [PK_ACK, 0, 1, false],
      [PK_ACK, 0, 2, false],
      [PK_ACK, 0, 3, false],
      [PK_ACK, 0, 4, false],
      [PK_CONN_ACK, 1, 0, false],
      [PK_ACK, 0, 5, true],
    ]);
    expect([b.doneIn.held(), b.rx.inUse, b.stat('closed')]).toEqual([0, 1, 1]);
  });
});

describe('E2eRx: quiet and evaluation', () => {
  it('quiet: no context in use, nothing at either input, no answer or packet held; each alone makes it false', () => {
    const b = bench({ rxIdle: 40 });
    expect(b.rx.quiet).toBe(true);
    // an open context only
    feed(b, [pk(PK_CONN_REQ)], 4);
    expect([b.rx.inUse, b.out.ack.length, b.chans.ack.held(), b.ctlIn.held(), b.rx.quiet]).toEqual([1, 1, 0, 0, false]);
    b.run(40);
    expect([b.rx.inUse, b.stat('expired'), b.rx.quiet]).toEqual([0, 1, true]);
    // a packet at the input only (an ACK waiting for toTx, which is held)
    b.hold.toTx = true;
    feed(b, [pk(PK_ACK), pk(PK_ACK), pk(PK_ACK)], 5);
    expect([b.rx.inUse, b.ctlIn.held(), b.rx.quiet]).toEqual([0, 1, false]);
    b.hold.toTx = false;
    b.run(5);
    expect(b.rx.quiet).toBe(true);
    // an answer held only (a closed connection's data answered while ackOut is full)
    feed(b, [pk(PK_CONN_REQ, { ctx: 3, serial: 9, total: 1 }), pk(PK_PUT, { ctx: 3, serial: 9, total: 1, last: true })], 5);
    b.doneIn.push({ rctx: b.out.fwd.at(-1)!.p.rctx, code: 4 });
    b.run(5);
    expect([b.rx.inUse, b.rx.quiet]).toEqual([0, true]);
    b.hold.ack = true;
    feed(b, [1, 2, 3].map(() => pk(PK_PUT, { ctx: 3, serial: 9, seq: 0, total: 1, last: true })), 5);
    expect([b.chans.ack.held(), b.ctlIn.held(), b.rx.inUse, b.rx.quiet]).toEqual([2, 0, 0, false]);
    b.hold.ack = false;
    b.run(5);
    expect(b.rx.quiet).toBe(true);
    expect(b.out.ack.slice(-3).map((a) => [a.p.fin, a.p.reason, a.p.seq])).toEqual([
      [true, 4, 1],
      [true, 4, 1],
      [true, 4, 1],
    ]);
    // a packet held in the buffer only (fwdOut full), its context closed
    b.hold.fwd = true;
    feed(b, [pk(PK_CONN_REQ, { ctx: 2, serial: 3, total: 3 }), ...[0, 1, 2].map((seq) => pk(PK_PUT, { ctx: 2, serial: 3, seq, total: 3, last: seq === 2 }))], 5);
    expect([b.chans.fwd.held(), b.rx.inUse]).toEqual([2, 1]);
    const rctx = b.chans.fwd.peek().rctx;
    b.doneIn.push({ rctx, code: 0 });
    b.run(5);
    expect([b.rx.inUse, b.chans.fwd.held(), b.ctlIn.held(), b.doneIn.held(), b.rx.quiet]).toEqual([0, 2, 0, 0, false]);
    b.hold.fwd = false;
    b.run(5);
    expect(b.rx.quiet).toBe(true);
  });

  it('a quiet receiver is not evaluated; a busy one runs every cycle until its answers and packets are out, even when its outputs drain slowly', () => {
    const b = bench({ rxIdle: 60 });
    b.run(300);
    expect(b.evaluations()).toBeLessThan(3);
    // two packets arrive in the same cycle: both taken, in consecutive cycles
    const e0 = b.evaluations();
    b.ctlIn.push(pk(PK_PUT, { src: 2, ctx: 7 }));
    b.ctlIn.push(pk(PK_PUT, { src: 2, ctx: 9 }));
    b.run(300);
    expect([b.stat('unknown'), b.evaluations() - e0]).toEqual([2, 2]);
    // an open context: evaluated every cycle until its idle timer frees it, then no more
    const e1 = b.evaluations();
    b.ctlIn.push(pk(PK_CONN_REQ));
    b.run(300);
    expect(b.stat('expired')).toBe(1);
    expect(b.evaluations() - e1).toBe(60);
  });

  it('answers queued behind a full ackOut leave one per cycle once it drains, with no other work to wake the receiver', () => {
    const b = bench({ receiverContexts: 1 });
    // a closed connection (status 3), then six of its packets again while ackOut is held
    feed(b, [pk(PK_CONN_REQ, { ctx: 2, serial: 6, total: 1 }), pk(PK_PUT, { ctx: 2, serial: 6, total: 1, last: true })], 5);
    b.doneIn.push({ rctx: 0, code: 3 });
    b.run(10);
    b.hold.ack = true;
    feed(b, [0, 1, 2, 3, 4, 5].map(() => pk(PK_PUT, { ctx: 2, serial: 6, total: 1, last: true })), 10);
    expect([b.chans.ack.held(), b.ctlIn.held(), b.rx.inUse]).toEqual([2, 0, 0]);
    const n0 = b.out.ack.length;
    b.hold.ack = false;
    b.run(1);
    b.hold.ack = true;
    b.run(1); // took the two; ackOut is no longer full
    b.hold.ack = false;
    b.run(20);
    const later = b.out.ack.slice(n0);
    expect(later.map((a) => [a.p.fin, a.p.reason])).toEqual(Array.from({ length: 6 }, () => [true, 3]));
    expect(cycles(later)).toEqual([0, 0, 2, 3, 4, 5]);
  });

  it('packets in the receive buffer leave one per cycle once fwdOut drains, after their context closed', () => {
    const b = bench({ rxBuffer: 4 });
    b.hold.fwd = true;
    feed(b, [pk(PK_CONN_REQ, { total: 6 }), ...consecutive(6).map((seq) => pk(PK_PUT, { seq, total: 6, last: seq === 5 }))], 10);
    expect([b.chans.fwd.held(), b.stat('admitted')]).toEqual([2, 6]);
    b.doneIn.push({ rctx: 0, code: 0 });
    b.run(5);
    expect(b.rx.inUse).toBe(0);
    b.hold.fwd = false;
    b.run(1);
    b.hold.fwd = true;
    b.run(1);
    b.hold.fwd = false;
    b.run(20);
    expect(b.out.fwd.map((f) => f.p.seq)).toEqual(consecutive(6));
    expect(cycles(b.out.fwd)).toEqual([0, 0, 2, 3, 4, 5]);
  });
});

describe('E2eRx: connections', () => {
  it('the closed table has a row per (source node, sender context): each closed connection is answered with its own status; data is steered to its own receiver context', () => {
    const b = bench({ receiverContexts: 2, senderContexts: 4 });
    const conns = [
      { src: 0, ctx: 3, serial: 5, code: 11 },
      { src: 2, ctx: 0, serial: 5, code: 12 },
      { src: 2, ctx: 1, serial: 6, code: 13 },
      { src: 0, ctx: 1, serial: 6, code: 14 },
    ];
    for (let i = 0; i < conns.length; i += 2) {
      const pair = conns.slice(i, i + 2);
      feed(b, pair.map((c) => pk(PK_CONN_REQ, { ...c, total: 1 })), 4);
      feed(b, pair.map((c) => pk(PK_PUT, { ...c, seq: 0, total: 1, last: true })), 4);
      const fw = b.out.fwd.slice(-2);
      expect(fw.map((f) => [f.p.src, f.p.ctx, f.p.rctx])).toEqual(pair.map((c, k) => [c.src, c.ctx, k]));
      for (const f of fw) b.doneIn.push({ rctx: f.p.rctx, code: pair.find((c) => c.src === f.p.src && c.ctx === f.p.ctx)!.code });
      b.run(6);
    }
    expect([b.stat('closed'), b.rx.inUse]).toEqual([4, 0]);
    const n0 = b.out.ack.length;
    feed(b, conns.map((c) => pk(PK_PUT, { ...c, seq: 0, total: 1, last: true })), 10);
    expect(b.out.ack.slice(n0).map((a) => [a.p.dst, a.p.ctx, a.p.serial, a.p.fin, a.p.reason, a.p.seq])).toEqual(conns.map((c) => [c.src, c.ctx, c.serial, true, c.code, 1]));
    // a serial not the one closed is unknown
    feed(b, [pk(PK_PUT, { src: 2, ctx: 1, serial: 5, seq: 0, total: 1 })], 5);
    expect([b.out.ack.length - n0, b.stat('unknown')]).toEqual([4, 1]);
  });

  it('in sequence only: a gap is NACKed once until it closes, a duplicate is answered with an ACK of the expected number, a bad CRC is dropped like a gap; after the last packet repeats are dropped silently', () => {
    const b = bench({ ackEvery: 8, rxIdle: 1000 });
    feed(b, [pk(PK_CONN_REQ, { total: 6 })], 3);
    const d = (seq: number): NetPacket => pk(PK_PUT, { seq, total: 6, last: seq === 5 });
    const bad = d(1);
    bad.crc ^= 2;
    feed(b, [d(0), d(2), d(3), bad, d(1), d(0), d(2), d(4), d(3), d(4), d(5), d(5), d(1)], 10);
    expect(b.out.fwd.map((f) => f.p.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(b.out.ack.slice(1).map((a) => [a.p.seq, a.p.nack, a.p.fin])).toEqual([
      [1, true, false], // 2: the gap at 1 (3 and the bad 1 add no NACK)
      [2, false, false], // 0 after 1 was admitted: a duplicate, expected 2
      [3, true, false], // 4: a new gap at 3 (the first one closed)
    ]);
    // the repeated 5 and 1 after the last packet: counted as duplicates, answered by the close
    expect([b.stat('gaps'), b.stat('crc_errors'), b.stat('duplicates'), b.stat('admitted'), b.rx.inUse]).toEqual([3, 1, 3, 6, 1]);
  });

  it('every packet of an open connection reloads its idle timer: a slow sender is not expired', () => {
    const b = bench({ rxIdle: 50, ackEvery: 100 });
    feed(b, [pk(PK_CONN_REQ, { total: 8 })], 40);
    for (let k = 0; k < 7; k++) feed(b, [pk(PK_PUT, { seq: k, total: 8 })], 40);
    expect([b.rx.inUse, b.stat('expired'), b.stat('admitted')]).toEqual([1, 0, 7]);
    b.run(60);
    expect([b.rx.inUse, b.stat('expired')]).toEqual([0, 1]);
  });
});

describe('E2eRx: sources and names', () => {
  it('a CONN_REQ from a source that is not a node (-1, 0.5, nodes) is unknown: no context, no answer; the answers it sends are e2e, last, from this node, with a valid CRC', () => {
    const b = bench();
    feed(b, [pk(PK_CONN_REQ, { src: -1 }), pk(PK_CONN_REQ, { src: 0.5 }), pk(PK_CONN_REQ, { src: 3 }), pk(PK_CONN_REQ, { src: 2, ctx: 3, serial: 8 })], 10);
    expect([b.stat('unknown'), b.stat('conn_accepted'), b.rx.inUse]).toEqual([3, 1, 1]);
    expect(b.out.ack.map((a) => [a.p.kind, a.p.e2e, a.p.last, a.p.src, a.p.dst, a.p.ctx, a.p.serial, packetCrc(a.p) === a.p.crc])).toEqual([[PK_CONN_ACK, true, true, 1, 2, 3, 8, true]]);
  });

  it('its FIFOs are named acks and buffer under the receiver', () => {
    const b = bench();
    for (const n of ['acks', 'buffer']) expect(() => new Fifo<number>(b.rx, 2, { name: n })).toThrow(`duplicate path rx.${n}`);
  });
});

describe('E2eRx: a sender context reused', () => {
  it('a CONN_REQ of a new serial from the same sender context gets a context of its own while the old one is still open', () => {
    const b = bench({ receiverContexts: 2 });
    feed(b, [pk(PK_CONN_REQ, { ctx: 1, serial: 1 })], 4);
    feed(b, [pk(PK_CONN_REQ, { ctx: 1, serial: 2 })], 4);
    expect(b.out.ack.map((a) => [a.p.kind, a.p.serial, a.p.rctx])).toEqual([
      [PK_CONN_ACK, 1, 0],
      [PK_CONN_ACK, 2, 1],
    ]);
    expect([b.stat('conn_accepted'), b.rx.inUse]).toEqual([2, 2]);
  });
});
