/**
 * The load generators of `spin table` (experiments/hpu/spinLoad.ts): the work handler executes
 * exactly the requested number of straight-line instructions at one cycle each (so a budget
 * search moves in one-cycle steps), up to WORK_MAX; the busy handler's loop costs four cycles a
 * step. Both on one HPU with packets far apart (no queueing).
 */
import { describe, expect, it } from 'vitest';
import { runStream, WORK_MAX } from '../../experiments/hpu/spinLoad.ts';

const one = (handler: 'work' | 'busy', spin: number) => runStream({ handler, spin, pktBytes: 64, packets: 3, perMessage: 3, params: { clusters: 1, hpusPerCluster: 1, linkGapNs: 2000 } });

describe('sPIN load generators', () => {
  it('work: n straight-line instructions take n more instructions and n more cycles than none', () => {
    const w0 = one('work', 0);
    for (const n of [1, 7, 100, WORK_MAX]) {
      const w = one('work', n);
      expect(w.failed).toBe(0);
      expect(w.instructions - w0.instructions).toBe(n);
      expect(w.handlerNs - w0.handlerNs).toBe(n); // 1 GHz: one cycle each
    }
    // more than WORK_MAX runs WORK_MAX (plus the clamp: a jump out, the move, a jump back)
    expect(one('work', WORK_MAX + 50).instructions - w0.instructions).toBe(WORK_MAX + 3);
  });
  it('busy: each loop step is two instructions and four cycles (addi, taken bne with its 2-cycle penalty)', () => {
    const b1 = one('busy', 1);
    const b9 = one('busy', 9);
    expect(b9.instructions - b1.instructions).toBe(16);
    expect(b9.handlerNs - b1.handlerNs).toBe(32);
  });
});
