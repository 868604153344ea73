import { describe, expect, it } from 'vitest';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { GroupError } from '../../rtl/sharp/trees.ts';
import { runAllreduce, spreadMembers } from '../../experiments/sharp/scenario.ts';

// issue 10 item 10: the AM allocates around failed parts and takes back every grant of a revoked job

/** the hosts of one leaf switch */
function hostsOf(fabric: Fabric, leaf: number): number[] {
  return fabric.topo.hosts.filter((h) => fabric.topo.leafOf[h] === leaf);
}

/**
 * One fault epoch of a job: the group is created, one member's request is corrupted (its leaf AN
 * reports it and the AM revokes the job), every member calls once and is answered.
 */
function revokeByCorruptRequest(fabric: Fabric, job: number, members: number[], victim: number): void {
  fabric.am.createGroup(job, 1, 0, members, { maxOps: 8 });
  fabric.settle();
  fabric.hosts[victim]!.corruptNext((b) => {
    b[3]! ^= 0x40;
  });
  let done = 0;
  for (const h of members) fabric.hosts[h]!.call(fabric.sim.cycle, { job, group: 1, op: 'sum', type: 'i32', count: 2, data: new Uint8Array(8), dist: 'rc', targetKind: 'all' }, () => done++);
  fabric.sim.runUntil(() => done === members.length, 1_000_000);
  fabric.settle();
}

