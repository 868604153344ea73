/**
 * `netoffload nic table`: the two-NIC model against the TH Express-2 seed's Tables 1 and 2
 * (experiments/nic/nicTable.ts); `--fit` reruns the fit of the host costs on Table 1.
 */
import { bool, CheckFailed, type CommandSpec } from '../args.ts';
import { HOST_COST_NAMES, HOST_COSTS, type HostCosts } from '../../experiments/nic/hostCpu.ts';
import { FIG2_LARGE, figure2Points, FIT_BASE, FIT_RUNS, FIT_STEP_NS, fitHost, type Fig2Row, MPI_COSTS, rmsPct, runFigure2, runTable1, table1Cells, table2, type Table1Row, type Table2Row, TABLE1_BYTES } from '../../experiments/nic/nicTable.ts';
import { withProgress } from '../progress.ts';

const T1_TOL = 5;
const T2_TOL = 10;

const sign = (v: number): string => `${v >= 0 ? '+' : ''}${v.toFixed(1)} %`;
const hostLine = (h: Readonly<HostCosts>): string => HOST_COST_NAMES.map((k) => `${k} ${h[k]}`).join(', ');

function t1Lines(rows: Table1Row[]): string {
  let s = `${'VP'.padEnd(4)} ${'link'.padEnd(12)} ${'kind'.padEnd(8)} ${'seed ns'.padStart(8)} ${'model ns'.padStart(9)} ${'error'.padStart(9)}\n`;
  for (const r of rows) {
    s += `${r.path.toUpperCase().padEnd(4)} ${(r.connect ? 'connect' : 'connectless').padEnd(12)} ${r.kind.toUpperCase().padEnd(8)} ${String(r.seed_ns).padStart(8)} ${String(r.model_ns).padStart(9)} ${sign(r.error_pct).padStart(9)}`;
    s += Math.abs(r.error_pct) > T1_TOL ? `  outside ${T1_TOL} %\n` : '\n';
  }
  return s;
}

function t2Lines(rows: Table2Row[]): string {
  let s = `${'VP'.padEnd(4)} ${'link'.padEnd(12)} ${'channel'.padEnd(8)} ${'GLEX2 ns'.padStart(9)} ${'+ MPI ns'.padStart(9)} ${'seed ns'.padStart(8)} ${'model ns'.padStart(9)} ${'error'.padStart(9)}\n`;
  for (const r of rows) {
    s += `${r.path.toUpperCase().padEnd(4)} ${(r.connect ? 'connect' : 'connectless').padEnd(12)} ${r.channel.padEnd(8)} ${String(r.glex_ns).padStart(9)} ${String(r.mpi_ns).padStart(9)} ${String(r.seed_ns).padStart(8)} ${String(r.model_ns).padStart(9)} ${sign(r.error_pct).padStart(9)}`;
    s += Math.abs(r.error_pct) > T2_TOL ? `  outside ${T2_TOL} %\n` : '\n';
  }
  return s;
}

