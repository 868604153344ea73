/**
 * The riscv-tests rv32ui/rv32um programs (vectors/riscv-tests): each must exit 0 on the functional
 * model and on the pipeline in both organisations (five-stage, ri5cy), retire exactly the
 * instructions qemu-riscv32 executed (manifest), and each pipeline's retired-instruction trace must
 * equal the functional model's entry by entry, with cycles = retired + fill + the counted stalls.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseElf } from '../../models/hpu/elf.ts';
import { runFunctional, runPipeline } from '../../experiments/hpu/run.ts';
import { HPU_ORGANISATIONS, type HpuOrganisation } from '../../rtl/hpu/core/coreBase.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = join(ROOT, 'vectors', 'riscv-tests');
const SHARED = join(ROOT, '..', 'shared', 'riscv-tests');

interface Row {
  name: string;
  sha256: string;
  qemuInstructions: number;
}
const rows: Row[] = readFileSync(join(DIR, 'manifest.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => {
    const [name, sha256, , , n] = l.split('\t');
    return { name: name!, sha256: sha256!, qemuInstructions: Number(n) };
  });

/** Runs both models with trace capture; returns the first trace mismatch (or -1). */
function bothModels(file: string, organisation: HpuOrganisation): { f: ReturnType<typeof runFunctional>; p: ReturnType<typeof runPipeline>; mismatch: number } {
  const img = parseElf(readFileSync(file), file);
  const ta: number[] = [];
  const tb: number[] = [];
  const f = runFunctional(img, { maxInstructions: 100_000, onRetire: (pc, insn, rd, v) => ta.push(pc, insn, rd, v) });
  const p = runPipeline(img, { maxCycles: 1_000_000, params: { organisation }, onRetire: (pc, insn, rd, v) => tb.push(pc, insn, rd, v) });
  let mismatch = ta.length === tb.length ? -1 : Math.min(ta.length, tb.length) >> 2;
  for (let i = 0; i < Math.min(ta.length, tb.length); i++) {
    if (ta[i] !== tb[i]) {
      mismatch = i >> 2;
      break;
    }
  }
  return { f, p, mismatch };
}

describe('riscv-tests copy', () => {
  it('lists 48 programs (40 rv32ui, 8 rv32um), every ELF present with the manifest sha256', () => {
    expect(rows.length).toBe(48);
    expect(rows.filter((r) => r.name.startsWith('rv32um/')).length).toBe(8);
    const files = ['rv32ui', 'rv32um'].flatMap((d) => readdirSync(join(DIR, d)).map((f) => `${d}/${f.replace(/\.elf$/, '')}`));
    expect(files.sort()).toEqual(rows.map((r) => r.name).sort());
    for (const r of rows) expect(createHash('sha256').update(readFileSync(join(DIR, `${r.name}.elf`))).digest('hex'), r.name).toBe(r.sha256);
    expect(existsSync(join(DIR, 'LICENSE'))).toBe(true);
  });

  it.runIf(existsSync(SHARED))('matches ../shared/riscv-tests byte for byte', () => {
    for (const f of ['manifest.tsv', 'LICENSE', ...rows.map((r) => `${r.name}.elf`)]) expect(readFileSync(join(DIR, f)).equals(readFileSync(join(SHARED, f))), f).toBe(true);
  });
});

describe('riscv-tests on both models', () => {
  for (const organisation of HPU_ORGANISATIONS)
    for (const r of rows) {
      it(`${r.name} (${organisation}): exit 0 on both, qemu's instruction count, identical traces`, () => {
        const { f, p, mismatch } = bothModels(join(DIR, `${r.name}.elf`), organisation);
        expect([f.status, f.exitCode]).toEqual(['exited', 0]);
        expect([p.status, p.exitCode]).toEqual(['exited', 0]);
        expect(f.retired).toBe(r.qemuInstructions);
        expect(p.retired).toBe(r.qemuInstructions);
        expect(mismatch).toBe(-1);
        const s = p.stalls;
        expect(p.fill).toBe(organisation === 'ri5cy' ? 3 : 4);
        expect(p.cycles).toBe(p.retired + p.fill + s.load_use + s.jump_register + s.branch + s.divider + s.multiplier + s.memory + s.ecall);
        expect(Array.from(p.regs)).toEqual(Array.from(f.regs));
      });
    }
});
