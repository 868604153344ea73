/**
 * SHArP fabric simulation speed: simulated cycles and allreduce operations per second on the
 * 128-host, 8-byte allreduce (the paper's testbed), and wall time of one allreduce on 512- and
 * 2,048-host fabrics (two- and three-level fat trees), to show how cost grows with system size.
 */
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { largeSpec } from '../../rtl/sharp/topology.ts';
import { spreadMembers } from '../../experiments/sharp/scenario.ts';
import { Workload } from '../../experiments/sharp/workload.ts';
import type { BenchSuite, Figure } from '../harness.ts';

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
    return figs;
  },
};
