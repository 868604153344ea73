/**
 * Queue engine (rtl/nic/queues/queueEngine.ts), the cases mutation testing (docs/verification.md)
 * found unchecked: every software-write check at its bounds (sizes, bases, the address space, VPs,
 * kinds, consume and read-pointer counts, virtual registrations without a translation path) and the
 * INTQ entries the refusals and malformed entries produce (kind and VP clamped to their fields),
 * against the golden queue model (models/nic/queueModel.ts): every host byte, every register, the
 * counts and the interrupt line after every operation. The engine's own DMA channel (no PCIe) is
 * drained by the testbench every cycle.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { Q_ENTRY_BYTES, Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, QS_CONSUME, QS_REGISTER, QS_RPTR, QueueEngine, type QueueSwWrite } from '../../rtl/nic/queues/index.ts';
import { type ModelSw, QueueModel } from '../../models/nic/queueModel.ts';

const VPS = 4;
const OPS = { [QS_REGISTER]: 'register', [QS_CONSUME]: 'consume', [QS_RPTR]: 'rptr' } as const;

class World {
  readonly sim = new Simulator({});
  readonly q: QueueEngine;
  readonly m: QueueModel;
  readonly mem = new Map<number, number>();

  constructor(epq: boolean) {
    this.q = new QueueEngine(this.sim, 'q', { vps: VPS, epqEnabled: epq });
    this.m = new QueueModel(VPS, epq);
  }

  private run(n: number): void {
    for (let i = 0; i < n; i++) {
      this.sim.step(1);
      while (this.q.dmaOut.canPop()) {
        const w = this.q.dmaOut.pop();
        w.data.forEach((b, k) => this.mem.set(w.addr + k, b));
      }
    }
  }

  sw(op: 0 | 1 | 2, kind: number, vp: number, base: number, size: number, count: number, virtual?: boolean): void {
    const w: QueueSwWrite = { op, kind, vp, base, size, count, virtual };
    const mw: ModelSw = { op: OPS[op], kind, vp, base, size, count, virtual };
    this.m.software(mw);
    for (let i = 0; i < 100 && !this.q.swIn.canPush(); i++) this.run(1);
    this.q.swIn.push(w);
    this.run(12);
    this.check(`sw ${JSON.stringify(w)}`);
  }

  entry(kind: number, vp: number, len = Q_ENTRY_BYTES[kind] ?? 32): void {
    const data = Uint8Array.from({ length: len }, (_, i) => (i * 7 + kind * 31 + vp) & 0xff);
    this.m.entry({ kind, vp, data: data.slice() });
    for (let i = 0; i < 100 && !this.q.entIn.canPush(); i++) this.run(1);
    this.q.entIn.push({ kind, vp, data });
    this.run(12);
    this.check(`entry ${kind}/${vp}/${len}`);
  }

  check(what: string): void {
    const m = this.m;
    expect([...this.mem.entries()].sort((a, b) => a[0] - b[0]), what).toEqual([...m.mem.entries()].sort((a, b) => a[0] - b[0]));
    for (let k = 0; k < 4; k++)
      for (let vp = 0; vp < (k < 2 ? VPS : 1); vp++) {
        const r = m.ring(k, vp);
        expect(this.q.state(k, vp), `${what}: queue ${k}/${vp}`).toEqual({ base: r.base, size: r.size, prod: r.prod, cons: r.cons, overflows: r.overflows });
      }
    const c = this.q.counts;
    expect([c.droppedFull, c.droppedUnregistered, c.epqDiscarded, c.badEntries, c.swRefused], what).toEqual([m.droppedFull, m.droppedUnregistered, m.epqDiscarded, m.badEntries, m.swRefused]);
    expect(this.q.irq.q === 1, `${what}: irq`).toBe(m.irq);
  }
}

describe('queue engine: software writes at their bounds, against the golden model', () => {
  it('registrations, consumes and read pointers, good and refused; the INTQ entries of the refusals', () => {
    const w = new World(false);
    w.sw(QS_REGISTER, Q_INTQ, 0, 0x10000, 64, 0);
    // sizes: a power of two in [1, 65536]
    w.sw(QS_REGISTER, Q_EQ, 0, 0x100000, 65536, 0);
    for (const size of [65537, 3, 1.5, -4, 131072]) w.sw(QS_REGISTER, Q_EQ, 1, 0x40000, size, 0);
    w.sw(QS_REGISTER, Q_EQ, 1, 0x40000, 1, 0);
    // bases: a non-negative multiple of the entry size, the ring inside the 48-bit space
    for (const base of [-32, 16, 2.5, 2 ** 48 - 32 * 3]) w.sw(QS_REGISTER, Q_EQ, 2, base, 4, 0);
    w.sw(QS_REGISTER, Q_EQ, 2, 2 ** 48 - 32 * 4, 4, 0);
    // queues that do not exist: VP outside [0, vps), kinds outside 0..3, with the fields the INTQ entry can hold
    for (const [kind, vp] of [[Q_EQ, VPS], [Q_MPQ, -1], [Q_EQ, 1.5], [Q_MPQ, 0xffff], [Q_EQ, 0xfffe], [Q_EQ, 70000], [7, 0], [255, 0], [256, 1], [-1, 1], [1.5, 1]] as const) w.sw(QS_REGISTER, kind, vp, 0x2000, 2, 0);
    // virtual registrations: no translation path on this engine; never for the INTQ or EPQ
    w.sw(QS_REGISTER, Q_EQ, 3, 0x3000, 2, 0, true);
    w.sw(QS_REGISTER, Q_EPQ, 0, 0x3000, 2, 0, true);
    // entries, then consumes and read pointers at their bounds
    for (let i = 0; i < 3; i++) w.entry(Q_EQ, 1);
    w.entry(Q_EQ, 0);
    for (const count of [0, 2, 1.5, -1]) w.sw(QS_CONSUME, Q_EQ, 1, 0, 0, count); // queue 1 holds 1 (size 1: two dropped)
    w.sw(QS_CONSUME, Q_EQ, 1, 0, 0, 1);
    for (const count of [0, 2, 1.5]) w.sw(QS_RPTR, Q_EQ, 0, 0, 0, count); // queue 0: cons 0, prod 1
    w.sw(QS_RPTR, Q_EQ, 0, 0, 0, 1);
    w.sw(QS_RPTR, Q_EQ, 0, 0, 0, 1);
    // the INTQ consumed by its read pointer, then by a count; re-registering it clears the line
    const intq = (): { prod: number; cons: number } => w.q.state(Q_INTQ);
    expect(intq().prod).toBeGreaterThan(20);
    w.sw(QS_RPTR, Q_INTQ, 0, 0, 0, intq().prod - 1);
    w.sw(QS_CONSUME, Q_INTQ, 0, 0, 0, 1);
    w.entry(Q_EQ, 1);
    w.sw(QS_REGISTER, Q_INTQ, 0, 0x20000, 16, 0);
    w.sw(QS_REGISTER, Q_EQ, 1, 0, 0, 0); // unregister
    w.entry(Q_EQ, 1);
    expect(w.q.counts.swRefused).toBeGreaterThan(25);
  });

  it('malformed entries: the INTQ entry names the kind and VP as far as its fields can hold them', () => {
    const w = new World(true);
    w.sw(QS_REGISTER, Q_INTQ, 0, 0x10000, 64, 0);
    w.sw(QS_REGISTER, Q_EPQ, 0, 0x20000, 2, 0);
    for (const [kind, vp, len] of [[Q_EQ, 0, 31], [Q_EQ, 0xffff, 32], [Q_EQ, 0x10000, 32], [Q_MPQ, -1, 128], [Q_EQ, 1.5, 32], [9, 2, 32], [255, 2, 32], [256, 2, 32], [-1, 2, 32], [0.5, 2, 32], [Q_EPQ, 0, 127]] as const) w.entry(kind, vp, len);
    // the EPQ: two written, the third dropped as full (its INTQ entry carries VP 0xffff)
    for (let i = 0; i < 3; i++) w.entry(Q_EPQ, 0);
    w.entry(Q_MPQ, 2); // unregistered
    expect(w.q.counts.badEntries).toBe(11);
    expect(w.q.counts.droppedFull).toBe(1);
  });
});
