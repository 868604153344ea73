/**
 * NIC link and packets, strength (issue 19): the configuration at every bound with its message;
 * the faults of a seeded run reproduced from the documented rule (docs/nic-rdma.md, "Link": per
 * transmitting port in `faultMask` its own stream forked from the seed, lost with `dropProb`, else
 * one bit flipped with probability 1 - (1 - ber)^bits, in a copy of the data or in the address
 * field), packet by packet; connection packets steered to `ctlOut`; back-pressure from full receive
 * channels and full flight queues; round-robin between senders; channel capacities; misrouted
 * packets; statistic names; the packet CRC against an independent CRC-32 of the header layout;
 * the error reply's fields.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng, Simulator } from '../../rtl/kernel/index.ts';
import { errorReply, LINK_DEFAULTS, linkConfig, type LinkConfig, NetLink, NetPacket, packetCrc, PK_ACK, PK_ERR, PK_GET_REQ, PK_HEADER_BYTES, PK_NAMES } from '../../rtl/nic/link/index.ts';
import { linkArrivals } from '../../models/nic/linkModel.ts';
import { expectIntegerBounds } from '../lib/configBounds.ts';

interface Got {
  p: NetPacket;
  cycle: number;
  ctl: boolean;
}

/** a link in a simulator (`holdRx`, `holdCtl`: nobody takes rxOut, ctlOut); `offer` pushes at the current cycle, `step` advances one cycle and drains (rxOut unless `holdRx`) */
function rig(cfg: Partial<LinkConfig>, holdRx = false, holdCtl = false) {
  const sim = new Simulator({});
  const link = new NetLink(sim, 'link', cfg);
  const got: Got[] = [];
  const drain = (): void => {
    for (let d = 0; d < link.cfg.ports; d++) {
      if (!holdRx) while (link.rxOut[d]!.canPop()) got.push({ p: link.rxOut[d]!.pop(), cycle: sim.cycle, ctl: false });
      if (!holdCtl) while (link.ctlOut[d]!.canPop()) got.push({ p: link.ctlOut[d]!.pop(), cycle: sim.cycle, ctl: true });
    }
  };
  let id = 0;
  const offer = (src: number, dst: number, len: number, e2e = false): NetPacket => {
    const p = new NetPacket();
    p.src = src;
    p.dst = dst;
    p.opId = id++;
    p.addr = 0x1000 * id;
    p.e2e = e2e;
    // len 0: no data; -1: an empty data array
    p.data = len === 0 ? null : Uint8Array.from({ length: Math.max(0, len) }, (_, i) => (i * 7 + id) & 0xff);
    p.crc = packetCrc(p);
    link.txIn[src]!.push(p);
    return p;
  };
  const step = (n = 1): void => {
    for (let i = 0; i < n; i++) {
      sim.step(1);
      drain();
    }
  };
  return { sim, link, got, offer, step };
}

describe('link configuration', () => {
  const ints: [keyof LinkConfig, number, number][] = [
    ['ports', 2, 16],
    ['latency', 1, 1e9],
    ['flightCapacity', 1, 65536],
    ['rxCapacity', 2, 1024],
    ['seed', 0, 2 ** 32 - 1],
    ['faultMask', 0, 0xffff],
    ['bytesPerCycle', 1, 4096],
  ];
  it.each(ints)('%s: both bounds accepted; below, above and non-integer refused with the range', (k, lo, hi) => expectIntegerBounds(linkConfig, 'link config', k, lo, hi));
  it.each(['dropProb', 'ber'] as const)('%s: 0 and 1 accepted; outside, NaN and a string refused', (k) => {
    expect(linkConfig({ [k]: 0 })[k]).toBe(0);
    expect(linkConfig({ [k]: 1 })[k]).toBe(1);
    for (const v of [-0.001, 1.001, NaN, '0.5']) expect(() => linkConfig({ [k]: v as number })).toThrow(`link config: ${k} must be in [0, 1], got ${v}`);
  });
  it('defaults as documented; an unknown parameter is named', () => {
    const d = { ports: 2, bytesPerCycle: 14, latency: 200, dropProb: 0, ber: 0, faultMask: 0xffff, flightCapacity: 256, rxCapacity: 8, seed: 1 };
    expect(linkConfig()).toEqual(d);
    expect(LINK_DEFAULTS).toEqual(d);
    expect(() => linkConfig({ speed: 1 } as never)).toThrow('link config: unknown parameter speed');
  });
});

