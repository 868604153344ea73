/**
 * SHArP fabric simulation speed: simulated cycles and allreduce operations per second on the
 * 128-host, 8-byte allreduce (the paper's testbed), wall time of one allreduce on 512- and
 * 2,048-host fabrics, and issue 17 goal 5: the whole `sharp allreduce --hosts 2048` command (8 B,
 * default 10 iterations) under 2 s wall and 300 MB peak resident memory, and `--hosts 11664` (the
 * largest three-level fat tree of 36-port switches) under 10 s wall. A whole command is a child
 * process (`node --import tsx bench/cli-run.ts sharp allreduce ...`: Node start, module loading,
 * fabric build, run, output), measured in the same number of interleaved rounds per command and
 * reported as medians; the fabric build and the run are also timed in this process.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { largeSpec } from '../../rtl/sharp/topology.ts';
import { runAllreduce, spreadMembers } from '../../experiments/sharp/scenario.ts';
import { Workload } from '../../experiments/sharp/workload.ts';
import { type BenchSuite, type Figure, median } from '../harness.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function timedAllreduce(hosts: number, bytes: number, iterations: number): { wallS: number; cycles: number; ops: number } {
  const fabric = new Fabric(hosts <= 128 ? { hosts: 128 } : { topology: largeSpec(hosts) });
  const members = spreadMembers(fabric, hosts);
  const w = new Workload(fabric, [{ job: 1, group: 1, tree: 0, members, op: 'sum', type: 'f32', bytes, iterations, dist: 'rc' }]);
  const c0 = fabric.sim.cycle;
  const t0 = performance.now();
  fabric.sim.runUntil(() => w.finished(), 1e9);
  const wallS = (performance.now() - t0) / 1000;
  return { wallS, cycles: fabric.sim.cycle - c0, ops: iterations };
}

/** One whole `sharp allreduce --hosts N --json` command in a child process: wall seconds, peak RSS in MB, its result. */
function wholeCommand(hosts: number): { wallS: number; cpuS: number; rssMB: number; sha: string; ok: boolean } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', 'cli-run.ts'), 'sharp', 'allreduce', '--hosts', String(hosts), '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 24 });
  const wallS = (performance.now() - t0) / 1000;
  const lines = r.stderr.trim().split('\n');
  const tail = JSON.parse(lines[lines.length - 1] ?? '{}') as { exit?: number; maxrss_kb?: number; cpu_s?: number };
  if (r.status !== 0 || tail.exit !== 0) throw new Error(`sharp allreduce --hosts ${hosts} failed (exit ${r.status}): ${r.stderr.slice(-400)}`);
  const out = JSON.parse(r.stdout) as { ok: boolean; result_sha256: string };
  return { wallS, cpuS: tail.cpu_s ?? NaN, rssMB: (tail.maxrss_kb ?? 0) / 1024, sha: out.result_sha256, ok: out.ok };
}

/** Fabric build and run of the command's allreduce in this process (the split of a whole command's time). */
function buildAndRun(hosts: number): { buildS: number; runS: number } {
  const t0 = performance.now();
  const fabric = new Fabric(hosts <= 128 ? { hosts: 128 } : { topology: largeSpec(hosts) });
  const t1 = performance.now();
  runAllreduce({ fabric, hosts, bytes: 8, op: 'sum', type: 'f32', dist: 'rc', skewSeed: 1, skewMaxNs: 500, iterations: 10, dataSeed: 7 });
  return { buildS: (t1 - t0) / 1000, runS: (performance.now() - t1) / 1000 };
}

export const suite: BenchSuite = {
  name: 'sharp',
  async run({ quick }) {
    const figs: Figure[] = [];
    timedAllreduce(128, 8, quick ? 5 : 50); // warm-up (JIT)
    const n = quick ? 20 : 400;
    const r = timedAllreduce(128, 8, n);
    figs.push({ key: 'sharp.128h.8B.cycles_per_s', label: '128-host 8 B allreduce: simulated cycles per second', value: r.cycles / r.wallS, unit: ' cycles/s', target: { op: '>=', value: 1e6 } });
    figs.push({ key: 'sharp.128h.8B.ops_per_s', label: '128-host 8 B allreduce: allreduce operations per second', value: r.ops / r.wallS, unit: ' ops/s' });
    for (const hosts of [512, 2048]) {
      const it = quick ? 1 : 5;
      const x = timedAllreduce(hosts, 8, it);
      figs.push({ key: `sharp.${hosts}h.8B.wall_ms_per_op`, label: `${hosts}-host 8 B allreduce: wall time per operation`, value: (1000 * x.wallS) / it, unit: ' ms', note: `${x.cycles / it} simulated cycles per operation` });
    }
    // goal 5: whole commands, interleaved rounds (quick: one round of the 2,048-host command only)
    const sizes = quick ? [2048] : [2048, 11664];
    const rounds = quick ? 1 : 3;
    const runs = new Map<number, { wallS: number; cpuS: number; rssMB: number; sha: string; ok: boolean }[]>(sizes.map((h) => [h, []]));
    for (let k = 0; k < rounds; k++) for (const h of sizes) runs.get(h)!.push(wholeCommand(h));
    for (const h of sizes) {
      const rs = runs.get(h)!;
      const split = buildAndRun(h);
      const note = `median of ${rounds} round(s), child process node --import tsx (npx adds its own start-up); the command's CPU time (user + system, all threads) ${median(rs.map((x) => x.cpuS)).toFixed(2)} s; in this process: fabric build ${split.buildS.toFixed(2)} s, run ${split.runS.toFixed(2)} s; result_sha256 ${rs[0]!.sha}${rs.every((x) => x.ok) ? '' : ' (golden check FAILED)'}`;
      figs.push({ key: `sharp.goal5.allreduce_${h}h.wall_s`, label: `goal 5: sharp allreduce --hosts ${h} (8 B), whole command`, value: median(rs.map((x) => x.wallS)), unit: ' s', target: { op: '<=', value: h === 2048 ? 2 : 10 }, note });
      if (h === 2048) figs.push({ key: `sharp.goal5.allreduce_${h}h.max_rss_mb`, label: `goal 5: sharp allreduce --hosts ${h} (8 B), peak resident memory`, value: median(rs.map((x) => x.rssMB)), unit: ' MB', target: { op: '<=', value: 300 } });
      else figs.push({ key: `sharp.goal5.allreduce_${h}h.max_rss_mb`, label: `sharp allreduce --hosts ${h} (8 B), peak resident memory`, value: median(rs.map((x) => x.rssMB)), unit: ' MB' });
    }
    return figs;
  },
};
