/**
 * Virtual-address mode of the EQ and MPQ (seed 003, 2.7: "the MPQ supports virtual address mode",
 * "the EQ also supports virtual addressing mode"): queues registered by register stores with a
 * virtual base are written through the memory checker (the VP's item and KEY) and the ATC (the VP's
 * translations), against the golden queue model with the golden checker and the ATT's default
 * mapping. A refused check or a missing translation drops the entry with an INTQ queue_fault entry
 * naming the VP, the reason and the virtual address (never silently), on that VP only.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildMemPath } from '../../rtl/nic/memcheck/mempath.ts';
import { ItemWrite } from '../../rtl/nic/memcheck/types.ts';
import { buildPcie, PioWrite } from '../../rtl/nic/pcie/index.ts';
import { INT_QUEUE_FAULT, Q_EQ, Q_INTQ, Q_MPQ, QueueEngine, type QueueEntry } from '../../rtl/nic/queues/index.ts';
import { XlateRouter } from '../../rtl/nic/rdma/xlateRouter.ts';
import { NC_INTQ_BASE, NC_INTQ_SIZE, vpConfig, VpRegisterFile, VR_EQ_BASE, VR_EQ_RPTR, VR_EQ_SIZE, VR_KEY, VR_MPQ_BASE, VR_MPQ_RPTR, VR_MPQ_SIZE } from '../../rtl/nic/vp/index.ts';
import { reg64 } from '../../experiments/nic/frontEnd.ts';
import { MemCheckerModel, MODEL_REASONS, type ModelItem } from '../../models/nic/memcheckModel.ts';
import { QueueModel } from '../../models/nic/queueModel.ts';
import { defaultPa } from '../../models/nic/rdmaModel.ts';
import { VpRegModel } from '../../models/nic/vpRegModel.ts';

const VPS = 4;
const CFG = vpConfig({ pioVps: 2, dmaVps: 2 });
const QUEUE = { eq: 0, mpq: 1, intq: 2, epq: 3 } as const;
const SRC_QUEUES = 3;

class VirtWorld {
  readonly sim = new Simulator({});
  readonly pcie = buildPcie(this.sim, 'pcie');
  readonly mem = buildMemPath(this.sim, { checker: { items: 16 }, atc: { entries: 256, ways: 4 }, host: { readLatency: 40, jitter: 0 } });
  readonly q: QueueEngine;
  readonly rf: VpRegisterFile;
  readonly written = new Map<number, number>();
  // golden side
  readonly checker = new MemCheckerModel(16);
  readonly regModel = new VpRegModel({ ...CFG, wcBytes: 64 });
  readonly model: QueueModel;
  private seen = 0;

  /** pages (of the VP's table) the ATT does not map: translation faults */
  readonly unmapped = new Set<string>();

  constructor(unmapped: { vp: number; page: number }[] = []) {
    for (const u of unmapped) {
      this.mem.att.write(u.page, 0, false, u.vp);
      this.unmapped.add(`${u.vp}:${u.page}`);
    }
    const ck = this.mem.checker;
    const router = new XlateRouter(this.sim, 'xlroute', this.mem.atc.resp, ck.cfg.sources);
    this.q = new QueueEngine(this.sim, 'q', { vps: VPS }, this.pcie.ep.writeIn, { mcReq: ck.reqIn[SRC_QUEUES]!, mcResp: ck.respOut[SRC_QUEUES]!, xlIn: router.outs[SRC_QUEUES]! });
    this.rf = new VpRegisterFile(this.sim, 'vp', CFG, this.pcie.ep.pioOut, this.q.swIn);
    this.pcie.host.onWrite = (tlp) => {
      for (let i = 0; i < tlp.len; i++) this.written.set(tlp.addr + i, tlp.data![i]!);
    };
    this.model = new QueueModel(VPS, false, 48, (vp, item, key, va, len) => {
      const c = this.checker.check({ item, key, va, len, write: true, reqVp: vp });
      if (c.reason !== 'ok') return -MODEL_REASONS.indexOf(c.reason);
      return this.unmapped.has(`${c.vp}:${Math.floor(va / 4096)}`) ? -17 : defaultPa(va, c.vp);
    });
  }

  settle(): void {
    for (let i = 0; i < 30; i++) this.sim.step(100);
  }

  /** A register store by `writer` on page `page`, through PCIe; the register model's queue operations go to the queue model. */
  store(writer: number, page: number, off: number, v: number): void {
    const addr = CFG.barBase + page * CFG.pageBytes + off;
    const w = new PioWrite();
    w.writer = writer;
    w.addr = addr;
    w.data = reg64(v);
    this.pcie.host.pioIn.push(w);
    this.regModel.store(writer, addr, reg64(v));
    for (; this.seen < this.regModel.events.length; this.seen++) {
      const e = this.regModel.events[this.seen]!;
      if (e.kind === 'queue') this.model.software({ op: e.op, kind: QUEUE[e.queue], vp: e.vp, base: e.base, size: e.size, count: e.ptr, virtual: e.virtual, item: e.item, key: e.key });
    }
    this.settle();
  }

  item(i: number, it: ModelItem): void {
    const w = new ItemWrite();
    Object.assign(w, { index: i, ...it });
    this.mem.checker.loadItem(w);
    this.checker.write(i, it);
    this.settle();
  }

  entry(kind: number, vp: number, fill: number): void {
    const e: QueueEntry = { kind, vp, data: new Uint8Array(kind === Q_EQ ? 32 : 128).fill(fill) };
    this.q.entIn.push(e);
    this.model.entry({ kind, vp, data: e.data.slice() });
    this.settle();
  }

  compare(): void {
    const got = [...this.written.entries()].sort((a, b) => a[0] - b[0]);
    const want = [...this.model.mem.entries()].sort((a, b) => a[0] - b[0]);
    expect(got).toEqual(want);
    for (let k = 0; k < 3; k++) {
      for (let vp = 0; vp < (k < 2 ? VPS : 1); vp++) {
        const r = this.model.ring(k, vp);
        expect(this.q.state(k, vp), `queue ${k}/${vp}`).toEqual({ base: r.base, size: r.size, prod: r.prod, cons: r.cons, overflows: r.overflows });
      }
    }
    expect([this.q.counts.faults, this.q.counts.swRefused]).toEqual([this.model.faults, this.model.swRefused]);
  }
}