/** The documented fault rule, replayed: per packet (in the order each port sends them) lost, corrupted (and where), or untouched. */
function replayFaults(cfg: LinkConfig, offers: readonly { src: number; p: NetPacket; data: number[] | null; addr: number }[]): Map<number, { lost: boolean; data: number[] | null; addr: number; hit: boolean }> {
  const base = new Rng(cfg.seed);
  const rngs = Array.from({ length: cfg.ports }, (_, p) => base.fork(`port${p}`));
  const out = new Map<number, { lost: boolean; data: number[] | null; addr: number; hit: boolean }>();
  for (const { src, p, data, addr } of offers) {
    const r = { lost: false, data: data === null ? null : [...data], addr, hit: false };
    out.set(p.opId, r);
    if (((cfg.faultMask >> src) & 1) === 0) continue;
    const rng = rngs[src]!;
    if (cfg.dropProb > 0 && rng.float() < cfg.dropProb) {
      r.lost = true;
      continue;
    }
    if (cfg.ber > 0 && rng.float() < 1 - (1 - cfg.ber) ** (8 * (PK_HEADER_BYTES + (data?.length ?? 0)))) {
      r.hit = true;
      if (r.data !== null && r.data.length > 0) {
        const b = rng.int(r.data.length * 8);
        r.data[Math.floor(b / 8)]! ^= 2 ** (b % 8);
      } else r.addr ^= 2 ** rng.int(30);
    }
  }
  return out;
}

/** a seeded run of 3 ports with these faults: every packet lost, hit (which bit) or untouched as `replayFaults` says; the statistics agree */
function checkFaults(f: Pick<LinkConfig, 'dropProb' | 'ber' | 'faultMask' | 'seed'>, offers: readonly { src: number; dst: number; len: number }[]): void {
  const r = rig({ ports: 3, latency: 5, ...f });
  const sent: { src: number; p: NetPacket; data: number[] | null; addr: number; buf: Uint8Array | null }[] = [];
  for (const o of offers) {
    while (!r.link.txIn[o.src]!.canPush()) r.step();
    const p = r.offer(o.src, o.dst, o.len);
    sent.push({ src: o.src, p, data: p.data === null ? null : [...p.data], addr: p.addr, buf: p.data });
  }
  r.step(3000);
  const want = replayFaults(r.link.cfg, sent);
  const byId = new Map(r.got.map((g) => [g.p.opId, g.p]));
  for (const s of sent) {
    const w = want.get(s.p.opId)!;
    const g = byId.get(s.p.opId);
    expect(g === undefined, `packet ${s.p.opId} lost`).toBe(w.lost);
    if (g !== undefined) expect({ data: g.data === null ? null : [...g.data], addr: g.addr, crcOk: packetCrc(g) === g.crc }).toEqual({ data: w.data, addr: w.addr, crcOk: !w.hit });
    expect(s.buf === null ? null : [...s.buf], 'the sender data unchanged').toEqual(s.data);
  }
  const vals = [...want.values()];
  expect([r.link.stats.sent.value, r.link.stats.dropped.value, r.link.stats.corrupted.value, r.link.stats.delivered.value]).toEqual([
    sent.length,
    vals.filter((v) => v.lost).length,
    vals.filter((v) => v.hit).length,
    vals.filter((v) => !v.lost).length,
  ]);
}

