/**
 * A cluster running the barrier: ceil(M / ppn) nodes, each one HCA shared by `ppn` processes
 * (rank r on node floor(r / ppn)), and one host CPU model per rank. QPs are connected per pair of
 * ranks that talk (sparse: only the log2 peers of the barrier) or between every pair (dense).
 * Intra-node pairs go through the HCA's loopback.
 */
import { InputError } from '../kernel/errors.ts';
import { Rng, type Scope } from '../kernel/index.ts';
import { barrierMwr, barrierOps, barrierPeers, checkProcs } from './barrier.ts';
import { Hca } from './hca.ts';
import { type BarrierObserver, CPU_DEFAULTS, type CpuParams, Host, type Pattern } from './host.ts';
import { type HcaParams, hcaParams } from './params.ts';

export type BarrierMode = 'mq-rdma' | 'mq-send' | 'ptp-rdma' | 'ptp-send';
export const BARRIER_MODES: readonly BarrierMode[] = ['mq-rdma', 'mq-send', 'ptp-rdma', 'ptp-send'];

export interface ClusterConfig {
  procs: number;
  /** processes per node (per HCA); the seed's testbed: 8 nodes x 8 cores */
  ppn: number;
  mode: BarrierMode;
  connections: 'sparse' | 'dense';
  iterations: number;
  pattern: Pattern;
  workNs: number;
  hca: Partial<HcaParams>;
  cpu: Partial<CpuParams>;
  /** random delays: per-packet jitter and per-barrier entry skew, from `seed` */
  jitterNs: number;
  skewNs: number;
  seed: number;
  /** ranks that never enter (missing peers) */
  absent: readonly number[];
  log: boolean;
  /** told every rank's enter and leave of every barrier (optional; nothing is recorded for it) */
  observer?: BarrierObserver;
}

export const CLUSTER_DEFAULTS: Readonly<ClusterConfig> = {
  procs: 64,
  ppn: 8,
  mode: 'mq-rdma',
  connections: 'sparse',
  iterations: 20,
  pattern: 'blocking',
  workNs: 0,
  hca: {},
  cpu: {},
  jitterNs: 0,
  skewNs: 0,
  seed: 1,
  absent: [],
  log: false,
};

/** Dense connections above this many ranks would need more QPs than the model is meant for. */
export const DENSE_MAX_PROCS = 256;

export interface Cluster {
  cfg: ClusterConfig;
  params: HcaParams;
  hcas: Hca[];
  hosts: Host[];
  /** barriers finished, summed over the hosts, and hosts done or failed (kept by the hosts: cheap to poll every cycle) */
  tally: { left: number; settled: number };
  /** every host finished or failed */
  settled(): boolean;
}

export function buildCluster(parent: Scope, over: Partial<ClusterConfig>): Cluster {
  const cfg: ClusterConfig = { ...CLUSTER_DEFAULTS, ...over };
  checkProcs(cfg.procs);
  if (!Number.isInteger(cfg.ppn) || cfg.ppn < 1 || cfg.ppn > 64) throw new InputError(`processes per node ${cfg.ppn}: must be an integer in [1, 64]`);
  if (!Number.isInteger(cfg.iterations) || cfg.iterations < 1) throw new InputError(`iterations ${cfg.iterations}: must be a positive integer`);
  if (cfg.connections === 'dense' && cfg.procs > DENSE_MAX_PROCS) throw new InputError(`dense connections: at most ${DENSE_MAX_PROCS} processes (got ${cfg.procs}); use sparse`);
  for (const a of cfg.absent) if (!Number.isInteger(a) || a < 0 || a >= cfg.procs) throw new InputError(`absent rank ${a} out of range [0, ${cfg.procs})`);
  const params = hcaParams(cfg.hca);
  const cpu: CpuParams = { ...CPU_DEFAULTS, ...cfg.cpu };
  const M = cfg.procs;
  const mq = cfg.mode.startsWith('mq');
  const rdma = cfg.mode.endsWith('rdma');
  const rng = new Rng(cfg.seed);
  const ops = Array.from({ length: M }, (_, r) => barrierOps(M, r));
  // local QP index of each peer: sparse = order of first use; dense = every other rank by number
  const peers = ops.map((o, r) => (cfg.connections === 'sparse' ? barrierPeers(o) : Array.from({ length: M - 1 }, (_, i) => (i < r ? i : i + 1))));
  const qpIndex = peers.map((ps) => new Map(ps.map((p, j) => [p, j])));
  const nodes = Math.ceil(M / cfg.ppn);
  const hcas: Hca[] = [];
  for (let n = 0; n < nodes; n++) {
    const ranks = [];
    for (let r = n * cfg.ppn; r < Math.min(M, (n + 1) * cfg.ppn); r++) ranks.push(r);
    const h = new Hca(parent, `hca${n}`, params, { qps: ranks.map((r) => peers[r]!.length), ranks, recvCqToHost: !mq && !rdma, jitterNs: cfg.jitterNs, rng: rng.fork(`jitter${n}`), log: cfg.log });
    hcas.push(h);
  }
  const node = (r: number): Hca => hcas[Math.floor(r / cfg.ppn)]!;
  const proc = (r: number): number => r % cfg.ppn;
  for (let a = 0; a < M; a++)
    for (const b of peers[a]!)
      if (a < b) Hca.connect(node(a), proc(a), qpIndex[a]!.get(b)!, node(b), proc(b), qpIndex[b]!.get(a)!);
  for (const h of hcas) h.finish();
  const absent = new Set(cfg.absent);
  const tally = { left: 0, settled: 0 };
  const hosts: Host[] = [];
  for (let r = 0; r < M; r++) {
    const qpOf = (peer: number): number => qpIndex[r]!.get(peer)!;
    const mwr = barrierMwr(ops[r]!, qpOf, rdma);
    hosts.push(
      new Host(
        parent,
        `host${r}`,
        r,
        {
          mode: mq ? 'mq' : 'ptp',
          rdma,
          ops: ops[r]!,
          qpOf,
          qps: peers[r]!.length,
          iterations: cfg.iterations,
          pattern: cfg.pattern,
          workNs: cfg.workNs,
          startNs: cfg.skewNs > 0 ? rng.int(cfg.skewNs + 1) : 0,
          skewNs: cfg.skewNs,
          rng: rng.fork(`skew${r}`),
          absent: absent.has(r),
          mwrLimit: params.sqLength,
          tally,
          observer: cfg.observer,
        },
        cpu,
        node(r).ports[proc(r)]!,
        mwr,
      ),
    );
  }
  return {
    cfg,
    params,
    hcas,
    hosts,
    tally,
    settled: () => tally.settled === M,
  };
}
