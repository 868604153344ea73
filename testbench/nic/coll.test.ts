/**
 * Collective descriptors on two NICs against the golden model (models/nic/rdmaModel.ts with
 * models/nic/collectiveModel.ts): a collective sends its element to every child (one PUT per
 * child, the same source buffer), remote events per child, one local event at the end;
 * model-based over random children (nodes, VPs, items right and wrong, keys right and wrong,
 * alignments, lengths, physical buffers), mixed with PUTs and memory-checker updates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { blankDesc, type CollChild, DESC_COLL, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { defaultPa } from '../../models/nic/rdmaModel.ts';
import { baseItem, ITEMS, itemCommand, queueBase, RdmaWorld, setup, submitCommand, VPS } from './rdmaWorld.ts';

interface ChildSpec {
  /** 0: the other node, 1: the collective's own node */
  self: boolean;
  vp: number;
  /** -1 - k: the k-th item of the child's VP; else that item */
  item: number;
  keyOk: boolean;
  off: number;
}

interface CollSpec {
  me: number;
  vp: number;
  /** -1 - k: the k-th item of the VP; else that item */
  item: number;
  keyOk: boolean;
  off: number;
  len: number;
  flags: number;
  tag: number;
  children: ChildSpec[];
}

const childArb: fc.Arbitrary<ChildSpec> = fc.record({
  self: fc.constantFrom(false, false, false, true),
  vp: fc.integer({ min: 0, max: VPS - 1 }),
  item: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => -1 - k), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: ITEMS - 1 }), weight: 1 }),
  keyOk: fc.constantFrom(true, true, true, true, false),
  off: fc.integer({ min: 0, max: 5 * 4096 - 1 }),
});

const collArb: fc.Arbitrary<CollSpec> = fc.record({
  me: fc.integer({ min: 0, max: 1 }),
  vp: fc.integer({ min: 0, max: VPS - 1 }),
  item: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 3 }).map((k) => -1 - k), weight: 6 }, { arbitrary: fc.integer({ min: 0, max: ITEMS - 1 }), weight: 1 }),
  keyOk: fc.constantFrom(true, true, true, true, false),
  off: fc.integer({ min: 0, max: 3 * 4096 - 1 }),
  len: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 300 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 6000 }), weight: 2 }),
  flags: fc.integer({ min: 0, max: 7 }),
  tag: fc.integer({ min: 0, max: 0xffff }),
  children: fc.array(childArb, { minLength: 1, maxLength: 5 }),
});

/** an item index: a negative choice -1 - k names the k-th item of VP vp */
function itemOf(choice: number, vp: number): number {
  return choice < 0 ? vp + VPS * (-1 - choice) : choice;
}

function buildColl(s: CollSpec): Uint8Array {
  const d = blankDesc(DESC_COLL);
  const li = itemOf(s.item, s.vp);
  d.localEvent = (s.flags & 1) !== 0;
  d.remoteEvent = (s.flags & 2) !== 0;
  d.interrupt = (s.flags & 4) !== 0;
  d.physical = baseItem(li).physical ?? false;
  d.dstNode = 1 - s.me;
  d.userTag = s.tag;
  d.eventData = (s.tag * 40503) >>> 0;
  d.length = s.len;
  d.localItem = li;
  d.localKey = baseItem(li).key + (s.keyOk ? 0 : 1);
  d.localAddr = baseItem(li).basePage * 4096 + s.off;
  d.children = s.children.map((c): CollChild => {
    const item = itemOf(c.item, c.vp);
    return { node: c.self ? s.me : 1 - s.me, vp: c.vp, item, key: baseItem(item).key + (c.keyOk ? 0 : 1), addr: baseItem(item).basePage * 4096 + c.off };
  });
  return encodeDescriptor(d);
}

/** a plain PUT between the VPs' own items (the traffic collectives run among) */
function buildPut(me: number, vp: number, dstVp: number, off: number, len: number): Uint8Array {
  const d = blankDesc(DESC_PUT);
  const li = itemOf(-1, vp);
  const ri = itemOf(-2, dstVp);
  Object.assign(d, { dstNode: 1 - me, dstVp, localEvent: true, remoteEvent: true, userTag: 0xbeef, length: len, localItem: li, localKey: baseItem(li).key, localAddr: baseItem(li).basePage * 4096, remoteItem: ri, remoteKey: baseItem(ri).key, remoteAddr: baseItem(ri).basePage * 4096 + off });
  return encodeDescriptor(d);
}

const collCmd = submitCommand('coll', collArb, (s) => [s.me, s.vp, buildColl(s)]);
const putArb = fc.record({ me: fc.integer({ min: 0, max: 1 }), vp: fc.integer({ min: 0, max: VPS - 1 }), dstVp: fc.integer({ min: 0, max: VPS - 1 }), off: fc.integer({ min: 0, max: 4 * 4096 }), len: fc.integer({ min: 1, max: 4096 }) });
const putCmd = submitCommand('put', putArb, (p) => [p.me, p.vp, buildPut(p.me, p.vp, p.dstVp, p.off, p.len)]);
const itemCmd = itemCommand(['invalid', 'readonly', 'rekey', 'restore']);

