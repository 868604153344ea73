/**
 * The HPU benchmark program: a loop of 15 instructions (two loads, two stores, a multiply, ALU
 * operations, a load-use pair and the loop branch) over a 4 KiB table, run `iterations` times,
 * then exit(0). Used by bench/suites/hpu.ts on both models and on qemu-riscv32.
 */
import { branch, load, li, opI, opR, store, ECALL } from './encode.ts';
import { writeElf } from './elfWriter.ts';

export const BENCH_INSNS_PER_ITERATION = 15;

export function benchProgramElf(iterations: number): Uint8Array {
  const DATA = 0x20000;
  const body = [
    load('lw', 5, 31, 0),
    opI('addi', 6, 5, 13), // load-use: one stall cycle on the pipeline
    opR('mul', 7, 6, 5),
    opR('xor', 8, 7, 6),
    store('sw', 8, 31, 0),
    opI('srli', 9, 8, 3),
    opR('add', 10, 10, 9),
    opI('andi', 11, 10, 255),
    opI('slli', 11, 11, 2),
    opR('add', 12, 31, 11),
    load('lw', 13, 12, 8),
    opR('add', 14, 14, 13),
    store('sw', 14, 12, 8),
    opI('addi', 29, 29, -1),
  ];
  const words = [...li(31, DATA), ...li(29, iterations), ...body, branch('bne', 29, 0, -4 * body.length), ...li(17, 93), ...li(10, 0), ECALL];
  return writeElf(0x10000, [
    { vaddr: 0x10000, data: new Uint8Array(Uint32Array.from(words).buffer), flags: 5 },
    { vaddr: DATA, data: new Uint8Array(4096), flags: 6 },
  ]);
}
