/**
 * The whole descriptor path (CPU stores and host-memory rings -> PCIe with completion jitter ->
 * VP register file -> HDQ and SDQ -> readout -> sink) against the transaction-level golden model
 * (models/nic/sdqModel.ts), model-based (fast-check commands): random mixes of DMA submissions
 * (ring wrap-around), PIO submissions, bad doorbells (above the ring size, for a VP without a ring,
 * zero, into another VP's page), exact ring overflows, consumer stalls (back-pressure through the
 * readout, the heads and the SDQ buffer) and idle time. At the end every VP's dispatched
 * descriptors equal the model's, in order, none lost or duplicated, and every refusal is the
 * model's, on the offending VP, while the other VPs' traffic went through.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_IMM_PUT, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { VR_DOORBELL, VR_HDQ_WINDOW, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';
import { SCHED_POLICIES, type SchedPolicy } from '../../rtl/nic/vp/scheduler.ts';
import { SdqOrderModel } from '../../models/nic/sdqModel.ts';
import { buildFrontEnd, type FrontEnd, reg64, refusalName } from '../../experiments/nic/frontEnd.ts';

const P = 2; // PIO VPs 0, 1
const D = 4; // DMA VPs 2..5; VP 5 never gets a ring
const UNREG = P + D - 1;
const HDQ_SLOTS = 4;
const ringBase = (vp: number): number => 0x100000 * vp;

interface Params {
  depth: number;
  maxReads: number;
  batch: number;
  policy: SchedPolicy;
  entryBytes: 64 | 128;
  jitterNs: number;
  sizes: number[];
  seed: number;
}

class World {
  readonly fe: FrontEnd;
  readonly m: SdqOrderModel;
  readonly rng: Rng;
  private readonly seen: number[] = Array.from({ length: P + D }, () => 0);
  private uid = 1;
  constructor(readonly p: Params) {
    this.fe = buildFrontEnd({
      vp: { pioVps: P, dmaVps: D },
      sdq: { depth: p.depth, maxReads: p.maxReads, batch: p.batch, policy: p.policy, entryBytes: p.entryBytes },
      pcie: { readJitterNs: p.jitterNs, seed: p.seed % 1000 },
      hdqSlots: HDQ_SLOTS,
      desc: { nodes: 1024 },
      keep: true,
    });
    this.m = new SdqOrderModel(P, D, p.entryBytes);
    this.rng = new Rng(p.seed);
    for (let j = 0; j < D - 1; j++) {
      const vp = P + j;
      this.store(-1, vp, VR_SDQ_BASE, reg64(ringBase(vp)));
      this.store(-1, vp, VR_SDQ_SIZE, reg64(p.sizes[j]!));
      this.m.register(vp, p.sizes[j]!);
    }
    this.step(400); // the registers are written before any doorbell arrives
  }
  size(vp: number): number {
    return this.p.sizes[vp - P]!;
  }
  store(writer: number, vp: number, off: number, data: Uint8Array): void {
    while (!this.fe.store(writer, vp, off, data)) this.step(1);
  }
  /** run n cycles and tell the model what was dispatched */
  step(n: number): void {
    this.fe.sim.step(n);
    for (let vp = P; vp < P + D; vp++) {
      const k = this.fe.sink.perVp[vp]! - this.seen[vp]!;
      if (k > 0) this.m.released(vp, k);
      this.seen[vp] = this.fe.sink.perVp[vp]!;
    }
    for (let vp = 0; vp < P; vp++) this.seen[vp] = this.fe.sink.perVp[vp]!;
  }
  pioOutstanding(vp: number): number {
    return this.m.expected(vp).length - this.fe.sink.perVp[vp]!;
  }
  /** a descriptor: valid PUT, valid 128-byte IMM_PUT (when entries hold it), or one the decoder rejects */
  desc(big: boolean): Uint8Array {
    const id = this.uid++;
    const v = this.rng.int(5);
    if (v === 0) {
      const b = new Uint8Array(big ? 128 : 64).fill(0xa5 ^ (id & 0xff));
      b[0] = big ? 0x1f : 0x0f; // opcode 15: the decoder rejects it (bad_opcode); the size field is right
      return b;
    }
    if (big) return encodeDescriptor({ ...blankDesc(DESC_IMM_PUT, 128), dstVp: 1, userTag: id & 0xffff, length: 40, data: new Uint8Array(40).fill(id & 0xff) });
    return encodeDescriptor({ ...blankDesc(DESC_PUT), dstVp: 1, dstNode: id % 1024, userTag: id & 0xffff, length: id });
  }
  submitDma(vp: number, k: number): void {
    const size = this.size(vp);
    const n = Math.min(k, size - this.m.outstanding(vp));
    if (n === 0) return;
    for (let i = 0; i < n; i++) {
      const idx = (this.m.tail(vp) + i) % size;
      const b = this.desc(this.p.entryBytes === 128 && this.rng.bool());
      this.fe.pcie.mem.write(ringBase(vp) + idx * this.p.entryBytes, b);
      if (b.length < this.p.entryBytes) this.fe.pcie.mem.write(ringBase(vp) + idx * this.p.entryBytes + b.length, new Uint8Array(this.p.entryBytes - b.length));
      this.m.write(vp, idx, b);
    }
    expect(this.m.doorbell(vp, vp, n)).toBe('');
    this.store(vp, vp, VR_DOORBELL, reg64(n));
  }
  doorbell(writer: number, vp: number, count: number): string {
    const e = this.m.doorbell(writer, vp, count);
    this.store(writer, vp, VR_DOORBELL, reg64(count));
    return e;
  }
}

