/**
 * The short soak (10^6 cycles per block; `npm run soak` runs 10^8): no block's live heap grows more
 * than 5 MB from 10 % of the run to its end, and every block's functional check passes. Rates are
 * recorded but not judged here (tests never time anything). Also: the harness itself fails a block
 * that leaks, stalls or reports a wrong result.
 */
import { describe, expect, it } from 'vitest';
import { type SoakBlock, steppedRun } from '../../bench/soak/block.ts';
import { loadBlocks, soak, soakTable } from '../../bench/soak/harness.ts';

const blocks = await loadBlocks();

describe('soak: every block, 10^6 cycles', () => {
  it('finds the existing blocks', () => {
    const names = blocks.map((b) => b.name);
    for (const n of ['atc-refresh', 'kernel-ring', 'sharp-allreduce-rc', 'sharp-allreduce-ud', 'sharp-allreduce-rc+ud', 'sharp-jobs', 'sharp-faults', 'hpu', 'gemini-amo', 'gemini-system', 'nic-pio', 'coredirect-mq-rdma', 'coredirect-mq-send', 'spin-runtime', 'nic-rdma', 'nic-sdq']) expect(names).toContain(n);
  });
  for (const b of blocks) {
    it(`${b.name}: flat heap, functional check passes`, () => {
      const r = soak(b, { cycles: 1_000_000, samples: 10, checkRate: false });
      expect(r.failures, soakTable(r)).toEqual([]);
      expect(r.cycles).toBeGreaterThanOrEqual(1_000_000);
    });
  }
});

/** A toy block: a counter that keeps `leakBytes` per 1,000 cycles, stalls or goes wrong on request. */
function toy(o: { leakBytes?: number; stallAfter?: number; wrongAt?: number }): SoakBlock {
  return {
    name: 'toy',
    what: 'a counter',
    start() {
      let cycle = 0;
      let done = 0;
      let last = -1;
      const kept: Uint8Array[] = [];
      const sim = {
        get cycle() {
          return cycle;
        },
        step(n: number) {
          for (let i = 0; i < n; i += 1000) if (o.leakBytes) kept.push(new Uint8Array(o.leakBytes));
          cycle += n;
          if (o.stallAfter === undefined || cycle <= o.stallAfter) done = cycle;
        },
      };
      return steppedRun(sim, {
        check() {
          const out: string[] = [];
          if (done === last) out.push('no progress');
          if (o.wrongAt !== undefined && cycle >= o.wrongAt) out.push('wrong result');
          last = done;
          return out;
        },
        summary: () => `${kept.length} kept`,
      });
    },
  };
}

describe('soak harness verdicts', () => {
  it('passes a flat block', () => {
    expect(soak(toy({}), { cycles: 1_000_000, samples: 10 }).failures).toEqual([]);
  });
  it('fails a block whose heap grows more than 5 MB after 10 % of the run', () => {
    const r = soak(toy({ leakBytes: 8_000 }), { cycles: 1_000_000, samples: 10 }); // 8 MB in all, 7.2 MB after 10 %
    expect(r.ok).toBe(false);
    expect(r.failures.join()).toMatch(/heap grew .* MB from 10 % of the run/);
    expect(r.growth_kb_per_mcycle).toBeGreaterThan(7000);
  });
  it('fails a block that stops making progress or reports a wrong result', () => {
    expect(soak(toy({ stallAfter: 500_000 }), { cycles: 1_000_000, samples: 10 }).failures.join()).toMatch(/no progress/);
    expect(soak(toy({ wrongAt: 900_000 }), { cycles: 1_000_000, samples: 10 }).failures.join()).toMatch(/wrong result/);
  });
  it('refuses a sample count that does not put a sample at 10 % of the run', () => {
    expect(() => soak(toy({}), { cycles: 1_000_000, samples: 15 })).toThrow(/multiple of 10/);
  });
});
