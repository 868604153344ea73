/**
 * The CORE-Direct host CPU model (rtl/coredirect/host.ts) and the cluster builder
 * (rtl/coredirect/cluster.ts), the cases mutation testing (docs/verification.md) found unchecked:
 * the cycle each rank enters and leaves each barrier, the work it does and the MPI calls and polls
 * it counts, for every mode and pattern of a two-rank barrier, computed by hand from the documented
 * costs (docs/coredirect.md) with every CPU and HCA cost distinct; the poll grid; failures (an MWR
 * the driver refuses, an HCA error) and absent ranks; the observer; entry skew; the cluster's
 * configuration checks with their messages and its shape.
 */
import { describe, expect, it } from 'vitest';
import { Rng, SimulationLimitError, Simulator } from '../../rtl/kernel/index.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { BARRIER_MODES, buildCluster, CLUSTER_DEFAULTS, type ClusterConfig, DENSE_MAX_PROCS } from '../../rtl/coredirect/cluster.ts';
import { CPU_DEFAULTS, HOST_STATE_NAMES, postCounts, RECORD_MAX } from '../../rtl/coredirect/host.ts';
import { postMwr, QueueHeads } from '../../rtl/coredirect/driver.ts';
import { F_SIGNAL, NULL_QUEUE, T_RDMA_WRITE, T_RDMA_WRITE_IMM, T_RECV, T_SEND, T_SEND_ENABLE, T_WAIT, task } from '../../rtl/coredirect/tasks.ts';

/** HCA: pcie 7, task 10, context miss 3, wire 50, rx 5, receive-WQE fetch 2 */
const HCA = { taskNs: 10, rxNs: 5, ctxMissNs: 3, rqFetchNs: 2, wireNs: 50, loopbackNs: 20, pcieNs: 7 };
/** CPU: enter 30, per task 6, doorbell 15, reap 11, poll 13, test 17, ptp step 45 */
const CPU = { enterNs: 30, postTaskNs: 6, doorbellNs: 15, reapNs: 11, pollNs: 13, testNs: 17, ptpStepNs: 45 };

function run(over: Partial<ClusterConfig>, cycles = 100_000) {
  const sim = new Simulator({ freqHz: 1e9 });
  const c = buildCluster(sim, { procs: 2, ppn: 1, iterations: 2, hca: HCA, cpu: CPU, workNs: 100, ...over });
  try {
    sim.runUntil(() => c.settled(), cycles);
  } catch (e) {
    if (!(e instanceof SimulationLimitError)) throw e; // a hang: the test looks at the state
  }
  const host = (r: number) => {
    const h = c.hosts[r]!;
    const s = sim.stats.toJSON();
    return { entered: [...h.entered], left: [...h.left], work: h.workDone, calls: s[`host${r}.mpi_calls`], polls: s[`host${r}.polls`], state: h.stateName };
  };
  return { sim, c, host };
}

