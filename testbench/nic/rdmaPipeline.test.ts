/**
 * The pipelined RDMA engines (rtl/nic/rdma/rdmaTx.ts: several operations in flight, the next
 * operation's payload fetched while the previous one's packets stream; rdmaRx.ts: later packets'
 * buffer checks overlapping earlier packets' writes):
 * - bursts of operations posted at once from both nodes (PUT, GET, IMM_PUT, MP on PIO and DMA VPs,
 *   disjoint buffers; PCIe read completions in order or reordered by the host's jitter) land exactly the bytes the golden model predicts, with the same events per
 *   VP, while the engines really hold several operations and packets at once;
 * - the transmit engine keeps the descriptor order: on one VP, local events of PUTs come in
 *   posting order;
 * - the pipeline is what lifts back-to-back PUT bandwidth: one operation at a time (`txOps` 1)
 *   is much slower, and so is a one-packet receive engine (`rxPackets` 1) for large PUTs;
 * - single-operation latencies are those of the one-at-a-time engine (docs/nic-rdma.md table).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runPutBandwidth } from '../../experiments/nic/bandwidth.ts';
import { runRdmaProbe } from '../../experiments/nic/rdmaProbe.ts';
import { Q_EQ } from '../../rtl/nic/queues/index.ts';
import { build, type DescSpec } from './rdmaSpecs.ts';
import { queueBase, RdmaWorld, setup, VPS } from './rdmaWorld.ts';

/** a burst's operation j uses bytes [SLOT x j, SLOT x j + len) of the items on both sides: no two operations share a byte */
const SLOT = 2400;

interface BurstOp {
  me: number;
  kind: 'put' | 'get' | 'imm_put' | 'mp';
  vp: number;
  dstVp: number;
  len: number;
  flags: number;
}

const opArb: fc.Arbitrary<BurstOp> = fc.record({
  me: fc.integer({ min: 0, max: 1 }),
  kind: fc.constantFrom('put' as const, 'put' as const, 'put' as const, 'get' as const, 'imm_put' as const, 'mp' as const),
  vp: fc.integer({ min: 1, max: 2 }),
  dstVp: fc.integer({ min: 1, max: 2 }),
  len: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: SLOT })),
  flags: fc.integer({ min: 0, max: 3 }),
});

function specOf(o: BurstOp, j: number): DescSpec {
  return { me: o.me, kind: o.kind, vp: o.vp, dstVp: o.dstVp, localItem: -1, remoteItem: -1, localKeyOk: true, remoteKeyOk: true, localOff: SLOT * j, remoteOff: SLOT * j, len: o.len, smallLen: 1 + (o.len % 80), flags: o.flags, tag: 300 + j, fill: j };
}

/** every EQ entry of VP vp of node n, as strings, in producer order (from the world's record of host writes, or the model's) */
function eqEntries(mem: (a: number) => number | undefined, prod: number, vp: number): string[] {
  return Array.from({ length: prod }, (_, i) => Array.from({ length: 32 }, (_, j) => mem(queueBase(Q_EQ, vp) + i * 32 + j) ?? 0).join(','));
}

/** Post every operation at once, settle, run the model one after another; returns the most operations / packets the engines held at once. */
function runBurst(w: RdmaWorld, ops: BurstOp[]): { txMax: number; rxMax: number } {
  let txMax = 0;
  let rxMax = 0;
  const watch = (): void => {
    for (const nic of w.pair.nics) {
      txMax = Math.max(txMax, nic.tx.inFlight);
      rxMax = Math.max(rxMax, nic.rx.inFlight);
    }
  };
  const specs = ops.map(specOf);
  for (const s of specs) w.post(s.me, s.vp, build(s));
  for (let i = 0; i < 200000 && (w.busy() || i < 3000); i++) {
    w.sim.step(1);
    watch();
  }
  w.settle();
  for (const s of specs) w.model.run(s.me, s.vp, build(s));
  for (const n of [0, 1] as const) {
    const mn = w.model.nodes[n];
    for (const [a, v] of mn.rdmaWrites) expect(w.writes[n].get(a), `node ${n} ${a.toString(16)}`).toBe(v);
    for (let vp = 0; vp < VPS; vp++) {
      const r = mn.queues.ring(Q_EQ, vp);
      expect(w.pair.nics[n].queues.state(Q_EQ, vp).prod, `node ${n} EQ ${vp} entries`).toBe(r.prod);
      // GET local events come from the receive side: between VPs and against PUTs they may land in another order than the sequential model's
      expect(eqEntries((a) => w.writes[n].get(a), r.prod, vp).sort(), `node ${n} EQ ${vp}`).toEqual(eqEntries((a) => mn.queues.mem.get(a), r.prod, vp).sort());
    }
  }
  expect(w.outside).toEqual([]);
  return { txMax, rxMax };
}

