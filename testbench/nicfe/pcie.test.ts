/**
 * PCIe model: serial operations against the golden model (every TLP's cycle, read data, host
 * memory), concurrent traffic invariants (ordering, tags, credits, no loss or duplication,
 * back-pressure), line-rate bandwidth, reordering, the second-socket option and bad input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../rtl/kernel/index.ts';
import { pcieConfig, type PcieConfig, pcieTiming, peakBytesPerSecond } from '../../rtl/nic/pcie/index.ts';
import { PcieModel } from '../../models/nic/pcieModel.ts';
import { PcieWorld } from './pcieWorld.ts';

function bytes(rng: Rng, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.int(256);
  return b;
}

const cfgArb = fc.record({
  gen: fc.integer({ min: 1, max: 4 }),
  lanes: fc.constantFrom(1, 4, 8, 16),
  clockHz: fc.constantFrom(1e9, 250e6, 2e9),
  mps: fc.constantFrom(128, 256, 512),
  mrrs: fc.constantFrom(128, 512, 4096),
  cplBytes: fc.constantFrom(64, 128),
  flightNs: fc.integer({ min: 1, max: 300 }),
  hostReadNs: fc.integer({ min: 1, max: 400 }),
  readJitterNs: fc.constantFrom(0, 0, 40, 200),
  pioNs: fc.integer({ min: 1, max: 100 }),
  secondSocket: fc.boolean(),
  wcBytes: fc.constantFrom(16, 64, 128),
  seed: fc.integer({ min: 0, max: 1000 }),
});

type Op = { kind: 'write' | 'read' | 'pio'; addr: number; len: number; gap: number };
const opArb = fc.record({
  kind: fc.constantFrom('write', 'read', 'pio') as fc.Arbitrary<Op['kind']>,
  addr: fc.integer({ min: 0, max: 3 * 4096 }),
  len: fc.integer({ min: 1, max: 2048 }),
  gap: fc.integer({ min: 0, max: 5 }),
});

describe('PCIe: serial operations match the golden model cycle for cycle', () => {
  it('random configurations and operations', () => {
    fc.assert(
      fc.property(cfgArb, fc.array(opArb, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 1e6 }), fc.boolean(), (p, ops, dseed, skipping) => {
        const cfg = pcieConfig(p);
        const w = new PcieWorld(cfg, { skipping });
        const timing = pcieTiming(cfg);
        const model = new PcieModel(cfg, PcieWorld.jitterSource(cfg, timing.jitterCycles));
        const rng = new Rng(dseed);
        const base = 0x10000;
        const init = bytes(rng, 4 * 4096);
        w.pcie.mem.write(base, init);
        model.poke(base, init);
        for (const op of ops) {
          w.step(op.gap);
          const issue = w.sim.cycle;
          const addr = base + op.addr;
          if (op.kind === 'write') {
            const data = bytes(rng, op.len);
            const first = w.landed.length;
            w.write(addr, data);
            const want = model.write(issue, addr, data);
            w.drain();
            const got = w.landed.slice(first).map((x) => ({ addr: x.tlp.addr, len: x.tlp.len, cycle: x.cycle }));
            expect(got).toEqual(want.tlps);
          } else if (op.kind === 'read') {
            const r = w.read(addr, op.len);
            const want = model.read(issue, addr, op.len);
            w.drain();
            const got = w.chunks.get(r)!.map((c) => ({ offset: c.offset, len: c.len, cycle: c.cycle }));
            expect(got).toEqual(want.chunks.map((c) => ({ offset: c.offset, len: c.len, cycle: c.cycle })));
            expect(r.doneCycle).toBe(want.done);
            expect(Buffer.from(r.data!).equals(Buffer.from(want.data))).toBe(true);
          } else {
            const data = bytes(rng, Math.min(op.len, 15 * cfg.wcBytes, 960));
            const first = w.pio.length;
            w.store(addr, data);
            const want = model.pioWrite(issue, addr, data.length);
            w.drain();
            const got = w.pio.slice(first).map((x) => ({ addr: x.tlp.addr, len: x.tlp.len, cycle: x.cycle }));
            expect(got).toEqual(want.tlps);
            const joined = Buffer.concat(w.pio.slice(first).map((x) => Buffer.from(x.tlp.data!)));
            expect(joined.equals(Buffer.from(data))).toBe(true);
          }
        }
        expect(Buffer.from(w.pcie.mem.read(base, 4 * 4096 + 4096)).equals(Buffer.from(model.peek(base, 4 * 4096 + 4096)))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('a 64-byte read costs the documented round trip (default Gen3 x16)', () => {
    const w = new PcieWorld({});
    const r = w.read(0x1000, 64);
    w.drain();
    // MRd: 24 wire bytes (2 cycles), flight 100, host 150, CplD 84 bytes (6 cycles), flight 100, endpoint + 1
    expect(r.doneCycle).toBe(new PcieModel(pcieConfig({})).read(0, 0x1000, 64).done);
    expect(r.doneCycle).toBeGreaterThan(350);
    expect(r.doneCycle).toBeLessThan(370);
  });
});

describe('PCIe: concurrent traffic', () => {
  it('no loss, no duplication, ordering rules, tags and credits within limits, back-pressure', () => {
    fc.assert(
      fc.property(
        cfgArb,
        fc.array(fc.record({ kind: fc.constantFrom('write', 'read', 'pio', 'raw', 'hold') as fc.Arbitrary<string>, addr: fc.integer({ min: 0, max: 8192 }), len: fc.integer({ min: 1, max: 6000 }), gap: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (p, ops, tags) => {
          const cfg: PcieConfig = pcieConfig({ ...p, tags, hostNonPostedHeaders: 4, hostPostedHeaders: 8, hostPostedData: 128, nicPostedHeaders: 2, nicPostedData: 16 });
          const w = new PcieWorld(cfg);
          const rng = new Rng(7);
          const STATIC = 0x100000; // read-only region preloaded by software
          const staticData = bytes(rng, 16384);
          w.pcie.mem.write(STATIC, staticData);
          const shadow = new Map<number, number>(); // expected final memory of the write region
          const reads: { r: ReturnType<PcieWorld['read']>; expect: Uint8Array | null }[] = [];
          const stores: Uint8Array[] = [];
          for (const op of ops) {
            w.step(op.gap);
            if (op.kind === 'write') {
              const d = bytes(rng, op.len);
              w.write(op.addr, d);
              for (let i = 0; i < d.length; i++) shadow.set(op.addr + i, d[i]!);
            } else if (op.kind === 'read') {
              const len = Math.min(op.len, 16384 - (op.addr % 8192));
              reads.push({ r: w.read(STATIC + (op.addr % 8192), len), expect: staticData.subarray(op.addr % 8192, (op.addr % 8192) + len) });
            } else if (op.kind === 'raw') {
              // read after write: issued once the write's TLPs are all on the link, it must see them
              // (its own region: a later write may pass the read, as PCIe allows)
              const d = bytes(rng, Math.min(op.len, 512));
              const at = 0x200000 + reads.length * 1024;
              const wr = w.write(at, d);
              for (let i = 0; i < d.length; i++) shadow.set(at + i, d[i]!);
              while (wr.emittedCycle < 0) w.step();
              reads.push({ r: w.read(at, d.length), expect: d });
            } else if (op.kind === 'pio') {
              const d = bytes(rng, Math.min(op.len, 300));
              stores.push(d);
              w.store(0x2000 + stores.length * 1024, d, stores.length);
            } else {
              w.pioHoldUntil = w.sim.cycle + op.len / 20; // the PIO consumer pauses: back-pressure
            }
          }
          w.drain();
          // every read finished once, each byte delivered exactly once, data right
          for (const { r, expect: exp } of reads) {
            const cs = w.chunks.get(r)!;
            expect(cs.filter((c) => c.last).length).toBe(1);
            expect(cs[cs.length - 1]!.last).toBe(true);
            const cover = new Uint8Array(r.len);
            for (const c of cs) for (let i = c.offset; i < c.offset + c.len; i++) cover[i]!++;
            expect(cover.every((x) => x === 1)).toBe(true);
            expect(Buffer.from(r.data!).equals(Buffer.from(exp!))).toBe(true);
          }
          // final memory: posted writes apply in submission order (the shadow), overlapping or not
          for (const [a, v] of shadow) if (w.pcie.mem.read(a, 1)[0] !== v) throw new Error(`byte ${a}: ${w.pcie.mem.read(a, 1)[0]} != ${v}`);
          // stores: in order, complete, none lost under back-pressure
          const got = new Map<number, Buffer[]>();
          const order: number[] = [];
          for (const { tlp } of w.pio) {
            const k = tlp.pio!.tag;
            if (!got.has(k)) {
              got.set(k, []);
              order.push(k);
            }
            got.get(k)!.push(Buffer.from(tlp.data!));
          }
          expect(order).toEqual(stores.map((_, i) => i + 1));
          stores.forEach((d, i) => expect(Buffer.concat(got.get(i + 1)!).equals(Buffer.from(d))).toBe(true));
          // tags and credits
          expect(w.maxTags).toBeLessThanOrEqual(tags);
          expect(w.pcie.ep.tagsInUse).toBe(0);
          expect(w.minCredits.every((c) => c >= 0 || c === -1)).toBe(true);
          expect(w.pcie.up.credits()).toEqual([8, 128, 4]);
          expect(w.pcie.down.credits()).toEqual([2, 16, -1]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('completions of different requests come back out of order with jitter, each request in address order', () => {
    const w = new PcieWorld({ readJitterNs: 300, seed: 3 });
    const r = w.read(0, 8 * 512);
    w.drain();
    const offs = w.chunks.get(r)!.map((c) => c.offset);
    expect(offs).not.toEqual([...offs].sort((a, b) => a - b));
    const byReq = new Map<number, number[]>();
    for (const o of offs) {
      const k = Math.floor(o / 512);
      byReq.set(k, [...(byReq.get(k) ?? []), o]);
    }
    for (const list of byReq.values()) expect(list).toEqual([...list].sort((a, b) => a - b));
  });

  it('the outstanding-read limit holds reads back; a free tag lets the next go', () => {
    const w = new PcieWorld({ tags: 2 });
    const r = w.read(0, 4096); // 8 requests of 512 bytes through 2 tags
    w.drain();
    expect(w.maxTags).toBe(2);
    expect((w.sim.stats.get('pcie.ep.tag_stalls') as { value: number }).value).toBeGreaterThan(0);
    const free = new PcieWorld({ tags: 32 });
    const r2 = free.read(0, 4096);
    free.drain();
    expect(r.doneCycle).toBeGreaterThan(r2.doneCycle + 500);
  });
});

describe('PCIe: bandwidth', () => {
  function stream(kind: 'write' | 'read', cfg: Partial<PcieConfig>, n: number, size: number): number {
    const w = new PcieWorld(cfg);
    const start = w.sim.cycle;
    for (let i = 0; i < n; i++) (kind === 'write' ? w.write(i * size, new Uint8Array(size)) : w.read(i * size, size));
    w.drain();
    const last = kind === 'write' ? w.landed[w.landed.length - 1]!.cycle : Math.max(...[...w.chunks.keys()].map((r) => r.doneCycle));
    return (n * size) / (last - start); // bytes per ns at 1 GHz = GB/s
  }
  it('DMA writes run at the MPS line rate, reads at the completion-size line rate', () => {
    const c = pcieConfig({});
    const wr = stream('write', {}, 64, 4096);
    const rd = stream('read', {}, 64, 4096);
    const peakW = peakBytesPerSecond(c, 256, 24) / 1e9;
    const peakR = peakBytesPerSecond(c, 64, 20) / 1e9;
    expect(peakW).toBeCloseTo(15.754 * (256 / 280), 2);
    expect(wr).toBeLessThanOrEqual(peakW);
    expect(wr).toBeGreaterThan(peakW * 0.97);
    expect(rd).toBeLessThanOrEqual(peakR);
    expect(rd).toBeGreaterThan(peakR * 0.97);
  });
  it('a narrower or older link is slower in proportion', () => {
    const x16 = stream('write', {}, 16, 4096);
    const x8 = stream('write', { lanes: 8 }, 16, 4096);
    const g2 = stream('write', { gen: 2 }, 16, 4096);
    expect(x8 / x16).toBeGreaterThan(0.45);
    expect(x8 / x16).toBeLessThan(0.55);
    expect(g2 / x16).toBeLessThan(0.7);
  });
});

describe('PCIe: second socket', () => {
  it('adds the QPI penalty to reads and PIO stores exactly', () => {
    for (const kind of ['read', 'pio'] as const) {
      const near = new PcieWorld({});
      const far = new PcieWorld({ secondSocket: true, qpiNs: 70 });
      let a: number;
      let b: number;
      if (kind === 'read') {
        const r1 = near.read(0, 64);
        const r2 = far.read(0, 64);
        near.drain();
        far.drain();
        a = r1.doneCycle;
        b = r2.doneCycle;
      } else {
        near.store(0, new Uint8Array(64));
        far.store(0, new Uint8Array(64));
        near.drain();
        far.drain();
        a = near.pio[0]!.cycle;
        b = far.pio[0]!.cycle;
      }
      expect(b - a).toBe(70);
    }
  });
});

describe('PCIe: bad input', () => {
  it('configuration errors name the parameter', () => {
    expect(() => pcieConfig({ lanes: 3 })).toThrow(/lanes/);
    expect(() => pcieConfig({ mps: 300 })).toThrow(/mps must be a power of two/);
    expect(() => pcieConfig({ cplBytes: 512, mps: 256 })).toThrow(/cplBytes/);
    expect(() => pcieConfig({ gen: 5 })).toThrow(/gen/);
    expect(() => pcieConfig({ flightNs: -1 })).toThrow(/flightNs/);
    expect(() => pcieConfig({ tags: 0 })).toThrow(/tags/);
    expect(() => pcieConfig({ bogus: 1 } as unknown as Partial<PcieConfig>)).toThrow(/unknown parameter 'bogus'/);
  });
  it('a malformed DMA request is refused with a reason and the traffic around it goes on', () => {
    const w = new PcieWorld({});
    const good1 = w.read(0x1000, 100);
    const bad = [w.read(-1, 10), w.read(0, 0), w.read(2 ** 48 - 4, 8), w.read(1.5, 8)];
    const badW = w.write(0x5000, new Uint8Array(0));
    const good2 = w.read(0x2000, 100);
    const goodW = w.write(0x3000, new Uint8Array([1, 2, 3]));
    w.drain();
    for (const r of bad) {
      expect(r.error).not.toBe('');
      const cs = w.chunks.get(r)!;
      expect(cs).toEqual([{ offset: 0, len: 0, last: true, cycle: r.doneCycle }]);
    }
    expect(badW.error).toMatch(/length 0/);
    expect(good1.error + good2.error + goodW.error).toBe('');
    expect(good1.received).toBe(100);
    expect(good2.received).toBe(100);
    expect([...w.pcie.mem.read(0x3000, 3)]).toEqual([1, 2, 3]);
    expect((w.sim.stats.get('pcie.ep.bad_requests') as { value: number }).value).toBe(5);
  });
});
