/**
 * Soak entry: the NIC memory path (memory checker -> ATC -> host memory) under the refresh-check
 * traffic of `atc refresh-check` (experiments/nic/refreshCheck.ts): lookups through the checker,
 * ATT updates each followed by a refresh, PCIe latency changes; every translation and every fill is
 * judged by the freshness oracle. The traffic runs in epochs of 20,000 operations: at the end of
 * each the path is drained (every request answered, every refresh done and verified), the epoch's
 * verdict taken, and the oracle's history dropped (it restarts from the ATT as it is), so that
 * only the hardware's state lives as long as the run.
 */
import { passed, refreshTraffic } from '../../../experiments/nic/refreshCheck.ts';
import type { SoakBlock } from '../block.ts';

const EPOCH_OPS = 20_000;
const SLICE_OPS = 1_000;

export const blocks: SoakBlock[] = [
  {
    name: 'atc-refresh',
    what: 'memory checker + ATC + host memory under lookups, ATT updates and refreshes, judged by the freshness oracle (epochs of 20,000 operations)',
    start(seed) {
      const t = refreshTraffic({ seed });
      const problems: string[] = [];
      let epochs = 0;
      let inEpoch = 0;
      let dead = false;
      let lastEpochs = 0;
      let lastEpochCycle = 0;
      let last = t.report(); // the verdict of the last finished epoch (report() mid-epoch would count requests in flight as lost)
      const endEpoch = (): void => {
        const ok = t.drain();
        const r = t.report();
        last = r;
        if (!ok || !passed(r)) {
          problems.push(`epoch ${epochs}: ${r.deadlock ?? r.first_problem ?? 'the report does not pass'}`);
          dead = !ok;
        }
        if (ok) t.newEpoch();
        epochs++;
        inEpoch = 0;
      };
      return {
        get cycle() {
          return t.sim.cycle;
        },
        runTo(to) {
          while (t.sim.cycle < to) {
            if (dead) {
              t.sim.step(to - t.sim.cycle); // a deadlocked run only lets time pass (the check has failed)
              break;
            }
            if (!t.ops(SLICE_OPS)) {
              dead = true;
              problems.push(`epoch ${epochs}: deadlock (atc refresh-check --seed ${seed} reproduces the traffic)`);
              continue;
            }
            inEpoch += SLICE_OPS;
            if (inEpoch >= EPOCH_OPS) endEpoch();
          }
        },
        check() {
          const out = problems.splice(0, problems.length);
          if (epochs > lastEpochs) lastEpochCycle = t.sim.cycle;
          else if (t.sim.cycle - lastEpochCycle > 5_000_000) out.push(`no epoch finished in the last ${t.sim.cycle - lastEpochCycle} cycles`);
          lastEpochs = epochs;
          return out;
        },
        summary() {
          const r = last;
          return `${epochs} epochs checked: ${r.lookups.toLocaleString('en-US')} lookups, ${r.refreshes.toLocaleString('en-US')} refreshes (each verified after its done register), ${r.stale_translations + r.stale_installs} stale, ${r.lost} lost`;
        },
      };
    },
  },
];
