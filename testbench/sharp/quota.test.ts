import { describe, expect, it } from 'vitest';
import { SharpStatus } from '../../rtl/sharp/packet/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { Workload } from '../../experiments/sharp/workload.ts';

describe('per-job quotas at every aggregation node', () => {
  it('a request over quota fails only its own operations; other jobs and contexts are untouched', () => {
    const fabric = new Fabric();
    const hosts = fabric.topo.hosts;
    const job1 = hosts.filter((h) => h % 4 === 0);
    const job2 = hosts.filter((h) => h % 4 === 1);
    const firstStatus = new Map<number, number>(); // job 1's first completion status, by rank
    const w = new Workload(fabric, [
      { job: 1, group: 1, tree: 0, members: job1, op: 'sum', type: 'f32', bytes: 4096, iterations: 3, dist: 'rc', maxOps: 4 },
      { job: 2, group: 1, tree: 1, members: job2, op: 'sum', type: 'f32', bytes: 2048, iterations: 4, dist: 'rc', maxOps: 4 },
    ], { onCompletion: (g, rank, i, c) => g === 0 && i === 0 && firstStatus.set(rank, c.status) });
    // one member of job 1 misbehaves: it ignores its limit of 4 outstanding operations
    fabric.hosts[job1[0]!]!.forceLimits(1, 1, 16, 16 * 256);
    fabric.sim.runUntil(() => w.finished(), 5_000_000);
    fabric.sim.step(20_000);
    w.verify();
    const [o1, o2] = w.outcomes;
    // job 1: its first message fails with the quota error on every member
    expect(firstStatus.size).toBe(job1.length);
    for (const st of firstStatus.values()) expect(st).toBe(SharpStatus.QUOTA_OPS);
    expect(o1!.hung).toBe(0);
    // the leaf AN of the misbehaving host counted the rejections; nothing is left allocated
    expect(JSON.stringify(fabric.sim.stats.toJSON())).toMatch(/"leaf\d\.an\.quota_rejections":[1-9]/);
    for (const an of fabric.ans.values()) {
      expect(an.contextsInUse).toBe(0);
      expect(an.quotaUse(1)).toEqual({ ops: 0, bytes: 0 });
      expect(an.quotaUse(2)).toEqual({ ops: 0, bytes: 0 });
    }
    // job 2 never noticed
    expect(o2!.errors).toBe(0);
    expect(o2!.correct).toBe(4);
    // the AM revoked nothing: quota errors are per operation
    expect(fabric.am.jobs.get(1)!.revoked).toBe(0);
  });
});
