/**
 * Endless random RDMA traffic between two NICs (rtl/nic/nicPair.ts) and its checker, for the
 * `nic-rdma` soak entry. Eight streams, one per PIO VP: stream s's process runs on node s mod 2,
 * VP s, and targets VP s of the other node, one operation at a time (IMM_PUT 20 %, PUT 40 %, GET
 * 40 %; 1 to 300 bytes (65 %), to 2,000 (30 %), to 16 KiB (5 %); random offsets in a 4-page item of its VP on each node; about 1 in 16 with a
 * wrong key or a remote range past the item's end). Every descriptor is stored by the CPU into the
 * VP's HDQ window (PCIe write combining, register file, HDQ, readout, transmit engine).
 *
 * The golden model (models/nic/rdmaModel.ts with its queue model) runs each operation when it is
 * submitted. Streams share nothing but the INTQ: each EQ (node, VP) has one stream's events, and a
 * stream's buffers are its own, so the model's one-at-a-time order gives the same bytes as the
 * NICs' concurrent one. An operation is judged when every EQ entry the model made for it has
 * landed in host memory: the entries byte for byte, the queue's producer count, and the bytes of
 * its destination range (and 64 bytes either side) on the destination node; then the driver
 * consumes the entries (the VP's process stores the EQ's new read pointer, EQ_RPTR; the model
 * consumes them too), so the queues never fill. The queues are registered by register stores
 * (EQ_BASE / EQ_SIZE in each VP's page, INTQ_* in the control page), the INTQ's entries consumed
 * by the kernel's INTQ_RPTR stores. INTQ
 * entries (refusals) land in any order across streams: each must be one the model made and not
 * yet seen. Every host write must land in a queue ring or in a writable item. Kept: the model's
 * bytes of the items and rings (bounded by their size), one operation per stream, the INTQ
 * entries expected and not yet landed, and counts.
 */
