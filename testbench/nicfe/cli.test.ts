/**
 * `netoffload nic pcie` and `netoffload nic decode`: figures against the golden PCIe model and the
 * link's peak, second-socket penalty, decoding answers, and clear errors for bad input.
 */
import { describe, expect, it } from 'vitest';
import { blankDesc, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { pcieConfig } from '../../rtl/nic/pcie/index.ts';
import { PcieModel } from '../../models/nic/pcieModel.ts';
import { cli } from '../lib/cli.ts';

describe('nic pcie', () => {
  it('latencies equal the golden model, bandwidth near the peak', async () => {
    const r = await cli(['nic', 'pcie', '--count', '32', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as Record<string, number>;
    const m = new PcieModel(pcieConfig({}));
    expect(j.read64_ns).toBe(m.read(0, 0x1000, 64).done);
    expect(j.write64_ns).toBe(m.write(0, 0x1000, new Uint8Array(64)).done);
    expect(j.pio64_ns).toBe(m.pioWrite(0, 0, 64).done);
    expect(j.write_gbps).toBeLessThanOrEqual(j.peak_write_gbps!);
    expect(j.write_gbps).toBeGreaterThan(0.95 * j.peak_write_gbps!);
    expect(j.read_gbps).toBeGreaterThan(0.95 * j.peak_read_gbps!);
    expect(j.peak_write_gbps).toBeCloseTo(14.4, 1);
  });
  it('second socket adds the QPI penalty; the text form lists the figures', async () => {
    const near = JSON.parse((await cli(['nic', 'pcie', '--count', '4', '--json'])).out) as Record<string, number>;
    const far = JSON.parse((await cli(['nic', 'pcie', '--count', '4', '--second-socket', '--qpi-ns', '80', '--json'])).out) as Record<string, number>;
    expect(far.read64_ns! - near.read64_ns!).toBe(80);
    expect(far.pio64_ns! - near.pio64_ns!).toBe(80);
    const t = await cli(['nic', 'pcie', '--count', '4']);
    expect(t.out).toMatch(/64-byte DMA read latency\s+362 ns/);
  });
  it('bad flags exit 2 naming the parameter', async () => {
    const r = await cli(['nic', 'pcie', '--lanes', '3']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/lanes must be 1, 2, 4, 8 or 16/);
    const m = await cli(['nic', 'pcie', '--mps', '300']);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/mps must be a power of two/);
  });
});

describe('nic decode', () => {
  const put = Buffer.from(encodeDescriptor({ ...blankDesc(DESC_PUT), length: 100, localAddr: 0x1000, remoteAddr: 0x2000, dstVp: 3 })).toString('hex');
  it('decodes a valid descriptor', async () => {
    const r = await cli(['nic', 'decode', '--hex', `0x${put}`, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { reason: string; desc: { kind: string; length: number; dstVp: number } };
    expect(j.reason).toBe('ok');
    expect(j.desc).toMatchObject({ kind: 'put', length: 100, dstVp: 3 });
    expect((await cli(['nic', 'decode', '--hex', put])).out).toMatch(/^ok: put, 64 bytes/);
  });
  it('reports the reason and field of a rejected one', async () => {
    const r = await cli(['nic', 'decode', '--hex', put, '--vps', '3']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/rejected: bad_dest \(code 7\), field dstVp/);
  });
  it('hex that is not bytes is a usage error', async () => {
    const r = await cli(['nic', 'decode', '--hex', '0x123']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/not an even number of hexadecimal digits/);
    expect((await cli(['nic', 'decode'])).code).toBe(2);
  });
});
