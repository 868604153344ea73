/**
 * Queue engine (rtl/nic/queues/queueEngine.ts) structure, the cases mutation testing
 * (docs/verification.md) found unchecked: its channels (names, capacities, latencies; its own DMA
 * channel when none is given), the interrupt register, the statistic names and the counts view, and
 * the error for a queue that does not exist.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, QS_REGISTER, QueueEngine } from '../../rtl/nic/queues/index.ts';

describe('queue engine structure', () => {
  it('channels, register, statistics and the counts view', () => {
    const sim = new Simulator({});
    const q = new QueueEngine(sim, 'q', { vps: 2, inCapacity: 3 });
    expect([q.entIn, q.swIn, q.dmaOut].map((c) => [c.path, c.capacity, c.latency])).toEqual([
      ['q.entIn', 3, 1],
      ['q.swIn', 2, 1],
      ['q.dmaOut', 2, 1],
    ]);
    expect(q._signals.map((s) => [s.name, s.width])[0]).toEqual(['irq', 1]);
    expect(Object.keys(sim.stats.toJSON()).filter((k) => k.startsWith('q.')).sort()).toEqual(
      ['written_eq', 'written_mpq', 'written_intq', 'written_epq', 'dropped_full', 'dropped_unregistered', 'epq_discarded', 'bad_entries', 'sw_refused', 'queue_faults'].map((n) => `q.${n}`).sort(),
    );
    // one entry to each of EQ 1 and the INTQ (the INTQ entry: a refused registration)
    q.swIn.push({ op: QS_REGISTER, kind: Q_INTQ, vp: 0, base: 0x1000, size: 4, count: 0 });
    sim.step(3);
    q.swIn.push({ op: QS_REGISTER, kind: Q_EQ, vp: 1, base: 0x2000, size: 4, count: 0 });
    sim.step(3);
    q.swIn.push({ op: QS_REGISTER, kind: Q_MPQ, vp: 0, base: 0x3000, size: 3, count: 0 });
    q.entIn.push({ kind: Q_EQ, vp: 1, data: new Uint8Array(32) });
    for (let i = 0; i < 20; i++) {
      sim.step(1);
      while (q.dmaOut.canPop()) q.dmaOut.pop();
    }
    expect(q.counts).toEqual({ written: [1, 0, 1, 0], droppedFull: 0, droppedUnregistered: 0, epqDiscarded: 0, badEntries: 0, swRefused: 1, faults: 0 });
    expect(() => q.state(Q_EQ, 2)).toThrow(/^q: no queue 0 for VP 2$/);
    expect(() => q.state(7)).toThrow(/^q: no queue 7 for VP 0$/);
    expect(q.state(Q_EPQ).size).toBe(0);
  });
});
