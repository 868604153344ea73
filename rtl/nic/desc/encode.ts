import { CHILD_BYTES, COLL_MAX_CHILDREN, DESC_COLL, DESC_IMM_PUT, DESC_KIND_NAMES, DESC_MP, IMM_BYTES_128, IMM_BYTES_64, MP_BYTES, type NicDesc, OFF } from './format.ts';
import { RESERVED_MASKS } from './masks.ts';

function uint(name: string, v: number, bits: number): void {
  if (!Number.isInteger(v) || v < 0 || v >= 2 ** bits) throw new RangeError(`descriptor encode: ${name} must be an integer in [0, 2^${bits}), got ${v}`);
}

function put48(dv: DataView, at: number, v: number): void {
  dv.setUint32(at, v % 2 ** 32, true);
  dv.setUint16(at + 4, Math.floor(v / 2 ** 32), true);
}

/**
 * Encode a descriptor into its 64- or 128-byte form. Refuses (RangeError naming the field) what
 * the format cannot hold: an unknown kind, a size the kind does not allow, a field wider than its
 * bits, immediate or MP data longer than the descriptor carries, more than 5 children. Values the
 * format holds but a NIC may reject (a VP above its count, length 0, a range past the address
 * space) are encoded as given: the decoder judges them.
 */
export function encodeDescriptor(d: NicDesc): Uint8Array {
  uint('kind', d.kind, 3);
  if (d.kind > DESC_COLL) throw new RangeError(`descriptor encode: kind ${d.kind} is not one of ${DESC_KIND_NAMES.join(', ')}`);
  if (d.bytes !== 64 && d.bytes !== 128) throw new RangeError(`descriptor encode: bytes must be 64 or 128, got ${d.bytes}`);
  if (!RESERVED_MASKS[d.kind]![d.bytes === 64 ? 0 : 1]) throw new RangeError(`descriptor encode: a ${DESC_KIND_NAMES[d.kind]} descriptor cannot be ${d.bytes} bytes`);
  const buf = new Uint8Array(d.bytes);
  const dv = new DataView(buf.buffer);
  buf[OFF.ctl] = d.kind | ((d.bytes === 64 ? 0 : 1) << 4) | (d.localEvent ? 0x40 : 0) | (d.remoteEvent ? 0x80 : 0);
  buf[OFF.flags] = (d.connect ? 1 : 0) | (d.physical ? 2 : 0) | (d.interrupt ? 4 : 0);
  uint('dstNode', d.dstNode, 16);
  uint('dstVp', d.dstVp, 8);
  uint('userTag', d.userTag, 16);
  uint('eventData', d.eventData, 32);
  dv.setUint16(OFF.dstNode, d.dstNode, true);
  buf[OFF.dstVp] = d.dstVp;
  dv.setUint16(OFF.userTag, d.userTag, true);
  dv.setUint32(OFF.eventData, d.eventData, true);
  const small = d.kind === DESC_IMM_PUT || d.kind === DESC_MP;
  if (small) {
    const cap = d.kind === DESC_MP ? MP_BYTES : d.bytes === 64 ? IMM_BYTES_64 : IMM_BYTES_128;
    if (d.data.length > cap) throw new RangeError(`descriptor encode: ${d.data.length} data bytes do not fit a ${d.bytes}-byte ${DESC_KIND_NAMES[d.kind]} (at most ${cap})`);
    uint('length', d.length, 8);
    buf[OFF.len] = d.length;
    buf.set(d.data, OFF.payload);
  } else {
    uint('length', d.length, 32);
    dv.setUint32(OFF.len, d.length, true);
    uint('localKey', d.localKey, 32);
    uint('localItem', d.localItem, 12);
    uint('localAddr', d.localAddr, 48);
    dv.setUint32(OFF.localKey, d.localKey, true);
    dv.setUint16(OFF.localItem, d.localItem, true);
    put48(dv, OFF.localAddr, d.localAddr);
  }
  if (d.kind !== DESC_MP && d.kind !== DESC_COLL) {
    uint('remoteKey', d.remoteKey, 32);
    uint('remoteItem', d.remoteItem, 12);
    uint('remoteAddr', d.remoteAddr, 48);
    dv.setUint32(OFF.remoteKey, d.remoteKey, true);
    dv.setUint16(OFF.remoteItem, d.remoteItem, true);
    put48(dv, OFF.remoteAddr, d.remoteAddr);
  }
  if (d.kind === DESC_COLL) {
    if (d.children.length > COLL_MAX_CHILDREN) throw new RangeError(`descriptor encode: ${d.children.length} children, at most ${COLL_MAX_CHILDREN}`);
    buf[OFF.collCount] = d.children.length;
    buf[OFF.collSwap] = (d.swapAddr ? 1 : 0) | (d.swapVp ? 2 : 0);
    uint('seqId', d.seqId, 16);
    dv.setUint16(OFF.collSeq, d.seqId, true);
    d.children.forEach((c, i) => {
      const b = OFF.payload + i * CHILD_BYTES;
      uint(`child ${i} node`, c.node, 16);
      uint(`child ${i} vp`, c.vp, 8);
      uint(`child ${i} key`, c.key, 32);
      uint(`child ${i} addr`, c.addr, 48);
      uint(`child ${i} item`, c.item, 12);
      dv.setUint16(b, c.node, true);
      buf[b + 2] = c.vp;
      dv.setUint32(b + 4, c.key, true);
      put48(dv, b + 8, c.addr);
      dv.setUint16(b + 14, c.item, true);
    });
  }
  return buf;
}
