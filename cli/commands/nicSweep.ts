/**
 * `netoffload nic sweep`: design exploration of two NICs under a multi-process load: latency
 * percentiles and bandwidth per configuration (experiments/nic/rdmaSweep.ts).
 */
import { bool, CheckFailed, type CommandSpec, type FlagSpec, type FlagValues, list, num, str, UsageError } from '../args.ts';
import { withProgress } from '../progress.ts';
import { checkPoint, MIX_NAMES, runNicSweep, SweepFailure, SWEEP_AXES, SWEEP_LOAD_DEFAULTS, type SweepPoint, sweepPoints, type SweepRow } from '../../experiments/nic/rdmaSweep.ts';

const axisFlags: FlagSpec[] = SWEEP_AXES.map((a) => ({ name: a.flag, type: 'list', default: a.defaults.map(String), help: `${a.help}: comma-separated values, each an integer in ${a.min}..${a.max}` }));

function axisValues(f: FlagValues): { [K in keyof SweepPoint]: number[] } {
  const out = {} as { [K in keyof SweepPoint]: number[] };
  for (const a of SWEEP_AXES) {
    const vals = list(f, a.flag).map((s) => {
      const v = /^\d+$/.test(s) ? Number(s) : NaN;
      if (!Number.isSafeInteger(v) || v < a.min || v > a.max) throw new UsageError(`--${a.flag}: '${s}' is not an integer in ${a.min}..${a.max}`);
      return v;
    });
    if (new Set(vals).size !== vals.length) throw new UsageError(`--${a.flag}: a value is listed twice (${vals.join(',')})`);
    out[a.key] = vals;
  }
  return out;
}

const opt = (v: number | null): string => (v === null ? '-' : v.toFixed(0));

function table(rows: SweepRow[]): string {
  const head = ['pio', 'dma', 'depth', 'reads', 'tx-reads', 'pcie ns', 'tx ctx', 'rx ctx', 'p50 ns', 'p90 ns', 'p99 ns', 'max ns', 'p50 pio', 'p50 dma', 'GB/s', 'Mops'];
  const body = rows.map((r) => [r.pio_vps, r.dma_vps, r.depth, r.max_reads, r.tx_reads, r.pcie_ns, r.tx_contexts, r.rx_contexts, r.p50_ns, r.p90_ns, r.p99_ns, r.max_ns].map((x) => x.toFixed(0)).concat([opt(r.p50_pio_ns), opt(r.p50_dma_ns), r.gbps.toFixed(2), r.mops.toFixed(2)]));
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padStart(w[i]!)).join(' | ')} |\n`;
  return line(head) + `| ${w.map((x) => '-'.repeat(x - 1) + ':').join(' | ')} |\n` + body.map(line).join('');
}

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'sweep'],
    summary: 'design sweep of two NICs under a multi-process load: latency percentiles and bandwidth per configuration',
    details: `
For every combination of the listed values (PIO and DMA VP counts, SDQ buffer depth, SDQ
descriptor reads outstanding, transmit-engine payload reads in flight, PCIe one-way latency,
sender and receiver contexts of the reliable end-to-end layer, which matter with --connect),
builds two NICs on a link (docs/nic-rdma.md, "Design sweep") and runs --procs processes at once
on node 0: process p uses VP p mod VPs (PIO VPs first) and writes --ops messages to the same VP
of node 1, at most --window outstanding, sizes drawn from --mix with --seed (mixed: 40 % 8-64 B
immediate PUTs, 35 % 256 B-4 KiB, 20 % 4-16 KiB, 5 % 16-64 KiB PUTs; small; large). Completion
is the remote event landing in the target's event queue. Per configuration: latency percentiles
(from the process being ready to post to the completion), the median on PIO and on DMA VPs,
bandwidth (payload bytes over the run) and operations per microsecond. The same flags and seed
give the same output.`,
    flags: [
      ...axisFlags,
      { name: 'procs', type: 'int', default: SWEEP_LOAD_DEFAULTS.procs, min: 1, max: 4096, help: 'processes submitting at once' },
      { name: 'ops', type: 'int', default: SWEEP_LOAD_DEFAULTS.ops, min: 1, max: 100000, help: 'operations per process' },
      { name: 'window', type: 'int', default: SWEEP_LOAD_DEFAULTS.window, min: 1, max: 4, help: 'operations a process keeps outstanding' },
      { name: 'mix', type: 'string', default: SWEEP_LOAD_DEFAULTS.mix, choices: MIX_NAMES, help: 'message sizes: mixed, small (8-64 B) or large (16-64 KiB)' },
      { name: 'connect', type: 'bool', help: 'the writes use the reliable end-to-end protocol (connect flag): contexts, ACKs, retransmission' },
      { name: 'seed', type: 'int', default: SWEEP_LOAD_DEFAULTS.seed, min: 0, max: 2 ** 32 - 1, help: 'seed of the message sizes' },
    ],
    run(f, io) {
      const points = sweepPoints(axisValues(f));
      const load = { procs: num(f, 'procs'), ops: num(f, 'ops'), window: num(f, 'window'), mix: str(f, 'mix'), seed: num(f, 'seed'), connect: bool(f, 'connect') };
      for (const p of points) {
        try {
          checkPoint(p, load);
        } catch (e) {
          throw new UsageError(`--procs / --ops: ${(e as Error).message}`);
        }
      }
      let rows: SweepRow[];
      try {
        rows = withProgress(io, { label: 'nic sweep', total: points.length, unit: 'configurations' }, (update) => runNicSweep(points, load, update));
      } catch (e) {
        if (e instanceof SweepFailure) throw new CheckFailed(e.message);
        throw e;
      }
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ load, rows }) + '\n');
        return 0;
      }
      io.out(`${load.procs} processes x ${load.ops} operations (window ${load.window}, ${load.mix} sizes, seed ${load.seed}${load.connect ? ', connect' : ', connectless'}); latency from ready to the remote event landing\n\n`);
      io.out(table(rows));
      return 0;
    },
  },
];
