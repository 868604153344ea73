/**
 * `netoffload alu reduce`: one reduction through the cycle-level ALU (rtl/sharp/alu/alu.ts),
 * operands generated from --seed, delivered in an order and spacing drawn from --arrival-seed,
 * checked against the golden model (models/alu/golden.ts). The arrival seed changes the cycles,
 * never the result bits or flags (docs/alu.md "Reduction order").
 */
import { bool, type CommandSpec, num, str, UsageError } from '../args.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { type AluHeader, type AluParams, checkAluParams, DEFAULT_ALU_PARAMS } from '../../rtl/sharp/alu/alu.ts';
import {
  ALU_ERROR_NAMES,
  AluError,
  DATA_TYPES,
  type DataType,
  elementBytes,
  FLAG_INEXACT,
  FLAG_INVALID,
  FLAG_OVERFLOW,
  FLAG_UNDERFLOW,
  INDEX_TYPES,
  type IndexType,
  MAX_PAYLOAD_BYTES,
  type Op,
  OPS,
  ORDERS,
  type ReductionOrder,
  ROUNDINGS,
  type Rounding,
  validateHeader,
} from '../../rtl/sharp/alu/types.ts';
import { goldenFor, hex, randomArrivals, randomPayload, runAlu, type Scheduled } from '../../experiments/sharp/alu-harness.ts';

function flagNames(f: number): string {
  const n: string[] = [];
  if (f & FLAG_INVALID) n.push('invalid');
  if (f & FLAG_OVERFLOW) n.push('overflow');
  if (f & FLAG_UNDERFLOW) n.push('underflow');
  if (f & FLAG_INEXACT) n.push('inexact');
  return n.length ? n.join(' ') : 'none';
}

const OPERATION_ID = 1;