function f2Lines(rows: Fig2Row[]): string {
  let s = `${'direction'.padEnd(15)} ${'VP'.padEnd(4)} ${'bytes'.padStart(6)} ${'seed peak'.padStart(10)} ${'model'.padStart(7)} ${'error'.padStart(9)}\n`;
  for (const r of rows) s += `${r.direction.padEnd(15)} ${r.path.toUpperCase().padEnd(4)} ${String(r.bytes).padStart(6)} ${r.seed_gbps.toFixed(1).padStart(10)} ${r.model_gbps.toFixed(2).padStart(7)} ${sign(r.error_pct).padStart(9)}\n`;
  return s;
}

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'table'],
    summary: "the calibrated two-NIC model next to the TH Express-2 seed's Table 1 (fitted) and Table 2 (predicted)",
    details: `
Table 1 of seed 003 (minimum point-to-point latency of ${TABLE1_BYTES}-byte IMM_PUT, PUT and MP from a PIO
VP and a DMA VP, connectless and connect, completion detected by the event): each cell simulated on
a fresh two-NIC rig (experiments/nic/rdmaRig.ts, the NIC parameters of 'nic rdma') with the host's
software costs (experiments/nic/hostCpu.ts: ${hostLine(HOST_COSTS)} ns, fitted on this table by
'nic table --fit'), the warm operation from the send call to the polling process having read the
completion entry. Table 2 (MPI latency, ER channel = immediate PUT, SR channel = MP) predicted from
those cells plus the MPI library's costs (erSendCopyNs ${MPI_COSTS.erSendCopyNs}, erRecvCopyNs
${MPI_COSTS.erRecvCopyNs}, progressNs ${MPI_COSTS.progressNs} ns: the seed's text, not fitted). Every cell
next to the seed's with the error in percent; cells outside ${T1_TOL} % (Table 1) or ${T2_TOL} % (Table 2) are
marked (docs/nic-calibration.md says why). Figure 2 (RDMA PUT bandwidth, unidirectional and
bidirectional, PIO and DMA VPs) measured live by experiments/nic/bandwidth.ts at the size the seed's
peak starts from (4 KB, 8 KB) and at ${FIG2_LARGE} bytes, next to the seed's peak (11.7, 20.6 GB/s);
--latency-only skips it. Exit 1 if a target does not hold the source bytes.
--fit: rerun the weighted least-squares fit of the three host costs (${FIT_RUNS} simulations) and
print its derivation; exit 1 if the fitted values differ from the defaults.`,
    flags: [
      { name: 'fit', type: 'bool', default: false, help: 'rerun the fit of the host costs on Table 1 and print the derivation' },
      { name: 'latency-only', type: 'bool', default: false, help: "Tables 1 and 2 only (skip Figure 2's bandwidth runs)" },
    ],
    run(f, io) {
      const json = bool(f, 'json');
      if (bool(f, 'fit')) {
        const r = withProgress(io, { label: 'nic table --fit', total: FIT_RUNS, unit: 'simulations' }, (update) => fitHost(update));
        const same = HOST_COST_NAMES.every((k) => r.fitted[k] === HOST_COSTS[k]);
        if (json) io.out(JSON.stringify({ base: FIT_BASE, step_ns: FIT_STEP_NS, cells: table1Cells(), base_ns: r.base_ns, jacobian: r.jacobian, normal: r.normal, rhs: r.rhs, exact: r.exact, fitted: r.fitted, defaults: HOST_COSTS, defaults_equal: same, table1: r.rows, rms_error_pct: r.rms_error_pct }) + '\n');
        else {
          io.out(`Fit of the host costs (${HOST_COST_NAMES.join(', ')}) on Table 1, weighted least squares on relative errors\n\n`);
          io.out(`1. every cell simulated at ${hostLine(FIT_BASE)} ns and with each parameter ${FIT_STEP_NS} ns higher:\n`);
          io.out(`   sensitivities J = d latency / d parameter (ns per ns)\n\n`);
          io.out(`   ${'cell'.padEnd(28)} ${'seed'.padStart(6)} ${'L(base)'.padStart(8)}  ${HOST_COST_NAMES.map((k) => k.padStart(10)).join(' ')}\n`);
          r.rows.forEach((row, i) => {
            io.out(`   ${row.label.padEnd(28)} ${String(row.seed_ns).padStart(6)} ${String(r.base_ns[i]).padStart(8)}  ${r.jacobian[i]!.map((v) => v.toFixed(2).padStart(10)).join(' ')}\n`);
          });
          io.out(`\n2. L(p) = L(base) + J (p - base); minimise sum ((L(p) - seed) / seed)^2: normal equations A p = b\n\n`);
          r.normal.forEach((row, j) => io.out(`   ${row.map((v) => v.toExponential(4).padStart(12)).join(' ')}   | ${r.rhs[j]!.toExponential(4).padStart(12)}\n`));
          io.out(`\n3. solution ${HOST_COST_NAMES.map((k, j) => `${k} = ${r.exact[j]!.toFixed(2)}`).join(', ')} ns; rounded to whole ns (cycles):\n\n`);
          for (const k of HOST_COST_NAMES) io.out(`   ${k.padEnd(12)} ${String(r.fitted[k]).padStart(5)} ns   (default in experiments/nic/hostCpu.ts: ${HOST_COSTS[k]})\n`);
          io.out(`\n4. Table 1 simulated at the fitted values (RMS error ${r.rms_error_pct.toFixed(2)} %):\n\n`);
          io.out(t1Lines(r.rows));
          io.out(same ? '\nThe fitted values equal HOST_COSTS.\n' : '\nThe fitted values DIFFER from HOST_COSTS: update experiments/nic/hostCpu.ts.\n');
        }
        if (!same) throw new CheckFailed(`the fitted host costs (${hostLine(r.fitted)}) differ from HOST_COSTS (${hostLine(HOST_COSTS)})`);
        return 0;
      }
      const bw = !bool(f, 'latency-only');
      const total = 12 + (bw ? figure2Points().length : 0);
      const [t1, f2] = withProgress(io, { label: 'nic table', total, unit: bw ? 'Table 1 cells, then Figure 2 points' : 'Table 1 cells' }, (update) => {
        const a = runTable1(HOST_COSTS, update);
        return [a, bw ? runFigure2(undefined, (i) => update(12 + i)) : []] as const;
      });
      const t2 = table2(t1);
      if (json) io.out(JSON.stringify({ host: HOST_COSTS, mpi: MPI_COSTS, table1: t1, table1_rms_error_pct: rmsPct(t1), table2: t2, ...(bw ? { figure2: f2 } : {}) }) + '\n');
      else {
        io.out(`TH Express-2 (seed 003) against the two-NIC model; host costs ${hostLine(HOST_COSTS)} ns (fitted: nic table --fit)\n\n`);
        io.out(`Table 1: minimum point-to-point latency, ${TABLE1_BYTES} bytes, completion read by the polling process (fitted)\n\n`);
        io.out(t1Lines(t1));
        io.out(`\nTable 2: MPI latency, ER = IMM_PUT + MPI copies and progress, SR = MP + progress (predicted)\n\n`);
        io.out(t2Lines(t2));
        if (bw) {
          io.out(`\nFigure 2: RDMA PUT bandwidth, GB/s of payload, measured (experiments/nic/bandwidth.ts, the calibrated host)\n\n`);
          io.out(f2Lines(f2));
        }
      }
      const bad = t1.filter((r) => !r.ok);
      if (bad.length > 0) throw new CheckFailed(`the target does not hold the source bytes in ${bad.map((r) => r.label).join(', ')}`);
      return 0;
    },
  },
];
