import type { Scope } from '../kernel/index.ts';
import { type LinkConfig, NetLink } from './link/link.ts';
import { buildNic, type Nic, type NicConfig } from './nic.ts';

export interface NicPair {
  nics: [Nic, Nic];
  link: NetLink;
}

/**
 * Two NICs (nodes 0 and 1, each with its own host) joined by a link (docs/nic-rdma.md, "Two
 * NICs"). `nic` applies to both; the node numbers and the link's port count are set here.
 */
export function buildNicPair(parent: Scope, cfg: { nic?: Partial<Omit<NicConfig, 'node'>>; link?: Partial<Omit<LinkConfig, 'ports'>> } = {}): NicPair {
  const link = new NetLink(parent, 'link', { ...cfg.link, ports: 2 });
  const rdma = { ...cfg.nic?.rdma, nodes: 2 };
  const a = buildNic(parent, 'nic0', { ...cfg.nic, rdma, node: 0 }, link.txIn[0]!, link.rxOut[0]!, undefined, link.ctlOut[0]!);
  const b = buildNic(parent, 'nic1', { ...cfg.nic, rdma, node: 1 }, link.txIn[1]!, link.rxOut[1]!, undefined, link.ctlOut[1]!);
  return { nics: [a, b], link };
}
