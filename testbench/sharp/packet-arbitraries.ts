/**
 * fast-check arbitraries for valid SHArP packets of every type (rtl/sharp/packet). Every value they
 * produce encodes without error and decodes back to an equal object. Written from the rules of
 * docs/sharp-packets.md, not from the decoder, so they also test the decoder's acceptance.
 * Fabric and AN tests can import them (e.g. `arbAggRequest()`, `arbPacket`).
 */
import fc from 'fast-check';
import { DATA_TYPES, INDEX_TYPES, OPS, ROUNDINGS, TYPE_BYTES, type DataType, type IndexType, type Op } from '../../rtl/sharp/alu/types.ts';
import { SharpStatus, type DistMode, type TargetKind } from '../../rtl/sharp/packet/codes.ts';
import type {
  AggFields, AggRequest, AggResponse, ErrorReport, GroupCreate, GroupTrim, JobQuota, JobRevoke, Packet,
} from '../../rtl/sharp/packet/packet.ts';

export const arbU16 = fc.integer({ min: 0, max: 0xffff });
export const arbU32 = fc.integer({ min: 0, max: 0xffffffff });
/** 32-bit values biased toward the edges (0, 1, 2^32-1 ...). */
export const arbU32Edge = fc.oneof(arbU32, fc.constantFrom(0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff));
export const arbTree = fc.integer({ min: 0, max: 63 });

const FLOATS: readonly DataType[] = ['f16', 'bf16', 'f32', 'f64'];
const BITWISE: readonly Op[] = ['band', 'bor', 'bxor', 'land', 'lor', 'lxor'];

/** A legal (op, data type, index type) triple: no bitwise/logical op on floats; index only for *loc. */
export const arbReduction: fc.Arbitrary<{ op: Op; dataType: DataType; indexType: IndexType | null }> = fc
  .record({ op: fc.constantFrom(...OPS), dataType: fc.constantFrom(...DATA_TYPES), index: fc.constantFrom(...INDEX_TYPES) })
  .filter((r) => !(BITWISE.includes(r.op) && FLOATS.includes(r.dataType)))
  .map((r) => ({ op: r.op, dataType: r.dataType, indexType: r.op === 'minloc' || r.op === 'maxloc' ? r.index : null }));

/** Element bytes of a triple, from the ALU's type sizes. */
export function elemBytesOf(op: Op, dataType: DataType, indexType: IndexType | null): number {
  return TYPE_BYTES[dataType] + (indexType === null ? 0 : TYPE_BYTES[indexType]);
}

/** A legal (distribution mode, target kind, target id) combination. */
export const arbTarget: fc.Arbitrary<{ dist: DistMode; targetKind: TargetKind; targetId: number }> = fc.oneof(
  fc.constant({ dist: 'rc' as DistMode, targetKind: 'all' as TargetKind, targetId: 0 }),
  fc.record({ dist: fc.constantFrom<DistMode>('ud', 'rc+ud'), targetKind: fc.constant<TargetKind>('all'), targetId: fc.integer({ min: 1, max: 0xffffffff }) }),
  fc.record({ dist: fc.constant<DistMode>('rc'), targetKind: fc.constant<TargetKind>('member'), targetId: arbU16 }),
  fc.record({ dist: fc.constant<DistMode>('rc'), targetKind: fc.constant<TargetKind>('external'), targetId: arbU16 }),
  fc.record({ dist: fc.constant<DistMode>('ud'), targetKind: fc.constant<TargetKind>('external'), targetId: fc.integer({ min: 1, max: 0xffffffff }) }),
);

/** fragIndex < fragCount, small counts most of the time. */
export const arbFragment: fc.Arbitrary<{ fragIndex: number; fragCount: number }> = fc
  .oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 0xffff }))
  .chain((fragCount) => fc.record({ fragIndex: fc.integer({ min: 0, max: fragCount - 1 }), fragCount: fc.constant(fragCount) }));

/**
 * Aggregation header fields with a payload of exactly count x element bytes. `withData: false`
 * gives an empty payload with any legal count (for error responses).
 */
