/**
 * `netoffload nic table`: the two-NIC model against the TH Express-2 seed (003, section 5).
 *
 * - Table 1 (minimum point-to-point latency, completion detected by the event): IMM_PUT, PUT and
 *   MP of 8 bytes from a PIO VP (0) or a DMA VP (8) of node 0 to VP 1 of node 1, connectless and
 *   connect, each on a fresh rig (experiments/nic/rdmaRig.ts) with the host's software costs
 *   (experiments/nic/hostCpu.ts, HOST_COSTS); the warm operation (the second; the first warms the
 *   ATCs) from the send call to the polling process having read the completion entry.
 * - The fit: the three host costs are fitted on Table 1 by weighted linear least squares
 *   (`fitHost`): sensitivities by finite differences of whole simulations, relative errors.
 * - Table 2 (MPI latency, ER and SR channels): predicted from the Table 1 cells plus the MPI
 *   library's costs (MPI_COSTS, from the seed's text, not fitted).
 * - Figure 2 (RDMA PUT bandwidth, unidirectional and bidirectional, PIO and DMA VPs): measured live
 *   by experiments/nic/bandwidth.ts (`runPutBandwidth`, the rig with its default host costs) at the
 *   size the seed's peak starts from and at 64 KiB, each against the seed's peak.
 */
