/**
 * Test world for the RDMA engine: two NICs joined by the link, queues registered, items and a
 * memory image shared with the golden model; submit descriptors the software way (a PIO VP's
 * descriptor stored into its HDQ window, a DMA VP's written into its SDQ ring in host memory and
 * announced by a doorbell store), settle, compare.
 */
import { reg64 } from '../../experiments/nic/frontEnd.ts';
import fc from 'fast-check';
import { expect } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { ItemWrite } from '../../rtl/nic/memcheck/types.ts';
import { buildNicPair, type NicPair } from '../../rtl/nic/nicPair.ts';
import { type PcieConfig, PioWrite } from '../../rtl/nic/pcie/index.ts';
import { NC_EPQ_BASE, NC_INTQ_BASE, VR_DOORBELL, VR_EQ_BASE, VR_HDQ_WINDOW, VR_MPQ_BASE, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';
import { Q_ENTRY_BYTES, Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, QS_REGISTER, type QueueSwWrite } from '../../rtl/nic/queues/index.ts';
import type { LinkConfig } from '../../rtl/nic/link/index.ts';
import type { E2eConfig } from '../../rtl/nic/e2e/types.ts';
import type { ModelItem } from '../../models/nic/memcheckModel.ts';
import { defaultPa, RdmaModel } from '../../models/nic/rdmaModel.ts';

export const VPS = 4;
export const ITEMS = 16;
export const EQ_SIZE = 16;
export const MP_SIZE = 4;
export const INTQ_SIZE = 64;
export const MAX_PAYLOAD = 256;
export const HDQ_SLOTS = 4;
export const SDQ_RING = 16;
const SDQ_ENTRY = 128;

/** SDQ ring of DMA VP vp: below the queue rings and every data page */
export function sdqBase(vp: number): number {
  return 0x0800_0000 + vp * 0x1_0000;
}

/** queue ring of (node-independent) kind / VP: below 2^29, apart from every data page */
export function queueBase(kind: number, vp: number): number {
  return 0x1000_0000 + (kind * VPS + vp) * 0x10_0000;
}

export class RdmaWorld {
  readonly sim = new Simulator({});
  readonly pair: NicPair;
  readonly model: RdmaModel;
  readonly writes: [Map<number, number>, Map<number, number>] = [new Map(), new Map()];
  readonly items: [ModelItem[], ModelItem[]] = [[], []];
  /** writes that landed outside every queue ring and every writable item (judged when they land) */
  readonly outside: string[] = [];

  readonly pioVps: number;
  /** descriptors posted per node and VP (software's count; the readout's dispatched count gives its credits back) */
  private readonly posted: [Float64Array, Float64Array] = [new Float64Array(VPS), new Float64Array(VPS)];

  /** `pioVps` of the 4 VPs take descriptors by PIO (HDQ), the others by DMA (SDQ); `pcie`: PCIe parameters of both NICs (e.g. read jitter) */
  constructor(link: Partial<Omit<LinkConfig, 'ports'>> = {}, epq = false, pioVps = 2, e2e: Partial<E2eConfig> = {}, pcie: Partial<PcieConfig> = {}) {
    this.pioVps = pioVps;
    this.pair = buildNicPair(this.sim, {
      nic: { pcie, vp: { pioVps, dmaVps: VPS - pioVps }, hdqSlots: HDQ_SLOTS, items: ITEMS, att: { readLatency: 40, jitter: 8 }, atc: { entries: 256, ways: 4 }, rdma: { maxPayload: MAX_PAYLOAD, maxTransfer: 1 << 16 }, queues: { epqEnabled: epq }, e2e },
      link: { latency: 60, ...link },
    });
    this.model = new RdmaModel({ vps: VPS, items: ITEMS, maxPayload: MAX_PAYLOAD, maxTransfer: 1 << 16, epqEnabled: epq });
    for (const n of [0, 1] as const) {
      const nic = this.pair.nics[n];
      nic.pcie.host.onWrite = (tlp) => {
        for (let i = 0; i < tlp.len; i++) {
          this.writes[n].set(tlp.addr + i, tlp.data![i]!);
          if (!this.permitted(n, tlp.addr + i)) this.outside.push(`node ${n} ${(tlp.addr + i).toString(16)}`);
        }
      };
      // the kernel registers the queues by register stores through PCIe: EQ and MPQ in each VP's page, INTQ and EPQ in the control page
      const regs: QueueSwWrite[] = [];
      for (let vp = 0; vp < VPS; vp++) {
        regs.push({ op: QS_REGISTER, kind: Q_EQ, vp, base: queueBase(Q_EQ, vp), size: EQ_SIZE, count: 0 });
        regs.push({ op: QS_REGISTER, kind: Q_MPQ, vp, base: queueBase(Q_MPQ, vp), size: MP_SIZE, count: 0 });
      }
      regs.push({ op: QS_REGISTER, kind: Q_INTQ, vp: 0, base: queueBase(Q_INTQ, 0), size: INTQ_SIZE, count: 0 });
      regs.push({ op: QS_REGISTER, kind: Q_EPQ, vp: 0, base: queueBase(Q_EPQ, 0), size: 8, count: 0 });
      for (const w of regs) {
        const [page, baseReg] = w.kind === Q_EQ ? [w.vp, VR_EQ_BASE] : w.kind === Q_MPQ ? [w.vp, VR_MPQ_BASE] : [VPS, w.kind === Q_INTQ ? NC_INTQ_BASE : NC_EPQ_BASE];
        this.store(n, -1, page, baseReg, reg64(w.base));
        this.store(n, -1, page, baseReg + 8, reg64(w.size)); // the size register follows its base register
        this.model.nodes[n].queues.software({ op: 'register', kind: w.kind, vp: w.vp, base: w.base, size: w.size, count: 0 });
      }
      // the kernel registers each DMA VP's descriptor ring (register stores through PCIe)
      for (let vp = pioVps; vp < VPS; vp++) {
        this.store(n, -1, vp, VR_SDQ_BASE, reg64(sdqBase(vp)));
        this.store(n, -1, vp, VR_SDQ_SIZE, reg64(SDQ_RING));
      }
      for (let i = 0; i < ITEMS; i++) this.items[n].push({ valid: false, key: 0, read: false, write: false, basePage: 0, topPage: 0, vp: 0, physical: false });
    }
    this.settle();
  }

  /** Software writes an item of node n's memory checker (between operations). */
  setItem(n: number, index: number, it: ModelItem): void {
    const w = new ItemWrite();
    Object.assign(w, { index, valid: it.valid, key: it.key, read: it.read, write: it.write, basePage: it.basePage, topPage: it.topPage, vp: it.vp, physical: it.physical ?? false });
    this.pair.nics[n].mem.checker.loadItem(w);
    this.model.setItem(n, index, it);
    this.items[n][index] = { ...it };
  }

  /** Software fills host memory of node n (physical address) before the NIC reads it. */
  image(n: number, pa: number, data: Uint8Array): void {
    this.pair.nics[n].pcie.mem.write(pa, data);
    for (let i = 0; i < data.length; i++) this.model.nodes[n].mem.set(pa + i, data[i]!);
  }

  /** Fill the pages of an item with bytes derived from `seed` (the model gets the same contents as a function). */
  fillItem(n: number, it: ModelItem, seed: number): void {
    const byte = (va: number): number => (seed * 131 + va * 7 + (va >> 8)) & 0xff;
    for (let p = it.basePage; p <= it.topPage; p++) {
      const b = new Uint8Array(4096);
      for (let i = 0; i < 4096; i++) b[i] = byte(p * 4096 + i);
      const pa = it.physical ? p * 4096 : defaultPa(p * 4096, it.vp);
      this.pair.nics[n].pcie.mem.write(pa, b);
      const va0 = p * 4096;
      this.model.nodes[n].images.unshift({ lo: pa, hi: pa + 4096, byte: (a) => byte(va0 + a - pa) });
    }
  }

  /** A CPU store into page `vp` (VP vp's registers; page VPS is the control page) of node n by `writer` (-1: the kernel), waiting while the root complex's store queue is full. */
  store(n: number, writer: number, vp: number, off: number, data: Uint8Array): void {
    const host = this.pair.nics[n].pcie.host;
    while (!host.pioIn.canPush()) this.sim.step(1);
    const w = new PioWrite();
    w.writer = writer;
    w.addr = vp * 4096 + off;
    w.data = data;
    host.pioIn.push(w);
  }

  /**
   * Software posts a descriptor on VP vp of node n, without waiting for it to run: a PIO VP stores
   * it into its HDQ window, a DMA VP writes it into the next entry of its SDQ ring and stores a
   * doorbell of 1. Waits (simulating) while the VP has as many descriptors out as its queue holds.
   */
  post(n: number, vp: number, bytes: Uint8Array): void {
    const pio = vp < this.pioVps;
    const room = pio ? HDQ_SLOTS : SDQ_RING;
    const nic = this.pair.nics[n];
    const k = this.posted[n][vp]!;
    while (k - nic.readout.dispatchedOf(vp) >= room) this.sim.step(1);
    if (pio) this.store(n, vp, vp, VR_HDQ_WINDOW, bytes);
    else {
      nic.pcie.mem.write(sdqBase(vp) + (k % SDQ_RING) * SDQ_ENTRY, bytes);
      this.store(n, vp, vp, VR_DOORBELL, reg64(1));
    }
    this.posted[n][vp] = k + 1;
  }

  /** Post one descriptor, run it in the model, settle. */
  submit(n: number, vp: number, bytes: Uint8Array): void {
    this.post(n, vp, bytes);
    this.model.run(n, vp, bytes);
    this.settle();
  }

  busy(): boolean {
    for (const n of [0, 1] as const) {
      const nic = this.pair.nics[n];
      if (!nic.coll.idle || !nic.tx.idle || !nic.rx.idle || !nic.e2eTx.idle || !nic.e2eRx.quiet) return true;
      for (let vp = 0; vp < VPS; vp++) if (nic.readout.dispatchedOf(vp) < this.posted[n][vp]!) return true;
    }
    return false;
  }

  settle(): void {
    let quiet = 0;
    for (let i = 0; i < 1000 && quiet < 3; i++) {
      const before = this.writes[0].size + this.writes[1].size + this.pair.link.stats.delivered.value;
      this.sim.step(1000);
      const after = this.writes[0].size + this.writes[1].size + this.pair.link.stats.delivered.value;
      quiet = !this.busy() && after === before ? quiet + 1 : 0;
    }
    if (quiet < 3) throw new Error('the NICs did not settle');
  }

  /** Host writes, queue registers and counts of both NICs equal the model's; no write outside a permitted range. */
  compare(): void {
    expect(this.outside.slice(0, 4)).toEqual([]);
    for (const n of [0, 1] as const) {
      const mn = this.model.nodes[n];
      const expected = new Map<number, number>([...mn.rdmaWrites, ...mn.queues.mem]);
      const got = this.writes[n];
      const wrong: string[] = [];
      for (const [a, v] of expected) if (got.get(a) !== v) wrong.push(`${a.toString(16)}: ${got.get(a)} instead of ${v}`);
      for (const a of got.keys()) if (!expected.has(a)) wrong.push(`${a.toString(16)}: written, not expected`);
      expect(wrong.slice(0, 8), `node ${n} host memory`).toEqual([]);
      const q = this.pair.nics[n].queues;
      for (let k = 0; k < 3; k++) {
        for (let vp = 0; vp < (k < 2 ? VPS : 1); vp++) {
          const r = mn.queues.ring(k, vp);
          expect(q.state(k, vp), `node ${n} queue ${k}/${vp}`).toEqual({ base: r.base, size: r.size, prod: r.prod, cons: r.cons, overflows: r.overflows });
        }
      }
    }
  }

  /** address a of node n lies in a queue ring or in a page of a valid item with write permission */
  permitted(n: number, a: number): boolean {
    for (let k = 0; k < 4; k++) {
      const lo = queueBase(k, 0);
      if (a >= lo && a < lo + VPS * 0x10_0000 && (a - lo) % 0x10_0000 < 65536 * Q_ENTRY_BYTES[k]!) return true;
    }
    for (const it of this.items[n]) {
      if (!it.valid || !it.write) continue;
      for (let p = it.basePage; p <= it.topPage; p++) {
        const pa = it.physical ? p * 4096 : defaultPa(p * 4096, it.vp);
        if (a >= pa && a < pa + 4096) return true;
      }
    }
    return false;
  }
}

/** item i of the standard test setup: VP i mod 4, key 1000 + i, five pages from 0x40 x (i + 1); items 12-15 physical */
export function baseItem(i: number): ModelItem {
  const physical = i >= 12;
  const base = physical ? 0x20000 + i * 8 : 0x40 * (i + 1);
  return { valid: true, key: 1000 + i, read: true, write: true, basePage: base, topPage: base + 4, vp: i % VPS, physical };
}

export function setup(w: RdmaWorld): void {
  for (const n of [0, 1]) {
    for (let i = 0; i < ITEMS; i++) {
      const it = baseItem(i);
      w.setItem(n, i, it);
      w.fillItem(n, it, n * 100 + i);
    }
  }
}

/** fast-check model-based commands on a world: the golden model lives inside the world */
export type WorldReal = { w: RdmaWorld };
export type NoModel = Record<string, never>;

/** A command posting the descriptor `post` makes of a value of `arb` (node, VP, bytes), then comparing with the model. */
export function submitCommand<S>(label: string, arb: fc.Arbitrary<S>, post: (s: S) => [n: number, vp: number, bytes: Uint8Array]): fc.Arbitrary<fc.Command<NoModel, WorldReal>> {
  return arb.map((s) => ({
    check: () => true,
    run: (_m: NoModel, r: WorldReal) => {
      const [n, vp, bytes] = post(s);
      r.w.submit(n, vp, bytes);
      r.w.compare();
    },
    toString: () => `${label}(${JSON.stringify(s)})`,
  }));
}

export type ItemChange = 'invalid' | 'readonly' | 'writeonly' | 'shrink' | 'rekey' | 'owner' | 'restore';

/** A memory-checker update between operations: item i of node n changed from its standard setup (`baseItem`). */
export function itemCommand(changes: ItemChange[]): fc.Arbitrary<fc.Command<NoModel, WorldReal>> {
  return fc.record({ n: fc.integer({ min: 0, max: 1 }), i: fc.integer({ min: 0, max: ITEMS - 1 }), change: fc.constantFrom(...changes) }).map(({ n, i, change }) => ({
    check: () => true,
    run: (_m: NoModel, r: WorldReal) => {
      const it = baseItem(i);
      if (change === 'invalid') it.valid = false;
      if (change === 'readonly') it.write = false;
      if (change === 'writeonly') it.read = false;
      if (change === 'shrink') it.topPage = it.basePage;
      if (change === 'rekey') it.key = 7;
      if (change === 'owner') it.vp = (it.vp + 1) % VPS;
      r.w.setItem(n, i, it);
      if (change === 'owner') r.w.fillItem(n, it, 50 + i);
    },
    toString: () => `item(${n}, ${i}, ${change})`,
  }));
}
