/**
 * The committed handler ELFs (rtl/hpu/handlers/elf) are what build.sh makes from the C sources:
 * runs `build.sh --check` when gcc-riscv64-unknown-elf is installed (CI installs it and runs the
 * check again after the tests), and checks the ELFs load as sPIN handlers either way.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BUILTIN_HANDLERS, loadHandler } from '../../experiments/hpu/spinTraffic.ts';
import { CODE_BASE, CODE_LIMIT } from '../../rtl/hpu/spin/params.ts';

const hasGcc = spawnSync('riscv64-unknown-elf-gcc', ['--version']).status === 0;

describe('sPIN handler ELFs', () => {
  it.skipIf(!hasGcc)('equal a fresh reproducible build of their sources', () => {
    const r = spawnSync('bash', ['rtl/hpu/handlers/build.sh', '--check'], { encoding: 'utf8' });
    expect(r.stdout + r.stderr).toMatch(/handler ELFs match a fresh build/);
    expect(r.status).toBe(0);
  });

  it('are RV32IM executables in the handler-code region with _start and at least one handler', () => {
    for (const h of BUILTIN_HANDLERS) {
      const e = loadHandler(h);
      expect(e.symbols.get('_start')).toBe(e.entry);
      for (const s of e.segments) {
        expect(s.vaddr).toBeGreaterThanOrEqual(CODE_BASE);
        expect(s.vaddr + s.memsz).toBeLessThanOrEqual(CODE_LIMIT);
      }
      expect(['header_handler', 'payload_handler', 'completion_handler'].some((n) => (e.symbols.get(n) ?? 0) !== 0)).toBe(true);
    }
  });
});
