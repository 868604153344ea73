/**
 * Soak entries for Cray Gemini (rtl/gemini):
 *
 * - `gemini-amo`: one AMO unit (a small atomic cache: 8 words, 2 ways, LRU, write-back, so misses,
 *   evictions and write-backs are frequent) with its node memory and four initiators
 *   (experiments/gemini/amoWorld.ts, the stream path: operations drawn on demand, nothing kept per
 *   answered operation), each with up to 4 operations outstanding and random gaps. Operations:
 *   every kind on a pool of 24 words, about one in sixteen a bad request (misaligned, wrong size,
 *   unknown operation, outside memory).
 *
 * - `gemini-system`: two Gemini ASICs (four NICs, Netlinks, router paths; rtl/gemini/system.ts),
 *   four processes per NIC making blocking puts, gets and AMOs to random NICs (intra-NIC,
 *   inter-NIC, inter-ASIC; puts and gets of 8 B to 16 KiB over the FMA and the BTE, some strided;
 *   bench/soak/geminiTraffic.ts). The model moves the payload of 8-byte pieces only, so the check
 *   of puts and gets is that each completes, after it was issued and within 10^6 cycles; each NIC's AMO unit has a
 *   16-word 4-way atomic cache over 48 words, so AMOs miss and write back.
 *
 * Every AMO answer is checked against the BigInt golden model (models/gemini/amoModel.ts, one per
 * unit) in the unit's acceptance order (bench/soak/amoOrder.ts) and dropped.
 */
import { buildAmoWorld, type AmoOpSpec } from '../../../experiments/gemini/amoWorld.ts';
import { geminiParams } from '../../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../../rtl/gemini/system.ts';
import { type Transfer, XFER_AMO, XFER_KIND_NAMES } from '../../../rtl/gemini/types.ts';
import { Simulator } from '../../../rtl/kernel/index.ts';
import { GeminiCallers } from '../geminiTraffic.ts';
import { AMO_FCSWAP, AMO_NAMES } from '../../../rtl/gemini/amo/ops.ts';
import { Rng } from '../../../rtl/kernel/rng.ts';
import { GoldenAmoUnit } from '../../../models/gemini/amoModel.ts';
import { AcceptOrderChecker } from '../amoOrder.ts';
import { type SoakBlock, steppedRun } from '../block.ts';

const M64 = (1n << 64n) - 1n;

/** A random operation: every kind, 24 words, about 1 in 16 a bad request. */
export function randomAmo(rng: Rng, memBytes: number, words: number): AmoOpSpec {
  let op = rng.int(AMO_NAMES.length);
  let addr = 8 * rng.int(words);
  let size = 8;
  const bad = rng.int(64);
  if (bad === 0) addr += 1 + rng.int(7);
  else if (bad === 1) size = [1, 2, 4, 16][rng.int(4)]!;
  else if (bad === 2) op = AMO_NAMES.length + rng.int(6);
  else if (bad === 3) addr = memBytes + 8 * rng.int(4);
  // small operands half of the time, so that FCSWAP's compare sometimes matches
  const operand = (): bigint => (rng.bool() ? BigInt(rng.int(4)) : [rng.u64(), M64, 1n << 63n][rng.int(3)]!);
  return { op, addr, size, a: operand(), b: op === AMO_FCSWAP && rng.bool() ? BigInt(rng.int(4)) : operand() };
}

const AMO_UNIT = { cacheLines: 8, cacheWays: 2, replacement: 'lru' as const, writePolicy: 'write-back' as const, memBytes: 4096 };
const PORTS = 4;
const WINDOW = 4;

