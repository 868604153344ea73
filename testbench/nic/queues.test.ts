/**
 * Host-memory queues (EQ, MPQ, INTQ, EPQ): the queue engine behind the real PCIe attachment against
 * the golden queue model, model-based over random registrations (good and bad), consumer updates
 * (good and bad) and entries (good and malformed) from 4 VPs: every host byte, every write in
 * order, every register and count, the interrupt line; no write outside a registered ring.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildPcie } from '../../rtl/nic/pcie/index.ts';
import { INT_QUEUE_FULL, Q_ENTRY_BYTES, Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, QS_CONSUME, QS_REGISTER, QueueEngine, type QueueEntry, type QueueSwWrite } from '../../rtl/nic/queues/index.ts';
import { type ModelSw, QueueModel } from '../../models/nic/queueModel.ts';

const VPS = 4;

class QueueWorld {
  readonly sim = new Simulator({});
  readonly pcie = buildPcie(this.sim, 'pcie');
  readonly q: QueueEngine;
  readonly mem = new Map<number, number>();
  readonly writes: { addr: number; len: number }[] = [];
  readonly outside: string[] = [];
  private readonly ents: QueueEntry[] = [];
  private readonly sws: QueueSwWrite[] = [];

  constructor(epq: boolean) {
    this.q = new QueueEngine(this.sim, 'q', { vps: VPS, epqEnabled: epq }, this.pcie.ep.writeIn);
    this.pcie.host.onWrite = (tlp) => {
      this.writes.push({ addr: tlp.addr, len: tlp.len });
      for (let i = 0; i < tlp.len; i++) this.mem.set(tlp.addr + i, tlp.data![i]!);
      if (!this.insideSomeRing(tlp.addr, tlp.len)) this.outside.push(`${tlp.addr}+${tlp.len}`);
    };
  }

  private insideSomeRing(addr: number, len: number): boolean {
    for (let k = 0; k < 4; k++) {
      for (let vp = 0; vp < (k < 2 ? VPS : 1); vp++) {
        const s = this.q.state(k, vp);
        if (s.size > 0 && addr >= s.base && addr + len <= s.base + s.size * Q_ENTRY_BYTES[k]!) return true;
      }
    }
    return false;
  }

  entry(e: QueueEntry): void {
    this.ents.push(e);
    this.settle();
  }

  software(w: QueueSwWrite): void {
    this.sws.push(w);
    this.settle();
  }

  /** feed the inputs and run until nothing moves (PCIe writes landed) */
  settle(): void {
    let idle = 0;
    while (idle < 3) {
      const before = this.ents.length + this.sws.length + this.writes.length;
      for (let i = 0; i < 64; i++) {
        if (this.ents.length > 0 && this.q.entIn.canPush()) this.q.entIn.push(this.ents.shift()!);
        if (this.sws.length > 0 && this.q.swIn.canPush()) this.q.swIn.push(this.sws.shift()!);
        this.sim.step(1);
      }
      this.sim.step(400);
      idle = this.ents.length + this.sws.length + this.writes.length === before ? idle + 1 : 0;
    }
  }
}

function compare(w: QueueWorld, m: QueueModel): void {
  expect(w.writes).toEqual(m.writes.map(({ addr, len }) => ({ addr, len })));
  expect([...w.mem.entries()].sort((a, b) => a[0] - b[0])).toEqual([...m.mem.entries()].sort((a, b) => a[0] - b[0]));
  for (let k = 0; k < 4; k++) {
    for (let vp = 0; vp < (k < 2 ? VPS : 1); vp++) {
      const r = m.ring(k, vp);
      expect(w.q.state(k, vp), `queue ${k}/${vp}`).toEqual({ base: r.base, size: r.size, prod: r.prod, cons: r.cons, overflows: r.overflows });
    }
  }
  expect(w.q.irq.q === 1).toBe(m.irq);
  const c = w.q.counts;
  expect([c.droppedFull, c.droppedUnregistered, c.epqDiscarded, c.badEntries, c.swRefused]).toEqual([m.droppedFull, m.droppedUnregistered, m.epqDiscarded, m.badEntries, m.swRefused]);
  expect(w.outside).toEqual([]);
}

type Real = { w: QueueWorld };

const kindVp = fc.record({ kind: fc.constantFrom(Q_EQ, Q_MPQ, Q_INTQ, Q_EPQ), vp: fc.integer({ min: 0, max: VPS - 1 }) });

function swCmd(w: QueueSwWrite): fc.Command<QueueModel, Real> {
  return {
    check: () => true,
    run: (m, r) => {
      const mw: ModelSw = { op: w.op === QS_REGISTER ? 'register' : 'consume', kind: w.kind, vp: w.vp, base: w.base, size: w.size, count: w.count };
      m.software(mw);
      r.w.software(w);
      compare(r.w, m);
    },
    toString: () => `sw(${JSON.stringify(w)})`,
  };
}

