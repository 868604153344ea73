/**
 * `netoffload spin ...`: the sPIN runtime (rtl/hpu/spin) running the handler ELFs
 * (rtl/hpu/handlers): one stream (`spin run`), the random-scenario checks (`spin check`), the
 * figures next to the seed and PsPIN (`spin table`), and a design sweep (`spin sweep`).
 */
import { bool, type CommandSpec, type FlagSpec, type FlagValues, list, num, str, UsageError } from '../args.ts';
import { withProgress } from '../progress.ts';
import { DMA_DISCRETE, DMA_INTEGRATED, SPIN_DEFAULTS, type SpinParams } from '../../rtl/hpu/spin/params.ts';
import { HPU_ORGANISATIONS, type HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { runStream } from '../../experiments/hpu/spinLoad.ts';
import { checkScenario, digestRun, newDigest, randomScenario, runScenario } from '../../experiments/hpu/spinCheck.ts';
import { spinTable, TOLERANCE_PCT } from '../../experiments/hpu/spinTable.ts';
import { spinSweep } from '../../experiments/hpu/spinSweep.ts';

const HANDLER_HELP = 'handler: busy, work, pingpong, accumulate, unpack, histogram, probe, or the path of a handler ELF';

const ORGANISATION_FLAG: FlagSpec = { name: 'organisation', type: 'string', default: SPIN_DEFAULTS.organisation, choices: HPU_ORGANISATIONS, help: 'the HPUs\' pipeline: five-stage, or ri5cy (PsPIN\'s RI5CY)' };

const unitFlags: FlagSpec[] = [
  { name: 'clusters', type: 'int', default: SPIN_DEFAULTS.clusters, min: 1, max: 16, help: 'HPU clusters' },
  { name: 'hpus', type: 'int', default: SPIN_DEFAULTS.hpusPerCluster, min: 1, max: 64, help: 'HPUs per cluster' },
  { name: 'buffered', type: 'int', default: SPIN_DEFAULTS.bufferedSlots, min: 1, max: 64, help: 'buffered handler slots per cluster' },
  { name: 'clock-ghz', type: 'number', default: 1, min: 0.01, max: 10, help: 'HPU clock' },
  { name: 'dma', type: 'string', default: 'discrete', choices: ['discrete', 'integrated'], help: 'host DMA: discrete (L 250 ns, G 15.6 ps/bit) or integrated (50 ns, 6.7 ps/bit)' },
  { name: 'gap-ns', type: 'number', default: SPIN_DEFAULTS.linkGapNs, min: 0, max: 1e6, help: 'LogGP g of the link (0: packets back to back)' },
  { name: 'budget', type: 'int', default: SPIN_DEFAULTS.handlerBudget, min: 1, max: 2 ** 40, help: 'cycles a handler may run before its message fails' },
  ORGANISATION_FLAG,
];

function unitParams(f: FlagValues): Partial<SpinParams> {
  return { clusters: num(f, 'clusters'), hpusPerCluster: num(f, 'hpus'), bufferedSlots: num(f, 'buffered'), freqHz: num(f, 'clock-ghz') * 1e9, linkGapNs: num(f, 'gap-ns'), handlerBudget: num(f, 'budget'), organisation: str(f, 'organisation') as HpuOrganisation, ...(str(f, 'dma') === 'integrated' ? DMA_INTEGRATED : DMA_DISCRETE) };
}

function intList(f: FlagValues, name: string, lo: number, hi: number): number[] {
  return list(f, name).map((s) => {
    const v = Number(s);
    if (!Number.isInteger(v) || v < lo || v > hi) throw new UsageError(`--${name}: '${s}' is not an integer in ${lo}..${hi}`);
    return v;
  });
}

const fmt = (v: number, d = 1): string => (Number.isFinite(v) ? v.toFixed(d) : '-');

export const commands: CommandSpec[] = [
  {
    path: ['spin', 'run'],
    summary: 'stream packets through the sPIN runtime running one handler: handler time, drops, latency, throughput',
    details: `
Sends --packets packets of --bytes payload bytes back to back on the 400 Gb/s link (LogGP g =
--gap-ns, G = 2.5 ps per bit), cut into messages of --per-message packets that all match one
entry running --handler, through the inbound engine, the message engine, the cluster scheduler
and the HPUs (RV32IM pipelines executing the handler ELF). Reports the payload handler's time
(mean/min/max, instructions), the packets dropped by flow control, link pause cycles, the packet
latency (first bit on the NIC to the end of its handler), the delivered and put throughput, and
failed messages (exit 1 if any message failed: a handler trapped, returned non-zero or ran past
--budget). The busy handler spins --spin loop iterations per packet (4 cycles each); the work
handler executes --spin straight-line instructions per packet (1 cycle each, at most 3000).`,
    flags: [
      { name: 'handler', type: 'string', default: 'busy', help: HANDLER_HELP },
      { name: 'packets', type: 'int', default: 256, min: 1, max: 10_000_000, help: 'packets to send' },
      { name: 'bytes', type: 'int', default: 1024, min: 1, max: 4096, help: 'payload bytes per packet' },
      { name: 'per-message', type: 'int', default: 32, min: 1, max: 1_000_000, help: 'packets per message' },
      { name: 'spin', type: 'int', default: 0, min: 0, max: 2 ** 31 - 1, help: 'busy: loop iterations per packet; work: straight-line instructions per packet' },
      ...unitFlags,
    ],
    run(f, io) {
      const r = runStream({ handler: str(f, 'handler'), pktBytes: num(f, 'bytes'), packets: num(f, 'packets'), perMessage: num(f, 'per-message'), spin: num(f, 'spin'), params: unitParams(f) });
      const code = r.failed > 0 ? 1 : 0;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ handler: str(f, 'handler'), bytes: num(f, 'bytes'), packets: num(f, 'packets'), ...r }) + '\n');
        return code;
      }
      io.out(`spin run ${str(f, 'handler')}: ${num(f, 'packets')} packets of ${num(f, 'bytes')} B, ${num(f, 'clusters')} x ${num(f, 'hpus')} HPUs\n`);
      io.out(`  handler time        mean ${fmt(r.handlerNs)} ns (min ${fmt(r.handlerMinNs)}, max ${fmt(r.handlerMaxNs)}), ${fmt(r.instructions)} instructions\n`);
      io.out(`  dropped packets     ${r.droppedPackets} (flow control)\n  link pause cycles   ${r.pauseCycles}\n`);
      io.out(`  packet latency      min ${fmt(r.latencyMinNs)} / mean ${fmt(r.latencyMeanNs)} / max ${fmt(r.latencyMaxNs)} ns\n`);
      io.out(`  delivered           ${fmt(r.deliveredGbps)} Gbit/s of payload handled${r.putGbps > 0 ? `; puts ${fmt(r.putGbps)} Gbit/s` : ''}\n`);
      io.out(`  failed messages     ${r.failed}\n  cycles              ${r.cycles}\n`);
      if (r.failed > 0) io.err(`FAIL: ${r.failed} messages failed\n`);
      return code;
    },
  },
  {
    path: ['spin', 'check'],
    summary: 'random sPIN scenarios: message orderings, flow control and handler results against the golden model',
    details: `
Runs --runs random scenarios (seeds --seed, --seed + 1, ...): 1 to 5 messages for the probe,
accumulate, pingpong, histogram and unpack handlers with random sizes, send times and handler
durations, on 1 to 3 clusters of 1 to 4 HPUs with 1 to 4 buffered slots and either DMA setting.
Checks: every message gets one completion event; the header handler runs once, after its packet
arrived and before any payload handler starts; the completion handler starts after every payload
handler ended and before the event; an HPU runs one handler at a time; every packet either ran its
payload handler or was dropped, and the dropped bytes and flow-control flag reported equal those
packets; host memory and puts equal the golden model (models/spin). Exit 1 on any problem.
Prints a digest (sha256) of everything the runs produced (handler records with their cycles,
events, puts, host memory, final cycles): equal digests = the same runs, cycle for cycle.`,
    flags: [
      { name: 'runs', type: 'int', default: 100, min: 1, max: 1_000_000, help: 'scenarios' },
      { name: 'seed', type: 'int', default: 1, min: 1, max: 2 ** 31 - 1, help: 'first scenario seed' },
      ORGANISATION_FLAG,
    ],
    run(f, io) {
      const runs = num(f, 'runs');
      const seed0 = num(f, 'seed');
      let problems: string[] = [];
      let failedSeed = -1;
      let handlers = 0;
      let dropped = 0;
      const hash = newDigest();
      withProgress(io, { label: 'spin check', total: runs, unit: 'scenarios' }, (update) => {
        for (let i = 0; i < runs && problems.length === 0; i++) {
          const s = randomScenario(seed0 + i, str(f, 'organisation') as HpuOrganisation);
          const u = runScenario(s);
          handlers += u.records.length;
          dropped += u.scheduler.dropped;
          digestRun(hash, u);
          problems = checkScenario(s, u);
          if (problems.length > 0) failedSeed = seed0 + i;
          update(i + 1);
        }
      });
      const ok = problems.length === 0;
      const digest = hash.digest('hex');
      if (bool(f, 'json')) io.out(JSON.stringify({ runs, seed: seed0, handlers, dropped_packets: dropped, digest, pass: ok, failed_seed: ok ? null : failedSeed, problems }) + '\n');
      else {
        io.out(`spin check: ${runs} scenarios from seed ${seed0}, ${handlers} handler runs, ${dropped} packets dropped by flow control\n`);
        io.out(`digest of every record, event, put, host memory and final cycle: ${digest}\n`);
        io.out(ok ? 'PASS: orderings, flow control and results hold in every scenario\n' : `FAIL (seed ${failedSeed}):\n  ${problems.slice(0, 10).join('\n  ')}\n`);
      }
      return ok ? 0 : 1;
    },
  },
  {
    path: ['spin', 'table'],
    summary: 'the sPIN runtime next to the seed\'s Little\'s-law budgets and PsPIN\'s figures, and the HPUs-needed table',
    details: `
Each figure is simulated: handler budgets are the longest handler (real RV32IM code: the work
handler's straight-line instructions or the busy handler's loop, whichever reaches longer) that a
stream at line rate runs with no packet dropped and no link pause (binary search over its count);
the seed's rows run its 8 HPUs at its 2.5 GHz clock; the 29-instruction handler is the work
handler; latency and handler time come from a 400 Gb/s stream of 64 B packets on PsPIN's 4 x 8 HPUs;
the ping-pong throughput from the pingpong handler's puts. The HPUs-needed table is the seed's
plot: HPUs = ceil(T x A), A = min(1/g, 1/(G s)), for the seed's 10- and 500-instruction handlers
(4 and 200 ns at 2.5 GHz) and for the pingpong, histogram and accumulate handlers with their
simulated time T at each packet size (discrete DMA). docs/hpu.md explains the differences.`,
    flags: [{ name: 'packets', type: 'int', default: 400, min: 20, max: 100_000, help: 'packets per stream' }],
    run(f, io) {
      const t = withProgress(io, { label: 'spin table', total: 15, unit: 'rows' }, (update) => {
        let done = 0;
        return spinTable({ packets: num(f, 'packets'), onRow: () => update(++done) });
      });
      if (bool(f, 'json')) {
        io.out(JSON.stringify(t) + '\n');
        return 0;
      }
      io.out('sPIN runtime vs seed 002 and PsPIN\n');
      io.out(`${'figure'.padEnd(52)}${'source'.padEnd(10)}${'paper'.padStart(9)}${'model'.padStart(9)}${'error'.padStart(9)}  unit\n`);
      for (const r of t.rows) io.out(`${r.figure.padEnd(52)}${r.source.padEnd(10)}${String(r.paper).padStart(9)}${fmt(r.model).padStart(9)}${(r.error_pct.toFixed(1) + '%').padStart(9)}  ${r.unit.padEnd(7)}${r.within_tolerance ? '' : `outside +-${TOLERANCE_PCT} % (docs/hpu.md, Figures)`}\n`);
      io.out('\nHPUs needed at 400 Gb/s (g = 6.7 ns): ceil(T x A); T of the handlers simulated (discrete DMA)\n');
      io.out(`${'bytes'.padStart(6)}${'Mpkt/s'.padStart(9)}${'10 instr'.padStart(10)}${'500 instr'.padStart(11)}${'pingpong ns / HPUs'.padStart(21)}${'histogram ns / HPUs'.padStart(22)}${'accumulate ns / HPUs'.padStart(23)}\n`);
      for (const r of t.hpusNeeded) {
        const c = (h: string): string => `${fmt(r.handler_ns[h]!)} / ${r.hpus[h]}`;
        io.out(`${String(r.packet_bytes).padStart(6)}${fmt(r.arrival_mpps).padStart(9)}${String(r.hpus_10_instr).padStart(10)}${String(r.hpus_500_instr).padStart(11)}${c('pingpong').padStart(21)}${c('histogram').padStart(22)}${c('accumulate').padStart(23)}\n`);
      }
      for (const r of t.rows) io.out(`  ${r.figure}: ${r.how}\n`);
      return 0;
    },
  },
  {
    path: ['spin', 'sweep'],
    summary: 'sweep HPUs, clusters, clock, handler and packet size: handler time, drops, throughput per point',
    details: `
Every combination of --hpus (per cluster), --clusters, --clock-ghz, --handler, --sizes and
--organisation (the HPUs' pipeline) runs a
stream of --packets packets at line rate (as spin run) and reports the handler time, the packets
dropped by flow control, link pauses, latency and delivered throughput; 'sustains' is true when
nothing was dropped or paused and no message failed.`,
    flags: [
      { name: 'hpus', type: 'list', default: ['4', '8'], help: 'HPUs per cluster' },
      { name: 'clusters', type: 'list', default: ['1', '4'], help: 'clusters' },
      { name: 'clock-ghz', type: 'list', default: ['1'], help: 'HPU clocks in GHz' },
      { name: 'handler', type: 'list', default: ['pingpong', 'histogram'], help: 'handlers (names or ELF paths)' },
      { name: 'sizes', type: 'list', default: ['64', '512', '4096'], help: 'packet payload sizes in bytes' },
      { name: 'packets', type: 'int', default: 128, min: 1, max: 1_000_000, help: 'packets per point' },
      { name: 'spin', type: 'int', default: 0, min: 0, max: 2 ** 31 - 1, help: 'the busy handler\'s iterations per packet' },
      { name: 'organisation', type: 'list', default: [SPIN_DEFAULTS.organisation], choices: HPU_ORGANISATIONS, help: 'the HPUs\' pipelines: five-stage, ri5cy' },
    ],
    run(f, io) {
      const clocks = list(f, 'clock-ghz').map((s) => {
        const v = Number(s);
        if (!(v >= 0.01 && v <= 10)) throw new UsageError(`--clock-ghz: '${s}' is not a number in 0.01..10`);
        return v;
      });
      const spec = { hpus: intList(f, 'hpus', 1, 64), clusters: intList(f, 'clusters', 1, 16), clocks, handlers: list(f, 'handler'), sizes: intList(f, 'sizes', 1, 4096), packets: num(f, 'packets'), spin: num(f, 'spin'), organisations: list(f, 'organisation') as HpuOrganisation[] };
      const total = spec.hpus.length * spec.clusters.length * clocks.length * spec.handlers.length * spec.sizes.length * spec.organisations.length;
      const points = withProgress(io, { label: 'spin sweep', total, unit: 'points' }, (update) => spinSweep(spec, update));
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ points }) + '\n');
        return 0;
      }
      io.out(`${'handler'.padEnd(12)}${'pipeline'.padStart(11)}${'bytes'.padStart(6)}${'clus'.padStart(5)}${'hpus'.padStart(5)}${'GHz'.padStart(5)}${'handler ns'.padStart(12)}${'dropped'.padStart(9)}${'Gbit/s'.padStart(9)}${'failed'.padStart(8)}  sustains\n`);
      for (const p of points) io.out(`${p.handler.padEnd(12)}${p.organisation.padStart(11)}${String(p.bytes).padStart(6)}${String(p.clusters).padStart(5)}${String(p.hpus).padStart(5)}${String(p.clock_ghz).padStart(5)}${fmt(p.handler_ns).padStart(12)}${String(p.dropped_packets).padStart(9)}${fmt(p.delivered_gbps).padStart(9)}${String(p.failed_messages).padStart(8)}  ${p.sustains}\n`);
      return 0;
    },
  },
];
