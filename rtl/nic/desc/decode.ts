import {
  blankDesc,
  CHILD_BYTES,
  COLL_MAX_CHILDREN,
  DESC_COLL,
  DESC_IMM_PUT,
  DESC_MP,
  type DescConfig,
  DR_BAD_ADDRESS,
  DR_BAD_BUFFER,
  DR_BAD_CHILDREN,
  DR_BAD_DEST,
  DR_BAD_FLAGS,
  DR_BAD_ITEM,
  DR_BAD_LENGTH,
  DR_BAD_OPCODE,
  DR_BAD_SIZE,
  DR_OK,
  DR_RESERVED,
  IMM_BYTES_128,
  IMM_BYTES_64,
  MP_BYTES,
  type NicDesc,
  OFF,
} from './format.ts';
import { RESERVED_MASKS } from './masks.ts';

export interface DecodeResult {
  /** DR_OK or the first failing check's reason */
  reason: number;
  /** the field that failed ('' when ok) */
  field: string;
  /** the decoded fields (meaningful only when reason is DR_OK) */
  desc: NicDesc;
}

function u48(v: DataView, at: number): number {
  return v.getUint32(at, true) + v.getUint16(at + 4, true) * 2 ** 32;
}

/**
 * Decode one descriptor. Checks in priority order (docs/nic-frontend.md): buffer size, opcode,
 * size field, reserved bits, flags, collective children, destinations, items, lengths, address
 * ranges. Pure function of the bytes and the configuration.
 */
export function decodeDescriptor(buf: Uint8Array, cfg: DescConfig): DecodeResult {
  const fail = (reason: number, field: string): DecodeResult => ({ reason, field, desc: blankDesc(0, buf.length) });
  if (buf.length !== 64 && buf.length !== 128) return fail(DR_BAD_BUFFER, 'buffer');
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const ctl = buf[OFF.ctl]!;
  const kind = ctl & 0x0f;
  if (kind > DESC_COLL) return fail(DR_BAD_OPCODE, 'opcode');
  const size = (ctl >> 4) & 0x03;
  const si = buf.length === 64 ? 0 : 1;
  if (size !== si) return fail(DR_BAD_SIZE, 'size');
  const m = RESERVED_MASKS[kind]![si];
  if (!m) return fail(DR_BAD_SIZE, 'size');
  for (let i = 0; i < buf.length; i++) if ((buf[i]! & ~m[i]!) !== 0) return fail(DR_RESERVED, `byte ${i}`);
  const d = blankDesc(kind, buf.length);
  const fl = buf[OFF.flags]!;
  d.localEvent = (ctl & 0x40) !== 0;
  d.remoteEvent = (ctl & 0x80) !== 0;
  d.connect = (fl & 1) !== 0;
  d.physical = (fl & 2) !== 0;
  d.interrupt = (fl & 4) !== 0;
  if (d.physical && (kind === DESC_IMM_PUT || kind === DESC_MP)) return fail(DR_BAD_FLAGS, 'physical');
  if (d.remoteEvent && kind === DESC_MP) return fail(DR_BAD_FLAGS, 'remoteEvent');
  d.dstNode = v.getUint16(OFF.dstNode, true);
  d.dstVp = buf[OFF.dstVp]!;
  d.userTag = v.getUint16(OFF.userTag, true);
  d.eventData = v.getUint32(OFF.eventData, true);
  const small = kind === DESC_IMM_PUT || kind === DESC_MP;
  d.length = small ? buf[OFF.len]! : v.getUint32(OFF.len, true);
  if (kind !== DESC_MP && kind !== DESC_COLL) {
    d.remoteKey = v.getUint32(OFF.remoteKey, true);
    d.remoteItem = v.getUint16(OFF.remoteItem, true);
    d.remoteAddr = u48(v, OFF.remoteAddr);
  }
  if (!small) {
    d.localKey = v.getUint32(OFF.localKey, true);
    d.localItem = v.getUint16(OFF.localItem, true);
    d.localAddr = u48(v, OFF.localAddr);
  }
  if (kind === DESC_COLL) {
    const n = buf[OFF.collCount]!;
    if (n < 1 || n > COLL_MAX_CHILDREN) return fail(DR_BAD_CHILDREN, 'childCount');
    for (let i = OFF.payload + n * CHILD_BYTES; i < 128; i++) if (buf[i] !== 0) return fail(DR_BAD_CHILDREN, `child ${Math.floor((i - OFF.payload) / CHILD_BYTES)} (beyond the count)`);
    d.swapAddr = (buf[OFF.collSwap]! & 1) !== 0;
    d.swapVp = (buf[OFF.collSwap]! & 2) !== 0;
    d.seqId = v.getUint16(OFF.collSeq, true);
    for (let c = 0; c < n; c++) {
      const b = OFF.payload + c * CHILD_BYTES;
      d.children.push({ node: v.getUint16(b, true), vp: buf[b + 2]!, key: v.getUint32(b + 4, true), addr: u48(v, b + 8), item: v.getUint16(b + 14, true) });
    }
  }
  if (d.dstNode >= cfg.nodes) return fail(DR_BAD_DEST, 'dstNode');
  if (d.dstVp >= cfg.vps) return fail(DR_BAD_DEST, 'dstVp');
  for (let c = 0; c < d.children.length; c++) {
    if (d.children[c]!.node >= cfg.nodes) return fail(DR_BAD_DEST, `child ${c} node`);
    if (d.children[c]!.vp >= cfg.vps) return fail(DR_BAD_DEST, `child ${c} vp`);
  }
  if (!small && d.localItem >= cfg.items) return fail(DR_BAD_ITEM, 'localItem');
  if (kind !== DESC_MP && kind !== DESC_COLL && d.remoteItem >= cfg.items) return fail(DR_BAD_ITEM, 'remoteItem');
  for (let c = 0; c < d.children.length; c++) if (d.children[c]!.item >= cfg.items) return fail(DR_BAD_ITEM, `child ${c} item`);
  const cap = kind === DESC_MP ? MP_BYTES : buf.length === 64 ? IMM_BYTES_64 : IMM_BYTES_128;
  if (d.length === 0 || (small && d.length > cap)) return fail(DR_BAD_LENGTH, 'length');
  const top = 2 ** cfg.vaBits;
  if (!small && d.localAddr + d.length > top) return fail(DR_BAD_ADDRESS, 'localAddr');
  if (kind !== DESC_MP && kind !== DESC_COLL && d.remoteAddr + d.length > top) return fail(DR_BAD_ADDRESS, 'remoteAddr');
  for (let c = 0; c < d.children.length; c++) if (d.children[c]!.addr + d.length > top) return fail(DR_BAD_ADDRESS, `child ${c} addr`);
  if (small) d.data = buf.slice(OFF.payload, OFF.payload + d.length);
  return { reason: DR_OK, field: '', desc: d };
}