import { Simulator } from '../../rtl/kernel/index.ts';
import { Rng } from '../../rtl/kernel/rng.ts';
import { blankDesc, DESC_GET, DESC_IMM_PUT, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { ItemWrite } from '../../rtl/nic/memcheck/types.ts';
import { buildNicPair, type NicPair } from '../../rtl/nic/nicPair.ts';
import { PioWrite } from '../../rtl/nic/pcie/index.ts';
import { Q_EQ, Q_INTQ } from '../../rtl/nic/queues/index.ts';
import { NC_INTQ_BASE, NC_INTQ_RPTR, NC_INTQ_SIZE, VR_EQ_BASE, VR_EQ_RPTR, VR_EQ_SIZE, VR_HDQ_WINDOW } from '../../rtl/nic/vp/index.ts';
import { reg64 } from '../../experiments/nic/frontEnd.ts';
import type { ModelItem } from '../../models/nic/memcheckModel.ts';
import { defaultPa, RdmaModel } from '../../models/nic/rdmaModel.ts';

/** A CPU store of an 8-byte register: page (a VP's, or the control page after them), offset, value, by `writer` (-1: the kernel). */
interface RegStore {
  writer: number;
  page: number;
  off: number;
  value: number;
}

export const STREAMS = 8;
const ITEMS = STREAMS;
const PAGES = 4;
const ITEM_BYTES = PAGES * 4096;
const EQ_SIZE = 64;
const INTQ_SIZE = 64;
const EQ_BYTES = 32;
const INTQ_BYTES = 16;
const MAX_PAYLOAD = 256;
/** driver actions (stores, consumes, judging) between chunks of this many cycles */
const CHUNK = 16;
/** an operation not judged this many cycles after its store has hung */
export const HUNG_CYCLES = 1_000_000;

const eqBase = (vp: number): number => 0x1000_0000 + vp * 0x10_0000;
const INTQ_AT = 0x1800_0000;

function item(s: number): ModelItem {
  return { valid: true, key: 1000 + s, read: true, write: true, basePage: 0x40 * (s + 1), topPage: 0x40 * (s + 1) + PAGES - 1, vp: s, physical: false };
}

/** software's initial contents of item s on node n */
const initial = (n: number, s: number, va: number): number => ((n * 100 + s) * 131 + va * 7 + (va >> 8)) & 0xff;

interface Op {
  seq: number;
  kind: 'imm_put' | 'put' | 'get';
  bad: boolean;
  storedAt: number;
  /** destination node and its virtual range */
  dstNode: number;
  dstVa: number;
  len: number;
  /** EQ entries the model made for it on the initiator and on the target */
  want: [number, number];
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

export class RdmaTraffic {
  readonly sim = new Simulator({});
  readonly pair: NicPair;
  readonly model: RdmaModel;
  readonly problems: string[] = [];
  private readonly rng: Rng;
  private readonly op: (Op | null)[] = new Array<Op | null>(STREAMS).fill(null);
  private readonly seq = new Float64Array(STREAMS);
  /** EQ entries landed and not yet consumed, per node and VP */
  private readonly landed: [Int32Array, Int32Array] = [new Int32Array(STREAMS), new Int32Array(STREAMS)];
  /** INTQ entries the model made and the NIC has not written yet (hex -> count), per node */
  private readonly intqWant: [Map<string, number>, Map<string, number>] = [new Map(), new Map()];
  private readonly intqSeenByModel = [0, 0];
  private readonly intqLanded = [0, 0];
  /** register stores waiting for the CPU's store queue (queue registrations and read pointers), per node */
  private readonly sw: [RegStore[], RegStore[]] = [[], []];
  /** page frames of every item (host writes must land in one of them or in a ring) */
  private readonly frames = new Set<number>();
  readonly done = { imm_put: 0, put: 0, get: 0 };
  refused = 0;
  bytes = 0;
  maxIntqPending = 0;

  constructor(seed: number) {
    this.rng = new Rng(seed);
    this.pair = buildNicPair(this.sim, {
      nic: { vp: { pioVps: STREAMS, dmaVps: 0 }, items: ITEMS, att: { readLatency: 40, jitter: 8 }, atc: { entries: 256, ways: 4 }, rdma: { maxPayload: MAX_PAYLOAD, maxTransfer: 1 << 16 } },
      link: { latency: 60 },
    });
    this.model = new RdmaModel({ vps: STREAMS, items: ITEMS, maxPayload: MAX_PAYLOAD, maxTransfer: 1 << 16, epqEnabled: false });
    for (const n of [0, 1] as const) {
      const nic = this.pair.nics[n];
      nic.pcie.host.onWrite = (tlp) => this.landing(n, tlp.addr, tlp.data!.subarray(0, tlp.len));
      for (let vp = 0; vp < STREAMS; vp++) {
        this.sw[n].push({ writer: -1, page: vp, off: VR_EQ_BASE, value: eqBase(vp) }, { writer: -1, page: vp, off: VR_EQ_SIZE, value: EQ_SIZE });
        this.model.nodes[n].queues.software({ op: 'register', kind: Q_EQ, vp, base: eqBase(vp), size: EQ_SIZE, count: 0 });
      }
      this.sw[n].push({ writer: -1, page: STREAMS, off: NC_INTQ_BASE, value: INTQ_AT }, { writer: -1, page: STREAMS, off: NC_INTQ_SIZE, value: INTQ_SIZE });
      this.model.nodes[n].queues.software({ op: 'register', kind: Q_INTQ, vp: 0, base: INTQ_AT, size: INTQ_SIZE, count: 0 });
      this.flushStores(n);
      this.sim.step(1000);
      for (let s = 0; s < ITEMS; s++) {
        const it = item(s);
        const w = new ItemWrite();
        Object.assign(w, { index: s, valid: it.valid, key: it.key, read: it.read, write: it.write, basePage: it.basePage, topPage: it.topPage, vp: it.vp, physical: false });
        nic.mem.checker.loadItem(w);
        this.model.setItem(n, s, it);
        for (let p = it.basePage; p <= it.topPage; p++) {
          const pa = defaultPa(p * 4096, s);
          this.frames.add(pa / 4096);
          const b = new Uint8Array(4096);
          for (let i = 0; i < 4096; i++) b[i] = initial(n, s, p * 4096 + i);
          nic.pcie.mem.write(pa, b);
          const va0 = p * 4096;
          this.model.nodes[n].images.push({ lo: pa, hi: pa + 4096, byte: (a) => initial(n, s, va0 + a - pa) });
        }
      }
    }
  }

  private fail(m: string): void {
    if (this.problems.length < 10) this.problems.push(m);
  }

  /** A host write of node n: into an EQ (counted), the INTQ (checked against the model now) or an item page. */
  private landing(n: 0 | 1, addr: number, data: Uint8Array): void {
    for (let vp = 0; vp < STREAMS; vp++) {
      const b = eqBase(vp);
      if (addr >= b && addr < b + EQ_SIZE * EQ_BYTES) {
        if (data.length % EQ_BYTES !== 0 || (addr - b) % EQ_BYTES !== 0) this.fail(`node ${n}: an EQ write of ${data.length} bytes at 0x${addr.toString(16)} is not whole entries`);
        this.landed[n][vp]! += data.length / EQ_BYTES;
        return;
      }
    }
    if (addr >= INTQ_AT && addr < INTQ_AT + INTQ_SIZE * INTQ_BYTES) {
      for (let off = 0; off + INTQ_BYTES <= data.length; off += INTQ_BYTES) {
        const k = hex(data.subarray(off, off + INTQ_BYTES));
        const c = this.intqWant[n].get(k);
        if (c === undefined) this.fail(`node ${n}: INTQ entry ${k} written, but the golden model made no such entry (or it was written twice)`);
        else if (c === 1) this.intqWant[n].delete(k);
        else this.intqWant[n].set(k, c - 1);
        this.intqLanded[n]++;
      }
      this.model.nodes[n].queues.software({ op: 'consume', kind: Q_INTQ, vp: 0, base: 0, size: 0, count: data.length / INTQ_BYTES });
      this.sw[n].push({ writer: -1, page: STREAMS, off: NC_INTQ_RPTR, value: this.model.nodes[n].queues.ring(Q_INTQ).cons });
      return;
    }
    const first = Math.floor(addr / 4096);
    const last = Math.floor((addr + data.length - 1) / 4096);
    for (let f = first; f <= last; f++) if (!this.frames.has(f)) return this.fail(`node ${n}: a write of ${data.length} bytes at 0x${addr.toString(16)} lands outside every queue ring and item`);
  }

  /** The model's new INTQ entries of node n go to the expected multiset. */
  private collectIntq(n: 0 | 1): void {
    const q = this.model.nodes[n].queues;
    const r = q.ring(Q_INTQ);
    for (; this.intqSeenByModel[n]! < r.prod; this.intqSeenByModel[n]!++) {
      const at = INTQ_AT + (this.intqSeenByModel[n]! % INTQ_SIZE) * INTQ_BYTES;
      const e = new Uint8Array(INTQ_BYTES);
      for (let i = 0; i < INTQ_BYTES; i++) e[i] = q.mem.get(at + i) ?? 0;
      const k = hex(e);
      this.intqWant[n].set(k, (this.intqWant[n].get(k) ?? 0) + 1);
    }
  }

  /** A new random operation for stream s, stored into its VP's HDQ window. */
  private submit(s: number): boolean {
    const me = s % 2;
    const host = this.pair.nics[me].pcie.host;
    if (!host.pioIn.canPush()) return false;
    const rng = this.rng;
    const r = rng.int(10);
    const kind = r < 2 ? 'imm_put' : r < 6 ? 'put' : 'get';
    const it = item(s);
    let len: number;
    if (kind === 'imm_put') len = 1 + rng.int(80);
    else {
      const c = rng.int(20);
      len = 1 + rng.int(c < 13 ? 300 : c < 19 ? 2000 : ITEM_BYTES);
    }
    const d = blankDesc(kind === 'imm_put' ? DESC_IMM_PUT : kind === 'put' ? DESC_PUT : DESC_GET, kind === 'imm_put' && len > 16 ? 128 : undefined);
    if (kind === 'imm_put') d.data = Uint8Array.from({ length: len }, () => rng.int(256));
    else {
      d.localItem = s;
      d.localKey = it.key;
      d.localAddr = it.basePage * 4096 + rng.int(ITEM_BYTES - len + 1);
    }
    d.length = len;
    d.dstNode = 1 - me;
    d.dstVp = s;
    d.remoteItem = s;
    d.remoteKey = it.key;
    d.remoteAddr = it.basePage * 4096 + rng.int(ITEM_BYTES - len + 1);
    d.userTag = rng.int(0x10000);
    d.eventData = this.seq[s]! % 2 ** 32;
    d.localEvent = true;
    d.remoteEvent = true;
    const bad = rng.int(16) === 0;
    if (bad) {
      const how = rng.int(3);
      if (how === 0 && kind !== 'imm_put') d.localKey = it.key + 1;
      else if (how === 1) d.remoteKey = it.key + 1;
      else d.remoteAddr = it.basePage * 4096 + ITEM_BYTES - len + 1 + rng.int(4096);
    }
    const bytes = encodeDescriptor(d);
    const st = new PioWrite();
    st.writer = s;
    st.addr = s * 4096 + VR_HDQ_WINDOW;
    st.data = bytes;
    host.pioIn.push(st);
    const before: [number, number] = [this.model.nodes[me].queues.ring(Q_EQ, s).prod, this.model.nodes[1 - me].queues.ring(Q_EQ, s).prod];
    this.model.run(me, s, bytes);
    const want: [number, number] = [this.model.nodes[me].queues.ring(Q_EQ, s).prod - before[0], this.model.nodes[1 - me].queues.ring(Q_EQ, s).prod - before[1]];
    this.collectIntq(me as 0 | 1);
    this.collectIntq((1 - me) as 0 | 1);
    const dstNode = kind === 'get' ? me : 1 - me;
    this.op[s] = { seq: this.seq[s]!, kind, bad, storedAt: this.sim.cycle, dstNode, dstVa: kind === 'get' ? d.localAddr : d.remoteAddr, len, want };
    this.seq[s]!++;
    return true;
  }

  /** Stream s's operation, every EQ entry landed: compare entries, producer counts and the destination bytes; consume. */
  private judge(s: number, o: Op): void {
    const me = s % 2;
    const tag = `stream ${s} op #${o.seq} (${o.kind}, ${o.len} B${o.bad ? ', bad on purpose' : ''})`;
    const ends: [number, number][] = [
      [me, o.want[0]],
      [1 - me, o.want[1]],
    ];
    for (const [n, count] of ends) {
      const q = this.model.nodes[n]!.queues;
      const r = q.ring(Q_EQ, s);
      const st = this.pair.nics[n]!.queues.state(Q_EQ, s);
      if (st.prod !== r.prod || st.overflows !== r.overflows) this.fail(`${tag}: node ${n} EQ ${s}: producer ${st.prod}, overflows ${st.overflows}; the model's ${r.prod}, ${r.overflows}`);
      for (let k = r.prod - count; k < r.prod; k++) {
        const at = eqBase(s) + (k % EQ_SIZE) * EQ_BYTES;
        const got = this.pair.nics[n]!.pcie.mem.read(at, EQ_BYTES);
        for (let i = 0; i < EQ_BYTES; i++)
          if (got[i] !== (q.mem.get(at + i) ?? 0)) {
            this.fail(`${tag}: node ${n} EQ ${s} entry ${k} differs from the golden model's at byte ${i}`);
            break;
          }
      }
      if (count > 0) {
        q.software({ op: 'consume', kind: Q_EQ, vp: s, base: 0, size: 0, count });
        this.sw[n as 0 | 1].push({ writer: s, page: s, off: VR_EQ_RPTR, value: q.ring(Q_EQ, s).cons });
        this.landed[n as 0 | 1][s]! -= count;
      }
    }
    // the destination bytes (and 64 either side, inside the item)
    const it = item(s);
    const lo = Math.max(it.basePage * 4096, o.dstVa - 64);
    const hi = Math.min((it.topPage + 1) * 4096, o.dstVa + o.len + 64);
    const mn = this.model.nodes[o.dstNode]!;
    const mem = this.pair.nics[o.dstNode]!.pcie.mem;
    for (let va = lo; va < hi; ) {
      const n = Math.min(4096 - (va % 4096), hi - va);
      const pa = defaultPa(va, s);
      const got = mem.read(pa, n);
      for (let i = 0; i < n; i++)
        if (got[i] !== mn.read(pa + i)) {
          this.fail(`${tag}: node ${o.dstNode} byte at virtual 0x${(va + i).toString(16)} is 0x${got[i]!.toString(16)}, the golden model's 0x${mn.read(pa + i).toString(16)}`);
          va = hi;
          break;
        }
      va += n;
    }
    if (o.bad) this.refused++;
    else this.bytes += o.len;
    this.done[o.kind]++;
    this.op[s] = null;
  }

  /** The waiting register stores of node n into the CPU's store queue, as far as it has room. */
  private flushStores(n: 0 | 1): void {
    const host = this.pair.nics[n].pcie.host;
    while (this.sw[n].length > 0 && host.pioIn.canPush()) {
      const r = this.sw[n].shift()!;
      const w = new PioWrite();
      w.writer = r.writer;
      w.addr = r.page * 4096 + r.off;
      w.data = reg64(r.value);
      host.pioIn.push(w);
    }
  }

  /** Simulate until `to`, acting between chunks: store new operations, judge finished ones, push queue commands. */
  runTo(to: number): void {
    while (this.sim.cycle < to) {
      for (let s = 0; s < STREAMS; s++) {
        const o = this.op[s];
        if (o === null) this.submit(s);
        else if (this.landed[s % 2]![s]! >= o.want[0] && this.landed[1 - (s % 2)]![s]! >= o.want[1]) this.judge(s, o);
      }
      for (const n of [0, 1] as const) this.flushStores(n);
      this.sim.step(Math.min(CHUNK, to - this.sim.cycle));
    }
  }

  /** Problems so far and bounds: no hung operation, INTQ entries expected and not yet written bounded. */
  check(): string[] {
    const out = this.problems.splice(0, this.problems.length);
    for (let s = 0; s < STREAMS; s++) {
      const o = this.op[s];
      if (o !== null && this.sim.cycle - o.storedAt > HUNG_CYCLES) out.push(`stream ${s} op #${o.seq} (${o.kind}) stored at cycle ${o.storedAt} has not completed`);
    }
    for (const n of [0, 1] as const) {
      let pending = 0;
      for (const c of this.intqWant[n].values()) pending += c;
      this.maxIntqPending = Math.max(this.maxIntqPending, pending);
      if (pending > 2 * STREAMS) out.push(`node ${n}: ${pending} INTQ entries the golden model made have not been written`);
      if (this.sw[n].length > 64) out.push(`node ${n}: ${this.sw[n].length} register stores waiting`);
      const log = this.model.nodes[n].queues.writes.length;
      if (log > 0) out.push(`node ${n}: the golden queue model keeps a log of ${log} writes (it grows with every entry)`);
    }
    return out;
  }

  get completed(): number {
    return this.done.imm_put + this.done.put + this.done.get;
  }
}
