/**
 * Golden model of the collective descriptor's execution (docs/nic-rdma.md, "Collective
 * descriptors"), written from the documentation: a collective is the sequence of PUTs it sends,
 * one per child in child order, each with the collective's source buffer and the child's
 * destination; remote events per child as the collective asks; the local event and the interrupt
 * on the last child only.
 */
import type { ModelDesc } from './descModel.ts';

export function collectivePuts(c: ModelDesc): ModelDesc[] {
  return c.children.map((ch, i) => {
    const last = i === c.children.length - 1;
    return {
      ...c,
      kind: 'put',
      bytes: 64,
      localEvent: last ? c.localEvent : false,
      interrupt: last ? c.interrupt : false,
      dstNode: ch.node,
      dstVp: ch.vp,
      remoteKey: ch.key,
      remoteItem: ch.item,
      remoteAddr: ch.addr,
      data: [],
      swapAddr: false,
      swapVp: false,
      seqId: 0,
      children: [],
    };
  });
}
