/**
 * Host memory's completion order (rtl/nic/hostmem/hostmem.ts): the outstanding read due earliest
 * completes first, and of reads due in the same cycle the one accepted first, one completion per
 * cycle. The latency is changed between acceptances (setLatency) so that many reads fall due in
 * the same cycle and the due order differs from the acceptance order.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { AttRead, HostMemory } from '../../rtl/nic/hostmem/index.ts';
import { Rng } from '../../rtl/kernel/rng.ts';

describe('host memory completion order', () => {
  for (const skipping of [true, false]) {
    it(`earliest due first, ties in acceptance order (skipping ${skipping})`, () => {
      const N = 40;
      const sim = new Simulator({ skipping });
      const host = new HostMemory(sim, 'h', { readLatency: 200, jitter: 0, maxReads: 64 });
      const rng = new Rng(7);
      const expected: { due: number; seq: number; tag: number }[] = [];
      const got: number[] = [];
      for (let k = 0; k < N; k++) {
        const r = new AttRead();
        r.tag = k;
        host.req.push(r);
        sim.step(1); // the push is visible to host memory from the next cycle
        // latencies from a small set: many reads share a due cycle; all are accepted before the first is due
        const lat = 150 + 3 * rng.int(4) - 2 * k;
        host.setLatency(lat, 0);
        sim.step(1); // accepted in this cycle (2k + 1): due 2k + 1 + lat - 2
        expected.push({ due: 2 * k + 1 + lat - 2, seq: k, tag: k });
        while (host.resp.canPop()) got.push(host.resp.pop() % 1024);
      }
      for (let i = 0; i < 300; i++) {
        sim.step(1);
        while (host.resp.canPop()) got.push(host.resp.pop() % 1024);
      }
      expected.sort((a, b) => a.due - b.due || a.seq - b.seq);
      expect(new Set(expected.map((e) => e.due)).size).toBeLessThan(N / 2);
      expect(got).toEqual(expected.map((e) => e.tag));
    });
  }
});
