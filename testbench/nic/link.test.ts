/**
 * NIC link: fault-free timing against the golden link model (serialization at the port's rate,
 * flight latency, in order per pair); with drop and bit-error injection every packet is either
 * delivered once (its CRC then tells whether it was hit) or counted lost; same seed, same faults.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { type LinkConfig, NetLink, NetPacket, packetCrc } from '../../rtl/nic/link/index.ts';
import { linkArrivals, type LinkModelPacket } from '../../models/nic/linkModel.ts';

interface Offer {
  gap: number;
  src: number;
  dst: number;
  len: number;
}

function run(cfg: Partial<LinkConfig>, offers: readonly Offer[]): { link: NetLink; got: { p: NetPacket; cycle: number }[]; pushed: { p: NetPacket; cycle: number }[] } {
  const sim = new Simulator({});
  const link = new NetLink(sim, 'link', cfg);
  const got: { p: NetPacket; cycle: number }[] = [];
  const pushed: { p: NetPacket; cycle: number }[] = [];
  const drain = (): void => {
    for (const rx of link.rxOut) while (rx.canPop()) got.push({ p: rx.pop(), cycle: sim.cycle });
  };
  let id = 0;
  for (const o of offers) {
    for (let i = 0; i < o.gap; i++) {
      sim.step(1);
      drain();
    }
    while (!link.txIn[o.src]!.canPush()) {
      sim.step(1);
      drain();
    }
    const p = new NetPacket();
    p.src = o.src;
    p.dst = o.dst;
    p.opId = id++;
    p.data = o.len === 0 ? null : new Uint8Array(o.len).fill(id & 0xff);
    p.crc = packetCrc(p);
    link.txIn[o.src]!.push(p);
    pushed.push({ p, cycle: sim.cycle });
    sim.step(1);
    drain();
  }
  for (let i = 0; i < 40000 && got.length + link.stats.dropped.value + link.stats.misrouted.value < offers.length; i++) {
    sim.step(1);
    drain();
  }
  return { link, got, pushed };
}

const offerArb = (ports: number): fc.Arbitrary<Offer> =>
  fc.record({ gap: fc.integer({ min: 0, max: 30 }), src: fc.integer({ min: 0, max: ports - 1 }), dst: fc.integer({ min: 0, max: ports - 1 }), len: fc.integer({ min: 0, max: 2048 }) });

describe('NIC link', () => {
  it('fault-free arrivals equal the golden model (two ports, any rate and latency)', () => {
    fc.assert(
      fc.property(fc.array(offerArb(2), { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 300 }), (offers, bpc, latency) => {
        const cross = offers.map((o) => ({ ...o, dst: 1 - o.src }));
        const { got, pushed } = run({ bytesPerCycle: bpc, latency }, cross);
        const model: LinkModelPacket[] = pushed.map(({ p, cycle }) => ({ pushCycle: cycle, src: p.src, wireBytes: p.wireBytes }));
        const expected = linkArrivals(model, bpc, latency);
        const byId = new Map(got.map((g) => [g.p.opId, g.cycle]));
        expect(pushed.map(({ p }) => byId.get(p.opId))).toEqual(expected);
      }),
      { numRuns: 60 },
    );
  });

  it('with faults on 2..5 ports: each packet delivered once or counted lost, in order per pair; a hit packet fails its CRC; same seed, same run', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 5 }).chain((ports) => fc.tuple(fc.constant(ports), fc.array(offerArb(ports), { minLength: 1, maxLength: 60 }))),
        fc.constantFrom(0, 0.1, 0.3),
        fc.constantFrom(0, 1e-5, 1e-4),
        fc.integer({ min: 0, max: 1000 }),
        ([ports, offers], dropProb, ber, seed) => {
          const cfg = { ports, dropProb, ber, seed, latency: 50 };
          const a = run(cfg, offers);
          const ids = a.got.map((g) => g.p.opId);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids.length + a.link.stats.dropped.value).toBe(offers.length);
          let bad = 0;
          for (const g of a.got) if (packetCrc(g.p) !== g.p.crc) bad++;
          expect(bad).toBe(a.link.stats.corrupted.value);
          if (ber === 0) expect(bad).toBe(0);
          if (dropProb === 0) expect(a.link.stats.dropped.value).toBe(0);
          for (let s = 0; s < ports; s++) {
            for (let d = 0; d < ports; d++) {
              const seq = a.got.filter((g) => g.p.src === s && g.p.dst === d).map((g) => g.p.opId);
              expect(seq).toEqual([...seq].sort((x, y) => x - y));
            }
          }
          const b = run(cfg, offers);
          expect(b.got.map((g) => [g.p.opId, g.cycle, g.p.crc === packetCrc(g.p)])).toEqual(a.got.map((g) => [g.p.opId, g.cycle, g.p.crc === packetCrc(g.p)]));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a 30 % drop rate loses about 30 % of 2,000 packets; a packet naming no port is discarded and counted', () => {
    const offers = Array.from({ length: 2000 }, (_, i) => ({ gap: 0, src: i & 1, dst: 1 - (i & 1), len: 64 }));
    const { link } = run({ dropProb: 0.3, seed: 7 }, offers);
    expect(link.stats.dropped.value).toBeGreaterThan(520);
    expect(link.stats.dropped.value).toBeLessThan(680);
    const r = run({}, [{ gap: 0, src: 0, dst: 5, len: 8 }]);
    expect(r.link.stats.misrouted.value).toBe(1);
    expect(r.got).toEqual([]);
  });

  it('refuses bad configuration', () => {
    const sim = new Simulator({});
    expect(() => new NetLink(sim, 'a', { ports: 1 })).toThrow(/ports/);
    expect(() => new NetLink(sim, 'b', { dropProb: 2 })).toThrow(/dropProb/);
    expect(() => new NetLink(sim, 'c', { bytesPerCycle: 1.5 })).toThrow(/bytesPerCycle/);
    expect(() => new NetLink(sim, 'd', { speed: 1 } as never)).toThrow(/unknown parameter speed/);
  });
});
