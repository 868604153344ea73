/**
 * Fat-tree topologies of 36-port switches (SwitchIB-2 radix), as in the SHArP testbed
 * (seed 000 section VI: 128 hosts, 8 leaf switches, two-level fat tree, 100 Gb/s links).
 *
 * Node ids: hosts are 0 .. H-1; switches follow. Every switch has `radix` external ports plus one
 * internal port (index `radix`) that reaches its SHArP TCA (the aggregation node).
 *
 * Two levels: L leaf switches with `down` host ports each and `up` ports to S spine switches;
 * leaf l's up port k goes to spine k % S (so with S <= up every leaf reaches every spine).
 * Three levels: P pods, each a two-level block of leaves and pod spines ("aggregation"),
 * aggregation switches' up ports go to core switches. Hosts are spread evenly over the leaves
 * (host h on leaf floor(h * L / H)).
 */

export interface FatTreeSpec {
  levels: 2 | 3;
  hosts: number;
  /** leaf switches (two levels) or leaves per pod (three levels) */
  leaves: number;
  /** spine switches (two levels) or aggregation switches per pod (three levels) */
  spines: number;
  /** pods (three levels only) */
  pods?: number;
  /** core switches (three levels only) */
  cores?: number;
  /** ports per switch (36 for SwitchIB-2) */
  radix?: number;
}

export type Role = 'host' | 'leaf' | 'spine' | 'core';

export interface Port {
  /** peer node id, or -1 when unconnected */
  peer: number;
  /** port index at the peer */
  peerPort: number;
}

export interface TopoNode {
  id: number;
  role: Role;
  name: string;
  /** level in the fat tree: hosts 0, leaves 1, spines 2, cores 3 */
  level: number;
  pod: number;
  ports: Port[];
}

export interface Topology {
  spec: Required<FatTreeSpec>;
  nodes: TopoNode[];
  hosts: number[];
  leaves: number[];
  spines: number[];
  cores: number[];
  /** leaf switch of each host */
  leafOf: number[];
  radix: number;
}

export class TopologyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TopologyError';
  }
}

/** The default testbed of the paper: 128 hosts on 8 leaf switches, two levels. */
export function defaultSpec(hosts = 128): FatTreeSpec {
  if (hosts <= 18 * 8) return { levels: 2, hosts, leaves: 8, spines: 4 };
  return largeSpec(hosts);
}

/**
 * A spec for `hosts` hosts: two levels while 18 hosts per leaf and 36 leaves suffice (648),
 * three levels above (up to 11,664 hosts with 36-port switches).
 */
export function largeSpec(hosts: number): FatTreeSpec {
  const leavesNeeded = Math.ceil(hosts / 18);
  if (leavesNeeded <= 36) return { levels: 2, hosts, leaves: Math.max(leavesNeeded, 1), spines: Math.min(18, Math.max(2, Math.ceil(leavesNeeded / 2))) };
  const pods = Math.ceil(leavesNeeded / 18);
  const leavesPerPod = Math.ceil(leavesNeeded / pods);
  const aggs = Math.min(18, Math.max(2, Math.ceil(leavesPerPod / 2)));
  return { levels: 3, hosts, leaves: leavesPerPod, spines: aggs, pods, cores: aggs };
}

