/**
 * Soak entries for CORE-Direct (rtl/coredirect): the offloaded recursive-doubling barrier, called
 * over and over by 64 processes on 8 nodes (8 per HCA), with per-packet jitter and a random entry
 * skew before every barrier so that arrival orders vary:
 *
 * - `coredirect-mq-rdma`: each barrier one MWR of RDMA writes with waits on the peers' CQs;
 * - `coredirect-mq-send`: the same with sends and receives.
 *
 * Every barrier is checked as it finishes and then dropped (bench/soak/barrierCheck.ts): every
 * rank enters and leaves every barrier in order, nobody leaves barrier k before every rank has
 * entered it, no HCA or host reports an error, and barriers keep finishing. The cluster runs with
 * an endless iteration count; a host records enter/leave cycles only for its first 1,024
 * barriers (RECORD_MAX), the checker keeps a window of four barriers.
 */
import { Simulator } from '../../../rtl/kernel/index.ts';
import { type BarrierMode, buildCluster } from '../../../rtl/coredirect/cluster.ts';
import { BarrierChecker } from '../barrierCheck.ts';
import { type SoakBlock, steppedRun } from '../block.ts';

const PROCS = 64;

function coredirect(mode: BarrierMode): SoakBlock {
  return {
    name: `coredirect-${mode}`,
    what: `CORE-Direct offloaded barrier (${mode}), 64 processes on 8 HCAs, 200 ns jitter, up to 2 us entry skew, barrier after barrier, each checked (all ranks leave, none before all entered) and dropped`,
    start(seed) {
      const sim = new Simulator({ freqHz: 1e9 });
      const checker = new BarrierChecker(PROCS);
      const cluster = buildCluster(sim, { procs: PROCS, ppn: 8, mode, iterations: Number.MAX_SAFE_INTEGER, jitterNs: 200, skewNs: 2000, seed, observer: checker });
      let lastDone = 0;
      return steppedRun(sim, {
        check() {
          const out = checker.problems.splice(0, checker.problems.length);
          for (const h of cluster.hcas) if (h.errors.length > 0) out.push(`${h.path}: ${h.errors.length} errors (first: ${h.errors[0]})`);
          for (const h of cluster.hosts) if (h.error !== null) out.push(`rank ${h.rank}: ${h.error}`);
          if (checker.barriers <= lastDone) out.push(`no barrier finished since the last sample (${checker.barriers} in all)`);
          lastDone = checker.barriers;
          return out;
        },
        summary() {
          return `${checker.barriers.toLocaleString('en-US')} barriers checked (mean ${(checker.meanCycles() / 1000).toFixed(2)} us from the last rank entering to the last leaving), ${checker.violations} violations`;
        },
      });
    },
  };
}

export const blocks: SoakBlock[] = [coredirect('mq-rdma'), coredirect('mq-send')];
