/**
 * Where the bytes of Gemini calls go: random sequences of blocking puts, gets (8-byte, strided
 * 8-byte elements, and larger ones that move no payload) and AMOs between the four NICs of two
 * ASICs, over node memories filled with random words; afterwards (AMO caches flushed) every word of
 * the first 64 KiB of every node must equal the golden model's (models/gemini/callMemory.ts): data
 * at the addresses the calls named, completion words at their cqAddr, fetched values at their
 * localAddr, and word 0 (which no call names) untouched. Before the addresses were modelled,
 * completion writes and 8-byte puts wrote word 0 and no data reached its target.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { Rng } from '../../rtl/kernel/rng.ts';
import { AMO_FETCHING, AMO_NAMES } from '../../rtl/gemini/amo/ops.ts';
import { geminiParams } from '../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../rtl/gemini/system.ts';
import { AmoReq, Transfer, XFER_AMO, XFER_GET, XFER_PUT } from '../../rtl/gemini/types.ts';
import { GoldenCallMemory } from '../../models/gemini/callMemory.ts';
import { FITTED_PARAMS } from '../../experiments/gemini/fit.ts';

const M64 = (1n << 64n) - 1n;
/** words checked on every node: the first 64 KiB (every region below lies in it) */
const CHECKED_BYTES = 0x10000;
/** completion words [0x100, 0x800), AMO words [0x800, 0x820), initiators' buffers [0x1000, 0x8000), targets' buffers [0x8000, 0x10000) */
const CQ = { base: 0x100, words: 224 };
const AMO_WORDS = { base: 0x800, words: 4 };
const LOCAL = { base: 0x1000, bytes: 0x7000 };
const REMOTE = { base: 0x8000, bytes: 0x8000 };
const SENTINEL = 0x5a5a5a5a_a5a5a5a5n;

interface CallSpec {
  kind: 'put' | 'get' | 'amo';
  src: number;
  dst: number;
  /** 'word' 8 bytes; 'strided' elements of 8 bytes; 'block' a longer contiguous transfer */
  shape: 'word' | 'strided' | 'block';
  elems: number;
  stride: number;
  blockBytes: number;
  local: number;
  remote: number;
  cq: number;
  cqData: number;
  op: number;
  amoWord: number;
  a: bigint;
  b: bigint;
}

const u64 = fc.bigInt({ min: 0n, max: M64 });
const callArb: fc.Arbitrary<CallSpec> = fc.record({
  kind: fc.constantFrom('put', 'get', 'amo'),
  src: fc.integer({ min: 0, max: 3 }),
  dst: fc.integer({ min: 0, max: 3 }),
  shape: fc.constantFrom('word', 'word', 'strided', 'block'),
  elems: fc.integer({ min: 1, max: 8 }),
  stride: fc.constantFrom(8, 16, 128),
  blockBytes: fc.constantFrom(72, 200, 4096),
  local: fc.integer({ min: 0, max: (LOCAL.bytes - 4096) / 8 - 1 }),
  remote: fc.integer({ min: 0, max: (REMOTE.bytes - 4096) / 8 - 1 }),
  cq: fc.integer({ min: 0, max: CQ.words - 1 }),
  cqData: fc.integer({ min: 1, max: 0xffffffff }),
  op: fc.integer({ min: 0, max: AMO_NAMES.length - 1 }),
  amoWord: fc.integer({ min: 0, max: AMO_WORDS.words - 1 }),
  a: u64,
  b: u64,
}) as fc.Arbitrary<CallSpec>;

function transfer(c: CallSpec): Transfer {
  const x = new Transfer();
  x.kind = c.kind === 'put' ? XFER_PUT : c.kind === 'get' ? XFER_GET : XFER_AMO;
  [x.srcAsic, x.srcNic] = [c.src >> 1, c.src & 1];
  [x.dstAsic, x.dstNic] = [c.dst >> 1, c.dst & 1];
  x.localAddr = LOCAL.base + 8 * c.local;
  x.remoteAddr = REMOTE.base + 8 * c.remote;
  x.cqAddr = CQ.base + 8 * c.cq;
  x.cqData = c.cqData;
  if (c.kind === 'amo') {
    const r = new AmoReq();
    r.op = c.op;
    r.addr = AMO_WORDS.base + 8 * c.amoWord;
    r.aHi = Number(c.a >> 32n);
    r.aLo = Number(c.a & 0xffffffffn);
    r.bHi = Number(c.b >> 32n);
    r.bLo = Number(c.b & 0xffffffffn);
    x.amo = r;
    x.bytes = 8;
  } else if (c.shape === 'word') x.bytes = 8;
  else if (c.shape === 'block') x.bytes = c.blockBytes;
  else {
    x.elemBytes = 8;
    x.stride = c.stride;
    x.bytes = 8 * c.elems;
  }
  return x;
}

