/**
 * Golden transaction-level model of two TH Express-2 NIC back ends joined by a fault-free link
 * (docs/nic-rdma.md, "Golden model"), written from the documentation without the RTL: for each
 * descriptor (run to completion before the next) it predicts every byte the NICs write to host
 * memory, every event, minipacket and interrupt entry (through the queue model) and every error.
 * Decoding is the golden decoder's, checks the golden memory checker's; the ATT's default
 * mapping, segmentation and the event formats are computed here.
 */
import { MemCheckerModel, type ModelItem } from './memcheckModel.ts';
import { modelDecode, type ModelDesc, type ModelReason as DescReason } from './descModel.ts';
import { QueueModel } from './queueModel.ts';
import { collectivePuts } from './collectiveModel.ts';

const DESC_REASONS: DescReason[] = ['ok', 'bad_buffer', 'bad_opcode', 'bad_size', 'reserved', 'bad_flags', 'bad_children', 'bad_dest', 'bad_item', 'bad_length', 'bad_address'];
const MC_CODES: Record<string, number> = { invalid_item: 1, key_mismatch: 2, permission: 3, out_of_range: 4, bad_request: 5, vp_mismatch: 6, addr_mode: 7 };
const OPCODE: Record<string, number> = { imm_put: 0, put: 1, get: 2, mp: 3, coll: 4 };
const E_DECODE = 16;
const E_TOO_LONG = 18;
/** a connect transfer whose target never answered (the reliable end-to-end layer gave up) */
const E_E2E_FAILED = 22;
const LOCAL = 1;
const REMOTE = 2;
const ERROR = 3;
const INT_ERROR = 1;
const INT_DESC = 2;

export interface RdmaModelConfig {
  vps: number;
  items: number;
  maxPayload: number;
  maxTransfer: number;
  epqEnabled: boolean;
}

interface Ev {
  type: number;
  opcode: number;
  code: number;
  userTag: number;
  peerNode: number;
  peerVp: number;
  eventData: number;
  length: number;
  addr: number;
}

function le(b: Uint8Array, at: number, v: number, n: number): void {
  let x = v;
  for (let i = 0; i < n; i++) {
    b[at + i] = x % 256;
    x = Math.floor(x / 256);
  }
}

function eventBytes(e: Ev): Uint8Array {
  const b = new Uint8Array(32);
  b[0] = e.type;
  b[1] = e.opcode;
  b[2] = e.code;
  le(b, 4, e.userTag, 2);
  le(b, 6, e.peerNode, 2);
  b[8] = e.peerVp;
  le(b, 12, e.eventData >>> 0, 4);
  le(b, 16, e.length >>> 0, 4);
  le(b, 20, e.addr, 6);
  return b;
}

function intqBytes(type: number, code: number, vp: number, info: number): Uint8Array {
  const b = new Uint8Array(16);
  b[0] = type;
  b[1] = code;
  le(b, 2, vp, 2);
  le(b, 4, info >>> 0, 4);
  return b;
}

function mpBytes(len: number, node: number, vp: number, userTag: number, eventData: number, payload: readonly number[]): Uint8Array {
  const b = new Uint8Array(128);
  b[0] = 1;
  b[1] = len;
  le(b, 2, node, 2);
  b[4] = vp;
  le(b, 6, userTag, 2);
  le(b, 8, eventData >>> 0, 4);
  for (let i = 0; i < Math.min(80, payload.length); i++) b[16 + i] = payload[i]!;
  return b;
}

