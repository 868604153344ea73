/**
 * The PCIe read mux (rtl/nic/pcie/readMux.ts) in front of the real PCIe attachment: random reads
 * from 2 to 4 requesters, each of which takes its completions every cycle. Every read completes
 * exactly once, at its own requester, with its own tag untouched and the bytes of host memory;
 * the round-robin fairness bound holds (a requester with a read waiting is granted before any other
 * requester is granted n times); one requester's reads keep their order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Channel, Component, NEVER, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { buildPcie, DmaRead, type ReadChunk, ReadMux } from '../../rtl/nic/pcie/index.ts';

interface Issued {
  r: DmaRead;
  pushed: number;
}

/** A requester: pushes its reads as fast as the mux takes them (or one every `gap` cycles), pops a chunk every cycle. */
class Requester extends Component {
  readonly issued: Issued[] = [];
  readonly done: { r: DmaRead; cycle: number }[] = [];
  readonly chunks: ReadChunk[] = [];
  private k = 0;
  private nextAt = 0;
  constructor(
    parent: Scope,
    name: string,
    private readonly out: Channel<DmaRead>,
    private readonly back: Channel<ReadChunk>,
    private readonly reads: { addr: number; len: number }[],
    private readonly gap: number,
  ) {
    super(parent, name);
    out.bindProducer(this);
    back.bindConsumer(this);
  }
  tick(t: number): number {
    if (this.k < this.reads.length && t >= this.nextAt && this.out.canPush()) {
      const r = new DmaRead();
      r.tag = 1000 + this.k;
      r.addr = this.reads[this.k]!.addr;
      r.len = this.reads[this.k]!.len;
      this.out.push(r);
      this.issued.push({ r, pushed: t });
      this.k++;
      this.nextAt = t + this.gap;
    }
    if (this.back.canPop()) {
      const c = this.back.pop();
      this.chunks.push(c);
      if (c.last) this.done.push({ r: c.req, cycle: t });
    }
    return this.k < this.reads.length || this.back.canPop() ? t + 1 : NEVER;
  }
}

function byteAt(a: number): number {
  return (a * 31 + (a >> 9)) & 0xff;
}

/** Runs the requesters to the end; `grants[i][k]` is the cycle the mux granted requester i's k-th read (from its counters, read between cycles). */
function run(perReq: { addr: number; len: number }[][], gaps: number[]): { reqs: Requester[]; sim: Simulator; grants: number[][] } {
  const sim = new Simulator({});
  const pcie = buildPcie(sim, 'pcie', { tags: 8 });
  const mem = new Uint8Array(1 << 16);
  for (let i = 0; i < mem.length; i++) mem[i] = byteAt(i);
  pcie.mem.write(0, mem);
  const names = perReq.map((_, i) => `r${i}`);
  const mux = new ReadMux(sim, 'mux', names, pcie.ep.readIn, pcie.ep.readOut);
  const reqs = perReq.map((reads, i) => new Requester(sim, names[i]!, mux.ins[i]!, mux.outs[i]!, reads, gaps[i]!));
  const total = perReq.reduce((s, r) => s + r.length, 0);
  const counters = names.map((r) => sim.stats.get(`mux.reads_${r}`) as { value: number });
  const grants: number[][] = names.map(() => []);
  while (reqs.reduce((s, q) => s + q.done.length, 0) < total) {
    if (sim.cycle > 1e6) throw new Error('the reads did not complete');
    const t = sim.cycle;
    sim.step(1);
    counters.forEach((c, i) => {
      if (c.value > grants[i]!.length) grants[i]!.push(t);
    });
  }
  return { reqs, sim, grants };
}

const readArb = fc.record({ addr: fc.integer({ min: 0, max: 60000 }), len: fc.integer({ min: 1, max: 1200 }) });

describe('PCIe read mux', () => {
  it('every read completes once at its requester with its tag and the host bytes; fairness bound n; per-requester order kept', () => {
    fc.assert(
      fc.property(fc.array(fc.array(readArb, { minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 4 }), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 }), (perReq, gaps) => {
        const { reqs, grants: g } = run(perReq, gaps);
        const n = reqs.length;
        const grants: { port: number; cycle: number }[] = [];
        reqs.forEach((q, i) => {
          expect(q.done.length).toBe(perReq[i]!.length);
          expect(new Set(q.done.map((d) => d.r)).size).toBe(q.done.length);
          for (const c of q.chunks) expect(q.issued.some((x) => x.r === c.req), `requester ${i} got another's completion`).toBe(true);
          q.issued.forEach((x, k) => {
            expect(x.r.tag).toBe(1000 + k);
            expect(x.r.port).toBe(i);
            expect(x.r.error).toBe('');
            expect([...x.r.data!]).toEqual(Array.from({ length: x.r.len }, (_, j) => byteAt(x.r.addr + j)));
            grants.push({ port: i, cycle: g[i]![k]! });
            // one requester's reads reach the endpoint in the order it issued them
            if (k > 0) expect(x.r.acceptCycle).toBeGreaterThan(q.issued[k - 1]!.r.acceptCycle);
          });
        });
        // fairness: while a read of requester i is at the head of its channel (visible, its predecessor granted) and not
        // yet granted, others are granted fewer than n times
        reqs.forEach((q, i) =>
          q.issued.forEach((x, k) => {
            const head = Math.max(x.pushed + 1, k > 0 ? g[i]![k - 1]! + 1 : 0);
            const others = grants.filter((o) => o.port !== i && o.cycle >= head && o.cycle < g[i]![k]!).length;
            expect(others, `requester ${i} read ${x.r.tag} waited behind ${others} grants`).toBeLessThan(n);
          }),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('three saturating requesters are served in strict rotation', () => {
    const reads = Array.from({ length: 10 }, (_, k) => ({ addr: 64 * k, len: 64 }));
    const { grants } = run([reads, reads, reads], [0, 0, 0]);
    const order = grants.flatMap((cs, i) => cs.map((c) => ({ i, c }))).sort((a, b) => a.c - b.c);
    const ports = order.map((o) => o.i);
    // after the first grant the pointer rotates: every window of three grants holds all three requesters
    for (let k = 0; k + 3 <= ports.length; k++) expect(new Set(ports.slice(k, k + 3)).size, `grants ${k}..${k + 2}: ${ports.slice(k, k + 3)}`).toBe(3);
  });

  it('a requester count outside 1..64 is refused naming the block', () => {
    const sim = new Simulator({});
    const pcie = buildPcie(sim, 'pcie');
    expect(() => new ReadMux(sim, 'mux', [], pcie.ep.readIn, pcie.ep.readOut)).toThrow(/mux: needs 1 to 64 requesters, got 0/);
  });
});