const ITEM = (vp: number, key: number, basePage: number, pages: number): ModelItem => ({ valid: true, key, read: true, write: true, basePage, topPage: basePage + pages - 1, vp, physical: false });

/**
 * Model-based world: VP v's key is 70 + v; item v (VP v, key 70 + v) covers pages 0x100 (v + 1)
 * and the next; item 4 + v is VP v's with key 99 (wrong); item 8 is VP 0's (foreign for the
 * others). VP 3's first page is not mapped in the ATT (translation fault).
 */
function modelWorld(): VirtWorld {
  const w = new VirtWorld([{ vp: 3, page: 0x400 }]);
  w.store(-1, VPS, NC_INTQ_BASE, 0x90_0000);
  w.store(-1, VPS, NC_INTQ_SIZE, 256);
  for (let v = 0; v < VPS; v++) {
    w.store(-1, v, VR_KEY, 70 + v);
    w.item(v, ITEM(v, 70 + v, 0x100 * (v + 1), 2));
    w.item(4 + v, ITEM(v, 99, 0x100 * (v + 1), 2));
  }
  w.item(8, ITEM(0, 70, 0x100, 2));
  return w;
}

type Real = { w: VirtWorld };
type Model = Record<string, never>;

const regCmd = fc
  .record({ vp: fc.integer({ min: 0, max: VPS - 1 }), mpq: fc.boolean(), virtual: fc.constantFrom(true, true, true, false), item: fc.constantFrom('own', 'own', 'own', 'key', 'foreign'), nearEnd: fc.boolean(), sizeLog: fc.integer({ min: 0, max: 3 }) })
  .map((r) => ({
    check: () => true,
    run: (_m: Model, { w }: Real) => {
      const eb = r.mpq ? 128 : 32;
      const va = 0x100 * (r.vp + 1) * 4096 + (r.nearEnd ? 4096 - eb : 0);
      const item = r.item === 'own' ? r.vp : r.item === 'key' ? 4 + r.vp : 8;
      const base = r.virtual ? va + 1 : 0x80_0000 + r.vp * 0x1_0000 + (r.mpq ? 0x8000 : 0);
      w.store(r.vp, r.vp, r.mpq ? VR_MPQ_BASE : VR_EQ_BASE, base);
      w.store(r.vp, r.vp, r.mpq ? VR_MPQ_SIZE : VR_EQ_SIZE, 2 ** r.sizeLog + (r.virtual ? item * 2 ** 32 : 0));
      w.compare();
    },
    toString: () => `register(${JSON.stringify(r)})`,
  }));

