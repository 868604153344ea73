/**
 * Collective expander (rtl/nic/coll/collExpander.ts), the cases mutation testing
 * (docs/verification.md) found unchecked, driven directly on its two channels: random valid
 * collectives against the golden model (models/nic/collectiveModel.ts on the descriptor the golden
 * decoder reads from the collective's bytes; each child's bytes decoded the same way), one child
 * per cycle while the output has room, the children's dispatch fields; descriptors that pass
 * unchanged (other kinds, a collective the decoder rejected); the idle flag in every state;
 * statistic and register names.
 */
import { describe, expect, it } from 'vitest';
import { Channel, Component, NEVER, Rng, Simulator } from '../../rtl/kernel/index.ts';
import { CollExpander } from '../../rtl/nic/coll/index.ts';
import { blankDesc, DESC_COLL, DESC_PUT, DR_BAD_CHILDREN, DR_OK, encodeDescriptor, type NicDesc } from '../../rtl/nic/desc/index.ts';
import type { DispatchedDesc } from '../../rtl/nic/vp/readout.ts';
import { collectivePuts } from '../../models/nic/collectiveModel.ts';
import { modelDecode } from '../../models/nic/descModel.ts';

const LIMITS = { vps: 4, nodes: 2, items: 64, vaBits: 48 };

/** the readout's and the engine's ends of the two channels */
class Ends extends Component {
  readonly inp: Channel<DispatchedDesc>;
  readonly out: Channel<DispatchedDesc>;
  constructor(sim: Simulator, outCap: number) {
    super(sim, 'ends');
    this.inp = new Channel<DispatchedDesc>(this, 'inp', { capacity: 2, latency: 1 }).bindProducer(this);
    this.out = new Channel<DispatchedDesc>(this, 'out', { capacity: outCap, latency: 1 }).bindConsumer(this);
  }
  tick(): number {
    return NEVER;
  }
}

function bench(outCap = 2) {
  const sim = new Simulator();
  const ends = new Ends(sim, outCap);
  const x = new CollExpander(sim, 'coll', ends.inp, ends.out);
  return { sim, ends, x };
}

function collective(rng: Rng): NicDesc {
  const d = blankDesc(DESC_COLL);
  d.localEvent = rng.int(2) === 1;
  d.remoteEvent = rng.int(2) === 1;
  d.interrupt = rng.int(2) === 1;
  d.userTag = rng.int(0x10000);
  d.eventData = rng.int(2 ** 30);
  d.length = 1 + rng.int(4096);
  d.localKey = rng.int(2 ** 30);
  d.localItem = rng.int(LIMITS.items);
  d.localAddr = rng.int(2 ** 30) * 1024 + rng.int(1024);
  const n = 1 + rng.int(5);
  for (let i = 0; i < n; i++) d.children.push({ node: rng.int(LIMITS.nodes), vp: rng.int(LIMITS.vps), key: rng.int(2 ** 30), addr: rng.int(2 ** 30) * 1024 + rng.int(1024), item: rng.int(LIMITS.items) });
  return d;
}

const dispatched = (desc: NicDesc, seq: number, reason = DR_OK): DispatchedDesc => ({ vp: 1 + (seq % 3), seq, dma: seq % 2 === 0, bytes: encodeDescriptor(desc), reason, field: reason === DR_OK ? '' : 'children', desc, cycle: 7 });

describe('collective expander against the golden model', () => {
  it('random collectives: every child PUT as the model sends it, one per cycle, with the collective dispatch fields', () => {
    const rng = new Rng(5);
    let checked = 0;
    for (let k = 0; k < 40; k++) {
      const desc = collective(rng);
      const x = dispatched(desc, k);
      const v = modelDecode(x.bytes, LIMITS);
      if (v.reason !== 'ok') continue;
      checked++;
      const want = collectivePuts(v.desc!);
      const { sim, ends, x: ex } = bench(1 + rng.int(3));
      ends.inp.push(x);
      const got: { c: DispatchedDesc; at: number }[] = [];
      const hold = rng.int(4); // the engine takes nothing for a few cycles first
      for (let i = 0; i < 40; i++) {
        sim.step(1);
        if (i >= hold) while (ends.out.canPop()) got.push({ c: ends.out.pop(), at: sim.cycle });
      }
      expect(got.length).toBe(want.length);
      got.forEach(({ c }, i) => {
        expect(modelDecode(c.bytes, LIMITS).desc, `collective ${k} child ${i}`).toEqual(want[i]);
        expect(c.bytes).toEqual(encodeDescriptor(c.desc));
        expect([c.vp, c.seq, c.dma, c.reason, c.field]).toEqual([x.vp, x.seq, x.dma, DR_OK, '']);
      });
      // pushed one per cycle (cycle = the push cycle): consecutive while the output has room
      const cycles = got.map(({ c }) => c.cycle);
      for (let i = 1; i < cycles.length; i++) expect(cycles[i]! - cycles[i - 1]!).toBeGreaterThanOrEqual(1);
      if (hold === 0 && ends.out.capacity >= 2) for (let i = 1; i < cycles.length; i++) expect(cycles[i]! - cycles[i - 1]!, `collective ${k}`).toBe(1);
      expect([ex.stats.collectives.value, ex.stats.children.value, ex.stats.passed.value]).toEqual([1, want.length, 0]);
      expect(ex.idle).toBe(true);
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('other descriptors and a rejected collective pass unchanged, in order', () => {
    const { sim, ends, x } = bench(4);
    const put = blankDesc(DESC_PUT, 64);
    const rejected = collective(new Rng(9));
    const a = dispatched(put, 1);
    const b = dispatched(rejected, 2, DR_BAD_CHILDREN);
    ends.inp.push(a);
    ends.inp.push(b);
    const got: DispatchedDesc[] = [];
    for (let i = 0; i < 10; i++) {
      sim.step(1);
      while (ends.out.canPop()) got.push(ends.out.pop());
    }
    expect(got).toEqual([a, b]);
    expect(got[1]).toBe(b);
    expect([x.stats.collectives.value, x.stats.children.value, x.stats.passed.value]).toEqual([0, 0, 2]);
  });
});

describe('collective expander state', () => {
  it('idle only with nothing held and nothing waiting; statistic and register names', () => {
    const { sim, ends, x } = bench(1);
    expect(Object.keys(sim.stats.toJSON()).filter((k) => k.startsWith('coll.'))).toEqual(['coll.children', 'coll.collectives', 'coll.passed']);
    expect(x._signals.map((s) => [s.name, s.width])).toEqual([
      ['state', 1],
      ['child', 3],
    ]);
    expect(x.idle).toBe(true);
    const d = collective(new Rng(3));
    d.children.length = 3;
    ends.inp.push(dispatched(d, 0));
    expect(x.idle).toBe(true); // not visible yet
    sim.step(1);
    expect(x.idle).toBe(false); // waiting at the input
    sim.step(1);
    // child 0 sent, children 1 and 2 held; the output (capacity 1) is full
    expect(ends.inp.canPop()).toBe(false);
    expect(x.idle).toBe(false);
    for (let i = 0; i < 3; i++) {
      sim.step(2);
      expect(x.idle, `after child ${i}`).toBe(i === 2);
      ends.out.pop();
    }
    sim.step(3);
    expect(x.stats.children.value).toBe(3);
    expect(x.idle).toBe(true);
  });
});