export const commands: CommandSpec[] = [
  {
    path: ['alu', 'reduce'],
    summary: 'one reduction through the cycle-level ALU, checked against the golden model',
    details: `Generates K operands of C elements from --seed (random values with a share of special ones:
NaN, sNaN, infinities, zeros, subnormals, extremes), delivers them to the ALU in a slot order and
with gaps drawn from --arrival-seed, and prints the result (hex bytes, little-endian elements),
the flags (bit 0 inexact, 1 underflow, 2 overflow, 4 invalid), the cycles and whether the golden
model agrees (exit 1 if not). Changing --arrival-seed alone never changes the result or flags.
With --json: {"result_hex","flags","cycles","ok"}, cycles = the cycle the result left the ALU.`,
    flags: [
      { name: 'type', type: 'string', required: true, choices: DATA_TYPES, help: 'element type' },
      { name: 'op', type: 'string', required: true, choices: OPS, help: 'reduction operation' },
      { name: 'children', type: 'int', required: true, min: 1, max: 64, help: 'number of operands K (child slots)' },
      { name: 'count', type: 'int', required: true, min: 0, max: MAX_PAYLOAD_BYTES, help: 'elements per operand (count x element bytes <= 256; 0 = barrier)' },
      { name: 'order', type: 'string', default: 'linear', choices: ORDERS, help: 'reduction order of the ALU instance' },
      { name: 'rounding', type: 'string', default: 'rne', choices: ROUNDINGS, help: 'float rounding mode' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'operand generator seed' },
      { name: 'arrival-seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of the arrival order and spacing' },
      { name: 'index-type', type: 'string', default: 'i32', choices: INDEX_TYPES, help: 'index type of minloc/maxloc' },
      { name: 'ftz', type: 'bool', help: 'flush-to-zero / denormals-are-zero' },
      { name: 'wide', type: 'bool', help: 'binary32 accumulation for f16/bf16 sum/prod' },
      { name: 'alu-seed', type: 'int', default: DEFAULT_ALU_PARAMS.seed, min: 0, max: 0xffffffff, help: 'the ALU instance seed (stochastic rounding)' },
      { name: 'width', type: 'int', default: DEFAULT_ALU_PARAMS.widthBytes, min: 1, max: 4096, help: 'datapath bytes per beat' },
      { name: 'write-bw', type: 'int', default: DEFAULT_ALU_PARAMS.writeBytesPerCycle, min: 1, max: 4096, help: 'operand-buffer write bytes per cycle' },
      { name: 'depth-int', type: 'int', default: DEFAULT_ALU_PARAMS.depthInt, min: 1, max: 64, help: 'pipeline depth of integer/bitwise/compare operations' },
      { name: 'depth-fadd', type: 'int', default: DEFAULT_ALU_PARAMS.depthFadd, min: 1, max: 64, help: 'pipeline depth of float addition' },
      { name: 'depth-fmul', type: 'int', default: DEFAULT_ALU_PARAMS.depthFmul, min: 1, max: 64, help: 'pipeline depth of float multiplication' },
      { name: 'max-gap', type: 'int', default: 8, min: 0, max: 100000, help: 'largest gap in cycles between two arrivals' },
      { name: 'special', type: 'number', default: 0.1, min: 0, max: 1, help: 'share of special float values in the operands' },
    ],
    run(f, io) {
      const type = str(f, 'type') as DataType;
      const op = str(f, 'op') as Op;
      const indexType = str(f, 'index-type') as IndexType;
      const count = num(f, 'count');
      const children = num(f, 'children');
      const bad = validateHeader(type, op, count, children, indexType);
      if (bad === AluError.TYPE_OP) throw new UsageError(`--op ${op} is not defined for --type ${type} (the ALU answers TYPE_OP)`);
      if (bad === AluError.PAYLOAD_TOO_LARGE) {
        throw new UsageError(`--count ${count}: ${count} x ${elementBytes(type, op, indexType)} bytes exceeds the ${MAX_PAYLOAD_BYTES}-byte payload (at most ${Math.floor(MAX_PAYLOAD_BYTES / elementBytes(type, op, indexType))} elements)`);
      }
      if (bad !== AluError.OK) throw new UsageError(`invalid operation: ALU error ${ALU_ERROR_NAMES[bad]}`);
      const params: AluParams = {
        ...DEFAULT_ALU_PARAMS,
        order: str(f, 'order') as ReductionOrder,
        seed: num(f, 'alu-seed'),
        widthBytes: num(f, 'width'),
        writeBytesPerCycle: num(f, 'write-bw'),
        depthInt: num(f, 'depth-int'),
        depthFadd: num(f, 'depth-fadd'),
        depthFmul: num(f, 'depth-fmul'),
      };
      checkAluParams(params);
      const hdr: AluHeader = { type, op, indexType, count, children, rounding: str(f, 'rounding') as Rounding, ftz: bool(f, 'ftz'), wide: bool(f, 'wide') };
      const rng = new Rng(num(f, 'seed'));
      const operands = Array.from({ length: children }, () => randomPayload(rng, hdr, num(f, 'special')));
      const arrivals = randomArrivals(new Rng(num(f, 'arrival-seed')), children, num(f, 'max-gap'));
      const sched: Scheduled[] = arrivals.map((a) => ({ at: a.at, input: { kind: 'operand', opId: OPERATION_ID, slot: a.slot, hdr, data: operands[a.slot]! } }));
      const run = runAlu(params, sched, { expect: 1 });
      const r = run.results[0]!;
      const g = goldenFor(params, hdr, OPERATION_ID, operands);
      const ok = run.results.length === 1 && r.status === g.status && hex(r.data) === hex(g.data) && r.flags === g.flags;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ result_hex: hex(r.data), flags: r.flags, cycles: r.cycle, ok }) + '\n');
        return ok ? 0 : 1;
      }
      const bytes = count * elementBytes(type, op, indexType);
      io.out(`alu reduce: ${type} ${op}${op.endsWith('loc') ? ` (index ${indexType})` : ''}, ${children} children x ${count} elements (${bytes} B), order ${params.order}, rounding ${hdr.rounding}${hdr.ftz ? ', ftz' : ''}${hdr.wide ? ', wide' : ''}\n`);
      io.out(`arrivals (slot@accept cycle): ${arrivals.map((a, i) => `${a.slot}@${run.accepted[i]}`).join(' ')}\n`);
      io.out(`result:  ${r.status === AluError.OK ? hex(r.data) : `error ${ALU_ERROR_NAMES[r.status]}`}\n`);
      io.out(`flags:   0x${r.flags.toString(16).padStart(2, '0')} (${flagNames(r.flags)})\n`);
      io.out(`cycles:  last operand accepted at ${r.lastAccept}, result left at ${r.cycle} (${r.cycle - r.lastAccept} after the last operand)\n`);
      if (ok) io.out('golden model: agrees\n');
      else io.out(`golden model: DISAGREES: expected status ${ALU_ERROR_NAMES[g.status]} result ${hex(g.data)} flags 0x${g.flags.toString(16)}\n`);
      return ok ? 0 : 1;
    },
  },
];