describe('pipelined RDMA engines', () => {
  it('bursts from both nodes: the data and events the model predicts, with several operations and packets in flight', () => {
    let txMax = 0;
    let rxMax = 0;
    fc.assert(
      // with read jitter the host returns different reads' completions out of order (of one operation and of consecutive ones)
      fc.property(fc.array(opArb, { minLength: 2, maxLength: 8 }), fc.constantFrom(0, 300), (ops, readJitterNs) => {
        const w = new RdmaWorld({}, false, 2, {}, { readJitterNs });
        setup(w);
        const m = runBurst(w, ops);
        txMax = Math.max(txMax, m.txMax);
        rxMax = Math.max(rxMax, m.rxMax);
      }),
      { numRuns: 16, seed: 11 },
    );
    expect(txMax).toBeGreaterThanOrEqual(3);
    expect(rxMax).toBeGreaterThanOrEqual(2);
  });

  it('one VP posting PUTs back to back: local events in posting order, every operation several in flight', () => {
    const w = new RdmaWorld();
    setup(w);
    const ops: BurstOp[] = Array.from({ length: 8 }, (_, j) => ({ me: 0, kind: 'put', vp: 1, dstVp: 2, len: 600 + 211 * j, flags: 3 }));
    const m = runBurst(w, ops);
    expect(m.txMax).toBeGreaterThanOrEqual(3);
    const tags = Array.from({ length: 8 }, (_, i) => w.pair.nics[0].pcie.mem.read(queueBase(Q_EQ, 1) + 32 * i, 6));
    expect(tags.map((e) => [e[0], e[4]! | (e[5]! << 8)])).toEqual(Array.from({ length: 8 }, (_, j) => [1, 300 + j]));
  });

  it('the pipeline lifts back-to-back PUT bandwidth: several operations beat one at a time, on both paths', () => {
    for (const path of ['pio', 'dma'] as const) {
      const piped = runPutBandwidth({ bytes: 4096, bidirectional: false, path, count: 24 });
      const serial = runPutBandwidth({ bytes: 4096, bidirectional: false, path, count: 24, txOps: 1 });
      expect(piped.gbPerS).toBeGreaterThan(1.6 * serial.gbPerS);
      expect(piped.gbPerS).toBeGreaterThan(9);
    }
    // small PUTs: the operations' read round trips overlap
    const small = runPutBandwidth({ bytes: 64, bidirectional: false, path: 'pio', count: 64 });
    const smallSerial = runPutBandwidth({ bytes: 64, bidirectional: false, path: 'pio', count: 64, txOps: 1 });
    expect(small.gbPerS).toBeGreaterThan(3 * smallSerial.gbPerS);
  });

  it('single operations take as long as on the one-at-a-time engine (warm and cold latency of each kind and path)', () => {
    const table: [kind: 'imm_put' | 'put' | 'get' | 'mp', bytes: number, path: 'pio' | 'dma', warm: number, cold: number][] = [
      ['imm_put', 8, 'pio', 494, 991],
      ['imm_put', 8, 'dma', 862, 1359],
      ['put', 4096, 'pio', 1234, 2174],
      ['put', 4096, 'dma', 1602, 2542],
      ['get', 4096, 'pio', 1453, 2447],
      ['get', 4096, 'dma', 1821, 2815],
      ['mp', 8, 'pio', 497, 497],
      ['mp', 8, 'dma', 859, 859],
    ];
    for (const [kind, bytes, path, warm, cold] of table) {
      const r = runRdmaProbe({ kind, bytes, path, count: 1 });
      expect([kind, path, r.latency_ns, r.cold_latency_ns]).toEqual([kind, path, warm, cold]);
    }
  });
});
