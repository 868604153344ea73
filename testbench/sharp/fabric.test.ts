import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemorySink, VcdTracer } from '../../rtl/kernel/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import type { Completion } from '../../rtl/sharp/host.ts';
import { largeSpec } from '../../rtl/sharp/topology.ts';
import { runAllreduce, spreadMembers } from '../../experiments/sharp/scenario.ts';
import { Workload } from '../../experiments/sharp/workload.ts';

describe('SHArP allreduce on the 128-host fabric', () => {
  it('delivers the golden result to every member for each type, operation and distribution mode', () => {
    const cases: [string, string, number, 'rc' | 'ud' | 'rc+ud'][] = [
      ['f32', 'sum', 256, 'rc'],
      ['f64', 'sum', 64, 'ud'],
      ['f16', 'prod', 32, 'rc+ud'],
      ['bf16', 'max', 16, 'rc'],
      ['i32', 'sum', 128, 'ud'],
      ['u64', 'bxor', 200, 'rc'],
      ['i8', 'min', 5, 'rc+ud'],
      ['f64', 'minloc', 96, 'rc'],
      ['f32', 'sum', 0, 'rc'],
    ];
    const fabric = new Fabric();
    let job = 1;
    for (const [type, op, bytes, dist] of cases) {
      const r = runAllreduce({ fabric, hosts: 48, bytes: bytes - (bytes % (op === 'minloc' ? 12 : 1)), type: type as never, op: op as never, dist, iterations: 2, warmup: 0, job });
      expect(r.mismatches).toEqual([]);
      expect(r.ok).toBe(true);
      fabric.am.endJob(job++);
      fabric.settle();
    }
  });

  it('gives bit-identical results for every host skew and arrival order', () => {
    const hashes = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 << 30 }), (skewSeed) => {
        const r = runAllreduce({ hosts: 32, bytes: 512, type: 'f32', op: 'sum', skewSeed, skewMaxNs: 3000, iterations: 3, warmup: 0 });
        expect(r.ok).toBe(true);
        hashes.add(r.result_sha256);
      }),
      { numRuns: 8 },
    );
    expect(hashes.size).toBe(1);
  });

  it('pipelines a fragmented 4 KiB message with several operations in flight', () => {
    const r = runAllreduce({ hosts: 128, bytes: 4096, iterations: 2, warmup: 0, maxOps: 4 });
    expect(r.ok).toBe(true);
    expect(r.latency_us).toBeGreaterThan(3);
  });

  it('trims a group to the level where its width becomes one', () => {
    const fabric = new Fabric();
    const leaf0 = fabric.topo.hosts.filter((h) => fabric.topo.leafOf[h] === fabric.topo.leaves[0]);
    const plan = fabric.am.createGroup(1, 1, 0, leaf0.slice(0, 5));
    expect(plan.root).toBe(fabric.topo.leaves[0]);
    expect(plan.trimmed).toEqual([fabric.am.tree(0).root]);
    expect(plan.ans.size).toBe(1);
    fabric.settle();
    // the tree root got GROUP_CREATE then GROUP_TRIM: it no longer has the group
    expect(fabric.ans.get(fabric.am.tree(0).root)!.hasGroup(1, 0, 1)).toBe(false);
    expect(fabric.ans.get(fabric.topo.leaves[0]!)!.hasGroup(1, 0, 1)).toBe(true);
    const w = new Workload(fabric, [{ job: 2, group: 1, tree: 0, members: leaf0.slice(0, 5), op: 'sum', type: 'i64', bytes: 80, iterations: 3, dist: 'rc' }]);
    fabric.sim.runUntil(() => w.finished(), 1_000_000);
    w.verify();
    expect(w.outcomes[0]!.correct).toBe(3);
  });

  it('delivers a reduce to one member and an external result to a non-member', () => {
    const fabric = new Fabric();
    const members = spreadMembers(fabric, 16);
    fabric.am.createGroup(1, 1, 2, members);
    fabric.settle();
    const outsider = fabric.topo.hosts.find((h) => !members.includes(h))!;
    const data = (h: number): Uint8Array => new Uint8Array(new Int32Array([h, 1]).buffer);
    let done = 0;
    for (const [rank, h] of members.entries()) {
      fabric.hosts[h]!.call(fabric.sim.cycle, { job: 1, group: 1, op: 'sum', type: 'i32', count: 2, data: data(h), dist: 'rc', targetKind: 'member', targetId: 3 }, (c) => {
        done++;
        expect(c.status).toBe(0);
        expect(c.data.length).toBe(rank === 3 ? 8 : 0);
      });
    }
    fabric.sim.runUntil(() => done === members.length, 1_000_000);
    done = 0;
    const external: Completion[] = [];
    fabric.hosts[outsider]!.onExternal = (x) => external.push(x);
    for (const h of members) fabric.hosts[h]!.call(fabric.sim.cycle, { job: 1, group: 1, op: 'sum', type: 'i32', count: 2, data: data(h), dist: 'rc', targetKind: 'external', targetId: outsider }, () => done++);
    fabric.sim.runUntil(() => done === members.length && external.length === 1, 1_000_000);
    const ext = external[0]!;
    expect(Array.from(new Int32Array(ext.data.slice().buffer))).toEqual([members.reduce((a, b) => a + b, 0), members.length]);
  });

  it('runs on a three-level fat tree of 2,048 hosts', () => {
    const fabric = new Fabric({ topology: largeSpec(2048) });
    expect(fabric.topo.spec.levels).toBe(3);
    const r = runAllreduce({ fabric, hosts: 2048, bytes: 16, iterations: 1, warmup: 0 });
    expect(r.ok).toBe(true);
    expect(r.plan.rootLevel).toBe(2);
  });
});

describe('SHArP fabric determinism', () => {
  it('skipping on and off give identical completions, statistics and VCD', () => {
    const run = (skipping: boolean): { stats: string; vcd: string; done: string } => {
      const fabric = new Fabric({ skipping });
      const sink = new MemorySink();
      const done: [number, number, number, number[]][] = [];
      const w = new Workload(fabric, [{ job: 1, group: 1, tree: 0, members: spreadMembers(fabric, 16), op: 'sum', type: 'f32', bytes: 512, iterations: 2, dist: 'rc+ud' }], {
        skewSeed: 3,
        skewMaxNs: 200,
        onCompletion: (_g, rank, i, c) => done.push([rank, i, c.done, Array.from(c.data)]),
      });
      new VcdTracer(fabric.sim, sink, { include: ['leaf0', 'spine0'] });
      fabric.sim.runUntil(() => w.finished(), 200_000);
      fabric.sim.step(100);
      fabric.sim.closeTraces();
      return { stats: JSON.stringify(fabric.sim.stats.toJSON()), vcd: sink.text(), done: JSON.stringify(done) };
    };
    const on = run(true);
    const off = run(false);
    expect(on.done.length).toBeGreaterThan(1000);
    expect(on.done).toBe(off.done);
    expect(on.stats).toBe(off.stats);
    expect(on.vcd.length).toBeGreaterThan(1000);
    expect(on.vcd).toBe(off.vcd);
  });
});
