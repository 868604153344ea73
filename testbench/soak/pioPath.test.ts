/**
 * Long-run state of the NIC's PIO path (experiments/nic/pioPath.ts; soak entry nic-pio): the PCIe
 * root complex's queue of CPU stores holds only the stores in flight. Under continuous stores it
 * never empties, and it used to keep one slot per store ever made (about 1 MB per 10^6 cycles with
 * the 8 PIO VPs busy), found by the soak entry.
 */
import { describe, expect, it } from 'vitest';
import { buildPioPath } from '../../experiments/nic/pioPath.ts';

describe('PIO path over a long run', () => {
  it('the root complex keeps only the stores in flight, not one slot per store made', () => {
    const p = buildPioPath();
    p.run(20_000);
    const q = (p.pcie.host as unknown as { pioQ: unknown[] }).pioQ;
    expect(p.pcie.host.pioPending).toBeLessThanOrEqual(64);
    expect(q.length).toBeLessThanOrEqual(256 + 64);
  });
});
