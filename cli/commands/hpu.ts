/**
 * `netoffload hpu run ELF`: one RV32IM program on one HPU core (the pipeline, or the functional
 * model), with the cycle report, the retired-instruction trace and the signature.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bool, type CommandSpec, type FlagSpec, num, optNum, optStr, str } from '../args.ts';
import { InputError } from '../../rtl/kernel/errors.ts';
import { fileSink } from '../../rtl/kernel/index.ts';
import { parseElf, type ElfImage } from '../../models/hpu/elf.ts';
import { type HpuRunResult, type PipelineRunResult, runFunctional, runPipeline } from '../../experiments/hpu/run.ts';
import { HPU_CORE_DEFAULTS, HPU_ORGANISATIONS, type HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';
import { traceWriter } from '../../experiments/hpu/trace.ts';
import { signature } from '../../experiments/hpu/signature.ts';
import { runQemuDiff } from '../../experiments/hpu/qemuDiff.ts';
import { type QemuTraceResult, runQemuTrace } from '../../experiments/hpu/qemuTrace.ts';
import { withProgress } from '../progress.ts';

/** --organisation of `hpu run` and `hpu qemu-trace` */
const ORGANISATION_FLAG: FlagSpec = { name: 'organisation', type: 'string', default: HPU_CORE_DEFAULTS.organisation, choices: HPU_ORGANISATIONS, help: 'the pipeline organisation: five-stage, or ri5cy (PsPIN\'s RI5CY, four stages)' };

function readElf(path: string): ElfImage {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new InputError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseElf(bytes, path);
}

/** Exit status of a run, as a shell reports it for qemu-riscv32: the exit code, 128 + signal for a trap, 124 when the budget ran out. */
export function exitStatus(r: HpuRunResult): number {
  if (r.status === 'exited') return r.exitCode & 0xff;
  if (r.status === 'limit') return 124;
  switch (r.trap!.cause) {
    case 2:
      return 128 + 4; // SIGILL
    case 3:
      return 128 + 5; // SIGTRAP
    case 0:
    case 4:
    case 6:
      return 128 + 7; // SIGBUS
    default:
      return 128 + 11; // SIGSEGV
  }
}

