/**
 * Benchmark suite "hpu": the functional RV32IM model's instructions per second (issue target
 * >= 50 M/s) and one pipelined core's simulated cycles per second (target >= 10 M/s), on the
 * benchmark program of experiments/hpu/benchProgram.ts (a 15-instruction loop with loads, stores,
 * a multiply and a load-use pair), next to qemu-riscv32 running the same ELF where it is installed
 * (wall-clock of the whole process, so start-up is included; the median of three runs).
 * On a shared machine the wall-clock rates fall with the load; each is therefore also given per
 * second of this process's CPU time (user + system, process.cpuUsage) over the same work, which
 * other processes disturb far less: the goals are judged on both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchSuite, type Figure, rate } from '../harness.ts';
import { parseElf } from '../../models/hpu/elf.ts';
import { Rv32Iss } from '../../models/hpu/iss.ts';
import { benchProgramElf, BENCH_INSNS_PER_ITERATION } from '../../experiments/hpu/benchProgram.ts';
import { buildPipeline } from '../../experiments/hpu/run.ts';
import { qemuVersion } from '../../experiments/hpu/qemuDiff.ts';

/** Units of work per second of this process's CPU time, over `reps` calls of `chunk` (each returns its units). */
function cpuRate(chunk: () => number, reps: number): number {
  let units = 0;
  const t0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) units += chunk();
  const u = process.cpuUsage(t0);
  return units / ((u.user + u.system) / 1e6);
}

export const suite: BenchSuite = {
  name: 'hpu',
  async run({ quick }) {
    const figs: Figure[] = [];
    const endless = parseElf(benchProgramElf(0x7fffffff)); // runs far longer than any chunk
    const iss = new Rv32Iss(endless);
    const chunk = quick ? 200_000 : 5_000_000;
    const f = await rate('hpu.functional', () => iss.run(chunk), quick ? { time: 200, warmup: 50 } : {});
    figs.push({
      key: 'hpu.functional.instr_per_s',
      label: 'HPU functional RV32IM model: instructions/s',
      value: f.perSecond,
      unit: ' /s',
      target: { op: '>=', value: 50e6 },
      note: `${BENCH_INSNS_PER_ITERATION}-instruction loop (loads, stores, mul, load-use), ${f.samples} samples of ${chunk.toLocaleString('en-US')} instructions`,
    });
    /** the same work as a wall-clock figure, divided by this process's CPU time instead */
    const cpuFigure = (key: string, label: string, target: number, chunks: number, work: () => number): void => {
      figs.push({
        key,
        label,
        value: cpuRate(work, chunks),
        unit: ' /s',
        target: { op: '>=', value: target },
        note: `the same loop, ${chunks} chunks, divided by this process's CPU time (user + system) instead of wall-clock time`,
      });
    };
    cpuFigure('hpu.functional.instr_per_cpu_s', 'HPU functional RV32IM model: instructions per CPU second', 50e6, quick ? 2 : 8, () => iss.run(chunk));
    const { sim, core } = buildPipeline(endless);
    const cyc = quick ? 50_000 : 1_000_000;
    const p = await rate(
      'hpu.pipeline',
      () => {
        sim.step(cyc);
        return cyc;
      },
      quick ? { time: 200, warmup: 50 } : {},
    );
    figs.push({
      key: 'hpu.pipeline.cycles_per_s',
      label: 'HPU five-stage pipeline, one core: simulated cycles/s',
      value: p.perSecond,
      unit: ' /s',
      target: { op: '>=', value: 10e6 },
      note: `same loop, CPI ${(sim.cycle / core.retired).toFixed(3)}, ${(p.perSecond * core.retired / sim.cycle / 1e6).toFixed(1)} M instructions/s, ${p.samples} samples`,
    });
    cpuFigure('hpu.pipeline.cycles_per_cpu_s', 'HPU five-stage pipeline, one core: cycles per CPU second', 10e6, quick ? 2 : 5, () => {
      sim.step(cyc);
      return cyc;
    });
    const version = qemuVersion();
    if (version !== null) {
      const iterations = quick ? 100_000 : 4_000_000;
      const dir = mkdtempSync(join(tmpdir(), 'hpu-bench-'));
      try {
        const file = join(dir, 'bench.elf');
        writeFileSync(file, benchProgramElf(iterations), { mode: 0o755 });
        const instructions = iterations * BENCH_INSNS_PER_ITERATION + 9; // 4 set-up and 5 exit instructions
        const times: number[] = [];
        for (let i = 0; i < 3; i++) {
          const t0 = process.hrtime.bigint();
          const r = spawnSync('qemu-riscv32', [file]);
          const dt = Number(process.hrtime.bigint() - t0) / 1e9;
          if (r.status !== 0) throw new Error(`qemu-riscv32 exited ${r.status} on the benchmark program`);
          times.push(dt);
        }
        const median = [...times].sort((a, b) => a - b)[1]!;
        figs.push({
          key: 'hpu.qemu.instr_per_s',
          label: 'qemu-riscv32 (JIT) on the same program: instructions/s',
          value: instructions / median,
          unit: ' /s',
          note: `${version}; ${instructions.toLocaleString('en-US')} instructions in ${(median * 1000).toFixed(0)} ms wall clock incl. process start (median of 3 runs)`,
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    return figs;
  },
};
