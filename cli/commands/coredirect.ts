/**
 * `netoffload coredirect barrier|overlap|fit`: the CORE-Direct barrier (seed 001) latency per call,
 * both overlap measures, and the calibration. See docs/coredirect.md.
 */
import { bool, type CommandSpec, list, num, str, UsageError } from '../args.ts';
import { BARRIER_MODES, type BarrierMode, DENSE_MAX_PROCS } from '../../rtl/coredirect/cluster.ts';
import { MAX_PROCS } from '../../rtl/coredirect/barrier.ts';
import { latencyTable, overlapTable } from '../../experiments/coredirect/overlap.ts';
import { fit, FIT_RUNS, SEED_AFTER_US, SEED_BEFORE_US } from '../../experiments/coredirect/calibrate.ts';
import { BarrierIncomplete, runCluster } from '../../experiments/coredirect/run.ts';
import { hostShareTable } from '../../experiments/coredirect/hostShare.ts';
import { withProgress } from '../progress.ts';

function procList(items: string[]): number[] {
  return items.map((x) => {
    if (!/^\d+$/.test(x) || Number(x) < 2 || Number(x) > MAX_PROCS) throw new UsageError(`--procs: '${x}' is not a process count in [2, ${MAX_PROCS}]`);
    return Number(x);
  });
}

const fmt = (v: number | null, d = 2): string => (v === null ? '-' : v.toFixed(d));

