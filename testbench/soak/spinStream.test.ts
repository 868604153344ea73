/**
 * The sPIN runtime's stream path used by the `spin-runtime` soak entry: a unit fed one packet at a
 * time by a PacketSource and keeping nothing (`keep: false`) runs exactly as one given the whole
 * packet list and keeping everything; and the stream's checker fails a wrong host write.
 */
import { describe, expect, it } from 'vitest';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import type { CompletionEvent, HandlerRecord, PutRecord, SpinPacket } from '../../rtl/hpu/spin/types.ts';
import { randomScenario, scenarioEntries, scenarioPackets } from '../../experiments/hpu/spinCheck.ts';
import { SpinStream } from '../../bench/soak/spinStream.ts';

describe('sPIN runtime stream path', () => {
  it('a PacketSource and keep: false give the same run as the packet list', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const s = randomScenario(seed);
      const kept = new SpinUnit(s.params, scenarioEntries(s), scenarioPackets(s));
      kept.host.set(s.hostInit);
      kept.run(50_000_000);
      const list = scenarioPackets(s);
      let i = 0;
      const events: CompletionEvent[] = [];
      const records: HandlerRecord[] = [];
      const puts: PutRecord[] = [];
      const source = { next: (): SpinPacket | null => list[i++] ?? null };
      const streamed = new SpinUnit(s.params, scenarioEntries(s), source, { keep: false, onEvent: (e) => events.push(e), onRecord: (r) => records.push(r), onPut: (p) => puts.push(p) });
      streamed.host.set(s.hostInit);
      streamed.sim.runUntil(() => events.length === s.messages.length, 50_000_000);
      expect(streamed.engine.events.length + streamed.records.length + streamed.puts.length).toBe(0);
      expect(events).toEqual(kept.engine.events);
      expect(records).toEqual(kept.records);
      expect(puts).toEqual(kept.puts);
      expect(streamed.sim.cycle).toBe(kept.engine.events.at(-1)!.cycle + 1);
      expect(Buffer.from(streamed.host).equals(Buffer.from(kept.host))).toBe(true);
    }
  });

  it('the stream checks every message against the golden model and fails a wrong host write', () => {
    const run = (corrupt: boolean): string[] => {
      const stream = new SpinStream(7, 4, 2);
      const u = new SpinUnit({ clusters: 2, hpusPerCluster: 2, messageSlots: 16, hpuMemBytes: 4096, handlerBudget: 200_000, hostBytes: stream.hostBytes }, stream.entries, stream, {
        keep: false,
        onRecord: stream.onRecord,
        onPut: stream.onPut,
        onEvent: (e) => {
          // a byte of a histogram window (beyond its counts) written behind the golden model's back, as a wrong DMA would
          if (corrupt && stream.messages === 20) u.host[stream.entries.find((x) => x.name === 'histogram')!.hostBase + 100]! ^= 1;
          stream.onEvent(e);
        },
      });
      stream.host = u.host;
      stream.poke = () => u.link.poke();
      u.sim.runUntil(() => stream.messages >= 200, 50_000_000);
      return stream.problems;
    };
    expect(run(false)).toEqual([]);
    expect(run(true).join()).toMatch(/host memory differs from the golden model/);
  });
});