describe('host: cycles of a two-rank barrier (one rank per node)', () => {
  it('mq-rdma, blocking: enter, post, HCA, the poll grid', () => {
    // rank 0 (rank 1 is symmetric): START at 0 -> ENTER at 1 (entered); cost 30 + 2 tasks x 6 +
    // 2 doorbells (sq0, MQ) x 15 = 72 -> POST at 73 (doorbell, PCIe 7: the HCA appends at 80) ->
    // DECIDE 74 -> CALL 75, polling from 75 every 13 + 1 cycles. HCA: the write at 81 (13), its
    // enable 94; the peer's write arrives at 81 + 13 + 50 = 144 (5: QP 0's context is loaded);
    // the MQ wait at 149 (10), signalled: the host sees it from 149 + 10 + 7 = 166. First poll at
    // or after 166 on the grid: 75 + 7 x 14 = 173 (7 polls skipped + this one), DECIDE at 173 + 13
    // = 186 (left). Next ENTER at 187: 30 + reap 1 x 11 + 12 + 30 = 83 -> POST 270, HCA appends at
    // 277: write 278 (hit: 10), arrival 338, wait 343, seen from 360; polls from 272: 272 + 7 x 14
    // = 370, left at 383.
    const { host } = run({ mode: 'mq-rdma', pattern: 'blocking' });
    for (const r of [0, 1]) expect(host(r)).toEqual({ entered: [1, 187], left: [186, 383], work: 0, calls: 16, polls: 16, state: 'DONE' });
  });

  it('mq-rdma, work then wait, and test loop', () => {
    // DECIDE 74 -> one work loop of 100 -> WORK 174 -> CALL 175: the completion (from 166) is
    // visible: one poll, DECIDE at 175 + 13 = 188; next ENTER 189
    const w = run({ mode: 'mq-rdma', pattern: 'work-then-wait' });
    expect(w.host(0)).toEqual({ entered: [1, 189], left: [188, 387], work: 200, calls: 2, polls: 2, state: 'DONE' });
    // test loop: work 100, then MPI_Test at 175: sees it, DECIDE at 175 + 13 + 17 = 205
    const t = run({ mode: 'mq-rdma', pattern: 'test-loop' });
    expect(t.host(0)).toEqual({ entered: [1, 206], left: [205, 421], work: 200, calls: 2, polls: 2, state: 'DONE' });
  });

  it('mq-send: a receive posted per wait, three doorbells', () => {
    // ENTER 1: receives (rq0) + MWR (sq0, MQ): 30 + 12 + 3 x 15 = 87 -> POST 88, appended at 95:
    // send 96 (13) -> arrival 159 (5 + fetch 2), wait 166 (10), seen from 183; polls from 90:
    // 90 + 7 x 14 = 188, left 201
    const { host, c } = run({ mode: 'mq-send', pattern: 'blocking' });
    expect(host(0)).toEqual({ entered: [1, 202], left: [201, 413], work: 0, calls: 16, polls: 16, state: 'DONE' });
    expect(c.hosts[0]!.counts).toEqual({ tasks: 2, doorbells: 3, sends: 1 });
  });

  it('ptp-rdma and ptp-send: the CPU progresses the barrier', () => {
    // ENTER 1 (30) -> POST 31 -> PROGRESS 32: post the write (45) -> PROGRESS 77: nothing arrived
    // -> DECIDE 78 -> CALL 79, polling every 13 + 2. HCA: write at 40 (13), arrives at 103 (5),
    // memory note (or receive CQE: 5 + fetch 2) seen from 115 (117): 79 + 3 x 15 = 124, PROGRESS
    // at 137: take it (45) -> 182 nothing left -> DECIDE 183 (left)
    for (const mode of ['ptp-rdma', 'ptp-send'] as const) {
      const { host, c } = run({ mode, pattern: 'blocking' });
      expect(host(0), mode).toEqual({ entered: [1, 184], left: [183, 366], work: 0, calls: 8, polls: 8, state: 'DONE' });
      expect(c.hosts[0]!.counts).toBeNull();
      // work then wait: DECIDE 78 -> work to 178 -> CALL 179 sees it -> PROGRESS 192 -> 237 -> DECIDE 238
      expect(run({ mode, pattern: 'work-then-wait' }).host(1), mode).toEqual({ entered: [1, 239], left: [238, 476], work: 200, calls: 2, polls: 2, state: 'DONE' });
      // test loop: the test at 179 costs 13 + 17: PROGRESS 209 -> 254 -> DECIDE 255
      expect(run({ mode, pattern: 'test-loop' }).host(1), mode).toEqual({ entered: [1, 256], left: [255, 510], work: 200, calls: 2, polls: 2, state: 'DONE' });
    }
  });

  it('a test loop whose quantum is shorter than the barrier works again until it completes', () => {
    const { host } = run({ mode: 'mq-rdma', pattern: 'test-loop', workNs: 40, iterations: 1 });
    // DECIDE 74: work to 114, test at 115 (30) -> 145: work to 185, test at 186: the completion
    // (from 166) is seen -> DECIDE 216
    expect(host(0)).toEqual({ entered: [1], left: [216], work: 80, calls: 2, polls: 2, state: 'DONE' });
    // work then wait works once only: work to 114, then polls from 115: 115 + 4 x 14 = 171, left 184
    const w = run({ mode: 'mq-rdma', pattern: 'work-then-wait', workNs: 40, iterations: 1 });
    expect(w.host(0)).toEqual({ entered: [1], left: [184], work: 40, calls: 5, polls: 5, state: 'DONE' });
  });

  it('the post counts: tasks, queues written, sends among the tasks', () => {
    const heads = new QueueHeads(3);
    const mwr = [task(T_SEND, 0), task(T_RDMA_WRITE, 1), task(T_RDMA_WRITE_IMM, 1), task(T_RECV, 2), task(T_WAIT, NULL_QUEUE, { cq: 0, count: 1 }), task(T_SEND_ENABLE, 0, { index: 0, flags: F_SIGNAL })];
    expect(postCounts(mwr, postMwr(mwr, heads, 10))).toEqual({ tasks: 6, doorbells: 4, sends: 3 });
    expect(CPU_DEFAULTS).toEqual({ enterNs: 300, postTaskNs: 60, doorbellNs: 150, reapNs: 100, pollNs: 100, testNs: 150, ptpStepNs: 450 });
  });
});

