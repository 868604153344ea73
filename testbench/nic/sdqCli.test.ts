/**
 * `netoffload nic desc`: the idle latencies are the golden PCIe model's store and read latencies
 * plus the front end's fixed cycles; the busy run's figures respond to the parameters; bad flags
 * are usage errors naming the flag.
 */
import { describe, expect, it } from 'vitest';
import { pcieConfig } from '../../rtl/nic/pcie/index.ts';
import { PcieModel } from '../../models/nic/pcieModel.ts';
import { cli } from '../lib/cli.ts';

const run = async (...a: string[]): Promise<Record<string, number>> => {
  const r = await cli(['nic', 'desc', '--descriptors', '2000', '--json', ...a]);
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as Record<string, number>;
};

describe('nic desc', () => {
  it('idle latencies: PCIe store (+ read) latency of the golden model plus the front end cycles; DMA adds the seed\'s 300-400 ns', async () => {
    for (const eb of [64, 128]) {
      const j = await run('--entry-bytes', String(eb));
      const m = (): PcieModel => new PcieModel(pcieConfig({}));
      // PIO: the 64-byte store reaches the NIC, then register file, HDQ head, readout grant
      expect(j.pio_store_to_dispatch_ns).toBe(m().pioWrite(0, 0, 64).done + 2);
      // DMA: the 8-byte doorbell reaches the NIC, register file, SDQ doorbell, issue, the entry's read, head, grant
      expect(j.dma_store_to_dispatch_ns).toBe(m().pioWrite(0, 0, 8).done + m().read(0, 0x10000, eb).done + 4);
      expect(j.dma_minus_pio_ns).toBeGreaterThanOrEqual(300);
      expect(j.dma_minus_pio_ns).toBeLessThanOrEqual(400);
      expect(j.descriptors).toBe(2000);
      expect(j.dma_vp_share_min).toBeGreaterThan(0.8); // round-robin: every DMA VP gets its share
    }
  });

  it('fixed priority starves DMA VPs under load; 64-byte entries cost less link time than 128-byte ones', async () => {
    const fixed = await run('--policy', 'fixed-priority');
    expect(fixed.dma_vp_share_min).toBe(0);
    const e64 = await run('--entry-bytes', '64');
    const e128 = await run();
    expect(e64.cycles_per_descriptor).toBeLessThan(e128.cycles_per_descriptor!);
  });

  it('the text form lists the figures; bad flags are usage errors naming the flag', async () => {
    const t = await cli(['nic', 'desc', '--descriptors', '500', '--pio-vps', '2', '--dma-vps', '4']);
    expect(t.code).toBe(0);
    expect(t.out).toMatch(/2 PIO \+ 4 DMA VPs/);
    expect(t.out).toMatch(/DMA minus PIO\s+\d+ ns \(seed: 300-400 ns\)/);
    const bad = async (a: string[], re: RegExp): Promise<void> => {
      const r = await cli(['nic', 'desc', ...a]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(re);
    };
    await bad(['--entry-bytes', '96'], /--entry-bytes must be 64 or 128, got 96/);
    await bad(['--policy', 'lottery'], /--policy/);
    await bad(['--depth', '0'], /--depth/);
    await bad(['--pio-vps', '200', '--dma-vps', '100'], /--pio-vps \+ --dma-vps must be at most 256/);
  });
});
