/**
 * Reliable end-to-end layer (rtl/nic/e2e) on two NICs against the golden model
 * (models/nic/rdmaModel.ts): random mixes of connect and connectless descriptors; bursts that
 * exhaust the sender contexts (descriptor processing pauses) and the receiver contexts (CONN_NACK
 * and retry); drops and bit errors injected on the link below the end-to-end layer, which every
 * connect transfer survives exactly once; a dead link, where each connect transfer ends with one
 * e2e_failed error event. After every command both hosts' written bytes and every queue register
 * equal the model, and every context is free again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { E2eConfig } from '../../rtl/nic/e2e/types.ts';
import type { LinkConfig } from '../../rtl/nic/link/index.ts';
import { baseItem, itemCommand, type NoModel, queueBase, RdmaWorld, setup, submitCommand, VPS, type WorldReal } from './rdmaWorld.ts';
import { build, type DescSpec, specArb } from './rdmaSpecs.ts';

/** small contexts and a short timeout, so that exhaustion and retransmission happen in short runs */
const SMALL: Partial<E2eConfig> = { senderContexts: 2, receiverContexts: 1, window: 4, ackEvery: 2, timeout: 600, retries: 12, backoff: 64, rxBuffer: 4 };

function world(link: Partial<Omit<LinkConfig, 'ports'>> = {}, e2e: Partial<E2eConfig> = SMALL): RdmaWorld {
  const w = new RdmaWorld(link, false, 2, e2e);
  setup(w);
  return w;
}

const count = (w: RdmaWorld, path: string): number => (w.sim.stats.get(path) as { value: number }).value;
const both = (w: RdmaWorld, leaf: string): number => count(w, `nic0.${leaf}`) + count(w, `nic1.${leaf}`);

/** every sender and receiver context of both NICs is free */
function allFree(w: RdmaWorld): void {
  for (const n of w.pair.nics) expect([n.e2eTx.inUse, n.e2eRx.inUse], `node ${n.node} contexts in use`).toEqual([0, 0]);
}

const connectArb = fc.tuple(specArb, fc.boolean()).map(([s, c]) => ({ ...s, connect: c }));
const mixCmd = submitCommand('submit', connectArb, (s) => [s.me, s.vp, build(s)]);

interface Burst {
  me: number;
  ops: { kind: 'put' | 'imm_put' | 'mp' | 'get'; len: number; off: number }[];
}

/**
 * Up to four connect operations posted at once from one node, VP v to VP v of the other node
 * (each VP's own items, so no two share a buffer or an event queue; right keys and no interrupt,
 * so nothing goes to the shared INTQ, whose order between VPs the sequential model cannot know):
 * more connections than the small configuration's contexts. The burst's items are restored to
 * their standard setup first (so no earlier memory-checker update refuses one of its operations).
 */
const burstArb: fc.Arbitrary<Burst> = fc.record({
  me: fc.integer({ min: 0, max: 1 }),
  ops: fc.array(fc.record({ kind: fc.constantFrom('put' as const, 'put' as const, 'imm_put' as const, 'mp' as const, 'get' as const), len: fc.integer({ min: 1, max: 3000 }), off: fc.integer({ min: 0, max: 8000 }) }), { minLength: 2, maxLength: VPS }),
});

function burstSpecs(b: Burst): DescSpec[] {
  return b.ops.map((o, v) => ({ me: b.me, kind: o.kind, vp: v, dstVp: v, localItem: -1, remoteItem: -2, localKeyOk: true, remoteKeyOk: true, localOff: o.off, remoteOff: o.off, len: o.len, smallLen: 1 + (o.len % 80), flags: 3, tag: 500 + v, fill: o.len & 0xff, connect: true }));
}

function runBurst(w: RdmaWorld, b: Burst): void {
  const specs = burstSpecs(b);
  for (const n of [0, 1]) for (let v = 0; v < VPS; v++) for (const i of [v, v + VPS]) w.setItem(n, i, baseItem(i));
  for (const s of specs) w.post(s.me, s.vp, build(s));
  w.settle();
  for (const s of specs) w.model.run(s.me, s.vp, build(s));
  w.compare();
  allFree(w);
}

const burstCmd = burstArb.map(
  (b): fc.Command<NoModel, WorldReal> => ({
    check: () => true,
    run: (_m, r) => runBurst(r.w, b),
    toString: () => `burst(${JSON.stringify(b)})`,
  }),
);
const itemCmd = itemCommand(['invalid', 'readonly', 'rekey', 'restore']);

