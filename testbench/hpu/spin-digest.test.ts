/**
 * Speed changes to the sPIN runtime must leave every result bit-identical: the digest
 * (experiments/hpu/spinCheck.ts digestRun: handler records with their cycles, completion events,
 * puts, host memory, final cycle, scheduler counters) of fixed runs equals the digest recorded
 * before the change. The runs: random scenarios 1..20 (1..3 clusters of 1..4 HPUs, flow
 * control) and two PsPIN-sized (4 x 8 HPUs) line-rate streams, one the HPUs sustain and one that
 * overloads them (drops), on five-stage HPUs; and the same on ri5cy HPUs. A deliberate timing
 * change (a new parameter default) changes the digests: re-record them then, and say so in the
 * commit.
 */
import { describe, expect, it } from 'vitest';
import { digestRun, newDigest, randomScenario, runScenario } from '../../experiments/hpu/spinCheck.ts';
import { interleave, matchEntry } from '../../experiments/hpu/spinTraffic.ts';
import { PSPIN_PARAMS } from '../../experiments/hpu/spinTable.ts';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import type { HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';

function stream(packets: number, spin: number, organisation: HpuOrganisation): SpinUnit {
  const data = new Uint8Array(packets * 64);
  const dv = new DataView(data.buffer);
  for (let k = 0; k < packets; k++) dv.setUint32(k * 64, spin, true);
  const u = new SpinUnit({ ...PSPIN_PARAMS, organisation }, [matchEntry(1, 'busy')], interleave([{ msgId: 0, tag: 1, source: 1, data, mtu: 64, sendCycle: 0 }]));
  u.run(10_000_000);
  return u;
}

/** Digests of the 20 scenarios and of the sustained (spin 2) and overloaded (spin 12, drops) streams. */
function digests(organisation?: HpuOrganisation): { scenarios: string; sustained: string; overloaded: string } {
  const h = newDigest();
  for (let seed = 1; seed <= 20; seed++) digestRun(h, runScenario(randomScenario(seed, organisation)));
  const a = newDigest();
  digestRun(a, stream(3000, 2, organisation ?? 'five-stage'));
  const b = newDigest();
  const over = stream(3000, 12, organisation ?? 'five-stage');
  expect(over.scheduler.dropped).toBeGreaterThan(0);
  digestRun(b, over);
  return { scenarios: h.digest('hex'), sustained: a.digest('hex'), overloaded: b.digest('hex') };
}

describe('sPIN runtime results are unchanged by speed work (recorded digests)', () => {
  it('five-stage HPUs (the default): random scenarios 1..20; 32 HPUs, 3,000 back-to-back 64 B packets, a handler they sustain (spin 2) and one they do not (spin 12)', () => {
    expect(digests()).toEqual({
      scenarios: 'fa9ea8b64b9a355f6152d41e8de9afb41b61f9add87d8b0eb0845e88df1b02fc',
      sustained: 'e0fe3fc08bfc472c2e148f9801554309a5c0887896c456d23f9c2a7dcba98d2c',
      overloaded: '2ac31d8faeb3cab5ed34c4d33cde0909cf72790d0aa2f32a69dddd201aded51d',
    });
  });
  it('ri5cy HPUs (recorded when the organisation was added): the same runs', () => {
    expect(digests('ri5cy')).toEqual({
      scenarios: 'c0484f014a97148c8d2290265b9128346e64d956c46c998e4eeb9217ee9d96ff',
      sustained: 'a75da0b2f8f581eca66781ae3ddd6b3f1601604a2687ed9d78e7b134247d433a',
      overloaded: '06d643da1b79eca321b1c1afe15393aecff3ce1abad0563018ca8c0756f2f87c',
    });
  });
});
