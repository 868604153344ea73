/**
 * The readout across HDQ and SDQ: fairness (fast-check): whatever the other VPs do (saturating their
 * heads or not) and however the consumer stalls, a VP whose head holds a descriptor is granted
 * within `vps` grants (at most vps - 1 grants to others first). Also: every descriptor pushed comes
 * out once, in order per VP, decoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Channel, Component, NEVER, Rng, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { blankDesc, DESC_PUT, descConfig, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { type DispatchedDesc, type QueuedDesc, Readout } from '../../rtl/nic/vp/readout.ts';

/** Pushes each VP's descriptors into its head channel from their arrival cycle on (in order, when there is room). */
class Feeder extends Component {
  readonly heads: Channel<QueuedDesc>[];
  readonly pushed: number[][];
  private readonly next: number[];
  private readonly good: Uint8Array;
  constructor(
    parent: Scope,
    private readonly arrivals: number[][],
  ) {
    super(parent, 'feeder');
    this.heads = arrivals.map((_, v) => new Channel<QueuedDesc>(this, `h${v}`, { capacity: 2, latency: 1 }).bindProducer(this));
    this.pushed = arrivals.map(() => []);
    this.next = arrivals.map(() => 0);
    this.good = encodeDescriptor({ ...blankDesc(DESC_PUT), length: 8, dstVp: 1 });
  }
  tick(t: number): number {
    let wake = NEVER;
    for (let v = 0; v < this.arrivals.length; v++) {
      const k = this.next[v]!;
      const a = this.arrivals[v]!;
      if (k >= a.length) continue;
      if (a[k]! <= t && this.heads[v]!.canPush()) {
        const bytes = v % 3 === 2 ? new Uint8Array(64).fill(0xff) : this.good; // some that the decoder rejects
        this.heads[v]!.push({ vp: v, bytes, seq: k });
        this.pushed[v]!.push(t);
        this.next[v] = k + 1;
      }
      if (this.next[v]! < a.length) wake = Math.min(wake, Math.max(t + 1, a[this.next[v]!]!));
    }
    return wake;
  }
}

class Taker extends Component {
  readonly got: DispatchedDesc[] = [];
  constructor(
    parent: Scope,
    private readonly out: Channel<DispatchedDesc>,
    private readonly stall: (t: number) => boolean,
  ) {
    super(parent, 'taker');
    out.bindConsumer(this);
  }
  tick(t: number): number {
    if (!this.out.canPop()) return NEVER;
    if (!this.stall(t)) this.got.push(this.out.pop());
    return t + 1;
  }
}

describe('readout across HDQ and SDQ', () => {
  it('fairness: a VP with a descriptor at its head waits at most vps - 1 grants to others; every descriptor once, in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 2 ** 31 - 1 }), (vps, seed) => {
        const r = new Rng(seed);
        // VP kinds: greedy (a long burst from cycle 0: always at its head), sparse (few, at random cycles), idle
        const arrivals = Array.from({ length: vps }, () => {
          const kind = r.int(3);
          if (kind === 0) return Array.from({ length: 30 + r.int(30) }, () => 0);
          if (kind === 1) return Array.from({ length: 1 + r.int(8) }, () => r.int(600)).sort((a, b) => a - b);
          return [];
        });
        const stallP = r.int(3) / 4;
        const sr = r.fork('stall');
        const stalls = Array.from({ length: 4000 }, () => sr.bool(stallP));
        const sim = new Simulator({});
        const f = new Feeder(sim, arrivals);
        const ro = new Readout(sim, 'readout', f.heads, Math.min(8, vps), descConfig());
        const tk = new Taker(sim, ro.out, (t) => stalls[t] ?? false);
        sim.step(4000);
        const total = arrivals.reduce((a, x) => a + x.length, 0);
        expect(tk.got.length).toBe(total);
        const grants = tk.got.map((d) => d.cycle);
        const byVp = arrivals.map((_, v) => tk.got.filter((d) => d.vp === v));
        for (let v = 0; v < vps; v++) {
          const mine = byVp[v]!;
          expect(mine.map((d) => d.seq)).toEqual(arrivals[v]!.map((_, i) => i));
          expect(mine.every((d) => d.dma === v >= Math.min(8, vps) && (d.reason === 0) === (v % 3 !== 2))).toBe(true);
          let prev = -1;
          for (let k = 0; k < mine.length; k++) {
            // requesting from the cycle the descriptor is visible at the head (after the previous one left)
            const from = Math.max(f.pushed[v]![k]! + 1, prev + 1);
            const g = mine[k]!.cycle;
            const others = grants.filter((c) => c >= from && c < g).length;
            if (others > vps - 1) throw new Error(`VP ${v} descriptor ${k} waited ${others} grants (from cycle ${from} to ${g}), more than ${vps - 1}`);
            prev = g;
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it('configuration errors name the parameter', () => {
    const sim = new Simulator({});
    expect(() => new Readout(sim, 'r', [], 0, descConfig())).toThrow(/needs 1 to 256 VP head channels, got 0/);
    const f = new Feeder(sim, [[], []]);
    expect(() => new Readout(sim, 'r2', f.heads, 3, descConfig())).toThrow(/pioVps must be an integer in \[0, 2\], got 3/);
  });
});