/** An ELF file, or every *.elf below a directory (sorted by path). */
function elfFiles(root: string): string[] {
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    throw new InputError(`cannot read ${root}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!st.isDirectory()) return [root];
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.elf')) out.push(p);
    }
  };
  walk(root);
  if (out.length === 0) throw new InputError(`${root}: no *.elf file in this directory`);
  return out.sort();
}

const hexs = (v: number): string => '0x' + (v >>> 0).toString(16).padStart(8, '0');

export const commands: CommandSpec[] = [
  {
    path: ['hpu', 'run'],
    summary: 'run a static RV32IM ELF on one HPU core: its output, exit code, cycles, CPI and stalls',
    positional: 'elf',
    details: `
Loads the ELF's PT_LOAD segments into the core's local memory and runs it from the entry point
until it calls exit (ecall a7 = 93), traps, or runs out of --max-cycles. What the program writes
(ecall a7 = 64 to fd 1 / 2) goes to stdout / stderr; the command exits with the program's exit
code (a0 & 255), 128 + the signal qemu-riscv32 would raise for a trap (illegal instruction 132,
ebreak 133, misaligned 135, access fault 139), or 124 when the budget ran out. The report
(cycles, instructions retired, CPI, stall cycles by cause, trap) goes to stderr, or with --json
everything is one JSON object on stdout. --trace writes one line per retired instruction:
'<pc> <insn> [x<rd>=<value>]' (8 hex digits each; docs/hpu.md). --signature writes memory from
symbol begin_signature to end_signature, one 32-bit little-endian word per line in 8 lowercase hex
digits. --organisation chooses the pipeline: five-stage (default) or ri5cy, PsPIN's RI5CY
(CV32E40P) four stages with its instruction latencies (docs/hpu.md). --model functional runs the
instruction-set model instead (no cycles).`,
    flags: [
      { name: 'elf', type: 'string', required: true, help: 'the program (ELF32, RV32IM, statically linked)' },
      { name: 'max-cycles', type: 'int', default: 100_000_000, min: 1, max: 2 ** 52, help: 'cycle budget (instructions for --model functional)' },
      { name: 'trace', type: 'string', output: true, help: 'write the retired-instruction trace to this file' },
      { name: 'signature', type: 'string', output: true, help: 'write the begin_signature..end_signature words to this file' },
      { name: 'model', type: 'string', default: 'pipeline', choices: ['pipeline', 'functional'], help: 'the pipeline or the functional model' },
      ORGANISATION_FLAG,
      { name: 'div-latency', type: 'int', min: 1, max: 64, help: 'five-stage only: cycles per division (default 32); ri5cy\'s divider takes 3..35 cycles by the divisor' },
      { name: 'mem-bytes', type: 'int', default: 1 << 20, min: 4096, max: 1 << 30, help: 'local memory size from address 0 (multiple of 4)' },
      { name: 'clock-ghz', type: 'number', default: 1, min: 0.001, max: 100, help: 'core clock (for the time in the report)' },
    ],
    run(f, io) {
      const path = str(f, 'elf');
      const image = readElf(path);
      const memBytes = num(f, 'mem-bytes');
      if (memBytes % 4 !== 0) throw new InputError(`--mem-bytes ${memBytes} is not a multiple of 4`);
      for (const s of image.segments) if (s.vaddr + s.memsz > memBytes) throw new InputError(`${path}: segment at ${hexs(s.vaddr)} (${s.memsz} bytes) does not fit in --mem-bytes ${memBytes}`);
      const tracePath = optStr(f, 'trace');
      const sink = tracePath === undefined ? null : fileSink(tracePath);
      const hook = sink === null ? undefined : traceWriter(sink);
      const functional = str(f, 'model') === 'functional';
      const organisation = str(f, 'organisation') as HpuOrganisation;
      const divFlag = optNum(f, 'div-latency');
      if (divFlag !== undefined && organisation === 'ri5cy') throw new InputError('--div-latency applies to --organisation five-stage only (ri5cy\'s divider takes 3..35 cycles by the divisor)');
      const divLatency = divFlag ?? HPU_CORE_DEFAULTS.divLatency;
      const clockHz = num(f, 'clock-ghz') * 1e9;
      let r: HpuRunResult;
      let p: PipelineRunResult | null = null;
      try {
        if (functional) r = runFunctional(image, { maxInstructions: num(f, 'max-cycles'), memBytes, ...(hook ? { onRetire: hook } : {}) });
        else r = p = runPipeline(image, { maxCycles: num(f, 'max-cycles'), clockHz, params: { organisation, divLatency, memBytes }, ...(hook ? { onRetire: hook } : {}) });
      } finally {
        sink?.close();
      }
      const sigPath = optStr(f, 'signature');
      if (sigPath !== undefined) writeFileSync(sigPath, signature(image, r.memory, path));
      const code = exitStatus(r);
      const report = {
        elf: path,
        model: functional ? 'functional' : 'pipeline',
        status: r.status,
        exit_code: r.status === 'exited' ? r.exitCode : null,
        trap: r.trap ? { pc: hexs(r.trap.pc), cause: r.trap.cause, tval: hexs(r.trap.tval), reason: r.trap.reason } : null,
        instructions: r.retired,
        ...(p
          ? {
              cycles: p.cycles,
              cpi: p.retired > 0 ? p.cycles / p.retired : null,
              time_us: p.cycles / clockHz * 1e6,
              clock_ghz: num(f, 'clock-ghz'),
              organisation,
              div_latency: organisation === 'ri5cy' ? null : divLatency,
              stall_cycles: p.stalls,
            }
          : {}),
      };
      const dec = new TextDecoder();
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ ...report, stdout: dec.decode(r.stdout), stderr: dec.decode(r.stderr) }) + '\n');
        return code;
      }
      io.out(dec.decode(r.stdout));
      if (r.stderr.length > 0) io.err(dec.decode(r.stderr));
      const lines = [`hpu run ${path} (${functional ? 'functional' : `${organisation} pipeline`}): ${r.status === 'exited' ? `exit ${r.exitCode}` : r.status === 'trapped' ? `trap at ${report.trap!.pc}: ${r.trap!.reason}` : `stopped after ${num(f, 'max-cycles')} ${functional ? 'instructions' : 'cycles'} (the --max-cycles cap; raise it to run longer)`}`];
      lines.push(`  instructions retired ${r.retired}`);
      if (p) {
        lines.push(`  cycles               ${p.cycles} (${report.time_us!.toFixed(3)} us at ${num(f, 'clock-ghz')} GHz)`);
        lines.push(`  CPI                  ${p.retired > 0 ? (p.cycles / p.retired).toFixed(3) : '-'}`);
        const s = p.stalls;
        lines.push(`  stall cycles         load-use ${s.load_use}, jalr register ${s.jump_register}, branch/jump ${s.branch}, divider ${s.divider}, multiplier ${s.multiplier}, memory ${s.memory}, ecall ${s.ecall}`);
      }
      io.err(lines.join('\n') + '\n');
      return code;
    },
  },
  {
    path: ['hpu', 'qemu-diff'],
    summary: 'random RV32IM programs on qemu-riscv32 and both HPU models: final registers and memory must agree',
    details: `
Generates --programs random programs from --seed (fast-check): random constants in x1..x28, then
arithmetic (RV32I and M), loads and stores into a 1.5 KiB data region, forward branches, jal/jalr
over a few instructions and loops with bounded trip counts; each program finally stores x1..x31,
writes the data region and the register dump to stdout and exits 0. Every program runs on
qemu-riscv32 (Debian qemu-user), on the functional model and on both pipeline organisations
(five-stage, ri5cy); qemu's output (its final memory and registers) must equal every model's, and
each pipeline's retired-instruction trace the functional model's. Exits 1 on any mismatch, 2 when qemu-riscv32 is missing.`,
    flags: [
      { name: 'programs', type: 'int', default: 200, min: 1, max: 1_000_000, help: 'programs to generate and compare' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0x7fffffff, help: 'fast-check seed' },
      { name: 'max-items', type: 'int', default: 80, min: 1, max: 10_000, help: 'most body items (instructions, branches, loops) per program' },
      { name: 'qemu', type: 'string', default: 'qemu-riscv32', help: 'the qemu user-mode binary' },
    ],
    run(f, io) {
      const r = withProgress(io, { label: 'hpu qemu-diff', total: num(f, 'programs'), unit: 'programs' }, (update) =>
        runQemuDiff({ seed: num(f, 'seed'), programs: num(f, 'programs'), maxItems: num(f, 'max-items'), qemu: str(f, 'qemu'), onProgram: update }),
      );
      const ok = r.mismatches === 0;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ ...r, seed: num(f, 'seed'), pass: ok }) + '\n');
        return ok ? 0 : 1;
      }
      io.out(`QEMU differential (${r.qemu}), seed ${num(f, 'seed')}\n`);
      io.out(`  programs compared      ${r.programs}\n  instructions compared  ${r.instructions} (per model)\n  pipeline cycles        ${r.pipeline_cycles} (five-stage), ${r.ri5cy_cycles} (ri5cy)\n  mismatches             ${r.mismatches}\n`);
      io.out(ok ? 'PASS: qemu-riscv32, the functional model and both pipeline organisations agree on every program\n' : `FAIL: ${r.first_problem}\n`);
      return ok ? 0 : 1;
    },
  },
  {
    path: ['hpu', 'qemu-trace'],
    summary: 'run ELFs under qemu-riscv32 with a CPU dump per instruction and diff its normalised trace against the pipeline\'s',
    positional: 'path',
    details: `
PATH is an ELF or a directory (every *.elf below it, in name order). Each ELF runs under
'qemu-riscv32 -one-insn-per-tb -d exec,cpu,nochain' (-singlestep on QEMU before 8.1), which dumps
the pc and x0..x31 before every instruction, and on the pipeline (--organisation: five-stage, the
default, or ri5cy, PsPIN's RI5CY). Both become one line
per retired instruction in the --trace format '<pc> <insn> [x<rd>=<value>]', a register write kept
only when it changes the register (QEMU's dumps cannot show the others): on QEMU's side the
instruction word comes from the ELF and the write is the register that differs between one dump
and the next. The first line that differs is printed with both sides. Exits 1 when any trace
differs, 2 when qemu-riscv32 is missing or an ELF is unusable.`,
    flags: [
      { name: 'path', type: 'string', required: true, help: 'an RV32IM ELF, or a directory of them' },
      { name: 'max-cycles', type: 'int', default: 10_000_000, min: 1, max: 2 ** 52, help: 'pipeline cycle budget per program' },
      { name: 'qemu', type: 'string', default: 'qemu-riscv32', help: 'the qemu user-mode binary' },
      ORGANISATION_FLAG,
    ],
    run(f, io) {
      const root = str(f, 'path');
      const organisation = str(f, 'organisation') as HpuOrganisation;
      const files = elfFiles(root);
      const results: QemuTraceResult[] = [];
      withProgress(io, { label: 'hpu qemu-trace', total: files.length, unit: 'programs' }, (update) => {
        for (const file of files) {
          results.push(runQemuTrace(file, readElf(file), { qemu: str(f, 'qemu'), maxCycles: num(f, 'max-cycles'), organisation }));
          update(results.length);
        }
      });
      const bad = results.filter((r) => !r.match);
      const instructions = results.reduce((a, r) => a + r.compared, 0);
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ organisation, programs: results.length, instructions_compared: instructions, mismatches: bad.length, pass: bad.length === 0, results }) + '\n');
        return bad.length === 0 ? 0 : 1;
      }
      for (const r of results) {
        io.out(`${r.match ? 'same' : 'DIFF'}  ${r.file}: ${r.compared} instructions compared (qemu ${r.qemu_instructions}, ${organisation} pipeline ${r.pipeline_instructions} in ${r.pipeline_cycles} cycles; qemu exit status ${r.qemu_status})\n`);
        if (r.first_difference !== null) io.out(`      first difference at instruction ${r.first_difference.index}:\n        qemu     ${r.first_difference.qemu}\n        pipeline ${r.first_difference.pipeline}\n`);
      }
      io.out(bad.length === 0 ? `PASS: ${results.length} programs, ${instructions} instructions, the ${organisation} pipeline's trace equals qemu-riscv32's\n` : `FAIL: ${bad.length} of ${results.length} programs differ\n`);
      return bad.length === 0 ? 0 : 1;
    },
  },
];
