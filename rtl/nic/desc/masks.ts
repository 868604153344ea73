/**
 * The bits of each descriptor kind's layout that carry a field (1) or are reserved (0), one byte
 * mask per descriptor byte. Built from the offsets in format.ts.
 */
import { CHILD_BYTES, COLL_MAX_CHILDREN, DESC_COLL, DESC_GET, DESC_IMM_PUT, DESC_MP, DESC_PUT, OFF } from './format.ts';

function mask(bytes: number, spans: [number, number, number?][]): Uint8Array {
  const m = new Uint8Array(bytes);
  for (const [at, n, last] of spans) {
    for (let i = 0; i < n; i++) m[at + i] = 0xff;
    if (last !== undefined) m[at + n - 1] = last; // partial top byte
  }
  return m;
}

const HEADER: [number, number, number?][] = [
  [OFF.ctl, 1],
  [OFF.flags, 1, 0x07],
  [OFF.dstNode, 2],
  [OFF.dstVp, 1],
  [OFF.userTag, 2],
  [OFF.eventData, 4],
];

const RDMA: [number, number, number?][] = [...HEADER, [OFF.len, 4], [OFF.localKey, 4], [OFF.remoteKey, 4], [OFF.localItem, 2, 0x0f], [OFF.remoteItem, 2, 0x0f], [OFF.localAddr, 6], [OFF.remoteAddr, 6]];
const IMM: [number, number, number?][] = [...HEADER, [OFF.len, 1], [OFF.remoteKey, 4], [OFF.remoteItem, 2, 0x0f], [OFF.remoteAddr, 6]];
const CHILDREN: [number, number, number?][] = [];
for (let c = 0; c < COLL_MAX_CHILDREN; c++) {
  const b = OFF.payload + c * CHILD_BYTES;
  CHILDREN.push([b, 3], [b + 4, 4], [b + 8, 6], [b + 14, 2, 0x0f]); // node, vp | key | addr | item
}

/** masks[kind][size index: 0 for 64 bytes, 1 for 128]; null where the kind does not allow the size */
export const RESERVED_MASKS: (Uint8Array | null)[][] = [];
RESERVED_MASKS[DESC_IMM_PUT] = [mask(64, [...IMM, [OFF.payload, 16]]), mask(128, [...IMM, [OFF.payload, 80]])];
RESERVED_MASKS[DESC_PUT] = [mask(64, RDMA), null];
RESERVED_MASKS[DESC_GET] = [mask(64, RDMA), null];
RESERVED_MASKS[DESC_MP] = [null, mask(128, [...HEADER, [OFF.len, 1], [OFF.payload, 80]])];
RESERVED_MASKS[DESC_COLL] = [null, mask(128, [...HEADER, [OFF.len, 4], [OFF.localKey, 4], [OFF.localItem, 2, 0x0f], [OFF.localAddr, 6], [OFF.collCount, 1], [OFF.collSwap, 1, 0x03], [OFF.collSeq, 2], ...CHILDREN])];
