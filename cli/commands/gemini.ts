/**
 * `netoffload gemini table`: the calibrated Gemini model against seed 004's figures.
 * `netoffload gemini fit`: rerun the latency fit.
 * `netoffload gemini amo-scale`: the dynamic-load-balancing counter (FADD from P processes to one word).
 */
import { bool, type CommandSpec, list, num, optNum, UsageError } from '../args.ts';
import { GEMINI_DEFAULTS, GEMINI_FITTED, type GeminiParams } from '../../rtl/gemini/params.ts';
import { runAmoScale } from '../../experiments/gemini/amoScale.ts';
import { FIT_STEPS, FITTED_PARAMS, fitLatencies } from '../../experiments/gemini/fit.ts';
import { geminiTable, TABLE_FIGURES } from '../../experiments/gemini/table.ts';
import { withProgress } from '../progress.ts';

function params(f: Record<string, unknown>): Partial<GeminiParams> {
  const p: Partial<GeminiParams> = { ...FITTED_PARAMS };
  const ht = optNum(f as never, 'ht-gbs');
  if (ht !== undefined) p.htBytesPerCycle = (ht * 1e9) / GEMINI_DEFAULTS.clockHz;
  const host = optNum(f as never, 'host-gbs');
  if (host !== undefined) p.hostBytesPerCycle = (host * 1e9) / GEMINI_DEFAULTS.clockHz;
  const w = optNum(f as never, 'bte-window');
  if (w !== undefined) p.bteWindow = w;
  return p;
}

const MODEL_FLAGS = [
  { name: 'ht-gbs', type: 'number' as const, min: 0.1, max: 100, help: 'HyperTransport GB/s per direction (default 10.4: HT3 x16 at 2.6 GHz)' },
  { name: 'host-gbs', type: 'number' as const, min: 0.1, max: 1000, help: 'GB/s the host end of the HyperTransport link moves, NIC reads and writes together (default 10.4, the link rate)' },
  { name: 'bte-window', type: 'int' as const, min: 1, max: 4096, help: 'reads a BTE keeps outstanding (default 32)' },
];

const fmt = (v: number, unit: string): string => (unit === 'us' ? v.toFixed(2) : Math.round(v).toLocaleString('en-US'));