export const commands: CommandSpec[] = [
  {
    path: ['coredirect', 'barrier'],
    summary: 'offloaded (MQ) or CPU-progressed (PTP) recursive-doubling barrier: latency per call',
    details: `
Runs a tight loop of barriers (default 20) on ceil(P / ppn) nodes with one HCA each and reports
rank 0's mean time per call over the second half of the loop. Modes: mq-rdma (MWR + RDMA write
with immediate), mq-send (MWR + send/recv), ptp-rdma and ptp-send (progressed by the CPU).
The seed's figures (64 processes): 32 us MQ-RDMA sparse, 54 us MQ-send dense (the calibration
points). Exits 1 if a barrier does not complete.`,
    flags: [
      { name: 'procs', type: 'list', default: ['8', '16', '32', '64'], help: 'comma-separated process counts' },
      { name: 'mode', type: 'string', default: 'mq-rdma', choices: BARRIER_MODES, help: 'mq-rdma | mq-send | ptp-rdma | ptp-send' },
      { name: 'connections', type: 'string', default: 'sparse', choices: ['sparse', 'dense'], help: `QPs to the log2 peers only, or to every rank (dense: up to ${DENSE_MAX_PROCS} processes)` },
      { name: 'ppn', type: 'int', default: 8, min: 1, max: 64, help: 'processes per node (per HCA)' },
      { name: 'iterations', type: 'int', default: 20, min: 2, max: 100000, help: 'barriers in the loop' },
    ],
    run(f, io) {
      const procs = procList(list(f, 'procs'));
      const connections = str(f, 'connections') as 'sparse' | 'dense';
      if (connections === 'dense') for (const p of procs) if (p > DENSE_MAX_PROCS) throw new UsageError(`--procs ${p}: dense connections allow at most ${DENSE_MAX_PROCS} processes`);
      const mode = str(f, 'mode') as BarrierMode;
      const total = procs.reduce((a, p) => a + p, 0);
      let done = 0;
      let rows;
      try {
        rows = withProgress(io, { label: 'coredirect barrier', total, unit: 'processes (summed over --procs)' }, (update) =>
        procs.flatMap((p) => {
          const row = latencyTable([p], mode, { connections, ppn: num(f, 'ppn'), iterations: num(f, 'iterations') });
          update((done += p));
          return row;
        }),
      );
      } catch (e) {
        if (!(e instanceof BarrierIncomplete)) throw e;
        io.err(`netoffload: ${e.message}\n`);
        return 1;
      }
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ mode, connections, ppn: num(f, 'ppn'), rows }) + '\n');
        return 0;
      }
      io.out(`CORE-Direct barrier, ${mode}, ${connections} connections, ${num(f, 'ppn')} processes per node\n\n`);
      io.out(`${'procs'.padStart(6)}${'latency_us'.padStart(12)}${'seed_us'.padStart(9)}${'error'.padStart(8)}\n`);
      for (const r of rows) io.out(`${String(r.procs).padStart(6)}${fmt(r.latency_us).padStart(12)}${fmt(r.seed_us).padStart(9)}${(r.seed_us === null ? '-' : `${(((r.latency_us - r.seed_us) / r.seed_us) * 100).toFixed(1)}%`).padStart(8)}\n`);
      return 0;
    },
  },
  {
    path: ['coredirect', 'overlap'],
    summary: 'CPU time available during the nonblocking barrier, both of the seed\'s measures, all four modes',
    details: `
For each process count and mode: the raw nonblocking barrier time, then
  test-loop: work quanta (1, 2 or 5 % of the raw time, the best that keeps the barrier within 5 %
             of raw) alternating with MPI_Test until completion; availability = work / barrier time;
  work-loop: post, one work loop of 10 %, 20 %, ... 100 % of the raw time, wait; availability =
             the largest loop that keeps the barrier within 5 % of raw.
The seed (Figure 7, 64 processes): MQ-RDMA about 80 % with the work loop, rising with process
count; CPU-progressed at most 30 %. These cells are predictions (the model is fitted on latency only).`,
    flags: [
      { name: 'procs', type: 'list', default: ['8', '16', '32', '64'], help: 'comma-separated process counts' },
      { name: 'mode', type: 'list', default: [...BARRIER_MODES], choices: BARRIER_MODES, help: 'modes to run' },
      { name: 'ppn', type: 'int', default: 8, min: 1, max: 64, help: 'processes per node (per HCA)' },
    ],
    run(f, io) {
      const procs = procList(list(f, 'procs'));
      const modes = list(f, 'mode') as BarrierMode[];
      const total = procs.reduce((a, p) => a + p, 0) * modes.length;
      let done = 0;
      const rows = withProgress(io, { label: 'coredirect overlap', total, unit: 'processes (summed over --procs and --mode)' }, (update) => overlapTable(procs, modes, { ppn: num(f, 'ppn') }, (row) => update((done += row.procs))));
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ ppn: num(f, 'ppn'), rows }) + '\n');
        return 0;
      }
      io.out(`CORE-Direct nonblocking barrier: CPU availability, ${num(f, 'ppn')} processes per node (predictions)\n\n`);
      io.out(`${'procs'.padStart(6)}  ${'mode'.padEnd(9)}${'raw_us'.padStart(9)}${'test_loop'.padStart(11)}${'work_loop'.padStart(11)}  seed\n`);
      for (const r of rows) io.out(`${String(r.procs).padStart(6)}  ${r.mode.padEnd(9)}${fmt(r.raw_us).padStart(9)}${`${(r.test_loop_availability * 100).toFixed(0)}%`.padStart(11)}${`${(r.work_loop_availability * 100).toFixed(0)}%`.padStart(11)}  ${r.seed ?? '-'}\n`);
      return 0;
    },
  },
  {
    path: ['coredirect', 'fit'],
    summary: 'rerun the calibration: taskNs and ctxMissNs on the seed\'s 64-process 54 us -> 32 us',
    details: `
Bisects the HCA task time on MQ-RDMA with sparse connections (target ${SEED_AFTER_US} us), then the
context-miss time on MQ-send with dense connections (target ${SEED_BEFORE_US} us), 8 nodes x 8
processes. About 20 s. The defaults in rtl/coredirect/params.ts hold the result.`,
    flags: [],
    run(f, io) {
      const r = withProgress(io, { label: 'coredirect fit', total: FIT_RUNS, unit: 'simulations (at most)' }, (update) => fit(update));
      if (bool(f, 'json')) {
        io.out(JSON.stringify(r) + '\n');
        return 0;
      }
      io.out(`fitted taskNs = ${r.taskNs} ns, ctxMissNs = ${r.ctxMissNs} ns (${r.runs} simulations)\n`);
      io.out(`MQ-RDMA sparse, 64 processes: ${r.after_us.toFixed(2)} us (seed ${SEED_AFTER_US})\n`);
      io.out(`MQ-send dense,  64 processes: ${r.before_us.toFixed(2)} us (seed ${SEED_BEFORE_US})\n`);
      return 0;
    },
  },
  {
    path: ['coredirect', 'hang-check'],
    summary: 'a barrier with missing ranks: the watchdog must report a hang, never a completion',
    details: `
Runs one barrier with the given ranks absent (they never enter). Every other rank must be
reported hung, with what its MQ waits for; exits 1 if any rank completed the barrier.`,
    flags: [
      { name: 'procs', type: 'int', default: 16, min: 2, max: MAX_PROCS, help: 'process count' },
      { name: 'absent', type: 'list', default: ['0'], help: 'ranks that never enter' },
      { name: 'mode', type: 'string', default: 'mq-rdma', choices: BARRIER_MODES, help: 'barrier mode' },
    ],
    run(f, io) {
      const procs = num(f, 'procs');
      const absent = list(f, 'absent').map((x) => {
        if (!/^\d+$/.test(x) || Number(x) >= procs) throw new UsageError(`--absent: '${x}' is not a rank in [0, ${procs})`);
        return Number(x);
      });
      const r = runCluster({ procs, absent, mode: str(f, 'mode') as BarrierMode, iterations: 1 }, 200_000);
      const falseCompletions = r.cluster.hosts.filter((h) => !absent.includes(h.rank) && h.left[0]! >= 0).length;
      const ok = !r.completed && falseCompletions === 0;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ procs, absent, hung: r.hung.length, false_completions: falseCompletions, first: r.hung[0] ?? null, pass: ok }) + '\n');
        return ok ? 0 : 1;
      }
      io.out(`watchdog: ${r.hung.length} ranks hung, ${falseCompletions} completed\n`);
      for (const h of r.hung.slice(0, 8)) io.out(`  rank ${h.rank}: ${h.state}, ${h.mq}\n`);
      io.out(ok ? 'PASS: hang detected, no false completion\n' : 'FAIL\n');
      return ok ? 0 : 1;
    },
  },
  {
    path: ['coredirect', 'host-share'],
    summary: 'MQ-RDMA availability against the host CPU share of the barrier, per process count and host cost per MWR task (taskNs refitted to 32 us at 64 processes for each)',
    details: `
The seed's 64-process latency (32 us, MQ-RDMA) fixes the sum of the host's time per barrier call
(enterNs + send completions x reapNs + MWR tasks x postTaskNs + queues x doorbellNs + one poll)
and the HCA's (taskNs per task), not the split; the work-loop availability is decided by that
split, since the HCA needs no CPU. For each host cost per MWR task (--post-task-ns, ns; the model's
default is 60) this refits taskNs by bisection so that the barrier stays at 32 us at 64 processes
(8 x 8), then runs both overlap measures at every process count of --procs (8 per node) with that
taskNs. About 6 s of CPU per row, plus about 15 s per refit. docs/coredirect.md (availability) uses
it to show what the seed's ~80 % implies and how the availability moves with the process count.`,
    flags: [
      { name: 'post-task-ns', type: 'list', default: ['60', '200', '400', '600'], help: 'host CPU ns per MWR task, comma-separated (integers in [0, 2000])' },
      { name: 'procs', type: 'list', default: ['64'], help: 'process counts, comma-separated (8 processes per node)' },
    ],
    run(f, io) {
      const values = list(f, 'post-task-ns').map((x) => {
        if (!/^\d+$/.test(x) || Number(x) > 2000) throw new UsageError(`--post-task-ns: '${x}' is not an integer in [0, 2000]`);
        return Number(x);
      });
      const procs = procList(list(f, 'procs'));
      const rows = hostShareTable(values, procs);
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ mode: 'mq-rdma', ppn: 8, rows }) + '\n');
        return 0;
      }
      io.out('CORE-Direct MQ-RDMA, 8 processes per node: availability against the host share of the barrier (seed: work loop ~80 % at 64, rising with P)\n\n');
      io.out(`${'procs'.padStart(6)}${'post_task_ns'.padStart(13)}${'task_ns'.padStart(9)}${'raw_us'.padStart(9)}${'host_us'.padStart(9)}${'host_share'.padStart(12)}${'test_loop'.padStart(11)}${'work_loop'.padStart(11)}\n`);
      for (const r of rows)
        io.out(
          `${String(r.procs).padStart(6)}${String(r.post_task_ns).padStart(13)}${String(r.task_ns).padStart(9)}${fmt(r.raw_us).padStart(9)}${fmt(r.host_us).padStart(9)}${`${(r.host_share * 100).toFixed(1)}%`.padStart(12)}${`${(r.test_loop_availability * 100).toFixed(0)}%`.padStart(11)}${`${(r.work_loop_availability * 100).toFixed(0)}%`.padStart(11)}\n`,
        );
      return 0;
    },
  },
];
