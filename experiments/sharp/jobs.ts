/**
 * Several jobs on the default 128-host fabric at once. Hosts are dealt to jobs at random (jobs do
 * not share hosts, but they share every switch and aggregation node); every job has a
 * world group and a sub-group of about half its hosts (two partially overlapping communicators)
 * on different trees, all running pipelined allreduces concurrently.
 */
import { Rng } from '../../rtl/kernel/index.ts';
import { runUntilReporting } from '../run-reporting.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { type GroupSpec, Workload } from './workload.ts';

export interface JobsReport {
  hosts: number;
  groups: number;
  cycles: number;
  ok: boolean;
  /** SHA-256 of the results every member of a group agreed on (see Workload.result_sha256) */
  result_sha256: string;
  jobs: { job: number; groups: { group: number; members: number; tree: number; bytes: number; calls: number; latency_us: number; ok: boolean }[] }[];
}

/**
 * The groups of `jobs` jobs on a fabric (seeded): hosts dealt to jobs at random, a world group and
 * a half-size sub-group per job, each member calling `iterations` times (Infinity: until stopped).
 */
export function jobSpecs(fabric: Fabric, jobs: number, seed: number, iterations: number): GroupSpec[] {
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 16) throw new RangeError(`jobs must be in 1..16, got ${jobs}`);
  if (!(iterations >= 1) || (!Number.isInteger(iterations) && iterations !== Infinity)) throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  const rng = new Rng(seed);
  const hosts = rng.shuffle([...fabric.topo.hosts]);
  const per = Math.floor(hosts.length / jobs);
  const sizes = [8, 64, 256, 1024, 2048];
  const specs: GroupSpec[] = [];
  for (let j = 0; j < jobs; j++) {
    const mine = hosts.slice(j * per, (j + 1) * per).sort((a, b) => a - b);
    const sub = rng.shuffle([...mine]).slice(0, Math.max(1, Math.ceil(mine.length / 2))).sort((a, b) => a - b);
    const job = j + 1;
    specs.push({ job, group: 1, tree: (2 * j) % 64, members: mine, op: 'sum', type: 'f32', bytes: rng.pick(sizes), iterations, dist: rng.pick(['rc', 'ud', 'rc+ud'] as const), maxOps: 4 });
    specs.push({ job, group: 2, tree: (2 * j + 1) % 64, members: sub, op: 'sum', type: 'f32', bytes: rng.pick(sizes), iterations, dist: 'rc', maxOps: 4 });
  }
  return specs;
}

/** Default simulated-time cap of `runJobs` in ns (cycles at the default 1 GHz clock): 5 ms plus 1 ms per iteration. */
export function jobsDefaultCapNs(iterations: number): number {
  return 5_000_000 + iterations * 1_000_000;
}

/**
 * `maxCycles` caps the run (default `jobsDefaultCapNs`); reaching it throws SimulationLimitError.
 * `report` is called between chunks of simulated cycles with the calls completed and the calls in all (progress of a CLI).
 */
export function runJobs(jobs: number, seed: number, iterations = 6, maxCycles?: number, report?: (calls: number, total: number) => void): JobsReport {
  const fabric = new Fabric({ hosts: 128 });
  const specs = jobSpecs(fabric, jobs, seed, iterations);
  const w = new Workload(fabric, specs, { dataSeed: seed, skewSeed: seed + 1, skewMaxNs: 400 });
  const start = fabric.sim.cycle;
  runUntilReporting(fabric.sim, () => w.finished(), maxCycles ?? fabric.cycles(jobsDefaultCapNs(iterations)), report && (() => report(w.callsCompleted(), w.callsTotal())));
  report?.(w.callsCompleted(), w.callsTotal());
  const cycles = fabric.sim.cycle - start;
  w.verify();
  const byJob = new Map<number, JobsReport['jobs'][number]>();
  let ok = true;
  for (const o of w.outcomes) {
    const good = o.errors === 0 && o.hung === 0 && o.correct === o.spec.iterations;
    ok &&= good;
    if (!byJob.has(o.spec.job)) byJob.set(o.spec.job, { job: o.spec.job, groups: [] });
    byJob.get(o.spec.job)!.groups.push({ group: o.spec.group, members: o.plan.members.length, tree: o.spec.tree, bytes: o.spec.bytes, calls: o.spec.iterations, latency_us: Number(o.latency_us.toFixed(4)), ok: good });
  }
  return { hosts: fabric.topo.hosts.length, groups: specs.length, cycles, ok, result_sha256: w.result_sha256, jobs: [...byJob.values()] };
}