export class NodeModel {
  readonly checker: MemCheckerModel;
  readonly queues: QueueModel;
  /** host memory: what software put there and what the NIC's RDMA engine wrote (address -> byte) */
  readonly mem = new Map<number, number>();
  /** software's initial contents of address ranges [lo, hi), as functions of the address (read where mem has no byte) */
  readonly images: { lo: number; hi: number; byte: (pa: number) => number }[] = [];
  /** bytes written by the RDMA engine (address -> byte) */
  readonly rdmaWrites = new Map<number, number>();
  constructor(cfg: RdmaModelConfig) {
    this.checker = new MemCheckerModel(cfg.items);
    // virtual-mode EQ / MPQ entries: checked as a write by the VP, translated with the ATT's default mapping
    this.queues = new QueueModel(cfg.vps, cfg.epqEnabled, 48, (vp, item, key, va, len) => {
      const c = this.checker.check({ item, key, va, len, write: true, reqVp: vp, physical: false });
      return c.reason === 'ok' ? defaultPa(va, c.vp) : -MC_CODES[c.reason]!;
    });
    this.queues.keepWrites = false; // nothing here reads the write log; it would grow with every entry
  }
  read(pa: number): number {
    const v = this.mem.get(pa);
    if (v !== undefined) return v;
    for (const im of this.images) if (pa >= im.lo && pa < im.hi) return im.byte(pa);
    return 0;
  }
  write(pa: number, v: number): void {
    this.mem.set(pa, v);
    this.rdmaWrites.set(pa, v);
  }
  event(vp: number, e: Ev): void {
    this.queues.entry({ kind: 0, vp, data: eventBytes(e) });
  }
  intq(type: number, code: number, vp: number, info: number): void {
    this.queues.entry({ kind: 2, vp: 0, data: intqBytes(type, code, vp, info) });
  }
}

/** Physical address of virtual address va of VP vp under the ATT's default mapping. */
export function defaultPa(va: number, vp: number): number {
  const page = Math.floor(va / 4096);
  const frame = Number((BigInt(page) + (1n << 18n) + BigInt(vp) * (1n << 24n)) % (1n << 36n));
  return frame * 4096 + (va % 4096);
}

export class RdmaModel {
  readonly nodes: [NodeModel, NodeModel];
  /**
   * The link loses every packet (from now on): a connect transfer fails with e2e_failed at its
   * initiator after its retries, nothing reaches the target; a connectless PUT / IMM_PUT / MP still
   * gives its local event (its packets left), a connectless GET nothing. Otherwise faults below the
   * end-to-end layer are invisible to connect transfers: they run as on a fault-free link.
   */
  linkCut = false;
  constructor(readonly cfg: RdmaModelConfig) {
    this.nodes = [new NodeModel(cfg), new NodeModel(cfg)];
  }

  setItem(node: number, index: number, it: ModelItem): void {
    this.nodes[node]!.checker.write(index, it);
  }

  private pa(node: NodeModel, item: number, va: number, physical: boolean): number {
    return physical ? va : defaultPa(va, node.checker.item(item).vp);
  }

  /** Segment a transfer of len bytes landing at target address `dst`: [offset, length] per packet. */
  private packets(dst: number, len: number): [number, number][] {
    const mp = this.cfg.maxPayload;
    const out: [number, number][] = [];
    let off = 0;
    while (off < len) {
      const n = Math.min(mp - ((dst + off) % mp), len - off);
      out.push([off, n]);
      off += n;
    }
    return out;
  }

  /**
   * Move `data` into node `t` packet by packet, checking each packet against (item, key, write,
   * vp, physical); returns the first refusal's code (0: every packet written).
   */
  private deliver(t: NodeModel, data: readonly number[], dst: number, item: number, key: number, vp: number, physical: boolean): number {
    let broken = 0;
    for (const [off, n] of this.packets(dst, data.length)) {
      if (broken !== 0) continue;
      const v = t.checker.check({ item, key, va: dst + off, len: n, write: true, reqVp: vp, physical });
      if (v.reason !== 'ok') {
        broken = MC_CODES[v.reason]!;
        continue;
      }
      for (let i = 0; i < n; i++) t.write(this.pa(t, item, dst + off + i, physical), data[off + i]!);
    }
    return broken;
  }

  /** Run one descriptor submitted by VP `vp` of node `me` to completion. */
  run(me: number, vp: number, bytes: Uint8Array): void {
    const I = this.nodes[me]!;
    const v = modelDecode(bytes, { vps: this.cfg.vps, nodes: 2, items: this.cfg.items, vaBits: 48 });
    if (v.reason !== 'ok' || v.desc === null) {
      const opcode = bytes.length > 0 ? bytes[0]! & 15 : 0;
      const tag = bytes.length >= 8 ? bytes[6]! | (bytes[7]! << 8) : 0;
      I.event(vp, { type: ERROR, opcode, code: E_DECODE, userTag: tag, peerNode: 0, peerVp: 0, eventData: 0, length: 0, addr: 0 });
      I.intq(INT_ERROR, E_DECODE, vp, DESC_REASONS.indexOf(v.reason));
      return;
    }
    // a collective: one PUT per child, in child order (models/nic/collectiveModel.ts)
    if (v.desc.kind === 'coll') for (const p of collectivePuts(v.desc)) this.exec(me, vp, p);
    else this.exec(me, vp, v.desc);
  }

