/**
 * Benchmark suite "atc": simulated ATC lookups per second with the default configuration
 * (1,048,576 entries, 8 ways, true LRU, 16 MSHRs, PCIe read 500 + U[0, 100] cycles) under a
 * uniform and a zipf trace over 4,194,304 pages (four times the cache), and the memory footprint
 * of that configuration. The traces are endless streams from the seeded generator (no
 * repetition). A lookup counts when its response has been taken by the requester
 * (at most 32 outstanding). The cache is warmed with one chunk before measuring.
 */
import { footprintMiB, type BenchSuite, type Figure, rate } from '../harness.ts';
import { buildAtcBench } from '../../experiments/nic/atcDriver.ts';
import { traceSampler } from '../../experiments/nic/traces.ts';

const PAGES = 4 * 1048576;

export const suite: BenchSuite = {
  name: 'atc',
  async run({ quick }) {
    const figs: Figure[] = [];
    const fp = footprintMiB(() => buildAtcBench({ atc: {}, host: {}, trace: new Float64Array(1), requests: 0, window: 32 }));
    figs.push({
      key: 'atc.default.storage_mib',
      label: 'ATC 1M entries x 8 ways: tag/data/LRU arrays',
      value: fp.value.atc.storageBytes / 1048576,
      unit: ' MiB',
      target: { op: '<=', value: 100 },
    });
    figs.push({ key: 'atc.default.footprint_mib', label: 'ATC 1M entries: measured heap + buffers of the model', value: fp.mib, unit: ' MiB', target: { op: '<=', value: 100 } });
    const chunk = quick ? 5000 : 50000;
    for (const kind of ['uniform', 'zipf'] as const) {
      const b = buildAtcBench({ atc: {}, host: {}, trace: traceSampler({ kind, seed: 1, pages: PAGES }), requests: chunk, window: 32 });
      b.sim.runUntil(() => b.driver.done, 1e12); // warm-up
      const r = await rate(
        `atc.${kind}`,
        () => {
          const before = b.driver.completed;
          b.driver.extend(chunk);
          b.sim.runUntil(() => b.driver.done, 1e12);
          return b.driver.completed - before;
        },
        quick ? { time: 200, warmup: 50 } : {},
      );
      figs.push({
        key: `atc.default.${kind}.lookups_per_s`,
        label: `ATC 1M x 8-way, ${kind} trace over 4M pages: simulated lookups/s`,
        value: r.perSecond,
        unit: ' /s',
        note: `hit rate ${b.atc.hitRate().toFixed(3)}, ${(b.sim.cycle / b.driver.completed).toFixed(1)} simulated cycles per lookup, ${r.samples} samples`,
      });
    }
    return figs;
  },
};