export const commands: CommandSpec[] = [
  {
    path: ['gemini', 'table'],
    summary: "the calibrated Gemini model next to seed 004's figures (latencies fitted, bandwidths predicted)",
    details: `
Every row of seed 004 (Cray Gemini, DMAPP put/get/AMO) next to the model: latencies of 8-byte
blocking calls (fitted: the DMAPP software time, the Netlink and the router hop, on these rows
only), peak bandwidths with one call in flight over 4 KiB, 64 KiB and 256 KiB (predicted), strided
transfers with a 128-byte stride and 8- to 64-byte elements (predicted), and put bandwidth around
the 2 KB PIO/DMA switch. docs/gemini.md says which rows the model cannot reach and why.`,
    flags: MODEL_FLAGS,
    run(f, io) {
      const t = withProgress(io, { label: 'gemini table', total: TABLE_FIGURES, unit: 'figures (seed rows, then PIO/DMA switch sizes)' }, (update) => geminiTable(params(f), update));
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ params: params(f), rows: t.rows, pio_switch: t.pioSwitch }) + '\n');
        return 0;
      }
      io.out('Cray Gemini (seed 004) vs model: 8-byte latencies (fitted), peak bandwidths (predicted)\n\n');
      const w = Math.max(...t.rows.map((r) => r.label.length));
      io.out(`${'figure'.padEnd(w)}  ${'unit'.padEnd(4)}  ${'seed'.padStart(7)}  ${'model'.padStart(7)}  ${'error'.padStart(8)}  role\n`);
      for (const r of t.rows) {
        const err = `${r.error_pct >= 0 ? '+' : ''}${r.error_pct.toFixed(1)} %`;
        const role = r.fitted ? 'fitted' : `predicted${r.at_bytes !== undefined ? ` (peak at ${r.at_bytes} B)` : ''}`;
        io.out(`${r.label.padEnd(w)}  ${r.unit.padEnd(4)}  ${fmt(r.seed, r.unit).padStart(7)}  ${fmt(r.model, r.unit).padStart(7)}  ${err.padStart(8)}  ${role}\n`);
      }
      io.out('\nPIO/DMA switch (seed: PIO below 2 KB, a slight drop at the switch), inter-NIC put:\n');
      for (const s of t.pioSwitch) io.out(`  ${String(s.bytes).padStart(5)} B  ${s.pio ? 'PIO (FMA)' : 'DMA (BTE)'}  ${Math.round(s.bandwidth_mb_s).toLocaleString('en-US').padStart(6)} MB/s\n`);
      return 0;
    },
  },
  {
    path: ['gemini', 'fit'],
    summary: 'rerun the fit of the three latency parameters on the seed latencies (about 5 s)',
    details: `
Coordinate descent over whole cycles of ${GEMINI_FITTED.join(', ')} from the defaults, minimising
the sum of squared relative errors of the seed's latency rows. Prints the parameters (to compare
with FITTED_PARAMS in experiments/gemini/fit.ts) and the RMS error.`,
    flags: [],
    run(f, io) {
      const r = withProgress(io, { label: 'gemini fit', total: FIT_STEPS.length, unit: 'step sizes (32, 16, ..., 1 cycles)' }, (update) => fitLatencies({}, update));
      if (bool(f, 'json')) io.out(JSON.stringify({ params: r.params, rms_error_pct: r.rmsErrorPct, evaluations: r.evaluations }) + '\n');
      else {
        for (const k of GEMINI_FITTED) io.out(`${k.padEnd(16)}${String(r.params[k]).padStart(6)} cycles\n`);
        io.out(`RMS relative error over the latency rows: ${r.rmsErrorPct.toFixed(2)} % (${r.evaluations} evaluations)\n`);
      }
      return 0;
    },
  },
  {
    path: ['gemini', 'amo-scale'],
    summary: 'dynamic-load-balancing counter: FADD from P processes to one word, latency and rate as P grows',
    details: `
P processes, spread round robin over the four NICs of two ASICs, each do --ops blocking FADD(1)
calls on one word in the memory of ASIC 0's NIC 0 (the DMAPP software time between calls). Per P:
mean and maximum latency per FADD, aggregate rate in millions per second, the target AMO unit's
busy cycles, and a check that the counter ends at P x ops with every fetched value distinct
(exit 1 otherwise). The rate stops growing where the target NIC saturates.`,
    flags: [
      { name: 'procs', type: 'list', default: ['1', '4', '16', '64', '256', '1024'], help: 'comma-separated process counts' },
      { name: 'ops', type: 'int', default: 10, min: 1, max: 100000, help: 'FADDs per process' },
      ...MODEL_FLAGS,
    ],
    run(f, io) {
      const procs = list(f, 'procs').map((x) => {
        if (!/^\d+$/.test(x) || Number(x) < 1 || Number(x) > 65536) throw new UsageError(`--procs: '${x}' is not an integer in [1, 65536]`);
        return Number(x);
      });
      const total = procs.reduce((a, p) => a + p * num(f, 'ops'), 0);
      let done = 0;
      const rows = withProgress(io, { label: 'gemini amo-scale', total, unit: 'FADDs' }, (update) =>
        procs.map((p) => {
          const row = runAmoScale(params(f), p, num(f, 'ops'));
          update((done += p * num(f, 'ops')));
          return row;
        }),
      );
      const ok = rows.every((r) => r.counter_ok);
      if (bool(f, 'json')) io.out(JSON.stringify({ ops: num(f, 'ops'), rows, pass: ok }) + '\n');
      else {
        io.out(`FADD counter: ${num(f, 'ops')} FADDs per process on one word (target: ASIC 0 NIC 0)\n\n`);
        io.out(`${'procs'.padStart(6)}  ${'fadds'.padStart(7)}  ${'mean_us'.padStart(8)}  ${'max_us'.padStart(7)}  ${'Mops/s'.padStart(7)}  ${'amo_busy'.padStart(8)}  counter\n`);
        for (const r of rows) io.out(`${String(r.procs).padStart(6)}  ${String(r.fadds).padStart(7)}  ${r.mean_latency_us.toFixed(3).padStart(8)}  ${r.max_latency_us.toFixed(3).padStart(7)}  ${r.rate_mops.toFixed(1).padStart(7)}  ${(r.amo_unit_busy_pct.toFixed(1) + ' %').padStart(8)}  ${r.counter_ok ? 'ok' : 'WRONG'}\n`);
      }
      return ok ? 0 : 1;
    },
  },
];
