import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodePacket, type Packet } from '../../rtl/sharp/packet/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { arbPacket } from './packet-arbitraries.ts';
import { Workload } from '../../experiments/sharp/workload.ts';

/**
 * Garbage and well-formed-but-foreign packets thrown at a busy aggregation node: it never
 * crashes, and the jobs that own the node's real work keep producing golden results with no
 * context leaks. (Foreign packets name jobs 100+, which the AM does not know, so their error
 * reports revoke nothing.)
 */
describe('aggregation node under fuzzed input', () => {
  it('survives random byte strings and foreign packets without disturbing other operations', () => {
    const frameArb = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 400 }),
      arbPacket.map((p: Packet) => {
        const q = { ...p, job: 100 + ((p as { job?: number }).job ?? 0) % 1000 } as Packet;
        return encodePacket(q);
      }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 4000 }), frameArb), { minLength: 1, maxLength: 25 }), (junk) => {
        const fabric = new Fabric();
        const members = fabric.topo.hosts.filter((h) => h % 8 === 0);
        const w = new Workload(fabric, [{ job: 1, group: 1, tree: 0, members, op: 'sum', type: 'f32', bytes: 512, iterations: 3, dist: 'rc', maxOps: 4 }]);
        const victim = fabric.ans.get(fabric.topo.leaves[0]!)!;
        const sorted = [...junk].sort((a, b) => a[0] - b[0]);
        const t0 = fabric.sim.cycle;
        for (const [at, bytes] of sorted) {
          if (t0 + at > fabric.sim.cycle) fabric.sim.step(t0 + at - fabric.sim.cycle);
          if (victim.input.canPush()) victim.input.push({ dst: victim.nodeId, src: 9999, mcast: false, job: 100 + (at % 50), bytes, wireBytes: bytes.length + 26 });
        }
        fabric.sim.runUntil(() => w.finished(), 2_000_000);
        fabric.sim.step(20_000);
        w.verify();
        const o = w.outcomes[0]!;
        expect(o.errors).toBe(0);
        expect(o.correct).toBe(3);
        for (const an of fabric.ans.values()) expect(an.contextsInUse).toBe(0);
        expect(fabric.am.jobs.get(1)!.revoked).toBe(0);
      }),
      { numRuns: 25 },
    );
  });
});
