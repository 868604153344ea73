/**
 * Benchmark suite "nic-rdma": two TH Express-2 NICs on a link (docs/nic-rdma.md), back-to-back
 * 4 KiB RDMA PUTs from a PIO VP (experiments/nic/rdmaProbe.ts): simulated cycles per wall second
 * (each sample builds the two NICs, then runs the stream; the construction is included).
 */
import { type BenchSuite, type Figure, rate } from '../harness.ts';
import { runRdmaProbe } from '../../experiments/nic/rdmaProbe.ts';

export const suite: BenchSuite = {
  name: 'nic-rdma',
  async run({ quick }) {
    const figs: Figure[] = [];
    const opts = quick ? { time: 200, warmup: 50 } : {};
    const count = quick ? 32 : 256;
    let ops = 0;
    let cycles = 0;
    const r = await rate(
      'nic-rdma.put',
      () => {
        const res = runRdmaProbe({ kind: 'put', bytes: 4096, count, path: 'pio' });
        if (!res.ok) throw new Error('nic-rdma bench: data check failed');
        ops += count + 2;
        cycles += res.cycles;
        return res.cycles;
      },
      opts,
    );
    figs.push({ key: 'nic_rdma.put_stream.cycles_per_s', label: `two NICs, ${count} back-to-back 4 KiB PUTs from a PIO VP: simulated cycles per wall second (NIC construction included)`, value: r.perSecond, unit: ' /s', note: `${(cycles / ops).toFixed(0)} simulated cycles per operation, ${r.samples} samples` });
    figs.push({ key: 'nic_rdma.put_stream.ops_per_s', label: 'two NICs, 4 KiB PUTs: operations per wall second', value: (r.perSecond * ops) / cycles, unit: ' /s' });
    return figs;
  },
};