const entryCmd = fc.record({ vp: fc.integer({ min: 0, max: VPS - 1 }), mpq: fc.boolean(), fill: fc.integer({ min: 1, max: 255 }) }).map((e) => ({
  check: () => true,
  run: (_m: Model, { w }: Real) => {
    w.entry(e.mpq ? Q_MPQ : Q_EQ, e.vp, e.fill);
    w.compare();
  },
  toString: () => `entry(${JSON.stringify(e)})`,
}));

const itemCmd = fc.record({ v: fc.integer({ min: 0, max: VPS - 1 }), valid: fc.boolean() }).map((c) => ({
  check: () => true,
  run: (_m: Model, { w }: Real) => {
    w.item(c.v, { ...ITEM(c.v, 70 + c.v, 0x100 * (c.v + 1), 2), valid: c.valid });
    w.compare();
  },
  toString: () => `item(${c.v}, valid ${c.valid})`,
}));

const rptrCmd = fc.record({ vp: fc.integer({ min: 0, max: VPS - 1 }), mpq: fc.boolean(), ptr: fc.integer({ min: 0, max: 4 }) }).map((c) => ({
  check: () => true,
  run: (_m: Model, { w }: Real) => {
    w.store(c.vp, c.vp, c.mpq ? VR_MPQ_RPTR : VR_EQ_RPTR, c.ptr);
    w.compare();
  },
  toString: () => `rptr(${JSON.stringify(c)})`,
}));

