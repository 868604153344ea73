/**
 * Random RDMA descriptors for the two-NIC tests (testbench/nic/rdma.test.ts, e2e.test.ts): a
 * specification (node, kind, VPs, items, keys right or wrong, offsets, lengths, flags) and the
 * descriptor it makes.
 */
import fc from 'fast-check';
import { blankDesc, DESC_GET, DESC_IMM_PUT, DESC_MP, DESC_PUT, encodeDescriptor, type NicDesc } from '../../rtl/nic/desc/index.ts';
import { baseItem, ITEMS, VPS } from './rdmaWorld.ts';

export interface DescSpec {
  me: number;
  kind: 'imm_put' | 'put' | 'get' | 'mp' | 'coll' | 'garbage';
  vp: number;
  dstVp: number;
  localItem: number;
  remoteItem: number;
  localKeyOk: boolean;
  remoteKeyOk: boolean;
  localOff: number;
  remoteOff: number;
  len: number;
  smallLen: number;
  flags: number;
  tag: number;
  fill: number;
  /** the connect flag (reliable end-to-end), default clear */
  connect?: boolean;
}

export const specArb: fc.Arbitrary<DescSpec> = fc.record({
  me: fc.integer({ min: 0, max: 1 }),
  kind: fc.constantFrom('imm_put', 'put', 'put', 'get', 'get', 'mp', 'coll', 'garbage'),
  vp: fc.integer({ min: 0, max: VPS - 1 }),
  dstVp: fc.integer({ min: 0, max: VPS - 1 }),
  localItem: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => -1 - k), weight: 5 }, { arbitrary: fc.integer({ min: 0, max: ITEMS - 1 }), weight: 1 }),
  remoteItem: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => -1 - k), weight: 5 }, { arbitrary: fc.integer({ min: 0, max: ITEMS - 1 }), weight: 1 }),
  localKeyOk: fc.constantFrom(true, true, true, false),
  remoteKeyOk: fc.constantFrom(true, true, true, false),
  localOff: fc.integer({ min: 0, max: 3 * 4096 - 1 }),
  remoteOff: fc.integer({ min: 0, max: 5 * 4096 - 1 }),
  len: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 300 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 5000 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 12000 }), weight: 1 }),
  smallLen: fc.integer({ min: 1, max: 80 }),
  flags: fc.integer({ min: 0, max: 15 }),
  tag: fc.integer({ min: 0, max: 0xffff }),
  fill: fc.integer({ min: 0, max: 255 }),
});

/** The descriptor of a spec; items are matched to VPs the way a correct library would, with the spec's deviations. */
export function build(spec: DescSpec): Uint8Array {
  // a negative item choice -1 - k names the k-th item of the VP that uses it (what a correct library does)
  const s = { ...spec };
  if (s.localItem < 0) s.localItem = s.vp + VPS * (-1 - s.localItem);
  if (s.remoteItem < 0) s.remoteItem = s.dstVp + VPS * (-1 - s.remoteItem);
  if (s.kind === 'garbage') {
    const b = new Uint8Array(64).fill(s.fill);
    b[0] = 0x0f; // opcode 15
    return b;
  }
  const kind = { imm_put: DESC_IMM_PUT, put: DESC_PUT, get: DESC_GET, mp: DESC_MP, coll: 4 }[s.kind];
  const d: NicDesc = blankDesc(kind, s.kind === 'imm_put' && s.smallLen > 16 ? 128 : undefined);
  d.dstNode = 1 - s.me;
  d.dstVp = s.dstVp;
  d.userTag = s.tag;
  d.connect = s.connect ?? false;
  d.eventData = (s.tag * 65537 + s.fill) >>> 0;
  d.localEvent = (s.flags & 1) !== 0 || s.kind === 'get';
  d.remoteEvent = (s.flags & 2) !== 0 && s.kind !== 'mp';
  d.interrupt = (s.flags & 4) !== 0;
  const li = baseItem(s.localItem);
  const ri = baseItem(s.remoteItem);
  if (s.kind === 'imm_put' || s.kind === 'mp') {
    d.length = s.smallLen;
    d.data = Uint8Array.from({ length: s.smallLen }, (_, i) => (s.fill + i * 3) & 0xff);
  } else {
    d.length = s.len;
    d.localItem = s.localItem;
    d.localKey = li.key + (s.localKeyOk ? 0 : 1);
    d.localAddr = li.basePage * 4096 + s.localOff;
    d.physical = li.physical ?? false;
  }
  if (s.kind === 'coll') {
    d.children = [{ node: 1 - s.me, vp: s.dstVp, key: 1, addr: 4096, item: 1 }];
    return encodeDescriptor(d);
  }
  if (s.kind !== 'mp') {
    d.remoteItem = s.remoteItem;
    d.remoteKey = ri.key + (s.remoteKeyOk ? 0 : 1);
    d.remoteAddr = ri.basePage * 4096 + s.remoteOff;
  }
  return encodeDescriptor(d);
}
