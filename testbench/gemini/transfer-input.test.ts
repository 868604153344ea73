/**
 * Bad transfer commands at the NIC's command port: a transfer of no bytes, a negative or fractional
 * size, or a strided transfer smaller than one element is refused with an error naming the field;
 * the NIC takes nothing, and later good transfers (to the same target) complete.
 */
import { describe, expect, it } from 'vitest';
import { Simulator } from '../../rtl/kernel/index.ts';
import { geminiParams } from '../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../rtl/gemini/system.ts';
import { makeTransfer } from '../../experiments/gemini/calls.ts';
import { InputError } from '../../rtl/kernel/errors.ts';

describe('Gemini NIC: bad transfer commands are refused, the NIC goes on', () => {
  it.each([
    ['a put of 0 bytes', { kind: 'put', bytes: 0 }, /bytes/],
    ['a get of 0 bytes', { kind: 'get', bytes: 0 }, /bytes/],
    ['a get of -8 bytes', { kind: 'get', bytes: -8 }, /bytes/],
    ['a put of 1.5 bytes', { kind: 'put', bytes: 1.5 }, /bytes/],
    ['a strided get smaller than one element', { kind: 'get', bytes: 64, elemBytes: 128, stride: 128 }, /element/],
    ['a strided put smaller than one element', { kind: 'put', bytes: 8, elemBytes: 16, stride: 128 }, /element/],
  ] as const)('%s', (_name, spec, msg) => {
    const p = geminiParams({});
    const sim = new Simulator({ freqHz: p.clockHz });
    const sys = new GeminiSystem(sim, p, 1);
    const bad = makeTransfer({ placement: 'inter-nic', ...spec });
    expect(() => sys.nic(0, 0).start(bad)).toThrow(InputError);
    expect(() => sys.nic(0, 0).start(makeTransfer({ placement: 'inter-nic', ...spec }))).toThrow(msg);
    // the NIC took nothing: good gets and puts to the same target still complete
    for (const kind of ['get', 'put', 'get'] as const) {
      const good = makeTransfer({ kind, placement: 'inter-nic', bytes: 4096 });
      expect(sys.nic(0, 0).start(good)).toBe(true);
      sim.runUntil(() => good.doneCycle >= 0, 1e6);
      expect(good.doneCycle, `${kind} after the bad command`).toBeGreaterThan(0);
    }
  });
});