type Cmd = fc.Command<object, World>;
const cmd = (name: string, run: (w: World) => void, check: (w: World) => boolean = () => true): Cmd => ({
  check: () => true,
  run: (_m, w) => {
    if (check(w)) run(w);
  },
  toString: () => name,
});

const dmaArb = fc.tuple(fc.integer({ min: 0, max: D - 2 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 300 })).map(([j, k, gap]) =>
  cmd(`dma(vp ${P + j}, ${k}) then ${gap} cycles`, (w) => {
    w.submitDma(P + j, k);
    w.step(gap);
  }),
);
const cmds = [
  dmaArb,
  dmaArb,
  dmaArb,
  fc.tuple(fc.integer({ min: 0, max: P - 1 }), fc.boolean()).map(([v, big]) =>
    cmd(
      `pio(vp ${v}${big ? ', 128 B' : ''})`,
      (w) => {
        const b = w.desc(big);
        w.m.pio(v, b);
        w.store(v, v, VR_HDQ_WINDOW, b);
      },
      (w) => w.pioOutstanding(v) < HDQ_SLOTS,
    ),
  ),
  fc.tuple(fc.constantFrom('too_big', 'zero', 'unregistered', 'foreign'), fc.integer({ min: 0, max: D - 2 }), fc.integer({ min: 0, max: D - 2 })).map(([kind, j, k]) =>
    cmd(`bad doorbell ${kind}(vp ${P + j}, other ${P + k})`, (w) => {
      const vp = P + j;
      if (kind === 'too_big') expect(w.doorbell(vp, vp, w.size(vp) + 1)).toBe('bad_doorbell');
      else if (kind === 'zero') expect(w.doorbell(vp, vp, 0)).toBe('bad_doorbell');
      else if (kind === 'unregistered') expect(w.doorbell(UNREG, UNREG, 1)).toBe('bad_doorbell');
      else if (P + k !== vp) expect(w.doorbell(P + k, vp, 1)).toBe('foreign_vp');
    }),
  ),
  fc.integer({ min: 0, max: D - 2 }).map((j) =>
    cmd(`overflow(vp ${P + j})`, (w) => {
      const vp = P + j;
      // drain the VP (the model then knows exactly what is pending), fill its ring, one more
      w.fe.sink.resume();
      for (let i = 0; i < 400 && w.m.outstanding(vp) > 0; i++) w.step(100);
      expect(w.m.outstanding(vp)).toBe(0);
      w.submitDma(vp, w.size(vp));
      expect(w.doorbell(vp, vp, 1)).toBe('sdq_overflow');
    }),
  ),
  fc.integer({ min: 1, max: 1500 }).map((n) =>
    cmd(`stall(${n})`, (w) => {
      w.fe.sink.stalled = true;
      w.step(n);
      w.fe.sink.resume();
    }),
  ),
  fc.integer({ min: 1, max: 800 }).map((n) => cmd(`run(${n})`, (w) => w.step(n))),
];

const paramsArb: fc.Arbitrary<Params> = fc.record({
  depth: fc.integer({ min: 1, max: 16 }),
  maxReads: fc.integer({ min: 1, max: 4 }),
  batch: fc.integer({ min: 1, max: 4 }),
  policy: fc.constantFrom(...SCHED_POLICIES),
  entryBytes: fc.constantFrom(64 as const, 128 as const),
  jitterNs: fc.constantFrom(0, 300, 1000),
  sizes: fc.array(fc.constantFrom(2, 4, 8, 16), { minLength: D - 1, maxLength: D - 1 }),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
});

describe('descriptor path through HDQ, SDQ and readout (model-based)', () => {
  it('every VP gets exactly the model\'s descriptors in order and the model\'s refusals; others go on', () => {
    fc.assert(
      fc.property(paramsArb, fc.commands(cmds, { maxCommands: 40 }), (p, cs) => {
        const w = new World(p);
        fc.modelRun(() => ({ model: {}, real: w }), cs);
        w.fe.sink.resume();
        const want = Array.from({ length: P + D }, (_, vp) => w.m.expected(vp).length);
        const done = (): boolean => want.every((n, vp) => w.fe.sink.perVp[vp] === n) && w.fe.sink.refusals.length >= w.m.refusals.length;
        w.step(600); // the last stores reach the NIC
        for (let i = 0; i < 2000 && !done(); i++) w.step(100);
        w.step(600); // nothing more comes out
        for (let vp = 0; vp < P + D; vp++) {
          const got = w.fe.sink.got.filter((d) => d.vp === vp);
          expect(got.map((d) => d.seq)).toEqual(got.map((_, i) => i));
          expect(got.every((d) => d.dma === vp >= P)).toBe(true);
          expect(got.map((d) => [...d.bytes])).toEqual(w.m.expected(vp));
          const refused = w.fe.sink.refusals.filter((e) => e.vp === vp).map((e) => refusalName(e.kind));
          expect(refused).toEqual(w.m.refusals.filter((e) => e.vp === vp).map((e) => e.error));
        }
        expect(w.fe.sdq.freeEntries).toBe(p.depth);
        expect(w.fe.sdq.outstandingReads).toBe(0);
      }),
      { numRuns: 30 },
    );
  });
});