import { HOST_COST_NAMES, HOST_COSTS, type HostCosts, hostCosts } from './hostCpu.ts';
import { queueBase, RdmaRig } from './rdmaRig.ts';
import { runPutBandwidth, SEED_PEAK } from './bandwidth.ts';
import { RDMA_PROBE_DEFAULTS } from './rdmaProbe.ts';
import { blankDesc, DESC_IMM_PUT, DESC_MP, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { Q_ENTRY_BYTES, Q_EQ, Q_MPQ } from '../../rtl/nic/queues/index.ts';

export type Table1Kind = 'imm_put' | 'put' | 'mp';
export type VpPath = 'pio' | 'dma';

export interface Table1Cell {
  kind: Table1Kind;
  path: VpPath;
  connect: boolean;
}

/** payload bytes of every Table 1 operation: the seed's "minimum latency" is its smallest message (an 8-byte PUT costs what a 1-byte one does, `nic rdma --kind put --bytes 1`) */
export const TABLE1_BYTES = 8;

export const TABLE1_KINDS: readonly Table1Kind[] = ['imm_put', 'put', 'mp'];

/** Table 1 of the seed (ns), by path, link mode and kind. */
export const SEED_TABLE1: Readonly<Record<VpPath, Readonly<Record<'connectless' | 'connect', Readonly<Record<Table1Kind, number>>>>>> = {
  pio: { connectless: { imm_put: 890, put: 1300, mp: 1300 }, connect: { imm_put: 1310, put: 1350, mp: 1640 } },
  dma: { connectless: { imm_put: 1290, put: 1590, mp: 1400 }, connect: { imm_put: 1640, put: 1670, mp: 1710 } },
};

/** Table 2 of the seed (ns): MPI latency, ER channel (immediate PUT) and SR channel (MP). */
export const SEED_TABLE2: Readonly<Record<VpPath, Readonly<Record<'connectless' | 'connect', { er: number; sr: number }>>>> = {
  pio: { connectless: { er: 1180, sr: 1260 }, connect: { er: 1530, sr: 1610 } },
  dma: { connectless: { er: 1400, sr: 1380 }, connect: { er: 1760, sr: 1690 } },
};

/**
 * The MPI library's costs above GLEX2 (MPICH2-GLEX2, seed section 5, Table 2's text), not fitted:
 * "Compared with latency of 0.89 us in tests of GLEX2, MPI introduces about 300 ns delay. The main
 * cause is that both sender and receiver have a copy cost in the ER channel implementation.
 * Besides that, the progress engine in MPICH may also introduce some cost." and, for the SR
 * channel, "MPI almost does not introduce any cost for small-size message".
 */
export interface MpiCosts {
  /** ER channel: the sender's copy of the message (into the immediate descriptor / ring slot), before the post; half of the seed's "about 300 ns" (the seed does not split it) */
  erSendCopyNs: number;
  /** ER channel: the receiver's copy out of the ring buffer after it sees the event; the other half */
  erRecvCopyNs: number;
  /** MPICH's progress engine, both channels: 0, since the SR channel, which runs through it too, costs "almost" nothing above GLEX2 */
  progressNs: number;
}

export const MPI_COSTS: Readonly<MpiCosts> = { erSendCopyNs: 150, erRecvCopyNs: 150, progressNs: 0 };

export function table1Cells(): Table1Cell[] {
  const cells: Table1Cell[] = [];
  for (const path of ['pio', 'dma'] as const) for (const connect of [false, true]) for (const kind of TABLE1_KINDS) cells.push({ kind, path, connect });
  return cells;
}

export function cellLabel(c: Table1Cell): string {
  return `${c.path.toUpperCase()} ${c.connect ? 'connect' : 'connectless'} ${c.kind.toUpperCase()}`;
}

export function seedTable1(c: Table1Cell): number {
  return SEED_TABLE1[c.path][c.connect ? 'connect' : 'connectless'][c.kind];
}

const VPS = 40;
const PIO_VP = 0;
const DMA_VP = 8;
const TARGET_VP = 1;
const SRC_VA = 0x1000_0000;
const DST_VA = 0x2000_0000;
const KEY = 77;
const EQ_SIZE = 64;
const MPQ_SIZE = 16;

export interface CellResult {
  /** send call to completion read, warm (ns) */
  latency_ns: number;
  /** of which: completion entry landed in host memory (ns after the call) */
  landed_ns: number;
  /** the target holds the source bytes (PUT, IMM_PUT: the buffer; MP: the MPQ entry's payload) */
  ok: boolean;
}

/** One Table 1 cell on a fresh two-NIC rig with host costs `host` (NIC parameters: `nic rdma`'s defaults). */
export function runCell(cell: Table1Cell, host: Partial<HostCosts> = HOST_COSTS): CellResult {
  const D = RDMA_PROBE_DEFAULTS;
  const rig = new RdmaRig({
    vps: VPS,
    pioVps: 8,
    eqSize: EQ_SIZE,
    mpqSize: MPQ_SIZE,
    intqSize: 64,
    epq: false,
    sdqRing: 64,
    nic: { att: { readLatency: D.attLatency, jitter: 0 }, atc: { entries: 65536, ways: 8 }, items: 64, rdma: { maxPayload: D.maxPayload, maxTransfer: 4096 } },
    link: { latency: D.linkLatency, bytesPerCycle: D.linkBytesPerCycle },
    host: hostCosts(host),
  });
  const vp = cell.path === 'pio' ? PIO_VP : DMA_VP;
  const item = { valid: true, key: KEY, read: true, write: true, physical: false };
  rig.setItem(0, 0, { ...item, basePage: SRC_VA / 4096, topPage: SRC_VA / 4096, vp });
  rig.setItem(1, 0, { ...item, basePage: DST_VA / 4096, topPage: DST_VA / 4096, vp: TARGET_VP });
  const data = Uint8Array.from({ length: TABLE1_BYTES }, (_, i) => (i * 7 + 1) & 0xff);
  const small = cell.kind !== 'put';
  if (!small) rig.pair.nics[0]!.pcie.mem.write(rig.pair.nics[0]!.mem.att.frame(SRC_VA / 4096, vp) * 4096, data);
  const d = blankDesc({ imm_put: DESC_IMM_PUT, put: DESC_PUT, mp: DESC_MP }[cell.kind]);
  Object.assign(d, { dstNode: 1, dstVp: TARGET_VP, length: TABLE1_BYTES, localEvent: true, remoteEvent: cell.kind !== 'mp', connect: cell.connect });
  if (small) d.data = data;
  else Object.assign(d, { localItem: 0, localKey: KEY, localAddr: SRC_VA });
  if (cell.kind !== 'mp') Object.assign(d, { remoteItem: 0, remoteKey: KEY, remoteAddr: DST_VA });
  const desc = encodeDescriptor(d);
  // completion: the remote event (PUT, IMM_PUT) or the MPQ entry (MP) landing in node 1's host memory
  const kindQ = cell.kind === 'mp' ? Q_MPQ : Q_EQ;
  const base = queueBase(kindQ, TARGET_VP, VPS);
  const entry = Q_ENTRY_BYTES[kindQ]!;
  const end = base + (cell.kind === 'mp' ? MPQ_SIZE : EQ_SIZE) * entry;
  let landings = 0;
  let landed = -1;
  rig.onHostWrite = (n, addr, bytes, cycle) => {
    if (n === 1 && addr >= base && addr < end && (cell.kind === 'mp' || bytes[0] === 2)) {
      landings++;
      landed = cycle;
    }
  };
  const one = (): { latency: number; landed: number } => {
    const goal = landings + 1;
    const t0 = rig.sim.cycle;
    rig.post(0, vp, desc);
    rig.sim.runUntil(() => landings >= goal, 1e7);
    return { latency: rig.detected(landed, entry) - t0, landed: landed - t0 };
  };
  one(); // cold: the ATCs miss
  const warm = one();
  let ok: boolean;
  if (cell.kind === 'mp') {
    const e = rig.pair.nics[1]!.pcie.mem.read(base + entry, entry);
    ok = e[1] === TABLE1_BYTES && data.every((b, i) => e[16 + i] === b);
  } else {
    const got = rig.pair.nics[1]!.pcie.mem.read(rig.pair.nics[1]!.mem.att.frame(DST_VA / 4096, TARGET_VP) * 4096, TABLE1_BYTES);
    ok = data.every((b, i) => got[i] === b);
  }
  return { latency_ns: rig.sim.cyclesToNs(warm.latency), landed_ns: rig.sim.cyclesToNs(warm.landed), ok };
}

export interface Table1Row extends Table1Cell {
  label: string;
  seed_ns: number;
  model_ns: number;
  /** (model - seed) / seed, percent */
  error_pct: number;
  ok: boolean;
}

export function errorPct(model: number, seed: number): number {
  return ((model - seed) / seed) * 100;
}

export function runTable1(host: Partial<HostCosts> = HOST_COSTS, update?: (done: number) => void): Table1Row[] {
  return table1Cells().map((c, i) => {
    const r = runCell(c, host);
    update?.(i + 1);
    const seed = seedTable1(c);
    return { ...c, label: cellLabel(c), seed_ns: seed, model_ns: r.latency_ns, error_pct: errorPct(r.latency_ns, seed), ok: r.ok };
  });
}

// ---------------------------------------------------------------- the fit

/** the point the sensitivities are taken at, and the finite-difference step (ns) */
export const FIT_BASE: Readonly<HostCosts> = { sendNs: 100, pioChunkNs: 100, pollLineNs: 100 };
export const FIT_STEP_NS = 100;
/** simulations of one fit: the base point and one step per parameter, then the fitted point */
export const FIT_RUNS = 12 * (HOST_COST_NAMES.length + 2);

export interface HostFit {
  names: readonly (keyof HostCosts)[];
  /** Table 1 cells at FIT_BASE (ns) */
  base_ns: number[];
  /** sensitivity of each cell (rows) to each parameter (columns), ns per ns */
  jacobian: number[][];
  /** the weighted normal equations A p = b (weights 1 / seed: relative errors) */
  normal: number[][];
  rhs: number[];
  /** the least-squares solution before rounding to whole ns */
  exact: number[];
  fitted: HostCosts;
  /** Table 1 simulated at the fitted values */
  rows: Table1Row[];
  rms_error_pct: number;
}

/** Solve A x = b (small, dense) by Gaussian elimination with partial pivoting; throws if singular. */
export function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((r, i) => [...r, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) throw new Error(`the fit is singular: column ${c} has no information`);
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((r, i) => r[n]! / r[i]!);
}

/**
 * Fit the host costs on Table 1: every cell is simulated at FIT_BASE and with each parameter one
 * step higher (sensitivities by finite differences); the weighted least-squares problem
 * min sum_i ((L_i(p) - S_i) / S_i)^2 with L_i(p) = L_i(base) + J_i (p - base) is solved through
 * its normal equations; the solution is rounded to whole ns (the rig's cycles) and Table 1
 * simulated there.
 */
export function fitHost(update?: (done: number) => void): HostFit {
  const cells = table1Cells();
  const names = HOST_COST_NAMES;
  let runs = 0;
  const eval12 = (h: HostCosts): number[] =>
    cells.map((c) => {
      const r = runCell(c, h).latency_ns;
      update?.(++runs);
      return r;
    });
  const base = eval12({ ...FIT_BASE });
  const cols = names.map((k) => eval12({ ...FIT_BASE, [k]: FIT_BASE[k] + FIT_STEP_NS }).map((v, i) => (v - base[i]!) / FIT_STEP_NS));
  const jacobian = cells.map((_, i) => cols.map((col) => col[i]!));
  const seed = cells.map(seedTable1);
  // weighted rows: J_i / S_i and target (S_i - L_i(base) + J_i . base) / S_i, unknown p
  const w = seed.map((s) => 1 / s);
  const y = cells.map((_, i) => seed[i]! - base[i]! + names.reduce((a, k, j) => a + jacobian[i]![j]! * FIT_BASE[k], 0));
  const normal = names.map((_, j) => names.map((_, k) => cells.reduce((a, _, i) => a + w[i]! * w[i]! * jacobian[i]![j]! * jacobian[i]![k]!, 0)));
  const rhs = names.map((_, j) => cells.reduce((a, _, i) => a + w[i]! * w[i]! * jacobian[i]![j]! * y[i]!, 0));
  const exact = solve(normal, rhs);
  const fitted = {} as HostCosts;
  names.forEach((k, j) => {
    const v = Math.round(exact[j]!);
    if (v < 0) throw new Error(`the fit gives ${k} = ${exact[j]!.toFixed(1)} ns, below 0: the model cannot meet Table 1 with this parameter set`);
    fitted[k] = v;
  });
  const rows = runTable1(fitted, () => update?.(++runs));
  return { names, base_ns: base, jacobian, normal, rhs, exact, fitted, rows, rms_error_pct: rmsPct(rows) };
}

export function rmsPct(rows: { error_pct: number }[]): number {
  return Math.sqrt(rows.reduce((a, r) => a + r.error_pct * r.error_pct, 0) / rows.length);
}

// ---------------------------------------------------------------- Table 2

export interface Table2Row {
  path: VpPath;
  connect: boolean;
  channel: 'ER' | 'SR';
  label: string;
  /** the Table 1 cell it builds on, and its model latency */
  from: string;
  glex_ns: number;
  /** the MPI costs added (ns) */
  mpi_ns: number;
  seed_ns: number;
  model_ns: number;
  error_pct: number;
}

/** Table 2 predicted from Table 1's model cells: ER = IMM_PUT + both copies + progress, SR = MP + progress. */
export function table2(t1: Table1Row[], mpi: MpiCosts = MPI_COSTS): Table2Row[] {
  const out: Table2Row[] = [];
  for (const path of ['pio', 'dma'] as const)
    for (const connect of [false, true])
      for (const channel of ['ER', 'SR'] as const) {
        const kind: Table1Kind = channel === 'ER' ? 'imm_put' : 'mp';
        const cell = t1.find((r) => r.path === path && r.connect === connect && r.kind === kind);
        if (cell === undefined) throw new Error(`Table 1 has no ${path} ${connect ? 'connect' : 'connectless'} ${kind} cell`);
        const mpiNs = channel === 'ER' ? mpi.erSendCopyNs + mpi.erRecvCopyNs + mpi.progressNs : mpi.progressNs;
        const model = cell.model_ns + mpiNs;
        const seed = SEED_TABLE2[path][connect ? 'connect' : 'connectless'][channel === 'ER' ? 'er' : 'sr'];
        out.push({ path, connect, channel, label: `${path.toUpperCase()} ${connect ? 'connect' : 'connectless'} ${channel}`, from: cell.label, glex_ns: cell.model_ns, mpi_ns: mpiNs, seed_ns: seed, model_ns: model, error_pct: errorPct(model, seed) });
      }
  return out;
}

// ---------------------------------------------------------------- Figure 2

export type Fig2Direction = 'unidirectional' | 'bidirectional';

export interface Fig2Point {
  direction: Fig2Direction;
  path: VpPath;
  bytes: number;
}

/** the plateau's end the table checks besides the seed's "from" size */
export const FIG2_LARGE = 65536;

/** Figure 2's points: each direction on each VP kind at the size the seed's peak starts from (4 KB, 8 KB) and at 64 KiB. */
export function figure2Points(): Fig2Point[] {
  const pts: Fig2Point[] = [];
  for (const direction of ['unidirectional', 'bidirectional'] as const) for (const path of ['pio', 'dma'] as const) for (const bytes of [SEED_PEAK[direction].fromBytes, FIG2_LARGE]) pts.push({ direction, path, bytes });
  return pts;
}

export interface Fig2Row extends Fig2Point {
  label: string;
  /** the seed's peak, GB/s */
  seed_gbps: number;
  model_gbps: number;
  error_pct: number;
}

/** The measurement of one point: payload GB/s (runPutBandwidth's; tests may pass another). */
export type Fig2Measure = (p: Fig2Point) => number;

export const measureFig2: Fig2Measure = (p) => runPutBandwidth({ bytes: p.bytes, bidirectional: p.direction === 'bidirectional', path: p.path }).gbPerS;

export function runFigure2(measure: Fig2Measure = measureFig2, update?: (done: number) => void): Fig2Row[] {
  return figure2Points().map((p, i) => {
    const model = measure(p);
    update?.(i + 1);
    const seed = SEED_PEAK[p.direction].gbPerS;
    return { ...p, label: `${p.direction} ${p.path.toUpperCase()} ${p.bytes} B`, seed_gbps: seed, model_gbps: model, error_pct: errorPct(model, seed) };
  });
}