  /** Run one decoded descriptor (not a collective) of VP `vp` of node `me` to completion. */
  private exec(me: number, vp: number, d: ModelDesc): void {
    const I = this.nodes[me]!;
    const opcode = OPCODE[d.kind]!;
    const small = d.kind === 'imm_put' || d.kind === 'mp';
    const base: Ev = { type: ERROR, opcode, code: 0, userTag: d.userTag, peerNode: d.dstNode, peerVp: d.dstVp, eventData: d.eventData, length: d.length, addr: small ? 0 : d.localAddr };
    const localFail = (code: number): void => {
      I.event(vp, { ...base, code });
      I.intq(INT_ERROR, code, vp, d.userTag);
    };
    if (d.length > this.cfg.maxTransfer) return localFail(E_TOO_LONG);
    const tn = d.dstNode;
    const T = this.nodes[tn]!;
    if (!small) {
      const c = I.checker.check({ item: d.localItem, key: d.localKey, va: d.localAddr, len: d.length, write: d.kind === 'get', reqVp: vp, physical: d.physical });
      if (c.reason !== 'ok') return localFail(MC_CODES[c.reason]!);
    }
    const sent = (): void => {
      if (d.localEvent) I.event(vp, { ...base, type: LOCAL });
      if (d.interrupt) I.intq(INT_DESC, opcode, vp, d.userTag);
    };
    if (this.linkCut) {
      if (d.connect) {
        I.event(vp, { ...base, code: E_E2E_FAILED, addr: 0 });
        I.intq(INT_ERROR, E_E2E_FAILED, vp, d.userTag);
      } else if (d.kind !== 'get') sent();
      return;
    }
    if (d.kind === 'mp') {
      sent();
      T.queues.entry({ kind: 1, vp: d.dstVp, data: mpBytes(d.length, me, vp, d.userTag, d.eventData, d.data) });
      return;
    }
    if (d.kind === 'put' || d.kind === 'imm_put') {
      const data = d.kind === 'imm_put' ? d.data.slice(0, d.length) : Array.from({ length: d.length }, (_, i) => I.read(this.pa(I, d.localItem, d.localAddr + i, d.physical)));
      const broken = this.deliver(T, data, d.remoteAddr, d.remoteItem, d.remoteKey, d.dstVp, d.physical);
      sent();
      if (broken !== 0) {
        // the target's refusal comes back to the initiator's VP
        I.event(vp, { ...base, code: broken, addr: 0 });
        I.intq(INT_ERROR, broken, vp, d.userTag);
      } else if (d.remoteEvent) T.event(d.dstVp, { ...base, type: REMOTE, peerNode: me, peerVp: vp, addr: d.remoteAddr });
      return;
    }
    // GET: the target checks its buffer (read, acting for its VP), then sends the data back
    const c = T.checker.check({ item: d.remoteItem, key: d.remoteKey, va: d.remoteAddr, len: d.length, write: false, reqVp: d.dstVp, physical: d.physical });
    if (c.reason !== 'ok') {
      I.event(vp, { ...base, code: MC_CODES[c.reason]!, addr: 0 });
      I.intq(INT_ERROR, MC_CODES[c.reason]!, vp, d.userTag);
      return;
    }
    const data = Array.from({ length: d.length }, (_, i) => T.read(this.pa(T, d.remoteItem, d.remoteAddr + i, d.physical)));
    const broken = this.deliver(I, data, d.localAddr, d.localItem, d.localKey, vp, d.physical);
    if (d.remoteEvent) T.event(d.dstVp, { ...base, type: REMOTE, peerNode: me, peerVp: vp, addr: d.remoteAddr });
    if (broken !== 0) {
      I.event(vp, { ...base, code: broken, addr: 0 });
      I.intq(INT_ERROR, broken, vp, d.userTag);
    } else {
      if (d.localEvent) I.event(vp, { ...base, type: LOCAL });
      if (d.interrupt) I.intq(INT_DESC, opcode, vp, d.userTag);
    }
  }
}