describe('reliable end-to-end (two NICs)', () => {
  it('a connect PUT: connection request, data, closing ACK; the local event only after the close; contexts freed', () => {
    const w = world({}, {});
    const s: DescSpec = { me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: 1, remoteItem: 2, localKeyOk: true, remoteKeyOk: true, localOff: 100, remoteOff: 300, len: 3000, smallLen: 1, flags: 3, tag: 5, fill: 0, connect: true };
    let localAt = -1;
    let finAt = -1;
    w.pair.nics[0].pcie.host.onWrite = ((prev) => (tlp, cycle) => {
      if (tlp.addr === queueBase(0, 1)) localAt = cycle;
      prev?.(tlp, cycle);
    })(w.pair.nics[0].pcie.host.onWrite);
    w.pair.link.onDeliver = (p, cycle) => {
      if (p.kind === 8 && p.fin) finAt = cycle;
    };
    w.submit(0, 1, build(s));
    w.compare();
    allFree(w);
    expect([count(w, 'nic0.e2etx.connections'), count(w, 'nic0.e2etx.completed'), count(w, 'nic1.e2erx.conn_accepted'), count(w, 'nic1.e2erx.closed')]).toEqual([1, 1, 1, 1]);
    expect(count(w, 'nic1.e2erx.admitted')).toBe(w.pair.nics[0].tx.stats.packets.value);
    expect(finAt).toBeGreaterThan(0);
    expect(localAt).toBeGreaterThan(finAt);
    // the same descriptor connectless uses no context
    w.submit(0, 1, build({ ...s, connect: false, tag: 6 }));
    w.compare();
    expect(count(w, 'nic0.e2etx.connections')).toBe(1);
  });

  it('model-based: random connect and connectless descriptors, bursts exhausting the contexts, memory-checker updates: both hosts equal the golden model, every context freed', () => {
    fc.assert(
      fc.property(fc.commands([mixCmd, mixCmd, burstCmd, itemCmd], { maxCommands: 10 }), (cmds) => {
        fc.modelRun(() => ({ model: {}, real: { w: world() } }), cmds);
      }),
      { numRuns: 12 },
    );
  });

  it('descriptor processing pauses when the sender contexts run out (1 sender context, 4 VPs posting at once)', () => {
    const w = world({}, { ...SMALL, senderContexts: 1, receiverContexts: 4 });
    const b: Burst = { me: 0, ops: [0, 1, 2, 3].map((v) => ({ kind: 'put' as const, len: 2000 + v, off: 64 * v })) };
    runBurst(w, b);
    expect(count(w, 'nic0.e2etx.alloc_refused')).toBeGreaterThan(0);
    expect(count(w, 'nic0.e2etx.connections')).toBe(4);
    expect(count(w, 'nic1.e2erx.conn_refused')).toBe(0);
  });

  it('connection requests are NACKed and retried when the receiver contexts run out (1 receiver context, 4 sender contexts)', () => {
    const w = world({}, { ...SMALL, senderContexts: 4, receiverContexts: 1 });
    const b: Burst = { me: 1, ops: [0, 1, 2, 3].map((v) => ({ kind: v === 2 ? ('imm_put' as const) : ('put' as const), len: 1500 + 100 * v, off: 32 * v })) };
    runBurst(w, b);
    expect(count(w, 'nic0.e2erx.conn_refused')).toBeGreaterThan(0);
    expect(count(w, 'nic1.e2etx.conn_nacked')).toBe(count(w, 'nic0.e2erx.conn_refused'));
    expect([count(w, 'nic1.e2etx.completed'), count(w, 'nic0.e2erx.closed')]).toEqual([4, 4]);
  });
});