const eq = (w: RdmaWorld, n: number, vp: number, i: number): Uint8Array => w.pair.nics[n].pcie.mem.read(queueBase(0, vp) + 32 * i, 32);

describe('collective descriptors (two NICs)', () => {
  it('one collective sends the element to every child: each child buffer holds the source bytes, one remote event per child, one local event at the end', () => {
    const w = new RdmaWorld();
    setup(w);
    const s: CollSpec = {
      me: 0,
      vp: 1,
      item: -1,
      keyOk: true,
      off: 4000,
      len: 1500,
      flags: 3,
      tag: 42,
      children: [
        { self: false, vp: 0, item: -1, keyOk: true, off: 100 },
        { self: false, vp: 2, item: -2, keyOk: true, off: 4090 },
        { self: false, vp: 3, item: -1, keyOk: true, off: 0 },
      ],
    };
    w.submit(0, 1, buildColl(s));
    w.compare();
    const src = w.pair.nics[0].pcie.mem.read(defaultPa(baseItem(1).basePage * 4096 + 4000, 1), 96);
    for (const c of s.children) {
      const it = baseItem(itemOf(c.item, c.vp));
      const dst = w.pair.nics[1].pcie.mem.read(defaultPa(it.basePage * 4096 + c.off, c.vp), 96);
      expect([...dst], `child VP ${c.vp}`).toEqual([...src]);
      // one remote event on the child's VP: type 2, opcode PUT, the parent's node and VP, the child's address
      expect(w.pair.nics[1].queues.state(0, c.vp).prod).toBe(1);
      const ev = eq(w, 1, c.vp, 0);
      expect([ev[0], ev[1], ev[4], ev[6], ev[8]]).toEqual([2, 1, 42, 0, 1]);
    }
    // the parent: exactly one local event (naming the last child), no other entry
    expect(w.pair.nics[0].queues.state(0, 1).prod).toBe(1);
    expect([eq(w, 0, 1, 0)[0], eq(w, 0, 1, 0)[8]]).toEqual([1, 3]);
    expect(w.pair.nics[0].tx.stats.ops.value).toBe(3);
    expect(w.pair.nics[0].coll.stats.children.value).toBe(3);
  });

  it('children with a wrong key or another VP\'s item: the others land; each refusal is an error event on the parent VP; the local event still comes at the end', () => {
    const w = new RdmaWorld();
    setup(w);
    const s: CollSpec = {
      me: 1,
      vp: 2,
      item: -1,
      keyOk: true,
      off: 0,
      len: 700,
      flags: 3,
      tag: 7,
      children: [
        { self: false, vp: 0, item: -1, keyOk: false, off: 0 },
        { self: false, vp: 1, item: -1, keyOk: true, off: 10 },
        { self: false, vp: 3, item: 2, keyOk: true, off: 0 }, // item 2 belongs to VP 2
        { self: false, vp: 2, item: -1, keyOk: true, off: 20 },
      ],
    };
    w.submit(1, 2, buildColl(s));
    w.compare();
    const evs = Array.from({ length: w.pair.nics[1].queues.state(0, 2).prod }, (_, i) => eq(w, 1, 2, i));
    expect(evs.filter((e) => e[0] === 3).map((e) => e[2]).sort()).toEqual([2, 6]);
    expect(evs.filter((e) => e[0] === 1)).toHaveLength(1);
    expect([0, 1, 2, 3].map((vp) => w.pair.nics[0].queues.state(0, vp).prod)).toEqual([0, 1, 1, 0]);
  });

  it('a collective whose local key is wrong: every child is refused locally, nothing leaves the NIC', () => {
    const w = new RdmaWorld();
    setup(w);
    w.submit(0, 3, buildColl({ me: 0, vp: 3, item: -1, keyOk: false, off: 0, len: 64, flags: 1, tag: 1, children: [{ self: false, vp: 0, item: -1, keyOk: true, off: 0 }, { self: false, vp: 1, item: -1, keyOk: true, off: 0 }] }));
    w.compare();
    expect(w.pair.nics[0].tx.stats.packets.value).toBe(0);
    expect(Array.from({ length: 2 }, (_, i) => eq(w, 0, 3, i)[2])).toEqual([2, 2]);
  });

  it('model-based: collectives mixed with PUTs and memory-checker updates; both hosts equal the golden model after every command', () => {
    fc.assert(
      fc.property(fc.commands([collCmd, collCmd, collCmd, putCmd, itemCmd], { maxCommands: 10 }), (cmds) => {
        fc.modelRun(() => {
          const w = new RdmaWorld();
          setup(w);
          return { model: {}, real: { w } };
        }, cmds);
      }),
      { numRuns: 12 },
    );
  });
});