export function buildFatTree(input: FatTreeSpec): Topology {
  const radix = input.radix ?? 36;
  const spec: Required<FatTreeSpec> = { radix, pods: input.pods ?? 1, cores: input.cores ?? 0, ...input } as Required<FatTreeSpec>;
  const half = radix / 2;
  const bad = (why: string): never => {
    throw new TopologyError(`invalid fat tree (${JSON.stringify(input)}): ${why}`);
  };
  if (!Number.isInteger(radix) || radix < 4 || radix % 2 !== 0) bad('radix must be an even integer >= 4');
  if (!Number.isInteger(spec.hosts) || spec.hosts < 1) bad('hosts must be a positive integer');
  if (!Number.isInteger(spec.leaves) || spec.leaves < 1) bad('leaves must be a positive integer');
  if (!Number.isInteger(spec.spines) || spec.spines < 1 || spec.spines > half) bad(`spines must be in 1..${half}`);
  const pods = spec.levels === 3 ? spec.pods : 1;
  if (spec.levels === 3) {
    if (!Number.isInteger(pods) || pods < 1) bad('pods must be a positive integer');
    if (!Number.isInteger(spec.cores) || spec.cores < 1 || spec.cores > half) bad(`cores must be in 1..${half}`);
    if (pods > radix) bad(`at most ${radix} pods (core switch ports)`);
    if (spec.leaves > half) bad(`at most ${half} leaves per pod (aggregation down ports)`);
    if (spec.cores % spec.spines !== 0) bad('cores must be a multiple of the aggregation switches per pod (core c links to aggregation switch c mod spines)');
    if (spec.cores / spec.spines > half) bad(`at most ${half} cores per aggregation switch`);
  } else if (spec.leaves * 1 > radix) bad(`at most ${radix} leaves (spine ports)`);
  const totalLeaves = spec.leaves * pods;
  const perLeaf = Math.ceil(spec.hosts / totalLeaves);
  if (perLeaf > half) bad(`${spec.hosts} hosts need ${perLeaf} host ports per leaf; a leaf has ${half}`);

  const nodes: TopoNode[] = [];
  const mk = (role: Role, name: string, level: number, pod: number): TopoNode => {
    const n: TopoNode = { id: nodes.length, role, name, level, pod, ports: [] };
    const nports = role === 'host' ? 1 : radix + 1;
    for (let p = 0; p < nports; p++) n.ports.push({ peer: -1, peerPort: -1 });
    nodes.push(n);
    return n;
  };
  const connect = (a: TopoNode, pa: number, b: TopoNode, pb: number): void => {
    if (a.ports[pa]!.peer !== -1 || b.ports[pb]!.peer !== -1) throw new TopologyError(`internal: port reused ${a.name}:${pa} - ${b.name}:${pb}`);
    a.ports[pa] = { peer: b.id, peerPort: pb };
    b.ports[pb] = { peer: a.id, peerPort: pa };
  };
  const hosts: TopoNode[] = [];
  for (let h = 0; h < spec.hosts; h++) hosts.push(mk('host', `host${h}`, 0, 0));
  const leaves: TopoNode[] = [];
  const spines: TopoNode[] = [];
  const cores: TopoNode[] = [];
  for (let p = 0; p < pods; p++) for (let l = 0; l < spec.leaves; l++) leaves.push(mk('leaf', pods > 1 ? `leaf${p}_${l}` : `leaf${l}`, 1, p));
  for (let p = 0; p < pods; p++) for (let s = 0; s < spec.spines; s++) spines.push(mk('spine', pods > 1 ? `spine${p}_${s}` : `spine${s}`, 2, p));
  if (spec.levels === 3) for (let c = 0; c < spec.cores; c++) cores.push(mk('core', `core${c}`, 3, 0));

  // hosts spread evenly: host h on leaf floor(h * L / H), on the next free down port
  const leafOf: number[] = [];
  const nextDown = new Array<number>(totalLeaves).fill(0);
  for (let h = 0; h < spec.hosts; h++) {
    const li = Math.floor((h * totalLeaves) / spec.hosts);
    const leaf = leaves[li]!;
    connect(hosts[h]!, 0, leaf, nextDown[li]!++);
    leafOf.push(leaf.id);
  }
  // leaf up ports half..radix-1 -> spines of the pod (round robin)
  for (let p = 0; p < pods; p++) {
    for (let l = 0; l < spec.leaves; l++) {
      const leaf = leaves[p * spec.leaves + l]!;
      for (let s = 0; s < spec.spines; s++) {
        const spine = spines[p * spec.spines + s]!;
        connect(leaf, half + s, spine, l);
      }
    }
  }
  // three levels: core c links to aggregation switch (c mod spines) of every pod, on core port = pod
  if (spec.levels === 3) {
    for (let c = 0; c < spec.cores; c++) {
      const core = cores[c]!;
      const a = c % spec.spines;
      for (let p = 0; p < pods; p++) {
        const agg = spines[p * spec.spines + a]!;
        connect(agg, half + Math.floor(c / spec.spines), core, p);
      }
    }
  }
  return {
    spec,
    nodes,
    hosts: hosts.map((h) => h.id),
    leaves: leaves.map((x) => x.id),
    spines: spines.map((x) => x.id),
    cores: cores.map((x) => x.id),
    leafOf,
    radix,
  };
}

