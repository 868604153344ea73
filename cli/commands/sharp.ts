import { mkdirSync, writeFileSync } from 'node:fs';
import { bool, type CommandSpec, list, num, optNum, optStr, str, UsageError } from '../args.ts';
import { withProgress } from '../progress.ts';
import { AluError, DATA_TYPES, elementBytes, OPS, validateHeader, type DataType, type Op } from '../../rtl/sharp/alu/types.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { DEFAULT_TIMING, type FabricTiming, FITTED } from '../../rtl/sharp/params.ts';
import { largeSpec } from '../../rtl/sharp/topology.ts';
import { buildTable, fit, tableCells, type TableRow } from '../../experiments/sharp/calibration.ts';
import { FAULT_SCENARIOS, faultReportProblems, OTHER_JOB_PLACEMENTS, runFaultScenario, type FaultScenario, type OtherJobPlacement } from '../../experiments/sharp/faults.ts';
import { jobsDefaultCapNs, runJobs } from '../../experiments/sharp/jobs.ts';
import { allreduceDefaultCap, runAllreduce } from '../../experiments/sharp/scenario.ts';
import type { DistMode } from '../../rtl/sharp/packet/index.ts';
import { WAVEDROM_FLAGS, waveformRequest } from '../waveforms.ts';

const MAX_HOSTS = 11664;

function tableText(rows: TableRow[]): string {
  const out: string[] = [];
  const section = (title: string, sel: TableRow[], aim: number): void => {
    out.push(`\n${title}`);
    out.push(`${'cell'.padEnd(36)}${'paper us'.padStart(10)}${'model us'.padStart(10)}${'error'.padStart(9)}`);
    for (const r of sel) out.push(`${r.label.replace(/^Table [IV]+ /, '').padEnd(36)}${r.paper_us.toFixed(2).padStart(10)}${r.sim_us.toFixed(2).padStart(10)}${`${r.err_pct > 0 ? '+' : ''}${r.err_pct.toFixed(1)}%`.padStart(9)}${r.fitted ? '  (fitted)' : ''}`);
    const worst = Math.max(...sel.map((r) => Math.abs(r.err_pct)));
    const within = sel.filter((r) => Math.abs(r.err_pct) <= aim).length;
    out.push(`  worst |error| ${worst.toFixed(1)}%; ${within}/${sel.length} cells within ${aim}%`);
  };
  section('Table I: native SHArP allreduce latency (32/64/128 hosts, RC distribution)', rows.filter((r) => r.table === 'I'), 5);
  section('Table V: pipelined allreduce, 128 hosts (RC distribution)', rows.filter((r) => r.table === 'V'), 10);
  section('Table VI: result distribution, 128 hosts', rows.filter((r) => r.table === 'VI'), 10);
  return out.join('\n') + '\n';
}

/** --timing NAME=VALUE items: names of FabricTiming, finite non-negative numbers. */
function parseTiming(items: string[]): Partial<FabricTiming> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    if (!(name in DEFAULT_TIMING)) throw new UsageError(`--timing: unknown parameter '${name}' (one of ${Object.keys(DEFAULT_TIMING).join(', ')})`);
    const v = eq < 0 ? NaN : Number(item.slice(eq + 1));
    if (!Number.isFinite(v) || v < 0 || item.slice(eq + 1).trim() === '') throw new UsageError(`--timing: ${name} needs a finite non-negative number, as ${name}=VALUE (got '${item}')`);
    if (name === 'clockHz' && v === 0) throw new UsageError('--timing: clockHz must be positive');
    out[name] = v;
  }
  return out as Partial<FabricTiming>;
}

function parseType(v: string): DataType {
  if (!(DATA_TYPES as readonly string[]).includes(v)) throw new UsageError(`--type: unknown type '${v}' (one of ${DATA_TYPES.join(' ')})`);
  return v as DataType;
}
function parseOp(v: string): Op {
  if (!(OPS as readonly string[]).includes(v)) throw new UsageError(`--op: unknown operation '${v}' (one of ${OPS.join(' ')})`);
  return v as Op;
}

