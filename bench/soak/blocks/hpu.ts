/**
 * Soak entry: one pipelined RV32IM HPU core (rtl/hpu/core) running the HPU benchmark loop
 * (experiments/hpu/benchProgram.ts: loads, stores, a multiply, ALU operations, a load-use pair and
 * the loop branch over a 4 KiB table) with the iteration register started at 0, so the loop runs
 * 2^32 times (about 6.4 * 10^10 instructions, far past any soak) before its exit. The table starts
 * with seeded data. The functional model (models/hpu, Rv32Iss) runs in lockstep: every retired
 * instruction (pc, word, destination, value) must equal the model's next one, the bytes every
 * retired store wrote must be equal in both memories, and at every sample the register files must
 * be equal. The core keeps its register file, latches, divider
 * and memory: nothing per instruction.
 */
import { benchProgramElf } from '../../../experiments/hpu/benchProgram.ts';
import { buildPipeline } from '../../../experiments/hpu/run.ts';
import { parseElf, PF_W } from '../../../models/hpu/elf.ts';
import { Rv32Iss, ISS_RUNNING } from '../../../models/hpu/iss.ts';
import { Rng } from '../../../rtl/kernel/rng.ts';
import { type SoakBlock, steppedRun } from '../block.ts';

const hex = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0');

export const blocks: SoakBlock[] = [
  {
    name: 'hpu',
    what: 'one RV32IM pipeline core running the benchmark loop (2^32 iterations) over a seeded 4 KiB table, every retired instruction checked against the functional model in lockstep',
    start(seed) {
      const image = parseElf(benchProgramElf(0), 'hpu soak program');
      const rng = new Rng(seed);
      const table = image.segments.find((s) => (s.flags & PF_W) !== 0);
      if (!table) throw new Error('the benchmark program has no writable table');
      for (let i = 0; i < table.data.length; i++) table.data[i] = rng.int(256);
      const { sim, core } = buildPipeline(image);
      const iss = new Rv32Iss(image);
      let mismatches = 0;
      let firstMismatch = '';
      core.onRetire = (pc, insn, rd, value) => {
        iss.step();
        if (iss.lastPc === pc && iss.lastInsn === insn && iss.lastRd === rd && (rd === 0 || iss.lastVal === value)) {
          if ((insn & 0x7f) !== 0x23) return;
          // a store: the bytes it wrote must be equal in both memories (the pipeline wrote them in MEM,
          // a cycle before this retirement; the program's stores are at least 8 instructions apart,
          // so no younger store can have overwritten them yet)
          const addr = (iss.x[(insn >>> 15) & 31]! + (((insn >> 25) << 5) | ((insn >>> 7) & 31))) >>> 0;
          const width = 1 << ((insn >>> 12) & 3);
          let same = true;
          for (let i = 0; i < width; i++) if (core.mem.bytes[addr + i] !== iss.mem[addr + i]) same = false;
          if (same) return;
        }
        if (mismatches++ === 0)
          firstMismatch = `retired #${core.retired}: pipeline pc ${hex(pc)} insn ${hex(insn)} x${rd}=${hex(value)}, model pc ${hex(iss.lastPc)} insn ${hex(iss.lastInsn)} x${iss.lastRd}=${hex(iss.lastVal)}`;
      };
      let lastRetired = 0;
      return steppedRun(sim, {
        check() {
          const out: string[] = [];
          if (mismatches > 0) out.push(`${mismatches} retired instructions differ from the functional model (first: ${firstMismatch})`);
          if (core.halted) out.push(core.trap ? `the core trapped: ${core.trap.reason}` : `the core exited (code ${core.exitCode})`);
          if (iss.status !== ISS_RUNNING) out.push(`the functional model stopped (${iss.trap ? iss.trap.reason : 'exit'})`);
          if (core.retired <= lastRetired) out.push(`no instruction retired since the last sample (${core.retired} in all)`);
          lastRetired = core.retired;
          for (let r = 0; r < 32; r++)
            if (core.rf[r] !== iss.x[r]) {
              out.push(`x${r} is ${hex(core.rf[r]!)} on the pipeline, ${hex(iss.x[r]!)} on the model`);
              break;
            }
          return out;
        },
        summary() {
          return `${core.retired.toLocaleString('en-US')} instructions retired, ${mismatches} differ from the model`;
        },
      });
    },
  },
];