describe('EQ / MPQ in virtual-address mode', () => {
  it('model-based: registrations (virtual with the own, a wrong-key or a foreign item; physical), entries, item changes, read pointers, an unmapped page: host memory, queue registers and fault counts equal the golden models', () => {
    fc.assert(
      fc.property(fc.commands([regCmd, entryCmd, entryCmd, entryCmd, itemCmd, rptrCmd], { maxCommands: 30 }), (cmds) => {
        fc.modelRun(() => ({ model: {}, real: { w: modelWorld() } }), cmds);
      }),
      { numRuns: 25 },
    );
  });

  it('entries land at the translated addresses (a queue crossing a page); a wrong key or an invalidated item drops the entry with a queue_fault INTQ entry on that VP only', () => {
    const w = new VirtWorld();
    w.store(-1, VPS, NC_INTQ_BASE, 0x90_0000);
    w.store(-1, VPS, NC_INTQ_SIZE, 64);
    // VP 1: key 77, item 5 covers two pages; its EQ (16 entries of 32 bytes) starts 64 bytes before the first page ends
    w.store(-1, 1, VR_KEY, 77);
    w.item(5, ITEM(1, 77, 0x100, 2));
    const eqVa = 0x100 * 4096 + 4096 - 64;
    w.store(1, 1, VR_EQ_BASE, eqVa + 1); // bit 0: virtual
    w.store(1, 1, VR_EQ_SIZE, 16 + 5 * 2 ** 32); // 16 entries, item 5
    // VP 2 (a DMA VP): key 88, its MPQ in item 6, whose key is 99: every entry is refused
    w.store(-1, 2, VR_KEY, 88);
    w.item(6, ITEM(2, 99, 0x200, 1));
    w.store(2, 2, VR_MPQ_BASE, 0x200 * 4096 + 1);
    w.store(2, 2, VR_MPQ_SIZE, 4 + 6 * 2 ** 32);
    // VP 3: a physical EQ, undisturbed
    w.store(3, 3, VR_EQ_BASE, 0x70_0000);
    w.store(3, 3, VR_EQ_SIZE, 8);
    for (let k = 1; k <= 4; k++) w.entry(Q_EQ, 1, k);
    w.compare();
    // the four entries: two on the first page, two on the second, each at the VP's translation
    for (let k = 0; k < 4; k++) expect(w.pcie.mem.read(defaultPa(eqVa + 32 * k, 1), 32)[0]).toBe(k + 1);
    expect(defaultPa(eqVa, 1)).not.toBe(eqVa);
    w.entry(Q_MPQ, 2, 9); // key mismatch: dropped, INTQ queue_fault (code kind 1, detail 2, address the VA)
    w.entry(Q_EQ, 3, 10);
    w.entry(Q_EQ, 1, 5);
    w.compare();
    expect(w.q.state(Q_MPQ, 2).prod).toBe(0);
    expect(w.q.state(Q_EQ, 3).prod).toBe(1);
    expect(w.q.state(Q_EQ, 1).prod).toBe(5);
    const f = w.pcie.mem.read(0x90_0000, 16);
    expect([f[0], f[1], f[2], f[4]]).toEqual([INT_QUEUE_FAULT, Q_MPQ, 2, 2]);
    expect(f[8]! + f[9]! * 256 + f[10]! * 65536 + f[11]! * 2 ** 24 + f[12]! * 2 ** 32).toBe(0x200 * 4096);
    // item 5 invalidated: VP 1's next entry is refused (invalid_item, 1); restored: it goes on
    w.item(5, { ...ITEM(1, 77, 0x100, 2), valid: false });
    w.entry(Q_EQ, 1, 6);
    w.item(5, ITEM(1, 77, 0x100, 2));
    w.entry(Q_EQ, 1, 7);
    w.compare();
    expect(w.q.state(Q_EQ, 1).prod).toBe(6);
    expect(w.q.state(Q_INTQ).prod).toBe(2);
    expect(w.pcie.mem.read(0x90_0000 + 16, 8)[4]).toBe(1);
  });

  it('refused registrations: virtual INTQ, virtual mode without a translation path; a bad base is refused by the register file', () => {
    const sim = new Simulator({});
    const pcie = buildPcie(sim, 'pcie');
    const q = new QueueEngine(sim, 'q', { vps: VPS }, pcie.ep.writeIn);
    const m = new QueueModel(VPS, false);
    for (const [kind, virtual] of [
      [Q_EQ, true],
      [Q_INTQ, true],
      [Q_EQ, false],
    ] as const) {
      const sw = { op: 0, kind, vp: 1, base: 0x10_0000, size: 4, count: 0, virtual, item: 1, key: 1 };
      q.swIn.push(sw);
      m.software({ ...sw, op: 'register' });
      sim.step(300);
    }
    expect([q.counts.swRefused, m.swRefused]).toEqual([2, 2]);
    expect(q.state(Q_EQ, 1).size).toBe(4);
    const w = new VirtWorld();
    w.store(1, 1, VR_EQ_BASE, 0x10_0000 + 3); // low bits other than the virtual flag
    expect(w.rf.reg(1, VR_EQ_BASE)).toBe(0);
  });
});