describe('Aggregation Manager allocation after faults', () => {
  it('a revoked job returns every grant: 40 jobs revoked in turn never exhaust an AN', () => {
    const fabric = new Fabric();
    const members = spreadMembers(fabric, 16);
    for (let job = 1; job <= 40; job++) {
      revokeByCorruptRequest(fabric, job, members, members[job % members.length]!);
      expect(fabric.am.jobs.get(job)!.revoked).not.toBe(0);
      expect(fabric.am.grantedTo(job)).toBe(0);
    }
    // and a healthy job still runs
    const r = runAllreduce({ fabric, hosts: 128, bytes: 64, iterations: 1, warmup: 0, job: 41 });
    expect(r.ok).toBe(true);
  });

  it('the AM keeps nothing per revocation: its containers do not grow over repeated fault epochs, each revocation goes to onRevoke', () => {
    const fabric = new Fabric();
    const members = spreadMembers(fabric, 16);
    const seen: number[] = [];
    fabric.am.onRevoke = (e) => seen.push(...e.jobs);
    /** sizes of every array, map and set the AM holds directly */
    const sizes = (): Record<string, number> => {
      const out: Record<string, number> = {};
      for (const [k, v] of Object.entries(fabric.am)) {
        if (Array.isArray(v)) out[k] = v.length;
        else if (v instanceof Map || v instanceof Set) out[k] = v.size;
      }
      return out;
    };
    const epoch = (i: number): void => {
      const job = 2 + (i % 4); // ids reused, as the soak and a resource manager do
      revokeByCorruptRequest(fabric, job, members, members[i % members.length]!);
      expect(fabric.am.jobs.get(job)!.revoked).not.toBe(0);
      fabric.am.endJob(job);
    };
    for (let i = 0; i < 4; i++) epoch(i);
    const before = sizes();
    for (let i = 4; i < 24; i++) epoch(i);
    expect(sizes()).toEqual(before);
    expect(seen).toEqual(Array.from({ length: 24 }, (_, i) => 2 + (i % 4)));
  });

  it('a group asking for the tree of a failed spine AN is placed on a healthy tree and completes', () => {
    const fabric = new Fabric();
    const spine0 = fabric.am.tree(0).root;
    fabric.anFailure(spine0);
    fabric.settle();
    const r = runAllreduce({ fabric, hosts: 64, bytes: 512, dist: 'rc+ud', iterations: 2, warmup: 0, job: 7, tree: 0 });
    expect(r.ok).toBe(true);
    expect(r.plan.root).not.toBe(spine0);
    expect(r.plan.ans.has(spine0)).toBe(false);
  });

  it('a group needing a downed leaf-spine link moves to another tree; one that does not need it stays', () => {
    const fabric = new Fabric();
    const spine0 = fabric.am.tree(0).root;
    const leaf3 = fabric.topo.leaves[3]!;
    fabric.linkDown(leaf3, spine0);
    fabric.settle();
    const r = runAllreduce({ fabric, hosts: 32, bytes: 64, dist: 'rc', iterations: 2, warmup: 0, job: 1, tree: 0 });
    expect(r.ok).toBe(true);
    expect(r.plan.tree).not.toBe(0);
    // hosts of leaves 0 and 1 only: tree 0 does not use leaf 3's uplink
    const members = [...hostsOf(fabric, fabric.topo.leaves[0]!).slice(0, 4), ...hostsOf(fabric, fabric.topo.leaves[1]!).slice(0, 4)];
    const plan = fabric.am.createGroup(2, 1, 0, members);
    expect(plan.tree).toBe(0);
  });

  it('a failed leaf AN or a dead process: groups needing it are refused with the reason and change nothing; others complete', () => {
    const fabric = new Fabric();
    const leaf2 = fabric.topo.leaves[2]!;
    fabric.anFailure(leaf2);
    const dead = hostsOf(fabric, fabric.topo.leaves[5]!)[0]!;
    fabric.hosts[dead]!.kill(fabric.sim.cycle);
    fabric.settle();
    fabric.settle();
    const withLeaf2 = [hostsOf(fabric, leaf2)[0]!, hostsOf(fabric, fabric.topo.leaves[0]!)[0]!];
    expect(() => fabric.am.createGroup(3, 1, 0, withLeaf2)).toThrow(GroupError);
    expect(() => fabric.am.createGroup(3, 1, 0, withLeaf2)).toThrow(/aggregation node of leaf2 failed/);
    expect(() => fabric.am.createGroup(3, 1, 0, [dead, 0])).toThrow(/process on host\d+ died/);
    expect(fabric.am.jobs.has(3)).toBe(false);
    expect(fabric.am.grantedTo(3)).toBe(0);
    const others = fabric.topo.hosts.filter((h) => h !== dead && fabric.topo.leafOf[h] !== leaf2);
    const plan = fabric.am.createGroup(3, 1, 0, others);
    fabric.settle();
    let done = 0;
    let bad = 0;
    for (const h of plan.members) {
      fabric.hosts[h]!.call(fabric.sim.cycle, { job: 3, group: 1, op: 'sum', type: 'i32', count: 1, data: new Uint8Array(new Int32Array([1]).buffer), dist: 'ud', targetKind: 'all' }, (c) => {
        done++;
        if (c.status !== 0 || new Int32Array(c.data.slice().buffer)[0] !== plan.members.length) bad++;
      });
    }
    fabric.sim.runUntil(() => done === plan.members.length, 1_000_000);
    expect(bad).toBe(0);
  });

  it('a revoked job id is refused until the job is ended, then reusable', () => {
    const fabric = new Fabric();
    const members = spreadMembers(fabric, 8);
    fabric.am.createGroup(9, 1, 0, members);
    fabric.settle();
    fabric.hosts[members[0]!]!.kill(fabric.sim.cycle);
    fabric.settle();
    fabric.settle();
    expect(fabric.am.jobs.get(9)!.revoked).not.toBe(0);
    expect(() => fabric.am.createGroup(9, 2, 0, members.slice(1))).toThrow(/job 9 was revoked/);
    fabric.am.endJob(9);
    fabric.settle();
    const plan = fabric.am.createGroup(9, 3, 1, members.slice(1));
    expect(plan.members).toEqual(members.slice(1));
    expect(fabric.am.grantedTo(9)).toBeGreaterThan(0);
  });
});
