/**
 * Bad transfer commands at the NIC's command port: a transfer of no bytes, a negative or fractional
 * size, a strided transfer smaller than one element or with a stride below its element size, and a
 * call that does not name (or names a misaligned or out-of-memory) completion word, buffer or
 * fetched-value word is refused with an error naming the field; the NIC takes nothing, and later
 * good transfers (to the same target) complete.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { geminiParams } from '../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../rtl/gemini/system.ts';
import { makeTransfer } from '../../experiments/gemini/calls.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import type { Transfer } from '../../rtl/gemini/types.ts';

describe('Gemini NIC: bad transfer commands are refused, the NIC goes on', () => {
  it.each([
    ['a put of 0 bytes', { kind: 'put', bytes: 0 }, /bytes/],
    ['a get of 0 bytes', { kind: 'get', bytes: 0 }, /bytes/],
    ['a get of -8 bytes', { kind: 'get', bytes: -8 }, /bytes/],
    ['a put of 1.5 bytes', { kind: 'put', bytes: 1.5 }, /bytes/],
    ['a strided get smaller than one element', { kind: 'get', bytes: 64, elemBytes: 128, stride: 128 }, /element/],
    ['a strided put smaller than one element', { kind: 'put', bytes: 8, elemBytes: 16, stride: 128 }, /element/],
    ['a strided get whose stride is below its element size', { kind: 'get', bytes: 64, elemBytes: 16, stride: 8 }, /stride/],
    ['a put naming no completion word', { kind: 'put', bytes: 8 }, /cqAddr must name a byte address/, (x: Transfer): void => void (x.cqAddr = -1)],
    ['a get with a misaligned completion word', { kind: 'get', bytes: 8 }, /cqAddr 260 is not 8-byte aligned/, (x: Transfer): void => void (x.cqAddr = 260)],
    ['a put naming no source', { kind: 'put', bytes: 64 }, /localAddr must name/, (x: Transfer): void => void (x.localAddr = -1)],
    ['a get whose source runs past the end of memory', { kind: 'get', bytes: 4096 }, /remoteAddr 1046528 \+ 4096 bytes runs past the end of node memory \(1048576 bytes\)/, (x: Transfer): void => void (x.remoteAddr = (1 << 20) - 4096 + 2048)],
    ['a strided put whose last element runs past the end of memory', { kind: 'put', bytes: 64, elemBytes: 8, stride: 128 }, /localAddr 1048064 \+ 904 bytes/, (x: Transfer): void => void (x.localAddr = (1 << 20) - 512)],
    ['a fetching AMO naming no result word', { kind: 'amo', bytes: 8 }, /localAddr \(the fetched value\)/, (x: Transfer): void => void (x.localAddr = -1)],
  ] as const)('%s', (_name, spec, msg, spoil?: (x: Transfer) => void) => {
    const p = geminiParams({});
    const sim = new Simulator({ freqHz: p.clockHz });
    const sys = new GeminiSystem(sim, p, 1);
    const make = (): Transfer => {
      const x = makeTransfer({ placement: 'inter-nic', ...spec });
      spoil?.(x);
      return x;
    };
    expect(() => sys.nic(0, 0).start(make())).toThrow(InputError);
    expect(() => sys.nic(0, 0).start(make())).toThrow(msg);
    // the NIC took nothing: good gets and puts to the same target still complete
    for (const kind of ['get', 'put', 'get'] as const) {
      const good = makeTransfer({ kind, placement: 'inter-nic', bytes: 4096 });
      expect(sys.nic(0, 0).start(good)).toBe(true);
      sim.runUntil(() => good.doneCycle >= 0, 1e6);
      expect(good.doneCycle, `${kind} after the bad command`).toBeGreaterThan(0);
    }
  });
});
