/**
 * Virtual-port register file behind the PCIe attachment: random CPU stores from the kernel and from
 * processes (own page, other VPs' pages, the control page, every register, the HDQ window, good and
 * bad values) against the golden model: final registers, HDQ window writes, doorbells, queue
 * registrations and read pointers sent to the queue engine, and refused stores with
 * the VP they are reported on, in order; a refused store changes nothing and the stores after it
 * go on; slow consumers never lose anything.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildPcie, PioWrite } from '../../rtl/nic/pcie/index.ts';
import { NC_NAMES, VE_NAMES, vpConfig, type VpConfig, VpRegisterFile, VR_NAMES, VR_STORED } from '../../rtl/nic/vp/index.ts';
import { Q_KIND_NAMES, QS_REGISTER } from '../../rtl/nic/queues/index.ts';
import { type VpModelEvent, VpRegModel } from '../../models/nic/vpRegModel.ts';

function u64(v: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setUint32(0, v % 2 ** 32, true);
  new DataView(b.buffer).setUint32(4, Math.floor(v / 2 ** 32), true);
  return b;
}

class VpWorld {
  readonly sim = new Simulator({});
  readonly pcie;
  readonly rf: VpRegisterFile;
  readonly events: VpModelEvent[] = [];
  hold = 0;
  constructor(readonly cfg: VpConfig) {
    this.pcie = buildPcie(this.sim, 'pcie', {});
    this.rf = new VpRegisterFile(this.sim, 'vp', cfg, this.pcie.ep.pioOut);
  }
  store(writer: number, addr: number, data: Uint8Array): void {
    for (let i = 0; i < 10000 && !this.pcie.host.pioIn.canPush(); i++) this.step();
    const w = new PioWrite();
    w.writer = writer;
    w.addr = addr;
    w.data = data;
    this.pcie.host.pioIn.push(w);
  }
  step(): void {
    this.sim.step(1);
    if (this.hold > 0) {
      this.hold--;
      return;
    }
    while (this.rf.hdqOut.canPop()) {
      const h = this.rf.hdqOut.pop();
      this.events.push({ kind: 'hdq', vp: h.vp, offset: h.offset, data: [...h.data] });
    }
    while (this.rf.doorbellOut.canPop()) {
      const v = this.rf.doorbellOut.pop();
      this.events.push({ kind: 'doorbell', vp: Math.floor(v / 2 ** 17), count: v % 2 ** 17 });
    }
    while (this.rf.errOut.canPop()) {
      const e = this.rf.errOut.pop();
      this.events.push({ kind: 'error', vp: e.vp, error: VE_NAMES[e.kind]!, addr: e.addr });
    }
    while (this.rf.queueOut.canPop()) {
      const q = this.rf.queueOut.pop();
      this.events.push({ kind: 'queue', op: q.op === QS_REGISTER ? 'register' : 'rptr', queue: Q_KIND_NAMES[q.kind]!, vp: q.vp, base: q.base, size: q.size, ptr: q.count, virtual: q.virtual ?? false, item: q.item ?? 0, key: q.key ?? 0 });
    }
  }
  drain(): void {
    this.hold = 0;
    for (let i = 0; i < 5000; i++) this.step();
  }
}

const storeArb = fc.record({
  writer: fc.integer({ min: -1, max: 11 }),
  own: fc.boolean(),
  // page 12 is the control page (12 VPs)
  vp: fc.integer({ min: 0, max: 12 }),
  reg: fc.integer({ min: 0, max: 13 }),
  where: fc.constantFrom('reg', 'reg', 'reg', 'window', 'odd', 'outside'),
  value: fc.oneof(fc.constantFrom(0, 1, 32, 64, 96, 4096, 65536, 65537, 3, 2 ** 32, 2 ** 48, 0x1000_0040), fc.integer({ min: 0, max: 2 ** 20 })),
  len: fc.integer({ min: 1, max: 200 }),
  hold: fc.integer({ min: 0, max: 3 }),
});

describe('VP register file vs golden model', () => {
  it('random stores: same registers, HDQ writes, doorbells and refusals, in order', () => {
    fc.assert(
      fc.property(fc.array(storeArb, { minLength: 1, maxLength: 60 }), fc.constantFrom(2, 4, 8), (stores, pio) => {
        const cfg = vpConfig({ pioVps: pio, dmaVps: 12 - pio, barBase: 0x10000 });
        const w = new VpWorld(cfg);
        const m = new VpRegModel({ ...cfg, wcBytes: 64 });
        for (const s of stores) {
          const vp = s.own && s.writer >= 0 ? s.writer : s.vp;
          const page = cfg.barBase + vp * cfg.pageBytes;
          let addr: number;
          let data: Uint8Array;
          if (s.where === 'reg') {
            addr = page + s.reg * 8;
            data = u64(s.value);
          } else if (s.where === 'window') {
            addr = page + 0x800 + (s.value % 1024);
            data = new Uint8Array(s.len).map((_, i) => i + s.reg);
          } else if (s.where === 'odd') {
            addr = page + s.reg * 8 + (s.len % 8);
            data = new Uint8Array(1 + (s.len % 12));
          } else {
            addr = s.value % 2 === 0 ? cfg.barBase - 8 : cfg.barBase + 13 * cfg.pageBytes + (s.value % 4096);
            data = u64(s.value);
            if (addr < 0) addr = 0;
          }
          w.store(s.writer, addr, data);
          m.store(s.writer, addr, data);
          w.hold = s.hold;
          w.step();
        }
        w.drain();
        expect(w.events).toEqual(m.events);
        for (let vp = 0; vp < 12; vp++) for (let r = 0; r < VR_STORED; r++) expect([vp, VR_NAMES[r], w.rf.reg(vp, r * 8)]).toEqual([vp, VR_NAMES[r], m.get(vp, VR_NAMES[r]!)]);
        for (let r = 0; r < NC_NAMES.length; r++) expect([NC_NAMES[r], w.rf.control(r * 8)]).toEqual([NC_NAMES[r], Number(m.control.get(NC_NAMES[r]!) ?? 0n)]);
      }),
      { numRuns: 80 },
    );
  });

  it('a process cannot touch another VP or the key; the kernel can; other VPs go on', () => {
    const cfg = vpConfig({});
    const w = new VpWorld(cfg);
    w.store(-1, 9 * 4096 + 0x000, u64(0xabcd)); // kernel sets VP 9's key
    w.store(9, 9 * 4096 + 0x030, u64(256)); // VP 9: SDQ size 256
    w.store(3, 9 * 4096 + 0x030, u64(16)); // VP 3 writes VP 9's SDQ size: refused, reported on VP 3
    w.store(9, 9 * 4096 + 0x000, u64(1)); // VP 9 writes its own key: privileged
    w.store(9, 9 * 4096 + 0x038, u64(5)); // doorbell
    w.store(10, 10 * 4096 + 0x038, u64(5)); // doorbell without an SDQ
    w.store(2, 2 * 4096 + 0x800, new Uint8Array(64).fill(7)); // PIO VP 2 descriptor
    w.drain();
    expect(w.rf.reg(9, 0)).toBe(0xabcd);
    expect(w.rf.reg(9, 0x30)).toBe(256);
    expect(w.events).toEqual([
      { kind: 'error', vp: 3, error: 'foreign_vp', addr: 9 * 4096 + 0x30 },
      { kind: 'error', vp: 9, error: 'privileged', addr: 9 * 4096 },
      { kind: 'doorbell', vp: 9, count: 5 },
      { kind: 'error', vp: 10, error: 'bad_doorbell', addr: 10 * 4096 + 0x38 },
      { kind: 'hdq', vp: 2, offset: 0, data: new Array(64).fill(7) },
    ]);
  });

  it('configuration errors name the parameter', () => {
    expect(() => vpConfig({ pageBytes: 5000 })).toThrow(/pageBytes must be a power of two/);
    expect(() => vpConfig({ pioVps: 200, dmaVps: 100 })).toThrow(/pioVps \+ dmaVps/);
    expect(() => vpConfig({ barBase: 100 })).toThrow(/barBase must be a multiple/);
    expect(() => vpConfig({ vps: 3 } as never)).toThrow(/unknown parameter 'vps'/);
  });
});