/** Run the calls one after the other on a fresh two-ASIC system; return the RTL and golden memories. */
function run(calls: CallSpec[], seed: number): { rtl: (addr: number, node: number) => bigint; golden: GoldenCallMemory; amoResults: number } {
  const p = geminiParams(FITTED_PARAMS);
  const sim = new Simulator({ freqHz: p.clockHz });
  const sys = new GeminiSystem(sim, p, 2);
  const nics = [sys.nic(0, 0), sys.nic(0, 1), sys.nic(1, 0), sys.nic(1, 1)];
  const golden = new GoldenCallMemory(4);
  const rng = new Rng(seed);
  nics.forEach((n, k) => {
    for (let a = 0; a < CHECKED_BYTES; a += 8) {
      const v = a === 0 ? SENTINEL : rng.u64();
      n.memory.store64(a, Number(v >> 32n), Number(v & 0xffffffffn));
      golden.write(k, a, v);
    }
  });
  let amoResults = 0;
  for (const c of calls) {
    const x = transfer(c);
    expect(nics[c.src]!.start(x)).toBe(true);
    sim.runUntil(() => x.doneCycle >= 0, 1e6);
    expect(x.doneCycle, `${c.kind} ${c.shape} did not complete`).toBeGreaterThan(0);
    sim.step(50);
    golden.call({
      kind: c.kind,
      src: c.src,
      dst: c.dst,
      bytes: x.bytes,
      elemBytes: x.elemBytes,
      stride: x.stride,
      localAddr: x.localAddr,
      remoteAddr: x.remoteAddr,
      cqAddr: x.cqAddr,
      cqData: x.cqData,
      ...(c.kind === 'amo' ? { amo: { op: AMO_NAMES[c.op]!, addr: x.amo!.addr, a: c.a, b: c.b } } : {}),
    });
    if (c.kind === 'amo' && AMO_FETCHING[c.op] === 1) amoResults++;
  }
  // the driver's flush: the AMO units' cached words reach memory
  for (const n of nics) n.amo.writeBackAll((a, hi, lo) => n.memory.store64(a, hi, lo));
  const rtl = (addr: number, node: number): bigint => {
    const w = nics[node]!.memory.load64(addr);
    return (BigInt(w.hi >>> 0) << 32n) | BigInt(w.lo >>> 0);
  };
  return { rtl, golden, amoResults };
}

function mismatches(r: ReturnType<typeof run>): string[] {
  const out: string[] = [];
  for (let node = 0; node < 4; node++) {
    for (let a = 0; a < CHECKED_BYTES; a += 8) {
      const got = r.rtl(a, node);
      const want = r.golden.read(node, a);
      if (got !== want && out.length < 5) out.push(`node ${node} word ${a.toString(16)}: RTL ${got.toString(16)}, golden ${want.toString(16)}`);
    }
  }
  return out;
}

describe('Gemini calls: node memory after blocking puts, gets and AMOs matches the golden model', () => {
  it('one 8-byte put and one 8-byte get land at their targets; completion words at cqAddr; word 0 untouched', () => {
    const base: CallSpec = { kind: 'put', src: 0, dst: 3, shape: 'word', elems: 1, stride: 8, blockBytes: 72, local: 5, remote: 9, cq: 3, cqData: 0xc0ffee, op: 4, amoWord: 0, a: 1n, b: 0n };
    const r = run(
      [base, { ...base, kind: 'get', src: 1, dst: 0, local: 20, remote: 9, cq: 4, cqData: 0xbeef }, { ...base, kind: 'amo', src: 2, dst: 0, op: 4, a: 5n, local: 30, cq: 5, cqData: 7 }],
      1,
    );
    expect(mismatches(r)).toEqual([]);
    for (let node = 0; node < 4; node++) expect(r.rtl(0, node), `word 0 of node ${node}`).toBe(SENTINEL);
    // the put's word (node 0, local 5) is at node 3, remote 9; the get brought node 0's remote 9 to node 1's local 20
    expect(r.rtl(REMOTE.base + 72, 3)).toBe(r.rtl(LOCAL.base + 40, 0));
    expect(r.rtl(LOCAL.base + 160, 1)).toBe(r.rtl(REMOTE.base + 72, 0));
    expect(r.rtl(CQ.base + 24, 0)).toBe(0xc0ffeen);
    expect(r.rtl(CQ.base + 32, 1)).toBe(0xbeefn);
    expect(r.rtl(CQ.base + 40, 2)).toBe(7n);
    expect(r.amoResults).toBe(1);
  });

  it('random call sequences (every kind, placement and shape): every checked word equals the golden model', () => {
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 0x7fffffff }), (calls, seed) => {
        const r = run(calls, seed);
        expect(mismatches(r)).toEqual([]);
        for (let node = 0; node < 4; node++) expect(r.rtl(0, node)).toBe(SENTINEL);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