export const blocks: SoakBlock[] = [
  {
    name: 'gemini-amo',
    what: 'Gemini AMO unit (8-word 2-way write-back atomic cache) + node memory, 4 initiators x 4 outstanding, random AMOs of every kind on 24 words (1 in 16 a bad request), every answer checked against the golden model',
    start(seed) {
      const rng = new Rng(seed);
      const golden = new GoldenAmoUnit(AMO_UNIT);
      const checker = new AcceptOrderChecker(golden, 'gemini-amo');
      const streams = Array.from({ length: PORTS }, (_, i) => rng.fork(`ops${i}`));
      const w = buildAmoWorld({
        unit: AMO_UNIT,
        memory: { readCycles: 20 },
        programs: streams.map((s) => () => randomAmo(s, AMO_UNIT.memBytes, 24)),
        window: WINDOW,
        maxGap: 3,
        seed,
        keepEvents: false,
        onIssue: (e) => checker.issued(e.req),
        onResponse: (e) => checker.answered(e.req),
      });
      let lastChecked = 0;
      return steppedRun(w.sim, {
        check() {
          const out: string[] = [];
          if (checker.mismatches > 0) out.push(`${checker.mismatches} answers differ from the golden model (first: ${checker.firstMismatch})`);
          if (checker.checked <= lastChecked) out.push(`no AMO answered and checked since the last sample (${checker.checked} in all)`);
          if (checker.held > PORTS * WINDOW) out.push(`the driver holds ${checker.held} operations (at most ${PORTS * WINDOW} can be in flight)`);
          lastChecked = checker.checked;
          return out;
        },
        summary() {
          const u = w.unit.stats;
          return `${checker.checked.toLocaleString('en-US')} AMOs checked (${checker.errors.toLocaleString('en-US')} bad requests, ${u.hits.value.toLocaleString('en-US')} hits, ${u.misses.value.toLocaleString('en-US')} misses, ${u.writebacks.value.toLocaleString('en-US')} write-backs), ${checker.mismatches} differ from the golden model`;
        },
      });
    },
  },
  {
    name: 'gemini-system',
    what: 'two Gemini ASICs (4 NICs), 4 processes per NIC making blocking puts/gets (8 B to 16 KiB, FMA and BTE, some strided) and AMOs to random NICs; every call completes, every AMO answer checked against the golden model',
    start(seed) {
      const p = geminiParams({ amo: { cacheLines: 16, cacheWays: 4 } });
      const sim = new Simulator({ freqHz: p.clockHz });
      const sys = new GeminiSystem(sim, p, 2);
      const nics = [sys.nic(0, 0), sys.nic(0, 1), sys.nic(1, 0), sys.nic(1, 1)];
      const targets = nics.map((n) => [n.asic, n.index] as const);
      // AMO words apart from every process's buffers and completion words (bench/soak/geminiTraffic.ts)
      const AMO_BASE = 4096;
      const checkers = nics.map((n) => new AcceptOrderChecker(new GoldenAmoUnit({ ...n.amo.cfg }), n.amo.path));
      const unitOf = (x: Transfer): AcceptOrderChecker => checkers[2 * x.dstAsic + x.dstNic]!;
      const calls = [0, 0, 0];
      let late = 0;
      let firstLate = '';
      const rng = new Rng(seed);
      const callers = nics.map(
        (n, k) =>
          new GeminiCallers(sim, `procs${k}`, n, 4, targets, AMO_BASE, 48, rng.fork(k), {
            issued(x) {
              if (x.kind === XFER_AMO) unitOf(x).issued(x.amo!);
            },
            onDone(x) {
              calls[x.kind]!++;
              if (x.kind === XFER_AMO) unitOf(x).answered(x.amo!);
              if (x.doneCycle <= x.issueCycle || x.doneCycle - x.issueCycle > 1_000_000) {
                if (late++ === 0) firstLate = `${XFER_KIND_NAMES[x.kind]} of ${x.bytes} B issued at cycle ${x.issueCycle}, done at ${x.doneCycle}`;
              }
            },
          }),
      );
      let lastDone = 0;
      return steppedRun(sim, {
        check() {
          const out: string[] = [];
          for (const c of checkers) if (c.mismatches > 0) out.push(`${c.mismatches} AMO answers differ from the golden model (first: ${c.firstMismatch})`);
          if (late > 0) out.push(`${late} calls completed out of bounds (first: ${firstLate})`);
          const done = callers.reduce((s, c) => s + c.done, 0);
          if (done <= lastDone) out.push(`no call completed since the last sample (${done} in all)`);
          for (const c of callers) if (c.inFlight > 4) out.push(`${c.path}: ${c.inFlight} calls in flight (4 processes)`);
          for (const c of checkers) if (c.held > 16) out.push(`AMO checker holds ${c.held} operations (16 processes)`);
          lastDone = done;
          return out;
        },
        summary() {
          const amo = checkers.reduce((s, c) => s + c.checked, 0);
          const bad = checkers.reduce((s, c) => s + c.mismatches, 0);
          return `${calls[0]!.toLocaleString('en-US')} puts, ${calls[1]!.toLocaleString('en-US')} gets, ${calls[2]!.toLocaleString('en-US')} AMOs completed (${amo.toLocaleString('en-US')} checked against the golden model, ${bad} differ)`;
        },
      });
    },
  },
];