describe('link faults, packet by packet', () => {
  it('which packets are lost or hit, and which bit, follow the documented per-port seeded rule; the sender keeps its data', () => {
    // fixed cases first (drops only, hits only, both), then random ones
    for (const [dropProb, ber] of [
      [0.5, 0],
      [0, 1e-3],
      [0.3, 1e-3],
    ] as const) {
      const offers = Array.from({ length: 40 }, (_, i) => ({ src: i % 3, dst: (i * 7) % 3, len: [0, -1, 1, 5, 300][i % 5]! }));
      checkFaults({ dropProb, ber, faultMask: 7, seed: 11 }, offers);
    }
    fc.assert(
      fc.property(
        fc.record({ dropProb: fc.constantFrom(0, 0.2, 1), ber: fc.constantFrom(0, 3e-4, 1), faultMask: fc.integer({ min: 0, max: 7 }), seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
        fc.array(fc.record({ src: fc.integer({ min: 0, max: 2 }), dst: fc.integer({ min: 0, max: 2 }), len: fc.constantFrom(0, 0, -1, 1, 5, 300) }), { minLength: 1, maxLength: 30 }),
        (f, offers) => checkFaults(f, offers),
      ),
      { numRuns: 60 },
    );
  });
});

describe('link fault thresholds', () => {
  /** the first draw of port 0's fault stream for a seed */
  const firstDraw = (seed: number): number => new Rng(seed).fork('port0').float();

  it('a draw equal to dropProb is not a loss (lost: draws below it)', () => {
    const seed = 3;
    const r = rig({ dropProb: firstDraw(seed), seed });
    r.offer(0, 1, 0);
    r.step(300);
    expect([r.got.length, r.link.stats.dropped.value]).toEqual([1, 0]);
  });

  it('a draw equal to 1 - (1 - ber)^bits is not a hit (hit: draws below it)', () => {
    // a seed whose first draw v is exactly reached by some ber for a 32-byte packet (256 bits)
    let seed = 1;
    let ber = 0;
    for (; seed < 10000; seed++) {
      const v = firstDraw(seed);
      ber = 1 - (1 - v) ** (1 / 256);
      if (v > 0 && 1 - (1 - ber) ** 256 === v) break;
    }
    const r = rig({ ber, seed });
    r.offer(0, 1, 0);
    r.step(300);
    expect([r.got.length, r.link.stats.corrupted.value, packetCrc(r.got[0]!.p) === r.got[0]!.p.crc]).toEqual([1, 0, true]);
  });
});

describe('link ports', () => {
  it('connection packets (e2e) arrive on ctlOut, at the golden model cycle; connectless on rxOut', () => {
    const r = rig({ latency: 30, bytesPerCycle: 8 });
    const pushes: { pushCycle: number; src: number; wireBytes: number }[] = [];
    const e2e = [true, false, true, true, false];
    for (const [i, e] of e2e.entries()) {
      const p = r.offer(0, 1, 16 * i, e);
      pushes.push({ pushCycle: r.sim.cycle, src: 0, wireBytes: p.wireBytes });
      r.step();
    }
    r.step(400);
    expect(r.got.map((g) => [g.p.opId, g.cycle, g.ctl])).toEqual(linkArrivals(pushes, 8, 30).map((c, i) => [i, c, e2e[i]]));
  });

  it('channel capacities: 4 on each transmit channel, rxCapacity on rxOut and on ctlOut', () => {
    const r = rig({ rxCapacity: 3, latency: 5 }, true, true);
    for (let i = 0; i < 4; i++) {
      expect(r.link.txIn[0]!.canPush()).toBe(true);
      r.offer(0, 1, 0);
    }
    expect(r.link.txIn[0]!.canPush()).toBe(false);
    for (let i = 0; i < 4; i++) r.offer(1, 0, 0, true);
    r.step(200);
    const take = (ch: (typeof r.link.rxOut)[number]): number => {
      let n = 0;
      for (; ch.canPop(); n++) ch.pop();
      return n;
    };
    expect([take(r.link.rxOut[1]!), take(r.link.ctlOut[0]!)]).toEqual([3, 3]);
    r.step(5);
    expect([take(r.link.rxOut[1]!), take(r.link.ctlOut[0]!)]).toEqual([1, 1]);
    expect(r.link.stats.delivered.value).toBe(8);
  });

  it('a full ctlOut does not hold a connectless packet bound for rxOut from another port', () => {
    const r = rig({ ports: 3, rxCapacity: 2, latency: 5 }, false, true);
    for (let i = 0; i < 3; i++) r.offer(0, 2, 0, true);
    r.step(50);
    r.offer(1, 2, 0);
    r.step(50);
    expect(r.got.map((g) => [g.p.src, g.ctl])).toEqual([[1, false]]);
    expect(r.link.stats.delivered.value).toBe(3);
  });

  it('a busy transmitter leaves its next packet in the transmit channel until the cycle its last byte slot ends', () => {
    // a packet stuck in flight to a full rxOut (port 1 -> 2) keeps the link evaluated every cycle
    const r = rig({ ports: 3, rxCapacity: 2, bytesPerCycle: 8, latency: 5 }, true);
    for (let i = 0; i < 3; i++) r.offer(1, 2, 0);
    r.step(30);
    // 32-byte packets at 8 bytes per cycle, 4 cycles each: the first is taken one cycle after the push (slots (t0 + 1) x 8 .. (t0 + 5) x 8), the next when free < (t + 1) x 8
    const t0 = r.sim.cycle;
    for (let i = 0; i < 4; i++) r.offer(0, 2, 0, true);
    const taken: number[] = [];
    for (let t = 0; t < 20; t++) {
      const before = r.link.stats.sent.value;
      r.step();
      if (r.link.stats.sent.value > before) taken.push(r.sim.cycle - 1 - t0);
    }
    expect(taken).toEqual([1, 5, 9, 13]);
    expect(r.got.map((g) => g.cycle - t0)).toEqual([11, 15, 19]);
  });

  it('one transmit, receive and connection channel per port', () => {
    const r = rig({ ports: 5 });
    expect([r.link.txIn.length, r.link.rxOut.length, r.link.ctlOut.length]).toEqual([5, 5, 5]);
  });

  it('a full rxOut does not hold a connection packet bound for ctlOut from another port', () => {
    const r = rig({ ports: 3, rxCapacity: 2, latency: 5 }, true);
    for (let i = 0; i < 3; i++) r.offer(0, 2, 0);
    r.step(50);
    r.offer(1, 2, 0, true);
    r.step(50);
    expect(r.got.map((g) => [g.p.src, g.ctl])).toEqual([[1, true]]);
    expect(r.link.stats.delivered.value).toBe(3);
  });

  it('a full receive channel holds its packets in flight; they come in order once it drains', () => {
    const r = rig({ rxCapacity: 2, latency: 5 }, true);
    for (let i = 0; i < 4; i++) r.offer(0, 1, 8);
    r.step(100);
    expect(r.link.stats.delivered.value).toBe(2);
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      while (r.link.rxOut[1]!.canPop()) ids.push(r.link.rxOut[1]!.pop().opId);
      r.step();
    }
    expect(ids).toEqual([0, 1, 2, 3]);
  });

  it('a full flight queue holds the transmitter: with room for one packet each waits for the previous to arrive', () => {
    const r = rig({ flightCapacity: 1, latency: 50, bytesPerCycle: 1000 });
    for (let i = 0; i < 3; i++) r.offer(0, 1, 0);
    r.step(300);
    // taken in cycles 1, 53, 105 (the cycle after the previous left the flight queue), each arrives 51 cycles later, poppable one after that
    expect(r.got.map((g) => g.cycle)).toEqual([53, 105, 157]);
    const free = rig({ latency: 50, bytesPerCycle: 1000 });
    for (let i = 0; i < 3; i++) free.offer(0, 1, 0);
    free.step(300);
    expect(free.got.map((g) => g.cycle)).toEqual([53, 54, 55]);
  });

  it('a receiver takes one packet per cycle, round-robin over the ports sending to it', () => {
    const r = rig({ ports: 4, latency: 10, bytesPerCycle: 4096 });
    for (const s of [1, 2, 3]) for (let i = 0; i < 3; i++) r.offer(s, 0, 0);
    r.step(100);
    expect(r.got.map((g) => g.p.src)).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3]);
    const c = r.got.map((g) => g.cycle);
    expect(c).toEqual(c.map((_, i) => c[0]! + i));
  });

  it('packets naming no port (-1, 1.5, ports) are discarded and counted; the next one still goes', () => {
    const r = rig({ ports: 3, latency: 5 });
    for (const d of [-1, 1.5, 3]) r.offer(0, d, 4);
    r.offer(0, 2, 4);
    r.step(60);
    expect([r.link.stats.misrouted.value, r.link.stats.sent.value]).toEqual([3, 1]);
    expect(r.got.map((g) => g.p.opId)).toEqual([3]);
  });

  it('statistics by name', () => {
    const r = rig({ dropProb: 1 });
    r.offer(0, 1, 0);
    r.offer(0, 7, 0);
    r.step(10);
    const v = (n: string): number => (r.sim.stats.get(`link.${n}`) as { value: number }).value;
    expect(['sent', 'delivered', 'dropped', 'corrupted', 'misrouted'].map(v)).toEqual([1, 0, 1, 0, 1]);
  });
});

