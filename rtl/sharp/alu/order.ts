/**
 * The fixed reduction orders of docs/alu.md as static schedules of combine nodes.
 *
 * Items 0 .. K-1 are the child operands (by slot); node j (1-based, creation order) produces
 * item K + j - 1 from its left and right items. The result of a node is written in place over
 * the left input's buffer slot (`slot`), which no other node reads afterwards.
 */
import type { ReductionOrder } from './types.ts';

export interface CombineNode {
  /** node number used by stochastic rounding (1-based, creation order) */
  id: number;
  left: number;
  right: number;
  out: number;
  /** operand-buffer slot holding the left input, overwritten by the result */
  slot: number;
  /** tree level (1 = combines operands); linear order: the step number */
  level: number;
}

export interface Schedule {
  children: number;
  nodes: CombineNode[];
  /** item holding the final result */
  root: number;
  /** slot of the buffer that holds the final result */
  rootSlot: number;
  /** per item: the node that consumes it (-1 for the root) */
  consumer: Int16Array;
  /** number of nodes on the path from each operand to the root */
  depth: Int16Array;
}

const cache = new Map<string, Schedule>();

export function schedule(order: ReductionOrder, children: number): Schedule {
  const key = `${order}:${children}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (!Number.isInteger(children) || children < 1 || children > 64) throw new RangeError(`children must be in 1..64, got ${children}`);
  const nodes: CombineNode[] = [];
  const slotOf: number[] = [];
  for (let i = 0; i < children; i++) slotOf.push(i);
  let root = 0;
  if (order === 'linear') {
    let acc = 0;
    for (let s = 1; s < children; s++) {
      const out = children + s - 1;
      nodes.push({ id: s, left: acc, right: s, out, slot: 0, level: s });
      slotOf[out] = 0;
      acc = out;
    }
    root = acc;
  } else {
    let level: number[] = [];
    for (let i = 0; i < children; i++) level.push(i);
    let lv = 0;
    while (level.length > 1) {
      lv++;
      const next: number[] = [];
      for (let i = 0; i + 1 < level.length; i += 2) {
        const out = children + nodes.length;
        const left = level[i]!;
        nodes.push({ id: nodes.length + 1, left, right: level[i + 1]!, out, slot: slotOf[left]!, level: lv });
        slotOf[out] = slotOf[left]!;
        next.push(out);
      }
      if (level.length % 2 === 1) next.push(level[level.length - 1]!);
      level = next;
    }
    root = level[0]!;
  }
  const items = children + nodes.length;
  const consumer = new Int16Array(items).fill(-1);
  for (const n of nodes) {
    consumer[n.left] = n.id;
    consumer[n.right] = n.id;
  }
  const depth = new Int16Array(children);
  for (let i = 0; i < children; i++) {
    let d = 0;
    let it = i;
    while (consumer[it]! > 0) {
      d++;
      it = nodes[consumer[it]! - 1]!.out;
    }
    depth[i] = d;
  }
  const s: Schedule = { children, nodes, root, rootSlot: slotOf[root]!, consumer, depth };
  cache.set(key, s);
  return s;
}
