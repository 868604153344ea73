/**
 * Benchmark suite "spin": the sPIN runtime with PsPIN's 32 HPUs (4 x 8) under line-rate traffic:
 * back-to-back 64-byte packets at 400 Gb/s into the busy handler (spin 2, 37 ns: a handler the 32
 * HPUs sustain at that rate), every HPU a five-stage RV32IM pipeline running the ELF. One unit is
 * built with a long stream; each sample steps it a chunk of cycles. Figures: simulated cycles per
 * second, packets handled per second and HPU pipeline cycles per second (medians).
 */
import { type BenchSuite, type Figure, rate } from '../harness.ts';
import { SpinUnit } from '../../rtl/hpu/spin/unit.ts';
import { interleave, matchEntry } from '../../experiments/hpu/spinTraffic.ts';
import { PSPIN_PARAMS } from '../../experiments/hpu/spinTable.ts';

export const suite: BenchSuite = {
  name: 'spin',
  async run({ quick }) {
    const packets = quick ? 20_000 : 200_000;
    const data = new Uint8Array(packets * 64);
    const dv = new DataView(data.buffer);
    for (let k = 0; k < packets; k++) dv.setUint32(k * 64, 2, true); // busy handler: spin 2
    // five-stage HPUs, as when the recorded figures were measured (PSPIN_PARAMS now names PsPIN's ri5cy)
    const u = new SpinUnit({ ...PSPIN_PARAMS, organisation: 'five-stage' }, [matchEntry(1, 'busy')], interleave([{ msgId: 0, tag: 1, source: 1, data, mtu: 64, sendCycle: 0 }]));
    const chunk = quick ? 2_000 : 10_000;
    let records0 = 0;
    let hpuCycles = 0;
    const c = await rate(
      'spin.cycles',
      () => {
        records0 = u.records.length;
        u.sim.step(chunk);
        return chunk;
      },
      quick ? { time: 200, warmup: 50 } : {},
    );
    const handled = u.records.length - records0; // in the last chunk
    for (let i = records0; i < u.records.length; i++) hpuCycles += u.records[i]!.end - u.records[i]!.start;
    // per second of this process's CPU time (user + system): less disturbed by other processes on a shared machine
    const t0 = process.cpuUsage();
    const reps = quick ? 2 : 5;
    for (let i = 0; i < reps; i++) u.sim.step(chunk);
    const cpu = process.cpuUsage(t0);
    const cpuRate = (reps * chunk) / ((cpu.user + cpu.system) / 1e6);
    const figs: Figure[] = [
      {
        key: 'spin.pspin32.cycles_per_s',
        label: 'sPIN runtime, 32 HPUs at 400 Gb/s line rate: simulated cycles/s',
        value: c.perSecond,
        unit: ' /s',
        note: `64 B packets back to back, busy handler; ${c.samples} samples of ${chunk} cycles; ${u.scheduler.dropped} dropped of ${u.records.length} handled so far`,
      },
      {
        key: 'spin.pspin32.cycles_per_cpu_s',
        label: 'sPIN runtime, 32 HPUs at 400 Gb/s line rate: simulated cycles per CPU second',
        value: cpuRate,
        unit: ' /s',
        note: `${reps} more chunks of ${chunk} cycles divided by this process's CPU time (user + system) instead of wall-clock time`,
      },
      {
        key: 'spin.pspin32.packets_per_s',
        label: 'sPIN runtime, 32 HPUs at 400 Gb/s line rate: packets handled/s (wall clock)',
        value: (c.perSecond * handled) / chunk,
        unit: ' /s',
        note: `${handled} handlers in the last ${chunk}-cycle chunk`,
      },
      {
        key: 'spin.pspin32.hpu_cycles_per_s',
        label: 'sPIN runtime, 32 HPUs at 400 Gb/s line rate: HPU pipeline cycles (busy) simulated/s',
        value: (c.perSecond * hpuCycles) / chunk,
        unit: ' /s',
        note: `${(hpuCycles / chunk).toFixed(1)} HPUs busy on average in the last chunk (handlers that ended in it)`,
      },
    ];
    return figs;
  },
};
