/**
 * The host CPU's own work per offloaded barrier call (issue 13): besides entering the library and
 * writing the MWR's tasks, the CPU rings one doorbell per queue the MWR wrote to and reaps the
 * previous call's send completions (rtl/coredirect/host.ts, docs/coredirect.md). Checked: what a
 * rank counts per post, that exactly that CPU time is added to every call of a tight barrier loop,
 * and that the work-loop availability at 64 processes is therefore below 100 %.
 */
import { describe, expect, it } from 'vitest';
import { CPU_DEFAULTS } from '../../rtl/coredirect/host.ts';
import { availabilityWorkLoop, barrierLatency, runCluster } from '../../experiments/coredirect/run.ts';
import type { ClusterConfig } from '../../rtl/coredirect/cluster.ts';

const cfg = (procs: number, cpu: ClusterConfig['cpu'] = {}): Partial<ClusterConfig> => ({ procs, ppn: 8, mode: 'mq-rdma', connections: 'sparse', cpu });

describe('CORE-Direct host: doorbells and send-completion reaping', () => {
  it.each([
    [8, { tasks: 6, doorbells: 4, sends: 3 }],
    [64, { tasks: 12, doorbells: 7, sends: 6 }],
    [48, { tasks: 12, doorbells: 7, sends: 6 }],
  ])('%i processes: rank 0 writes its tasks, rings one doorbell per queue (its send queues and the MQ), and has one send completion per send', (procs, want) => {
    const r = runCluster({ ...cfg(procs), iterations: 2 });
    expect(r.completed).toBe(true);
    expect(r.cluster.hosts[0]!.counts).toEqual(want);
  });

  it('the CPU time (doorbells x doorbellNs + sends x reapNs) lengthens a tight loop of calls, by at most itself (ranks that post early wait for the last one anyway)', () => {
    const free = barrierLatency(cfg(64, { doorbellNs: 0, reapNs: 0 }));
    const paid = barrierLatency(cfg(64));
    const extraUs = (7 * CPU_DEFAULTS.doorbellNs + 6 * CPU_DEFAULTS.reapNs) / 1000;
    expect(paid - free).toBeGreaterThan(0.5 * extraUs);
    expect(paid - free).toBeLessThanOrEqual(extraUs + 0.05);
  });

  it('the work-loop availability at 64 processes falls below 100 % (the host part of a call is above 5 % of it)', () => {
    const c = cfg(64);
    const raw = barrierLatency(c);
    const w = availabilityWorkLoop(c, raw);
    expect(w.availability).toBeLessThan(1);
    expect(w.availability).toBeGreaterThanOrEqual(0.8);
  });
});
