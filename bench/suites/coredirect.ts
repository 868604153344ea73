/**
 * Benchmark suite "coredirect": simulated barriers per second at 1,024 processes (128 nodes x 8
 * processes, sparse connections, default calibrated parameters), offloaded (MQ-RDMA) and
 * CPU-progressed (PTP-RDMA). A cluster is built once with an endless barrier loop; each chunk runs
 * until every rank has finished `chunk` more barriers.
 */
import { type BenchSuite, type Figure, footprintMiB, rate } from '../harness.ts';
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildCluster, type BarrierMode } from '../../rtl/coredirect/cluster.ts';

const PROCS = 1024;

export const suite: BenchSuite = {
  name: 'coredirect',
  async run({ quick }) {
    const figs: Figure[] = [];
    for (const mode of ['mq-rdma', 'ptp-rdma'] as BarrierMode[]) {
      const sim = new Simulator({ freqHz: 1e9 });
      const fp = footprintMiB(() => buildCluster(sim, { procs: PROCS, mode, iterations: 1e9 }));
      const c = fp.value;
      const r0 = c.hosts[0]!;
      const chunk = quick ? 2 : 5;
      const tally = c.tally;
      const runBarriers = (): number => {
        const target = tally.left + chunk * PROCS;
        sim.runUntil(() => tally.left >= target, 1e12);
        return chunk;
      };
      runBarriers(); // warm-up (caches and JIT)
      const startCycle = sim.cycle;
      const startIter = r0.iter;
      const r = await rate(`coredirect.${mode}`, runBarriers, quick ? { time: 300, warmup: 50 } : { time: 3000, warmup: 300 });
      const usPer = (sim.cycle - startCycle) / 1000 / Math.max(1, r0.iter - startIter);
      figs.push({
        key: `coredirect.${mode}.p1024.barriers_per_s`,
        label: `CORE-Direct ${mode} barrier, 1,024 processes (128 HCAs): simulated barriers/s`,
        value: r.perSecond,
        unit: ' /s',
        note: `${usPer.toFixed(1)} simulated us per barrier, model footprint ${fp.mib.toFixed(1)} MiB, ${r.samples} samples`,
      });
    }
    return figs;
  },
};