describe('host: failures, absent ranks, observer, skew, records', () => {
  it('an MWR over the length limit fails the rank at once with the driver message; the others hang', () => {
    const { c, sim } = run({ procs: 2, hca: { ...HCA, sqLength: 1 }, mode: 'mq-rdma' }, 5000);
    for (const h of c.hosts) {
      expect(h.failed).toBe(true);
      expect(h.done).toBe(false);
      expect(h.stateName).toBe('FAILED');
      expect(h.error).toBe(`rank ${h.rank} MWR: 2 tasks exceed the MWR length limit of 1 (the send-queue length)`);
      expect([...h.entered]).toEqual([1, -1]);
    }
    expect(c.tally).toEqual({ left: 0, settled: 2 });
    expect(c.settled()).toBe(true);
    expect(sim.stats.toJSON()['host0.mpi_calls']).toBe(0);
  });

  it('an HCA error ends the rank as FAILED naming the error, counted once', () => {
    // a queue too short for the posted batch: the HCA refuses it and tells the host
    const { c } = run({ procs: 2, hca: { ...HCA, mqLength: 1 }, mode: 'mq-rdma' }, 5000);
    for (const h of c.hosts) {
      expect(h.stateName).toBe('FAILED');
      expect(h.error).toBe('HCA error #0');
      expect([...h.left]).toEqual([-1, -1]);
    }
    expect(c.tally).toEqual({ left: 0, settled: 2 });
  });

  it('an absent rank settles at once and never enters; its peer waits', () => {
    const { c } = run({ procs: 3, ppn: 2, mode: 'mq-rdma', absent: [2] }, 20_000);
    expect(c.hosts[2]!.done).toBe(true);
    expect([...c.hosts[2]!.entered]).toEqual([-1, -1]);
    expect(c.hosts[0]!.stateName).toBe('CALL');
    expect(c.hosts[0]!.done).toBe(false);
    expect(c.tally).toEqual({ left: 0, settled: 1 });
    expect(c.settled()).toBe(false);
  });

  it('the observer is told every enter and leave; skew delays each entry by a seeded draw', () => {
    const seen: string[] = [];
    const observer = { enter: (r: number, i: number, t: number) => seen.push(`e${r}.${i}@${t}`), leave: (r: number, i: number, t: number) => seen.push(`l${r}.${i}@${t}`) };
    const { c } = run({ mode: 'mq-rdma', observer, iterations: 3 });
    const want: string[] = [];
    for (const h of c.hosts) for (let i = 0; i < 3; i++) want.push(`e${h.rank}.${i}@${h.entered[i]}`, `l${h.rank}.${i}@${h.left[i]}`);
    expect([...seen].sort()).toEqual(want.sort());
    expect(c.tally.left).toBe(6);
    // skew: the start and every re-entry come from the cluster's seeded generator
    const s = run({ mode: 'mq-rdma', skewNs: 500, seed: 9, iterations: 3 });
    // the cluster's generator: per rank a start draw, then the rank's own fork for its re-entries
    const rng = new Rng(9);
    const start: number[] = [];
    const forks: Rng[] = [];
    for (const r of [0, 1]) {
      start.push(rng.int(501));
      forks.push(rng.fork(`skew${r}`));
    }
    for (const r of [0, 1]) {
      const h = s.c.hosts[r]!;
      expect(h.entered[0]).toBe(Math.max(1, start[r]!));
      const fork = forks[r]!;
      for (let i = 1; i < 3; i++) expect(h.entered[i]).toBe(h.left[i - 1]! + Math.max(1, fork.int(501)));
    }
  });

  it('enter and leave cycles are kept for the first RECORD_MAX barriers only', () => {
    expect(RECORD_MAX).toBe(1024);
    const { c } = run({ mode: 'mq-rdma', iterations: 1030 }, 10_000_000);
    const h = c.hosts[0]!;
    expect(h.done).toBe(true);
    expect(h.iter).toBe(1030);
    expect(h.entered.length).toBe(1024);
    expect(h.left.length).toBe(1024);
    expect(h.left[1023]).toBeGreaterThan(h.left[1022]!);
    expect(HOST_STATE_NAMES).toEqual(['START', 'ENTER', 'POST', 'WORK', 'CALL', 'PROGRESS', 'DECIDE', 'DONE', 'FAILED']);
  });
});