/**
 * Deterministic up/down routing tables: for each switch, the output port toward each node.
 * Down when the destination is below this switch, otherwise up through a port chosen by
 * destination modulo the number of usable up ports (d-mod-k), so routes are spread and fixed.
 * Returns route[switchId][destNodeId] = port (hosts have a single port 0).
 */
export function buildRoutes(topo: Topology): Map<number, Int16Array> {
  const n = topo.nodes.length;
  const below = new Map<number, Set<number>>(); // switch -> nodes reachable downward (incl. switches)
  const half = topo.radix / 2;
  const order = [...topo.leaves, ...topo.spines, ...topo.cores];
  for (const s of order) {
    const set = new Set<number>([s]);
    const node = topo.nodes[s]!;
    for (let p = 0; p < half * (node.role === 'core' ? 2 : 1); p++) {
      const peer = node.ports[p]?.peer ?? -1;
      if (peer < 0) continue;
      const pn = topo.nodes[peer]!;
      if (pn.level >= node.level) continue;
      if (pn.role === 'host') set.add(peer);
      else for (const x of below.get(peer)!) set.add(x);
    }
    below.set(s, set);
  }
  const routes = new Map<number, Int16Array>();
  // membership of every node in a switch's subtree, built once per switch that is someone's up
  // peer (no allocation per destination)
  const masks = new Map<number, Uint8Array>();
  const maskOf = (sw: number): Uint8Array => {
    let m = masks.get(sw);
    if (!m) {
      m = new Uint8Array(n);
      for (const x of below.get(sw)!) m[x] = 1;
      masks.set(sw, m);
    }
    return m;
  };
  for (const s of order) {
    const node = topo.nodes[s]!;
    const r = new Int16Array(n).fill(-1);
    const ups: number[] = [];
    const downs: number[] = [];
    for (let p = 0; p < topo.radix; p++) {
      const peer = node.ports[p]!.peer;
      if (peer < 0) continue;
      if (topo.nodes[peer]!.level > node.level) ups.push(p);
      else downs.push(p);
    }
    // down: the first down port whose subtree holds the destination
    for (let i = downs.length - 1; i >= 0; i--) {
      const p = downs[i]!;
      const sub = below.get(node.ports[p]!.peer);
      if (sub) for (const x of sub) r[x] = p;
    }
    // a direct neighbour: the first port that reaches it; this switch: the internal TCA port
    for (let p = topo.radix - 1; p >= 0; p--) {
      const peer = node.ports[p]!.peer;
      if (peer >= 0) r[peer] = p;
    }
    r[s] = topo.radix;
    if (ups.length > 0) {
      // up: prefer up ports whose switch has the destination below it, then spread by d mod k
      const upMask = ups.map((p) => maskOf(node.ports[p]!.peer));
      for (let d = 0; d < n; d++) {
        if (r[d] !== -1) continue;
        let good = 0;
        for (const m of upMask) good += m[d]!;
        if (good === 0) r[d] = ups[d % ups.length]!;
        else {
          let k = d % good;
          for (let i = 0; i < ups.length; i++) {
            if (upMask[i]![d] === 0) continue;
            if (k-- === 0) {
              r[d] = ups[i]!;
              break;
            }
          }
        }
      }
    }
    routes.set(s, r);
  }
  return routes;
}
