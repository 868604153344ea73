/**
 * Golden model of the TH Express-2 descriptor decoder (docs/nic-frontend.md, "Descriptors"),
 * written from the documented bit layout with BigInt bit slicing and sharing no code with
 * rtl/nic/desc. A descriptor is read as one little-endian integer of 512 or 1024 bits; every kind
 * has a list of fields (bit offset, width); a bit that belongs to no field is reserved.
 */

export type ModelKind = 'imm_put' | 'put' | 'get' | 'mp' | 'coll';
const KINDS: ModelKind[] = ['imm_put', 'put', 'get', 'mp', 'coll'];

export type ModelReason = 'ok' | 'bad_buffer' | 'bad_opcode' | 'bad_size' | 'reserved' | 'bad_flags' | 'bad_children' | 'bad_dest' | 'bad_item' | 'bad_length' | 'bad_address';

export interface ModelChild {
  node: number;
  vp: number;
  key: number;
  addr: number;
  item: number;
}

export interface ModelDesc {
  kind: ModelKind;
  bytes: number;
  localEvent: boolean;
  remoteEvent: boolean;
  connect: boolean;
  physical: boolean;
  interrupt: boolean;
  dstNode: number;
  dstVp: number;
  userTag: number;
  length: number;
  localKey: number;
  remoteKey: number;
  localItem: number;
  remoteItem: number;
  localAddr: number;
  remoteAddr: number;
  eventData: number;
  data: number[];
  swapAddr: boolean;
  swapVp: boolean;
  seqId: number;
  children: ModelChild[];
}

export interface ModelVerdict {
  reason: ModelReason;
  field: string;
  desc: ModelDesc | null;
}

type Field = [name: string, bit: number, width: number];

const HEADER: Field[] = [
  ['opcode', 0, 4],
  ['size', 4, 2],
  ['localEvent', 6, 1],
  ['remoteEvent', 7, 1],
  ['connect', 8, 1],
  ['physical', 9, 1],
  ['interrupt', 10, 1],
  ['dstNode', 16, 16],
  ['dstVp', 32, 8],
  ['userTag', 48, 16],
  ['eventData', 320, 32],
];
const REMOTE: Field[] = [
  ['remoteKey', 128, 32],
  ['remoteItem', 176, 12],
  ['remoteAddr', 256, 48],
];
const LOCAL: Field[] = [
  ['length', 64, 32],
  ['localKey', 96, 32],
  ['localItem', 160, 12],
  ['localAddr', 192, 48],
];
function childFields(i: number): Field[] {
  const b = 384 + i * 128;
  return [
    [`c${i}node`, b, 16],
    [`c${i}vp`, b + 16, 8],
    [`c${i}key`, b + 32, 32],
    [`c${i}addr`, b + 64, 48],
    [`c${i}item`, b + 112, 12],
  ];
}

function layout(kind: ModelKind, bytes: number): Field[] | null {
  switch (kind) {
    case 'put':
    case 'get':
      return bytes === 64 ? [...HEADER, ...LOCAL, ...REMOTE] : null;
    case 'imm_put':
      return [...HEADER, ['length', 64, 8], ...REMOTE, ['data', 384, bytes === 64 ? 128 : 640]];
    case 'mp':
      return bytes === 128 ? [...HEADER, ['length', 64, 8], ['data', 384, 640]] : null;
    case 'coll':
      return bytes === 128
        ? [...HEADER, ...LOCAL, ['childCount', 256, 8], ['swapAddr', 264, 1], ['swapVp', 265, 1], ['seqId', 272, 16], ...[0, 1, 2, 3, 4].flatMap(childFields)]
        : null;
  }
}

