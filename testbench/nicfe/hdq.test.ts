/**
 * HDQ: descriptor assembly from window stores against the golden model (whole descriptors per VP
 * in order, refusals in order), the full rule (refused with hdq_full, never lost, HDQ_FREE), and
 * round-robin readout fairness.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { descConfig } from '../../rtl/nic/desc/index.ts';
import { type DispatchedDesc, Hdq, HE_NAMES, Readout } from '../../rtl/nic/vp/index.ts';
import { HdqModel } from '../../models/nic/hdqModel.ts';

class HdqWorld {
  readonly sim = new Simulator({});
  readonly hdq: Hdq;
  readonly readout: Readout;
  readonly out: DispatchedDesc[] = [];
  readonly errors: { vp: number; error: string }[] = [];
  consume = true;
  constructor(vps: number, slots: number) {
    this.hdq = new Hdq(this.sim, 'hdq', vps, slots);
    this.readout = new Readout(this.sim, 'readout', this.hdq.heads, vps, descConfig());
  }
  store(vp: number, offset: number, data: Uint8Array): void {
    for (let i = 0; i < 1000 && !this.hdq.hdqIn.canPush(); i++) this.step();
    this.hdq.hdqIn.push({ vp, offset, data });
    this.step();
  }
  step(n = 1): void {
    for (let i = 0; i < n; i++) {
      this.sim.step(1);
      while (this.consume && this.readout.out.canPop()) this.out.push(this.readout.out.pop());
      while (this.hdq.errOut.canPop()) {
        const e = this.hdq.errOut.pop();
        this.errors.push({ vp: e.vp, error: HE_NAMES[e.kind - 9]! });
      }
    }
  }
}

function desc(size: 64 | 128, fill: number): Uint8Array {
  const b = new Uint8Array(size).fill(fill);
  b[0] = size === 64 ? 0x01 : 0x13;
  return b;
}

const pieceArb = fc.record({
  vp: fc.integer({ min: 0, max: 3 }),
  big: fc.boolean(),
  fill: fc.integer({ min: 0, max: 255 }),
  fault: fc.constantFrom('none', 'none', 'none', 'skip', 'repeat', 'badsize', 'abandon', 'halves', 'wrongoff'),
});

describe('HDQ', () => {
  it('assembly matches the golden model: every whole descriptor once, in order per VP, refusals in order', () => {
    fc.assert(
      fc.property(fc.array(pieceArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const w = new HdqWorld(4, 64);
        const m = new HdqModel();
        const send = (vp: number, off: number, d: Uint8Array): void => {
          w.store(vp, off, d);
          m.store(vp, off, d);
        };
        for (const o of ops) {
          const d = desc(o.big ? 128 : 64, o.fill);
          if (o.fault === 'badsize') d[0] = 0x21;
          // pieces as [offset, length]: 64-byte write-combined pieces, or 32-byte halves, or a hole
          const pieces: [number, number][] = o.fault === 'halves' ? [0, 32, 64, 96].slice(0, d.length / 32).map((x) => [x, 32]) : o.fault === 'wrongoff' ? [[0, 32], [64, 64]] : d.length === 128 ? [[0, 64], [64, 64]] : [[0, 64]];
          for (const [k, [off, n]] of pieces.entries()) {
            if (o.fault === 'skip' && k === 1) continue;
            if (o.fault === 'abandon' && k === 1) break;
            send(o.vp, off, d.subarray(off, off + n));
            if (o.fault === 'repeat' && k === pieces.length - 1) send(o.vp, off, d.subarray(off, off + n));
          }
        }
        w.step(200);
        expect(w.errors).toEqual(m.errors);
        for (let vp = 0; vp < 4; vp++) {
          const got = w.out.filter((x) => x.vp === vp);
          expect(got.map((x) => x.seq)).toEqual(got.map((_, i) => i));
          expect(got.map((x) => [...x.bytes])).toEqual(m.accepted.get(vp) ?? []);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a full queue refuses with hdq_full and HDQ_FREE; nothing accepted is lost; other VPs go on', () => {
    const w = new HdqWorld(2, 2);
    w.consume = false;
    // 2 slots + the VP's head register (2) + the readout's output (2) hold 6; the rest are refused
    for (let i = 0; i < 10; i++) w.store(0, 0, desc(64, i));
    w.store(1, 0, desc(64, 99));
    w.step(5);
    expect(w.hdq.free(0)).toBe(0);
    const refused = w.errors.filter((e) => e.vp === 0 && e.error === 'hdq_full').length;
    expect(refused).toBeGreaterThan(0);
    w.consume = true;
    w.step(20);
    expect(w.hdq.free(0)).toBe(2);
    const got0 = w.out.filter((x) => x.vp === 0).map((x) => x.bytes[1]);
    expect(got0.length).toBe(6);
    expect(got0.length + refused).toBe(10);
    expect(got0).toEqual([...got0].sort((a, b) => a! - b!)); // in order
    expect(w.out.filter((x) => x.vp === 1).map((x) => x.bytes[1])).toEqual([99]);
  });

  it('readout is round-robin: a VP with queued descriptors waits at most vps - 1 grants', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 60 }), fc.integer({ min: 1, max: 8 }), (vps, n) => {
        const w = new HdqWorld(n, 64);
        w.consume = false;
        for (const v of vps) w.store(v % n, 0, desc(64, v));
        w.consume = true;
        w.step(200);
        const order = w.out.map((x) => x.vp);
        expect(order.length).toBe(vps.length);
        const left = new Map<number, number>();
        for (const v of order) left.set(v, (left.get(v) ?? 0) + 1);
        // from the first output on, each VP with descriptors left is granted within n grants
        const last = new Map<number, number>();
        order.forEach((v, i) => {
          for (const [u, k] of left) if (k > 0 && u !== v && i - (last.get(u) ?? -1) > n) throw new Error(`VP ${u} waited more than ${n} grants at output ${i}`);
          last.set(v, i);
          left.set(v, left.get(v)! - 1);
        });
      }),
      { numRuns: 100 },
    );
  });

  it('configuration errors name the parameter', () => {
    expect(() => new Hdq(new Simulator({}), 'h', 0)).toThrow(/pioVps/);
    expect(() => new Hdq(new Simulator({}), 'h', 4, 0)).toThrow(/slots/);
  });
});
