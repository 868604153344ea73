/**
 * Barrier properties (issue 13): for random process counts (2 to 1,024), processes per node, modes
 * and random delivery delays and entry skews, the barrier completes on every rank, no rank leaves
 * before every rank has entered, no task runs before it is enabled (a disabled entry executes only
 * after an MQ enable covering it), no queue overflows, and the golden task machine (untimed, random
 * order) agrees that every rank completes. A missing peer hangs the barrier detectably: the
 * watchdog reports it, and no rank completes.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BARRIER_MODES } from '../../rtl/coredirect/cluster.ts';
import { runCluster } from '../../experiments/coredirect/run.ts';
import { goldenPost, type GQueues, type GRank, goldenRun, goldenSchedule } from '../../models/coredirect/golden.ts';
import { Rng } from '../../rtl/kernel/index.ts';

const procsArb = fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 2, max: 40 }) }, { weight: 2, arbitrary: fc.integer({ min: 41, max: 300 }) }, { weight: 1, arbitrary: fc.integer({ min: 301, max: 1024 }) });

/** The golden machine's verdict for one barrier of m ranks (absent ranks post nothing). */
function goldenBarrier(m: number, absent: readonly number[], seed: number): boolean[] {
  const ranks: GRank[] = [];
  for (let r = 0; r < m; r++) {
    const steps = goldenSchedule(m, r);
    const queues: GQueues = new Map();
    const link = new Map<number, [number, number]>();
    for (const s of steps) link.set(s.peer, [s.peer, r]); // QP named by the peer's rank on both sides
    if (!absent.includes(r))
      goldenPost(
        steps.map((s, i) => (s.kind === 'signal' ? { op: 'write_imm' as const, qp: s.peer, signal: i === steps.length - 1 } : { op: 'wait' as const, queue: null, cq: s.peer, count: 1, signal: i === steps.length - 1 })),
        queues,
      );
    ranks.push({ queues, link, sendCq: -1 });
  }
  const rng = new Rng(seed);
  const out = goldenRun(ranks, (n) => rng.int(n));
  return out.signals.map((s) => s === 1);
}

describe('barrier properties', () => {
  test.prop(
    [
      fc.record({
        procs: procsArb,
        ppn: fc.integer({ min: 1, max: 8 }),
        mode: fc.constantFrom(...BARRIER_MODES),
        jitterNs: fc.integer({ min: 0, max: 2000 }),
        skewNs: fc.integer({ min: 0, max: 20000 }),
        seed: fc.integer({ min: 0, max: 0xffff }),
      }),
    ],
    { numRuns: 14 },
  )('completes on every rank; nobody leaves early; nothing runs disabled; no overflow; golden agrees', (c) => {
    const log = c.procs <= 64;
    const r = runCluster({ ...c, iterations: 2, log });
    expect(r.errors).toEqual([]);
    expect(r.hung).toEqual([]);
    expect(r.completed).toBe(true);
    const hosts = r.cluster.hosts;
    for (let i = 0; i < 2; i++) {
      const lastIn = Math.max(...hosts.map((h) => h.entered[i]!));
      const firstOut = Math.min(...hosts.map((h) => h.left[i]!));
      expect(firstOut).toBeGreaterThanOrEqual(lastIn);
    }
    for (const h of r.cluster.hcas) {
      for (const q of [...h.sq.flat(), ...h.rq.flat(), ...h.mq]) expect(q.maxOccupancy).toBeLessThanOrEqual(q.length);
      expect(h.errors).toEqual([]);
    }
    if (log && c.mode.startsWith('mq')) {
      // every send the posting rule made disabled runs only after an MQ enable reaching its index
      for (const h of r.cluster.hcas) {
        const enabledAt = new Map<string, { cycle: number; target: number }[]>();
        for (const ev of h.events) if (ev.kind === 'send_enable') (enabledAt.get(`${ev.proc}/${ev.qp}`) ?? enabledAt.set(`${ev.proc}/${ev.qp}`, []).get(`${ev.proc}/${ev.qp}`)!).push({ cycle: ev.cycle, target: ev.target });
        for (const ev of h.events) {
          if (!ev.queue.startsWith('sq') || ev.kind === 'wait') continue;
          const p = ev.proc;
          const qp = Number(ev.queue.slice(2));
          const rank = h.opts.ranks[p]!;
          const ops = hosts[rank]!.prog.ops;
          // index within this QP's send queue -> which barrier and whether an MQ wait preceded it
          const perBarrier = ops.filter((o) => o.send && hosts[rank]!.prog.qpOf(o.peer) === qp).length;
          const nth = ev.index % perBarrier;
          let seen = 0;
          let gated = false;
          for (const o of ops) {
            if (!o.send) gated = true;
            else if (hosts[rank]!.prog.qpOf(o.peer) === qp && seen++ === nth) break;
          }
          if (!gated) continue;
          const en = (enabledAt.get(`${p}/${qp}`) ?? []).filter((x) => x.target >= ev.index && x.cycle < ev.cycle);
          expect(en.length, `rank ${rank} sq${qp}[${ev.index}] ran at ${ev.cycle} before an enable covered it`).toBeGreaterThan(0);
        }
      }
    }
    // the untimed golden machine picks among all ranks' heads each step (quadratic): small counts
    if (c.procs <= 96) expect(goldenBarrier(c.procs, [], c.seed).every((x) => x)).toBe(true);
  });

  it('1,024 processes, MQ-RDMA, with delays: completes', () => {
    const r = runCluster({ procs: 1024, mode: 'mq-rdma', iterations: 2, jitterNs: 500, skewNs: 5000, seed: 3 });
    expect(r.completed).toBe(true);
  });

  test.prop(
    [
      fc
        .record({ procs: fc.integer({ min: 2, max: 96 }), mode: fc.constantFrom(...BARRIER_MODES), seed: fc.integer({ min: 0, max: 999 }), k: fc.integer({ min: 1, max: 3 }) })
        .chain((c) => fc.record({ c: fc.constant(c), absent: fc.uniqueArray(fc.integer({ min: 0, max: c.procs - 1 }), { minLength: 1, maxLength: Math.min(c.k, c.procs - 1) }) })),
    ],
    { numRuns: 10 },
  )('a missing peer: the watchdog reports a hang and nobody completes', ({ c, absent }) => {
    const r = runCluster({ procs: c.procs, mode: c.mode, seed: c.seed, absent, iterations: 1, jitterNs: 300 }, 200_000);
    expect(r.completed).toBe(false);
    expect(r.hung.length).toBe(c.procs - absent.length);
    for (const h of r.cluster.hosts) expect(h.left[0]).toBe(-1);
    if (c.mode.startsWith('mq')) expect(r.hung.some((h) => /wait on CQ \d+: 0 of 1 completions/.test(h.mq))).toBe(true);
    if (c.procs <= 96) expect(goldenBarrier(c.procs, absent, c.seed).some((x) => x)).toBe(false);
  });
});
