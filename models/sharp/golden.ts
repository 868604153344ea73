/**
 * Golden model of a SHArP reduction over a group's actual tree: the nested fixed-order fold.
 * At every aggregation node, the children's contributions (hosts' operands, or the partial
 * results of child ANs) are reduced in slot order (ascending child node id, as the group
 * description installs them) by the independent ALU golden model (models/alu), with the same
 * stochastic-rounding identity the hardware uses. Shares no code with rtl/sharp.
 */
import { goldenReduce, type GoldenConfig } from '../alu/golden.ts';
import type { DataType, IndexType, Op, ReductionOrder, Rounding } from '../../rtl/sharp/alu/types.ts';

export interface TreeShape {
  /** the AN where the reduction ends */
  root: number;
  /** children of every AN in slot order (hosts and ANs) */
  children: Map<number, readonly number[]>;
}

export interface ReductionSpec {
  type: DataType;
  op: Op;
  indexType?: IndexType;
  rounding?: Rounding;
  ftz?: boolean;
  wide?: boolean;
  count: number;
  /** ALU reduction order of every AN */
  order: ReductionOrder;
  /** the ALU's stochastic-rounding operation id for this operation (the same at every AN) */
  operationId: number;
}

export interface GoldenTreeResult {
  status: number;
  data: Uint8Array;
  flags: number;
}

/**
 * Reduce `operands` (host node id -> payload) over the tree. Every AN's ALU is seeded with its own
 * node id (as the fabric configures them).
 */
export function goldenTreeReduce(shape: TreeShape, spec: ReductionSpec, operands: ReadonlyMap<number, Uint8Array>): GoldenTreeResult {
  let flags = 0;
  const visit = (an: number): GoldenTreeResult => {
    const kids = shape.children.get(an);
    if (!kids) throw new Error(`golden: node ${an} is not an aggregation node of the tree`);
    const inputs: Uint8Array[] = [];
    for (const k of kids) {
      if (shape.children.has(k)) {
        const r = visit(k);
        if (r.status !== 0) return r;
        inputs.push(r.data);
      } else {
        const d = operands.get(k);
        if (!d) throw new Error(`golden: no operand from host ${k}`);
        inputs.push(d);
      }
    }
    const cfg: GoldenConfig = {
      type: spec.type,
      op: spec.op,
      indexType: spec.indexType ?? 'i32',
      rounding: spec.rounding ?? 'rne',
      ftz: spec.ftz ?? false,
      wide: spec.wide ?? false,
      order: spec.order,
      seed: an,
    };
    const r = goldenReduce(cfg, spec.operationId, spec.count, inputs);
    flags |= r.flags;
    return r;
  };
  const r = visit(shape.root);
  return { status: r.status, data: r.data, flags: r.status === 0 ? flags : 0 };
}