/** CRC-32 (IEEE, reflected, bit by bit) */
function crc32(bytes: readonly number[]): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** little-endian bytes of an unsigned value */
const le = (v: number, n: number): number[] => Array.from({ length: n }, (_, i) => Math.floor(v / 2 ** (8 * i)) & 0xff);
const f64 = (v: number): number[] => [...new Uint8Array(new Float64Array([v]).buffer)];

/** the packet CRC's header layout (docs/nic-rdma.md, "Packets"), written out independently */
function refCrc(p: NetPacket): number {
  const h = [
    p.kind,
    ...le(p.src, 2),
    ...le(p.dst, 2),
    p.srcVp,
    p.dstVp,
    p.opcode | (p.last ? 0x10 : 0) | (p.physical ? 0x20 : 0) | (p.localEvent ? 0x40 : 0) | (p.remoteEvent ? 0x80 : 0),
    ...le(p.opId, 4),
    ...f64(p.offset),
    ...f64(p.total),
    ...f64(p.addr),
    ...le(p.item, 2),
    ...le(p.key, 4),
    ...f64(p.retAddr),
    ...le(p.retItem, 2),
    ...le(p.retKey, 4),
    ...le(p.userTag, 2),
    ...le(p.eventData, 4),
    p.reason,
    p.interrupt ? 1 : 0,
  ];
  const conn = p.e2e ? [...le(p.ctx, 2), ...le(p.serial, 2), ...le(p.seq, 4), ...le(p.rctx, 2), (p.nack ? 1 : 0) | (p.fin ? 2 : 0)] : [];
  return crc32([...h, ...conn, ...(p.data ?? [])]);
}

