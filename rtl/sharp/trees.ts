/**
 * SHArP trees and groups over a fat tree, as the Aggregation Manager computes them
 * (seed 000 sections III-B, III-C): an aggregation node (AN) in every switch's TCA; a tree maps
 * AN parent links onto physical links (so every AN-to-AN hop is one switch hop: the paper's
 * "preference to map connected aggregation nodes to directly connected switches"); a group is a
 * subset of hosts whose per-AN child sets are installed at group creation, and whose sub-tree is
 * trimmed where its width becomes one.
 */
import type { Topology } from './topology.ts';

export const MAX_TREES = 64;

export interface SharpTree {
  id: number;
  /** root AN (switch node id) */
  root: number;
  /** parent AN of every AN in the tree (-1 at the root) */
  parent: Map<number, number>;
}

/**
 * Tree `id`: two levels, rooted at spine (id mod spines) with every leaf below it; three levels,
 * rooted at core (id mod cores), through the aggregation switch of each pod that links to it.
 */
export function buildTree(topo: Topology, id: number): SharpTree {
  if (!Number.isInteger(id) || id < 0 || id >= MAX_TREES) throw new RangeError(`tree id must be in 0..${MAX_TREES - 1}, got ${id}`);
  const parent = new Map<number, number>();
  if (topo.spec.levels === 2) {
    const root = topo.spines[id % topo.spines.length]!;
    parent.set(root, -1);
    for (const leaf of topo.leaves) parent.set(leaf, root);
    return { id, root, parent };
  }
  const core = topo.cores[id % topo.cores.length]!;
  parent.set(core, -1);
  const coreNode = topo.nodes[core]!;
  for (const port of coreNode.ports) {
    if (port.peer < 0) continue;
    const agg = topo.nodes[port.peer]!;
    if (agg.role !== 'spine') continue;
    parent.set(agg.id, core);
    for (const p of agg.ports) {
      if (p.peer >= 0 && topo.nodes[p.peer]!.role === 'leaf') parent.set(p.peer, agg.id);
    }
  }
  for (const leaf of topo.leaves) if (!parent.has(leaf)) throw new Error(`internal: leaf ${topo.nodes[leaf]!.name} not reached by tree ${id}`);
  return { id, root: core, parent };
}

export interface AnGroupRole {
  /** parent AN, or null at the group's (trimmed) root */
  parent: number | null;
  /** children in operand-slot order: ascending node id (hosts, then ANs) */
  children: number[];
}

export interface GroupPlan {
  job: number;
  group: number;
  tree: number;
  /** member hosts, ascending */
  members: number[];
  /** the AN where reductions end after trimming */
  root: number;
  /** tree level of the root (0 = leaf switch) */
  rootLevel: number;
  /** every AN of the group's sub-tree and its role */
  ans: Map<number, AnGroupRole>;
  /** ANs above the trimmed root that the untrimmed sub-tree used (they drop the group on trim) */
  trimmed: number[];
}

export class GroupError extends Error {}

/** Per-AN child sets for `members` on `tree`, then trimmed where the width becomes one. */
export function planGroup(topo: Topology, tree: SharpTree, job: number, group: number, members: readonly number[]): GroupPlan {
  const sorted = [...new Set(members)].sort((a, b) => a - b);
  if (sorted.length === 0) throw new GroupError(`group ${group} of job ${job} has no members`);
  if (sorted.length !== members.length) throw new GroupError(`group ${group} of job ${job} lists a host twice`);
  for (const h of sorted) if (!Number.isInteger(h) || h < 0 || h >= topo.hosts.length) throw new GroupError(`group ${group}: host ${h} does not exist (hosts 0..${topo.hosts.length - 1})`);
  const kids = new Map<number, Set<number>>();
  const add = (an: number, child: number): void => {
    let s = kids.get(an);
    if (!s) {
      s = new Set();
      kids.set(an, s);
    }
    s.add(child);
  };
  for (const h of sorted) {
    let child = h;
    let an = topo.leafOf[h]!;
    for (;;) {
      add(an, child);
      const up = tree.parent.get(an);
      if (up === undefined) throw new GroupError(`internal: switch ${an} is not in tree ${tree.id}`);
      if (up < 0) break;
      child = an;
      an = up;
    }
  }
  // trim: move the root down while it has a single child that is an AN
  let root = tree.root;
  const trimmed: number[] = [];
  for (;;) {
    const c = [...kids.get(root)!];
    if (c.length === 1 && topo.nodes[c[0]!]!.role !== 'host') {
      trimmed.push(root);
      kids.delete(root);
      root = c[0]!;
    } else break;
  }
  const ans = new Map<number, AnGroupRole>();
  for (const [an, set] of kids) {
    const parent = an === root ? null : tree.parent.get(an)!;
    ans.set(an, { parent, children: [...set].sort((a, b) => a - b) });
  }
  for (const [an, role] of ans) if (role.children.length > 64) throw new GroupError(`AN ${topo.nodes[an]!.name} would have ${role.children.length} children in group ${group}; at most 64`);
  return { job, group, tree: tree.id, members: sorted, root, rootLevel: topo.nodes[root]!.level - 1, ans, trimmed };
}

/**
 * Multicast forwarding entries for distributing a group's result from its root AN: for every
 * switch on the unicast routes from the root's switch to the members, the set of output ports.
 */
export function multicastPorts(topo: Topology, routes: Map<number, Int16Array>, root: number, members: readonly number[]): Map<number, number[]> {
  const sets = new Map<number, Set<number>>();
  for (const m of members) {
    let sw = root;
    for (let hops = 0; hops < 16; hops++) {
      const port = routes.get(sw)![m]!;
      if (port < 0) throw new Error(`internal: no route from ${topo.nodes[sw]!.name} to host ${m}`);
      let s = sets.get(sw);
      if (!s) {
        s = new Set();
        sets.set(sw, s);
      }
      s.add(port);
      const next = topo.nodes[sw]!.ports[port]!.peer;
      if (next === m) break;
      sw = next;
    }
  }
  const out = new Map<number, number[]>();
  for (const [sw, s] of sets) out.set(sw, [...s].sort((a, b) => a - b));
  return out;
}