describe('cluster: configuration and shape', () => {
  it('checks its configuration, naming the field', () => {
    const bad = (over: Partial<ClusterConfig>, msg: string): void => {
      const sim = new Simulator();
      expect(() => buildCluster(sim, over)).toThrow(InputError);
      expect(() => buildCluster(new Simulator(), over)).toThrow(msg);
    };
    bad({ procs: 1 }, 'process count 1: must be an integer in [2, 65536]');
    for (const ppn of [0, 65, 1.5]) bad({ procs: 4, ppn }, `processes per node ${ppn}: must be an integer in [1, 64]`);
    for (const iterations of [0, 1.5]) bad({ procs: 4, iterations }, `iterations ${iterations}: must be a positive integer`);
    bad({ procs: DENSE_MAX_PROCS + 1, connections: 'dense' }, `dense connections: at most 256 processes (got 257); use sparse`);
    for (const a of [-1, 4, 0.5]) bad({ procs: 4, absent: [a] }, `absent rank ${a} out of range [0, 4)`);
    bad({ procs: 4, hca: { taskNs: 0 } }, 'HCA parameter taskNs');
    expect(buildCluster(new Simulator(), { procs: 4, ppn: 64 }).hcas).toHaveLength(1);
    expect(buildCluster(new Simulator(), { procs: 4, ppn: 1 }).hcas).toHaveLength(4);
    expect(DENSE_MAX_PROCS).toBe(256);
  });

  it('defaults, nodes, names, QPs (sparse and dense), receive CQEs to the host only for ptp-send', () => {
    expect(CLUSTER_DEFAULTS).toEqual({ procs: 64, ppn: 8, mode: 'mq-rdma', connections: 'sparse', iterations: 20, pattern: 'blocking', workNs: 0, hca: {}, cpu: {}, jitterNs: 0, skewNs: 0, seed: 1, absent: [], log: false });
    expect(BARRIER_MODES).toEqual(['mq-rdma', 'mq-send', 'ptp-rdma', 'ptp-send']);
    for (const mode of BARRIER_MODES) {
      const sim = new Simulator();
      const c = buildCluster(sim, { procs: 6, ppn: 4, mode });
      expect(c.hcas.map((h) => [h.path, h.opts.ranks, h.opts.qps, h.opts.recvCqToHost])).toEqual([
        ['hca0', [0, 1, 2, 3], [3, 3, 2, 2], mode === 'ptp-send'],
        ['hca1', [4, 5], [1, 1], mode === 'ptp-send'],
      ]);
      expect(c.hosts.map((h) => h.path)).toEqual(['host0', 'host1', 'host2', 'host3', 'host4', 'host5']);
      expect(c.hosts.map((h) => [h.prog.mode, h.prog.rdma, h.prog.mwrLimit])).toEqual(Array.from({ length: 6 }, () => [mode.startsWith('mq') ? 'mq' : 'ptp', mode.endsWith('rdma'), 16000]));
      expect(c.params.taskNs).toBe(129);
      expect(c.cfg.procs).toBe(6);
    }
    const d = buildCluster(new Simulator(), { procs: 5, ppn: 5, connections: 'dense' });
    expect(d.hcas[0]!.opts.qps).toEqual([4, 4, 4, 4, 4]);
    expect([0, 1, 3, 4].map((p) => d.hosts[2]!.prog.qpOf(p))).toEqual([0, 1, 2, 3]);
    // a dense cluster runs the barrier too
    const sim = new Simulator({ freqHz: 1e9 });
    const c = buildCluster(sim, { procs: 5, ppn: 2, connections: 'dense', iterations: 2, mode: 'mq-send' });
    sim.runUntil(() => c.settled(), 1_000_000);
    expect(c.hosts.every((h) => h.done)).toBe(true);
    expect(c.tally).toEqual({ left: 10, settled: 5 });
  });
});