export function arbAggFields(withData = true): fc.Arbitrary<AggFields> {
  return arbReduction.chain((r) => {
    const elem = elemBytesOf(r.op, r.dataType, r.indexType);
    const maxCount = Math.floor(256 / elem);
    return fc
      .record({
        job: arbU16, tree: arbTree, group: arbU16, seq: arbU32Edge, source: arbU16, msgId: arbU16,
        frag: arbFragment, target: arbTarget,
        rounding: fc.constantFrom(...ROUNDINGS), wide: fc.boolean(), ftz: fc.boolean(), aluFlags: fc.integer({ min: 0, max: 31 }),
        count: fc.oneof(fc.integer({ min: 0, max: maxCount }), fc.constantFrom(0, maxCount)),
        seed: fc.uint8Array({ minLength: 256, maxLength: 256 }),
      })
      .map((x): AggFields => ({
        job: x.job, tree: x.tree, group: x.group, seq: x.seq, source: x.source, msgId: x.msgId,
        fragIndex: x.frag.fragIndex, fragCount: x.frag.fragCount,
        op: r.op, dataType: r.dataType, indexType: r.indexType,
        rounding: x.rounding, wide: x.wide, ftz: x.ftz, aluFlags: x.aluFlags, count: x.count,
        dist: x.target.dist, targetKind: x.target.targetKind, targetId: x.target.targetId, status: 0,
        payload: withData ? x.seed.slice(0, x.count * elem) : new Uint8Array(0),
      }));
  });
}

const ERROR_STATUSES = Object.values(SharpStatus).filter((s) => s !== 0);

export function arbAggRequest(): fc.Arbitrary<AggRequest> {
  return fc.oneof(
    arbAggFields(true).map((f) => ({ ...f, type: 'AGG_REQUEST' as const, status: 0 })),
    fc.tuple(arbAggFields(false), fc.constantFrom(...ERROR_STATUSES)).map(([f, status]) => ({ ...f, type: 'AGG_REQUEST' as const, status })),
  );
}

export function arbAggResponse(): fc.Arbitrary<AggResponse> {
  return fc.oneof(
    arbAggFields(true).map((f) => ({ ...f, type: 'AGG_RESPONSE' as const, status: 0 })),
    fc.tuple(arbAggFields(false), fc.constantFrom(...ERROR_STATUSES)).map(([f, status]) => ({ ...f, type: 'AGG_RESPONSE' as const, status })),
  );
}

export function arbGroupCreate(): fc.Arbitrary<GroupCreate> {
  return fc
    .record({ job: arbU16, tree: arbTree, group: arbU16, seq: arbU32Edge, source: arbU16, children: fc.uniqueArray(arbU16, { minLength: 1, maxLength: 64 }) })
    .chain((x) =>
      fc.oneof(fc.constant(null), arbU16.filter((p) => !x.children.includes(p))).map((parent) => ({ type: 'GROUP_CREATE' as const, ...x, parent })),
    );
}

export function arbGroupTrim(): fc.Arbitrary<GroupTrim> {
  return fc
    .record({ job: arbU16, tree: arbTree, group: arbU16, seq: arbU32Edge, source: arbU16, newRoot: arbU16, level: fc.integer({ min: 0, max: 15 }) })
    .map((x) => ({ type: 'GROUP_TRIM' as const, ...x }));
}

export function arbErrorReport(): fc.Arbitrary<ErrorReport> {
  return fc
    .record({ status: fc.constantFrom(...ERROR_STATUSES), job: arbU16, tree: arbTree, group: arbU16, seq: arbU32Edge, source: arbU16, detail: arbU32Edge })
    .map((x) => ({ type: 'ERROR_REPORT' as const, ...x }));
}

export function arbJobQuota(): fc.Arbitrary<JobQuota> {
  return fc
    .record({ job: arbU16, seq: arbU32Edge, source: arbU16, maxOps: arbU16, maxBufferBytes: arbU32Edge })
    .map((x) => ({ type: 'JOB_QUOTA' as const, ...x }));
}

export function arbJobRevoke(): fc.Arbitrary<JobRevoke> {
  return fc.record({ job: arbU16, seq: arbU32Edge, source: arbU16 }).map((x) => ({ type: 'JOB_REVOKE' as const, ...x }));
}

/** One arbitrary per packet type, by type name. */
export const ARB_BY_TYPE: Readonly<Record<Packet['type'], () => fc.Arbitrary<Packet>>> = {
  AGG_REQUEST: arbAggRequest,
  AGG_RESPONSE: arbAggResponse,
  GROUP_CREATE: arbGroupCreate,
  GROUP_TRIM: arbGroupTrim,
  ERROR_REPORT: arbErrorReport,
  JOB_QUOTA: arbJobQuota,
  JOB_REVOKE: arbJobRevoke,
};

/** Any valid packet; aggregation packets are weighted up (they have the most fields). */
export const arbPacket: fc.Arbitrary<Packet> = fc.oneof(
  { arbitrary: arbAggRequest(), weight: 3 },
  { arbitrary: arbAggResponse(), weight: 3 },
  { arbitrary: arbGroupCreate(), weight: 2 },
  { arbitrary: arbGroupTrim(), weight: 1 },
  { arbitrary: arbErrorReport(), weight: 1 },
  { arbitrary: arbJobQuota(), weight: 1 },
  { arbitrary: arbJobRevoke(), weight: 1 },
);
