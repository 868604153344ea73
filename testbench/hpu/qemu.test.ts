/**
 * The QEMU differential, short: random programs on qemu-riscv32 (when installed; CI installs
 * qemu-user and also runs the longer `netoffload hpu qemu-diff` step) and on both models.
 */
import { describe, expect, it } from 'vitest';
import { qemuVersion, runQemuDiff } from '../../experiments/hpu/qemuDiff.ts';

const qemu = qemuVersion();

describe('QEMU differential', () => {
  it.runIf(qemu !== null || process.env.NETOFFLOAD_REQUIRE_QEMU === '1')('qemu-riscv32 and both models agree on 25 random programs', () => {
    const r = runQemuDiff({ seed: 11, programs: 25, maxItems: 60 });
    expect(r.first_problem).toBeNull();
    expect(r.mismatches).toBe(0);
    expect(r.programs).toBe(25);
    expect(r.instructions).toBeGreaterThan(25 * 100);
  });
});
