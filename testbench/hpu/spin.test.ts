/**
 * The sPIN runtime (rtl/hpu/spin) running the real handler ELFs (rtl/hpu/handlers/elf):
 * - property (fast-check; a failure replays from its seed and path): random messages for the five
 *   handlers, random send times, handler durations, cluster/HPU/slot counts and DMA settings; the
 *   message orderings, the flow-control accounting and the results against the golden model;
 * - determinism, concurrency of payload handlers, home-cluster placement;
 * - failures: cycle budget, sandbox trap, non-zero return, DMA outside the host window (the
 *   message fails with the reason, the others complete); bad configurations and ELFs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../rtl/kernel/errors.ts';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import { HANDLER_PAYLOAD } from '../../rtl/hpu/spin/types.ts';
import { checkScenario, randomScenario, runScenario } from '../../experiments/hpu/spinCheck.ts';
import { HPU_ORGANISATIONS } from '../../rtl/hpu/core/coreBase.ts';
import { interleave, loadHandler, matchEntry, type MessageSpec } from '../../experiments/hpu/spinTraffic.ts';
import { parseElf } from '../../models/hpu/elf.ts';
import { goldenAccumulate } from '../../models/spin/golden.ts';

const words = (...w: number[]): Uint8Array => new Uint8Array(Uint32Array.from(w).buffer);

function probeMessage(msgId: number, tag: number, ops: [number, number][], sendCycle = 0): MessageSpec {
  const data = new Uint8Array(ops.length * 64);
  const dv = new DataView(data.buffer);
  ops.forEach(([op, arg], k) => {
    dv.setUint32(k * 64, op, true);
    dv.setUint32(k * 64 + 4, arg >>> 0, true);
  });
  return { msgId, tag, source: 3, data, mtu: 64, sendCycle };
}

describe('sPIN runtime: random scenarios against the orderings and the golden model', () => {
  it('orderings, flow control and handler results hold for any arrival, duration, HPU count and pipeline organisation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.constantFrom(...HPU_ORGANISATIONS), (seed, organisation) => {
        const s = randomScenario(seed, organisation);
        const u = runScenario(s);
        expect(checkScenario(s, u)).toEqual([]);
      }),
      // SPIN_PROPERTY_RUNS / SPIN_PROPERTY_SEED: long hunts (e.g. 2000 runs) without editing the test
      { numRuns: Number(process.env.SPIN_PROPERTY_RUNS ?? 40), ...(process.env.SPIN_PROPERTY_SEED ? { seed: Number(process.env.SPIN_PROPERTY_SEED) } : {}) },
    );
  });

  it('is deterministic: the same scenario gives identical handler records, events, puts and host memory', () => {
    const a = runScenario(randomScenario(77));
    const b = runScenario(randomScenario(77));
    expect(b.records).toEqual(a.records);
    expect(b.engine.events).toEqual(a.engine.events);
    expect(b.puts).toEqual(a.puts);
    expect(Buffer.from(b.host).equals(Buffer.from(a.host))).toBe(true);
  });

  it('loses no wake-up: skipping idle components gives the same run as evaluating every component every cycle', () => {
    for (const seed of [5, 12, 13]) {
      const a = runScenario(randomScenario(seed));
      const b = runScenario(randomScenario(seed), 50_000_000, false);
      expect(b.records).toEqual(a.records);
      expect(b.engine.events).toEqual(a.engine.events);
    }
    // a line-rate burst: reports and packets queue up in front of the message engine
    const burst = (skipping: boolean): SpinUnit => {
      const u = new SpinUnit({ clusters: 4, hpusPerCluster: 8, linkGapNs: 0, camNs: 0, messageSlots: 4 }, [matchEntry(1, 'busy')], interleave([{ msgId: 0, tag: 1, source: 1, data: new Uint8Array(200 * 64), mtu: 64, sendCycle: 0 }]), { skipping });
      u.run(100_000);
      return u;
    };
    const on = burst(true);
    expect(on.engine.events.length).toBe(1);
    expect(on.records).toEqual(burst(false).records);
  });

  it('flow control happens: a burst on one HPU with one buffered slot drops payloads and reports them to the completion handler', () => {
    const msg = probeMessage(4, 1, Array.from({ length: 12 }, () => [0, 300] as [number, number]));
    const u = new SpinUnit({ clusters: 1, hpusPerCluster: 1, bufferedSlots: 1, messageSlots: 4 }, [matchEntry(1, 'probe', { hpuMemInit: words(0, 0) })], interleave([msg]));
    u.run(1e6);
    const ev = u.engine.events[0]!;
    expect(ev.flowControl).toBe(true);
    expect(ev.droppedBytes).toBeGreaterThan(0);
    expect(ev.droppedBytes).toBe(u.scheduler.droppedBytes);
    expect(ev.value).toBe(ev.droppedBytes * 2 + 1); // the completion handler saw both
  });

  it('runs payload handlers of one message at once on several HPUs', () => {
    const msg = probeMessage(8, 1, Array.from({ length: 16 }, () => [0, 500] as [number, number]));
    const u = new SpinUnit({ clusters: 2, hpusPerCluster: 4, bufferedSlots: 2, messageSlots: 4 }, [matchEntry(1, 'probe', { hpuMemInit: words(0, 0) })], interleave([msg]));
    u.run(1e6);
    const pay = u.records.filter((r) => r.kind === HANDLER_PAYLOAD);
    let maxAtOnce = 0;
    for (const r of pay) maxAtOnce = Math.max(maxAtOnce, pay.filter((o) => o.start <= r.start && r.start <= o.end).length);
    expect(maxAtOnce).toBeGreaterThanOrEqual(4);
    // home cluster first (message 8 -> cluster 0), the other cluster once home's 4 + 2 contexts are taken
    expect(u.records[0]!.cluster).toBe(0);
    expect(new Set(pay.map((r) => r.cluster)).size).toBe(2);
  });

  it('accumulate is bit-exact with the f64 reference on a 4 KiB message', () => {
    const data = new Uint8Array(4096);
    const dv = new DataView(data.buffer);
    for (let k = 0; k < 512; k++) dv.setFloat64(k * 8, Math.sin(k + 1) * 2 ** ((k % 40) - 20), true);
    const u = new SpinUnit({ messageSlots: 4 }, [matchEntry(1, 'accumulate', { hostBase: 0x1000, hostLen: 8192 })], interleave([{ msgId: 1, tag: 1, source: 0, data, mtu: 1024, sendCycle: 0 }]));
    const hv = new DataView(u.host.buffer);
    for (let k = 0; k < 512; k++) hv.setFloat64(0x1000 + k * 8, Math.cos(k * 3) * 1e3, true);
    const want = u.host.slice();
    u.run(1e6);
    goldenAccumulate(want, 0x1000, { data, mtu: 1024, source: 0, ran: new Set([0, 1, 2, 3]) });
    expect(u.engine.events[0]!.ok).toBe(true);
    expect(Buffer.from(u.host).equals(Buffer.from(want))).toBe(true);
  });
});

describe('sPIN runtime: failing handlers fail their message, the others complete', () => {
  const run = (ops: [number, number][], budget = 20_000): SpinUnit => {
    const good = { msgId: 2, tag: 2, source: 1, data: new Uint8Array(256).fill(7), mtu: 64, sendCycle: 0 };
    const u = new SpinUnit({ clusters: 2, hpusPerCluster: 2, messageSlots: 4, handlerBudget: budget }, [matchEntry(1, 'probe', { hpuMemInit: words(0, 0), hostBase: 0, hostLen: 4096 }), matchEntry(2, 'histogram', { hostBase: 8192, hostLen: 64 })], interleave([probeMessage(1, 1, ops), good]));
    u.run(1e6);
    const other = u.engine.events.find((e) => e.msgId === 2)!;
    expect(other.ok).toBe(true);
    expect(new Uint32Array(u.host.buffer, 8192, 16)[0]).toBe(256); // 256 bytes of 7 -> bin 0
    return u;
  };
  const failure = (u: SpinUnit): string => {
    const e = u.engine.events.find((x) => x.msgId === 1)!;
    expect(e.ok).toBe(false);
    return e.reason;
  };

  it('a handler that loops forever is stopped at its cycle budget', () => {
    expect(failure(run([[0, 1], [1, 0], [0, 1]]))).toMatch(/payload handler of message 1 \(packet 1\) on HPU \d+ exceeded its budget of 20000 cycles/);
  });
  it('a store outside the sandbox traps', () => {
    expect(failure(run([[2, 0x100]]))).toMatch(/payload handler of message 1 \(packet 0\) on HPU \d+ trapped at pc 0x2[0-9a-f]+: store access fault at 0x00000100/);
    expect(failure(run([[2, 0x0200_0000 + 5 * 4096]]))).toMatch(/store access fault/); // another message's HPU memory
  });
  it('a non-zero return and a DMA outside the host window fail the message', () => {
    expect(failure(run([[3, 42]]))).toMatch(/returned 42/);
    expect(failure(run([[4, 4096]]))).toMatch(/returned 4/);
  });
});

describe('sPIN runtime: bad configuration and handler ELFs', () => {
  const msg = interleave([{ msgId: 1, tag: 1, source: 0, data: new Uint8Array(64), mtu: 64, sendCycle: 0 }]);
  it('rejects bad parameters, host windows, packets and duplicate tags with InputError', () => {
    expect(() => new SpinUnit({ clusters: 0 }, [matchEntry(1, 'probe')], msg)).toThrow(/clusters = 0/);
    expect(() => new SpinUnit({ clusters: 17 }, [matchEntry(1, 'probe')], msg)).toThrow(InputError);
    expect(() => new SpinUnit({}, [matchEntry(1, 'probe', { hostBase: 16 << 20, hostLen: 1 })], msg)).toThrow(/host window/);
    expect(() => new SpinUnit({ maxPacketBytes: 32 }, [matchEntry(1, 'probe')], msg)).toThrow(/exceed maxPacketBytes 32/);
    expect(() => new SpinUnit({}, [matchEntry(1, 'probe'), matchEntry(1, 'pingpong')], msg)).toThrow(/two match entries with tag 1/);
    expect(() => new SpinUnit({}, [], msg)).toThrow(/no match entry/);
  });
  it('rejects an ELF outside the handler-code region, without handlers, or overlapping another', () => {
    const riscvTest = parseElf(new Uint8Array(require('node:fs').readFileSync('vectors/riscv-tests/rv32ui/add.elf')), 'add.elf');
    expect(() => new SpinUnit({}, [{ ...matchEntry(1, 'probe'), elf: riscvTest, name: 'add' }], msg)).toThrow(/defines none of header_handler, payload_handler, completion_handler/);
    const moved = { ...loadHandler('probe'), segments: loadHandler('probe').segments.map((s) => ({ ...s, vaddr: 0x200000 })) };
    expect(() => new SpinUnit({}, [{ ...matchEntry(1, 'probe'), elf: moved }], msg)).toThrow(/outside the handler-code region/);
    const clash = { ...loadHandler('pingpong'), segments: loadHandler('pingpong').segments.map((s) => ({ ...s, vaddr: 0x20000 })) };
    expect(() => new SpinUnit({}, [matchEntry(1, 'probe'), { ...matchEntry(2, 'pingpong'), elf: clash }], msg)).toThrow(/overlaps handler probe/);
    expect(() => loadHandler('/nonexistent/x.elf')).toThrow(/cannot read handler \/nonexistent\/x.elf: ENOENT/);
  });
});
