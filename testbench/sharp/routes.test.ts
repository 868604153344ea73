/**
 * buildRoutes (rtl/sharp/topology.ts) against a direct transcription of the routing rule, written
 * here without the table's shortcuts: for each switch and destination, the internal TCA port for
 * itself, else the first port reaching a direct neighbour, else the first down port whose subtree
 * holds the destination, else an up port chosen by destination modulo the up ports whose switch
 * has the destination below it (all up ports when none has). Every table entry must be equal on
 * two- and three-level fat trees, and every host must be reachable from every switch.
 */
import { describe, expect, it } from 'vitest';
import { buildFatTree, buildRoutes, defaultSpec, largeSpec, type Topology } from '../../rtl/sharp/topology.ts';

function subtree(topo: Topology, s: number, memo: Map<number, Set<number>>): Set<number> {
  const got = memo.get(s);
  if (got) return got;
  const node = topo.nodes[s]!;
  const set = new Set<number>([s]);
  for (const p of node.ports) {
    if (p.peer < 0) continue;
    const pn = topo.nodes[p.peer]!;
    if (pn.level >= node.level) continue;
    if (pn.role === 'host') set.add(p.peer);
    else for (const x of subtree(topo, p.peer, memo)) set.add(x);
  }
  memo.set(s, set);
  return set;
}

function referencePort(topo: Topology, s: number, d: number, memo: Map<number, Set<number>>): number {
  if (d === s) return topo.radix;
  const node = topo.nodes[s]!;
  for (let p = 0; p < topo.radix; p++) if (node.ports[p]!.peer === d) return p;
  const ups: number[] = [];
  for (let p = 0; p < topo.radix; p++) {
    const peer = node.ports[p]!.peer;
    if (peer < 0) continue;
    if (topo.nodes[peer]!.level > node.level) ups.push(p);
    else if (topo.nodes[peer]!.role !== 'host' && subtree(topo, peer, memo).has(d)) return p;
  }
  if (ups.length === 0) return -1;
  const good = ups.filter((p) => subtree(topo, node.ports[p]!.peer, memo).has(d));
  const pool = good.length > 0 ? good : ups;
  return pool[d % pool.length]!;
}

describe('buildRoutes', () => {
  for (const hosts of [128, 300, 648, 700, 2048]) {
    it(`${hosts} hosts: every entry equals the routing rule, every host reachable from every switch`, () => {
      const topo = buildFatTree(hosts <= 128 ? defaultSpec(hosts) : largeSpec(hosts));
      const routes = buildRoutes(topo);
      const memo = new Map<number, Set<number>>();
      const n = topo.nodes.length;
      let mismatches = 0;
      for (const [s, r] of routes) {
        for (let d = 0; d < n; d++) if (r[d] !== referencePort(topo, s, d, memo)) mismatches++;
      }
      expect(mismatches).toBe(0);
      // reachability: following the tables from any switch reaches every host within 2 x levels hops
      for (const s of [topo.leaves[0]!, topo.spines[topo.spines.length - 1]!, ...topo.cores.slice(0, 1)]) {
        for (let h = 0; h < topo.hosts.length; h += 7) {
          let at = s;
          let hops = 0;
          while (at !== h && hops < 8) {
            const port = routes.get(at)![h]!;
            expect(port).toBeGreaterThanOrEqual(0);
            at = topo.nodes[at]!.ports[port]!.peer;
            hops++;
          }
          expect(at).toBe(h);
        }
      }
    });
  }
});