const registerArb = fc
  .record({ kv: kindVp, sizeLog: fc.integer({ min: 0, max: 3 }), bad: fc.constantFrom('none', 'none', 'none', 'none', 'size', 'base', 'unreg', 'kind') })
  .map(({ kv, sizeLog, bad }) => {
    const base = (kv.kind * VPS + kv.vp + 1) * 2 ** 20;
    const w: QueueSwWrite = { op: QS_REGISTER, kind: kv.kind, vp: kv.vp, base, size: 2 ** sizeLog, count: 0 };
    if (bad === 'size') w.size = 3 + 2 * sizeLog;
    if (bad === 'base') w.base = base + 8;
    if (bad === 'unreg') w.size = 0;
    if (bad === 'kind') w.kind = 7;
    return swCmd(w);
  });

const consumeArb = fc.record({ kv: kindVp, count: fc.integer({ min: 0, max: 5 }) }).map(({ kv, count }) => swCmd({ op: QS_CONSUME, kind: kv.kind, vp: kv.vp, base: 0, size: 0, count }));

const entryArb = fc.record({ kv: kindVp, fill: fc.integer({ min: 1, max: 255 }), bad: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'len', 'vp') }).map(({ kv, fill, bad }) => {
  const len = Q_ENTRY_BYTES[kv.kind]! + (bad === 'len' ? 8 : 0);
  const e: QueueEntry = { kind: kv.kind, vp: bad === 'vp' && kv.kind < 2 ? VPS + 3 : kv.vp, data: new Uint8Array(len).fill(fill) };
  e.data[1] = kv.vp;
  return {
    check: () => true,
    run: (m: QueueModel, r: Real) => {
      m.entry({ kind: e.kind, vp: e.vp, data: e.data.slice() });
      r.w.entry(e);
      compare(r.w, m);
    },
    toString: () => `entry(${e.kind}, ${e.vp}, fill ${fill}, ${len} B)`,
  } satisfies fc.Command<QueueModel, Real>;
});

describe('host-memory queues', () => {
  it('model-based: host memory, writes, registers, counts and the interrupt line equal the golden model', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.commands([registerArb, consumeArb, entryArb, entryArb], { maxCommands: 40 }), (epq, cmds) => {
        fc.modelRun(() => ({ model: new QueueModel(VPS, epq), real: { w: new QueueWorld(epq) } }), cmds);
      }),
      { numRuns: 40 },
    );
  });

  it('a full EQ drops with an INTQ entry (never overwrites); a full INTQ stalls and loses nothing', () => {
    const w = new QueueWorld(false);
    const reg = (kind: number, vp: number, base: number, size: number): void => w.software({ op: QS_REGISTER, kind, vp, base, size, count: 0 });
    reg(Q_EQ, 1, 0x10000, 2);
    reg(Q_EQ, 2, 0x20000, 4);
    reg(Q_INTQ, 0, 0x30000, 1);
    const ev = (vp: number, b: number): QueueEntry => ({ kind: Q_EQ, vp, data: new Uint8Array(32).fill(b) });
    w.entry(ev(1, 1));
    w.entry(ev(1, 2));
    w.entry(ev(1, 3)); // full: dropped, INTQ entry
    expect(w.q.state(Q_EQ, 1)).toMatchObject({ prod: 2, overflows: 1 });
    expect([...w.pcie.mem.read(0x10000, 64)]).toEqual([...new Uint8Array(32).fill(1), ...new Uint8Array(32).fill(2)]);
    const intq = w.pcie.mem.read(0x30000, 16);
    expect([intq[0], intq[1], intq[2]]).toEqual([INT_QUEUE_FULL, Q_EQ, 1]);
    expect(w.q.irq.q).toBe(1);
    w.entry(ev(1, 4)); // full again: its INTQ entry waits (INTQ full)
    w.entry(ev(2, 5)); // another VP goes on undisturbed
    expect(w.q.state(Q_EQ, 2).prod).toBe(1);
    expect(w.q.state(Q_INTQ).prod).toBe(1);
    w.software({ op: QS_CONSUME, kind: Q_INTQ, vp: 0, base: 0, size: 0, count: 1 });
    expect(w.q.state(Q_INTQ).prod).toBe(2); // the held entry went in after software read the first
    expect(w.q.irq.q).toBe(1);
    w.software({ op: QS_CONSUME, kind: Q_INTQ, vp: 0, base: 0, size: 0, count: 1 });
    expect(w.q.irq.q).toBe(0);
    expect(w.outside).toEqual([]);
  });

  it('refuses bad configuration', () => {
    const sim = new Simulator({});
    expect(() => new QueueEngine(sim, 'a', { vps: 0 })).toThrow(/vps/);
    expect(() => new QueueEngine(sim, 'b', { bogus: 1 } as never)).toThrow(/unknown parameter bogus/);
  });
});