export const commands: CommandSpec[] = [
  {
    path: ['sharp', 'table'],
    summary: 'the calibrated SHArP model against the paper: Tables I, V and VI with per-cell errors',
    details: `Builds the default 128-host fabric (two-level fat tree, 8 leaf switches, 100 Gb/s) and runs
barrier and allreduce (f32 sum) for 0..256 bytes on 32, 64 and 128 hosts, the pipelined sizes to
4,096 bytes and the three result-distribution modes, printing each simulated latency next to the
paper's. Only Table I's 32-host column was used to fit the model (netoffload sharp fit). The table
is also written to out/sharp-table.json.`,
    flags: [
      { name: 'out', type: 'string', default: 'out/sharp-table.json', output: 'mkdir', help: 'where to write the JSON table' },
      { name: 'timing', type: 'list', help: 'timing parameters to override for this run, NAME=VALUE,... (names and defaults: rtl/sharp/params.ts), e.g. tcaPacketNs=75,hcaNs=1060' },
    ],
    run(f, io) {
      const overrides = parseTiming(f.timing === undefined ? [] : list(f, 'timing'));
      const rows = withProgress(io, { label: 'sharp table', total: tableCells().length, unit: 'cells' }, (update) => buildTable(overrides, update));
      const path = str(f, 'out');
      const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.';
      mkdirSync(dir, { recursive: true });
      const fitted: Record<string, number> = {};
      for (const k of FITTED) fitted[k] = DEFAULT_TIMING[k];
      const doc = { timing: { ...DEFAULT_TIMING, ...overrides }, overrides, fitted_parameters: fitted, rows };
      writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
      if (bool(f, 'json')) io.out(JSON.stringify(doc) + '\n');
      else {
        io.out('SHArP on SwitchIB-2 (seed 000), cycle-level model at 1 GHz; latency in microseconds\n');
        io.out(`fitted on Table I 32 hosts: ${FITTED.map((k) => `${k}=${DEFAULT_TIMING[k]}`).join(' ')}\n`);
        if (Object.keys(overrides).length > 0) io.out(`overridden for this run: ${Object.entries(overrides).map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
        io.out(tableText(rows));
        io.out(`\nwrote ${path}\n`);
      }
      return 0;
    },
  },
  {
    path: ['sharp', 'allreduce'],
    summary: 'run an allreduce on the SHArP fabric and check it against the golden model',
    details: `Up to 128 hosts run on the paper's 128-host fabric (members spread evenly over the 8 leaf
switches); more hosts build a larger fat tree (three levels above 648 hosts). Each member calls in
a tight loop; --skew-seed draws a random 0..--skew-ns delay before every call. The result every
host received is hashed into result_sha256, which --skew-seed never changes.`,
    flags: [
      { name: 'hosts', type: 'int', default: 128, min: 1, max: MAX_HOSTS, help: 'group size' },
      { name: 'bytes', type: 'int', default: 8, min: 0, max: 1 << 20, help: 'message bytes (fragmented above 256)' },
      { name: 'op', type: 'string', default: 'sum', choices: OPS, help: 'reduction operation' },
      { name: 'type', type: 'string', default: 'f32', choices: DATA_TYPES, help: 'data type' },
      { name: 'dist', type: 'string', default: 'rc', choices: ['rc', 'ud', 'rc+ud'], help: 'result distribution' },
      { name: 'skew-seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of the per-call host skew' },
      { name: 'skew-ns', type: 'number', default: 500, min: 0, max: 1e6, help: 'largest host skew per call' },
      { name: 'iterations', type: 'int', default: 10, min: 1, max: 1000000, help: 'measured iterations (memory does not grow with it)' },
      { name: 'data-seed', type: 'int', default: 7, min: 0, max: 0xffffffff, help: 'seed of the operands' },
      { name: 'max-cycles', type: 'int', min: 1, max: 1e15, help: 'simulated-cycle cap of the run (default 50,000,000 + iterations x (20,000 + 64 x bytes)); reaching it fails the run (exit 1)' },
      { name: 'vcd', type: 'string', output: true, help: 'write a VCD of the aggregation nodes of the group (and its GTKWave save file, .gtkw, next to it)' },
      ...WAVEDROM_FLAGS,
    ],
    run(f, io) {
      const hosts = num(f, 'hosts');
      const type = parseType(str(f, 'type'));
      const op = parseOp(str(f, 'op'));
      const bytes = num(f, 'bytes');
      const elem = elementBytes(type, op, 'i32');
      if (bytes % elem !== 0) throw new UsageError(`--bytes ${bytes} is not a multiple of the ${type} ${op} element size (${elem} bytes)`);
      if (validateHeader(type, op, 0, 1, 'i32') === AluError.TYPE_OP) throw new UsageError(`--op ${op} is not defined for --type ${type}`);
      const waves = waveformRequest(f);
      const fabric = new Fabric(hosts <= 128 ? { hosts: 128 } : { topology: largeSpec(hosts) });
      const allreduceCap = optNum(f, 'max-cycles') ?? allreduceDefaultCap(num(f, 'iterations'), bytes);
      const r = withProgress(io, { label: 'sharp allreduce', total: hosts * (num(f, 'iterations') + 2), unit: 'calls', capFlag: '--max-cycles', cap: allreduceCap }, (update) => runAllreduce({
        fabric, hosts, bytes, op, type, dist: str(f, 'dist') as DistMode,
        skewSeed: num(f, 'skew-seed'), skewMaxNs: num(f, 'skew-ns'), iterations: num(f, 'iterations'), dataSeed: num(f, 'data-seed'), vcd: waves.vcd, wavedrom: waves.wavedrom, maxCycles: allreduceCap, onProgress: update,
      }));
      const out = { hosts: r.hosts, bytes: r.bytes, latency_us: Number(r.latency_us.toFixed(4)), cycles: r.cycles, ok: r.ok, result_sha256: r.result_sha256 };
      if (bool(f, 'json')) io.out(JSON.stringify(out) + '\n');
      else {
        io.out(`allreduce ${op}/${type} of ${bytes} B on ${r.hosts} hosts (${str(f, 'dist')}): ${out.latency_us} us per call, ${r.cycles} cycles for ${num(f, 'iterations')} iterations\n`);
        io.out(`tree: root ${fabric.topo.nodes[r.plan.root]!.name}, ${r.plan.ans.size} aggregation nodes\n`);
        io.out(`golden model: ${r.ok ? 'every host received the golden result' : 'MISMATCH: ' + r.mismatches.join('; ')}\n`);
        io.out(`result_sha256 ${r.result_sha256}\n`);
      }
      return r.ok ? 0 : 1;
    },
  },
  {
    path: ['sharp', 'faults'],
    summary: 'inject a fault into one of two running jobs and check recovery',
    flags: [
      { name: 'scenario', type: 'string', required: true, choices: FAULT_SCENARIOS, help: 'fault to inject' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of the fault time, place and data' },
      { name: 'other-job', type: 'string', default: 'other-spine', choices: OTHER_JOB_PLACEMENTS, help: 'where the job that is not the target runs: on another spine or on the same spine' },
      { name: 'iterations', type: 'int', default: 12, min: 1, max: 1000000, help: 'calls per member of each job (memory does not grow with it)' },
    ],
    run(f, io) {
      const r = withProgress(io, { label: 'sharp faults', total: 1, unit: 'calls' }, (update) => runFaultScenario(str(f, 'scenario') as FaultScenario, num(f, 'seed'), str(f, 'other-job') as OtherJobPlacement, num(f, 'iterations'), update));
      const problems = faultReportProblems(r);
      const ok = problems.length === 0;
      if (bool(f, 'json')) io.out(JSON.stringify(r) + '\n');
      else {
        io.out(`${r.scenario} (seed ${r.seed}, other job on ${r.other_job_placement}): fault at cycle ${r.fault_cycle}, AM acted at cycle ${r.detected_cycle}\n`);
        io.out(`operations ${r.operations}: ${r.completed_ok} ok, ${r.completed_error} error, ${r.hung} hung\n`);
        io.out(`slowest error completion after detection: ${r.max_completion_after_detection_cycles} cycles (bound ${r.bound_cycles})\n`);
        io.out(`leaked contexts/quota: ${r.leaked_contexts}; grants of revoked jobs still held by the AM: ${r.leaked_grants}\n`);
        io.out(`other job ${r.other_job_shares_fault ? 'shares the failed part (must be revoked)' : 'does not use the failed part (must be unaffected)'}: ${r.other_jobs_ok ? 'as required' : 'NOT as required'}\n`);
        io.out(`new job after recovery: ${r.new_job}: ${r.new_job_detail}\n`);
        io.out(`result_sha256 ${r.result_sha256}\n`);
        io.out(ok ? 'recovery OK\n' : `recovery FAILED: ${problems.join('; ')}\n`);
      }
      return ok ? 0 : 1;
    },
  },
  {
    path: ['sharp', 'jobs'],
    summary: 'several jobs with overlapping groups and operations in flight',
    flags: [
      { name: 'jobs', type: 'int', default: 3, min: 1, max: 16, help: 'number of jobs' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of the job layout, skew and data' },
      { name: 'iterations', type: 'int', default: 6, min: 1, max: 1000000, help: 'calls per member of each group (memory does not grow with it)' },
      { name: 'max-cycles', type: 'int', min: 1, max: 1e15, help: 'simulated-cycle cap of the run (default 5,000,000 + 1,000,000 per iteration); reaching it fails the run (exit 1)' },
    ],
    run(f, io) {
      const cap = optNum(f, 'max-cycles') ?? jobsDefaultCapNs(num(f, 'iterations'));
      const r = withProgress(io, { label: 'sharp jobs', total: 1, unit: 'calls', capFlag: '--max-cycles', cap }, (update) => runJobs(num(f, 'jobs'), num(f, 'seed'), num(f, 'iterations'), cap, update));
      if (bool(f, 'json')) io.out(JSON.stringify(r) + '\n');
      else {
        io.out(`${r.jobs.length} jobs on ${r.hosts} hosts, ${r.groups} groups, ${r.cycles} cycles\n`);
        io.out(`${'job'.padEnd(6)}${'group'.padEnd(7)}${'members'.padStart(8)}${'tree'.padStart(6)}${'bytes'.padStart(7)}${'calls'.padStart(7)}${'latency us'.padStart(12)}  correct\n`);
        for (const j of r.jobs) for (const g of j.groups) io.out(`${String(j.job).padEnd(6)}${String(g.group).padEnd(7)}${String(g.members).padStart(8)}${String(g.tree).padStart(6)}${String(g.bytes).padStart(7)}${String(g.calls).padStart(7)}${g.latency_us.toFixed(3).padStart(12)}  ${g.ok}\n`);
        io.out(`result_sha256 ${r.result_sha256}\n`);
        io.out(r.ok ? 'all results equal the golden model\n' : 'MISMATCH\n');
      }
      return r.ok ? 0 : 1;
    },
  },
  {
    path: ['sharp', 'fit'],
    summary: 'rerun the calibration: fit the six timing parameters on Table I, 32 hosts',
    flags: [
      { name: 'evaluations', type: 'int', default: 300, min: 10, max: 10000, help: 'Nelder-Mead evaluations' },
      { name: 'out', type: 'string', default: 'out/sharp-fit.json', output: 'mkdir', help: 'where to write the fit' },
    ],
    run(f, io) {
      const json = bool(f, 'json');
      const r = withProgress(io, { label: 'sharp fit', total: num(f, 'evaluations'), unit: 'evaluations' }, (update) => fit({ maxEvaluations: num(f, 'evaluations'), onProgress: (e) => update(e) }));
      const path = str(f, 'out');
      mkdirSync(path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '.', { recursive: true });
      writeFileSync(path, JSON.stringify(r, null, 2) + '\n');
      if (json) io.out(JSON.stringify(r) + '\n');
      else {
        io.out(`fitted after ${r.evaluations} evaluations (objective ${r.objective.toFixed(6)}):\n`);
        for (const [k, v] of Object.entries(r.params)) io.out(`  ${k.padEnd(14)} ${String(v).padStart(10)}   (default in rtl/sharp/params.ts: ${DEFAULT_TIMING[k as keyof typeof DEFAULT_TIMING]})\n`);
        for (const c of r.cells) io.out(`  ${c.label.padEnd(30)} paper ${c.paper_us.toFixed(2)} model ${c.sim_us.toFixed(3)} (${c.err_pct.toFixed(1)}%)\n`);
        io.out(`wrote ${path}\n`);
      }
      return 0;
    },
  },
];