describe('packets', () => {
  it('a new packet: every field 0, false or null, not yet arrived (-1)', () => {
    const p = new NetPacket();
    const flags = ['last', 'physical', 'localEvent', 'remoteEvent', 'interrupt', 'e2e', 'nack', 'fin'] as const;
    expect(flags.map((f) => p[f])).toEqual(flags.map(() => false));
    expect([p.kind, p.src, p.dst, p.opId, p.offset, p.total, p.addr, p.seq, p.ctx, p.serial, p.rctx, p.crc, p.data, p.arriveCycle, p.wireBytes]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, null, -1, 32]);
  });

  const u = (bits: number): fc.Arbitrary<number> => fc.integer({ min: 0, max: 2 ** bits - 1 });
  const pkt = fc.record({
    kind: u(4), src: u(16), dst: u(16), srcVp: u(8), dstVp: u(8), opcode: u(4), opId: u(32), offset: u(40), total: u(40), last: fc.boolean(), addr: u(48), item: u(16), key: u(32),
    physical: fc.boolean(), retAddr: u(48), retItem: u(16), retKey: u(32), localEvent: fc.boolean(), remoteEvent: fc.boolean(), interrupt: fc.boolean(), userTag: u(16), eventData: u(32), reason: u(8),
    e2e: fc.boolean(), ctx: u(16), serial: u(16), seq: u(32), rctx: u(16), nack: fc.boolean(), fin: fc.boolean(), data: fc.option(fc.uint8Array({ maxLength: 40 })),
  });
  it('the CRC is the CRC-32 of the documented header (and connection fields of an e2e packet) and the data', () => {
    fc.assert(
      fc.property(pkt, (f) => {
        const p = Object.assign(new NetPacket(), f);
        expect(packetCrc(p)).toBe(refCrc(p));
        expect(p.wireBytes).toBe(32 + (f.data?.length ?? 0));
      }),
      { numRuns: 300 },
    );
    expect(PK_HEADER_BYTES).toBe(32);
    expect(PK_NAMES[PK_ACK]).toBe('ack');
  });

  it('error reply: back to the request source and VP, with its operation, length, tag and event data, and a valid CRC', () => {
    const q = Object.assign(new NetPacket(), { kind: PK_GET_REQ, src: 7, dst: 3, srcVp: 11, dstVp: 4, opId: 99, total: 5000, userTag: 0xbeef, eventData: 0x12345678, addr: 64, key: 5 });
    const e = errorReply(3, q, 2, 17);
    expect({ kind: e.kind, src: e.src, dst: e.dst, srcVp: e.srcVp, dstVp: e.dstVp, opcode: e.opcode, opId: e.opId, total: e.total, userTag: e.userTag, eventData: e.eventData, reason: e.reason, addr: e.addr, key: e.key }).toEqual({
      kind: PK_ERR, src: 3, dst: 7, srcVp: 4, dstVp: 11, opcode: 2, opId: 99, total: 5000, userTag: 0xbeef, eventData: 0x12345678, reason: 17, addr: 0, key: 0,
    });
    expect(e.crc).toBe(refCrc(e));
  });
});