describe('reliable end-to-end: faults below it', () => {
  it('model-based: with drops and bit errors on both directions of the link every connect transfer (any kind, keys right or wrong, bursts) completes exactly once: both hosts equal the fault-free golden model', () => {
    const connectOnly = submitCommand(
      'submit',
      specArb.filter((s) => s.kind !== 'garbage'),
      (s) => [s.me, s.vp, build({ ...s, connect: true })],
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10000 }), fc.commands([connectOnly, connectOnly, burstCmd], { maxCommands: 8 }), (seed, cmds) => {
        let w: RdmaWorld | null = null;
        fc.modelRun(() => {
          w = world({ dropProb: 0.04, ber: 2e-5, seed });
          return { model: {}, real: { w } };
        }, cmds);
        if (w !== null) expect(count(w, 'nic0.e2etx.failed') + count(w, 'nic1.e2etx.failed')).toBe(0);
      }),
      { numRuns: 10 },
    );
  });

  it('the faults were repaired, not absent: a fixed run drops and corrupts packets and the senders retransmit', () => {
    const w = world({ dropProb: 0.05, ber: 2e-5, seed: 7 });
    for (let k = 0; k < 6; k++) {
      const s: DescSpec = { me: k & 1, kind: k % 3 === 2 ? 'get' : 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 700 * k, remoteOff: 900 * k, len: 2500 + k, smallLen: 1, flags: 3, tag: k, fill: 0, connect: true };
      w.submit(s.me, s.vp, build(s));
      w.compare();
    }
    allFree(w);
    expect(w.pair.link.stats.dropped.value).toBeGreaterThan(0);
    expect(w.pair.link.stats.corrupted.value).toBeGreaterThan(0);
    expect(both(w, 'e2etx.data_resent')).toBeGreaterThan(0);
    expect(both(w, 'e2erx.crc_errors')).toBeGreaterThan(0);
  });

  it('connect and connectless PUTs mixed under faults: each connect PUT lands once with one remote event; a connectless one lands, is reported incomplete, or was lost', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.array(fc.record({ len: fc.integer({ min: 1, max: 3000 }), off: fc.integer({ min: 0, max: 2999 }), connect: fc.boolean() }), { minLength: 2, maxLength: 8 }), (seed, puts) => {
        const w = world({ dropProb: 0.05, ber: 2e-5, seed, faultMask: 1 }, {});
        // transfer k to item 2 + 4 (k mod 3), region k div 3 of 6,000 bytes: no two overlap
        const dstOff = (k: number, off: number): number => Math.floor(k / 3) * 6000 + off;
        puts.forEach((p, k) => w.submit(0, 1, build({ me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1 - (k % 3), localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: dstOff(k, p.off), len: p.len, smallLen: 1, flags: 2, tag: k, fill: 0, connect: p.connect })));
        w.pair.link.cfg.dropProb = 0;
        w.pair.link.cfg.ber = 0;
        // one more connectless transfer closes the last connectless one at the target
        w.submit(0, 1, build({ me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 19000, len: 8, smallLen: 1, flags: 0, tag: 999, fill: 0 }));
        const tagOf = (ev: Uint8Array): number => ev[4]! | (ev[5]! << 8);
        const remote = new Map<number, number>();
        for (let i = 0; i < w.pair.nics[1].queues.state(0, 2).prod; i++) {
          const k = tagOf(w.pair.nics[1].pcie.mem.read(queueBase(0, 2) + 32 * i, 32));
          remote.set(k, (remote.get(k) ?? 0) + 1);
        }
        const incomplete = new Set<number>();
        for (let i = 0; i < w.pair.nics[0].queues.state(0, 1).prod; i++) {
          const ev = w.pair.nics[0].pcie.mem.read(queueBase(0, 1) + 32 * i, 32);
          expect([ev[0], ev[2]]).toEqual([3, 19]);
          incomplete.add(tagOf(ev));
        }
        puts.forEach((p, k) => {
          if (p.connect) {
            expect(remote.get(k), `connect transfer ${k}: remote events`).toBe(1);
            expect(incomplete.has(k)).toBe(false);
          } else expect((remote.get(k) ?? 0) + (incomplete.has(k) ? 1 : 0), `connectless transfer ${k}`).toBeLessThanOrEqual(1);
        });
        allFree(w);
        expect(w.outside).toEqual([]);
      }),
      { numRuns: 8 },
    );
  });

  it('a sender that gives up mid-connection: its transfer ends e2e_failed (the model predicts it) and the receiver context it held expires after rxIdle', () => {
    const w = world({}, { ...SMALL, timeout: 200, retries: 2, rxIdle: 3000 });
    // the link dies for good right after the first CONN_ACK reaches node 0: the receiver holds a context for a sender it will never hear again
    w.pair.link.onDeliver = (p) => {
      if (p.kind === 6) w.pair.link.cfg.dropProb = 1;
    };
    w.model.linkCut = true;
    const s: DescSpec = { me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 0, len: 3000, smallLen: 1, flags: 3, tag: 8, fill: 0, connect: true };
    w.submit(0, 1, build(s));
    w.compare();
    allFree(w);
    expect([count(w, 'nic1.e2erx.conn_accepted'), count(w, 'nic1.e2erx.expired'), count(w, 'nic1.e2erx.closed'), count(w, 'nic0.e2etx.failed')]).toEqual([1, 1, 0, 1]);
  });

  it('a dead link: every connect transfer ends with one e2e_failed error event after its retries (the model predicts it), nothing reaches the target, every context is freed', () => {
    const w = world({}, { ...SMALL, timeout: 200, retries: 3 });
    w.pair.link.cfg.dropProb = 1;
    w.model.linkCut = true;
    const specs: DescSpec[] = [
      { me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 0, len: 2000, smallLen: 1, flags: 7, tag: 1, fill: 0, connect: true },
      { me: 1, kind: 'get', vp: 3, dstVp: 0, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 0, len: 600, smallLen: 1, flags: 1, tag: 2, fill: 0, connect: true },
      { me: 0, kind: 'mp', vp: 2, dstVp: 1, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 0, len: 1, smallLen: 20, flags: 1, tag: 3, fill: 0, connect: true },
      { me: 0, kind: 'put', vp: 1, dstVp: 2, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: 0, remoteOff: 0, len: 100, smallLen: 1, flags: 3, tag: 4, fill: 0, connect: false },
    ];
    for (const s of specs) {
      w.submit(s.me, s.vp, build(s));
      w.compare();
    }
    allFree(w);
    expect(both(w, 'e2etx.failed')).toBe(3);
    expect(both(w, 'e2erx.conn_accepted')).toBe(0);
    const ev = w.pair.nics[0].pcie.mem.read(queueBase(0, 1), 64);
    expect([ev[0], ev[2], ev[32], ev[34]]).toEqual([3, 22, 1, 0]); // the connect PUT's e2e_failed, then the connectless one's local event
  });
});