function asBig(buf: Uint8Array): bigint {
  let x = 0n;
  for (let i = buf.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(buf[i]!);
  return x;
}

function slice(x: bigint, bit: number, width: number): bigint {
  return (x >> BigInt(bit)) & ((1n << BigInt(width)) - 1n);
}

export interface ModelLimits {
  vps: number;
  nodes: number;
  items: number;
  vaBits: number;
}

export function modelDecode(buf: Uint8Array, lim: ModelLimits): ModelVerdict {
  const no = (reason: ModelReason, field: string): ModelVerdict => ({ reason, field, desc: null });
  if (buf.length !== 64 && buf.length !== 128) return no('bad_buffer', 'buffer');
  const x = asBig(buf);
  const op = Number(slice(x, 0, 4));
  if (op >= KINDS.length) return no('bad_opcode', 'opcode');
  const kind = KINDS[op]!;
  const size = Number(slice(x, 4, 2));
  if (size !== (buf.length === 64 ? 0 : 1)) return no('bad_size', 'size');
  const fields = layout(kind, buf.length);
  if (fields === null) return no('bad_size', 'size');
  let used = 0n;
  for (const [, bit, w] of fields) used |= ((1n << BigInt(w)) - 1n) << BigInt(bit);
  const stray = x & ~used;
  if (stray !== 0n) {
    let lowest = 0;
    while (((stray >> BigInt(lowest)) & 1n) === 0n) lowest++;
    return no('reserved', `byte ${Math.floor(lowest / 8)}`);
  }
  const f = new Map<string, bigint>();
  for (const [name, bit, w] of fields) f.set(name, slice(x, bit, w));
  const num = (k: string): number => Number(f.get(k) ?? 0n);
  const flag = (k: string): boolean => (f.get(k) ?? 0n) === 1n;
  if (flag('physical') && (kind === 'imm_put' || kind === 'mp')) return no('bad_flags', 'physical');
  if (flag('remoteEvent') && kind === 'mp') return no('bad_flags', 'remoteEvent');
  const children: ModelChild[] = [];
  if (kind === 'coll') {
    const n = num('childCount');
    if (n === 0 || n > 5) return no('bad_children', 'childCount');
    for (let i = n; i < 5; i++) {
      if (slice(x, 384 + i * 128, 128) !== 0n) return no('bad_children', `child ${i} (beyond the count)`);
    }
    for (let i = 0; i < n; i++) children.push({ node: num(`c${i}node`), vp: num(`c${i}vp`), key: num(`c${i}key`), addr: num(`c${i}addr`), item: num(`c${i}item`) });
  }
  if (num('dstNode') >= lim.nodes) return no('bad_dest', 'dstNode');
  if (num('dstVp') >= lim.vps) return no('bad_dest', 'dstVp');
  for (const [i, c] of children.entries()) {
    if (c.node >= lim.nodes) return no('bad_dest', `child ${i} node`);
    if (c.vp >= lim.vps) return no('bad_dest', `child ${i} vp`);
  }
  if (f.has('localItem') && num('localItem') >= lim.items) return no('bad_item', 'localItem');
  if (f.has('remoteItem') && num('remoteItem') >= lim.items) return no('bad_item', 'remoteItem');
  for (const [i, c] of children.entries()) if (c.item >= lim.items) return no('bad_item', `child ${i} item`);
  const len = num('length');
  const cap = kind === 'mp' ? 80 : kind === 'imm_put' ? (buf.length === 64 ? 16 : 80) : Infinity;
  if (len === 0 || len > cap) return no('bad_length', 'length');
  const top = 1n << BigInt(lim.vaBits);
  if (f.has('localAddr') && (f.get('localAddr')! + BigInt(len)) > top) return no('bad_address', 'localAddr');
  if (f.has('remoteAddr') && (f.get('remoteAddr')! + BigInt(len)) > top) return no('bad_address', 'remoteAddr');
  for (const [i, c] of children.entries()) if (BigInt(c.addr) + BigInt(len) > top) return no('bad_address', `child ${i} addr`);
  const data: number[] = [];
  if (f.has('data')) for (let i = 0; i < len; i++) data.push(Number(slice(x, 384 + 8 * i, 8)));
  return {
    reason: 'ok',
    field: '',
    desc: {
      kind,
      bytes: buf.length,
      localEvent: flag('localEvent'),
      remoteEvent: flag('remoteEvent'),
      connect: flag('connect'),
      physical: flag('physical'),
      interrupt: flag('interrupt'),
      dstNode: num('dstNode'),
      dstVp: num('dstVp'),
      userTag: num('userTag'),
      length: len,
      localKey: num('localKey'),
      remoteKey: num('remoteKey'),
      localItem: num('localItem'),
      remoteItem: num('remoteItem'),
      localAddr: num('localAddr'),
      remoteAddr: num('remoteAddr'),
      eventData: num('eventData'),
      data,
      swapAddr: flag('swapAddr'),
      swapVp: flag('swapVp'),
      seqId: num('seqId'),
      children,
    },
  };
}
