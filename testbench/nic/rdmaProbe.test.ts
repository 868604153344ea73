/**
 * `netoffload nic rdma`: every kind and path completes with the data in place, warm faster than
 * cold, throughput below the link's rate, the DMA path 300-400 ns slower than PIO (the SDQ's
 * descriptor fetch), same flags same figures; bad flags exit 2.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../lib/cli.ts';
import { runRdmaProbe } from '../../experiments/nic/rdmaProbe.ts';

describe('nic rdma', () => {
  it('each kind on each path: data in place, warm latency below cold, throughput below the link rate', () => {
    for (const kind of ['imm_put', 'put', 'get', 'mp'] as const) {
      for (const path of ['pio', 'dma'] as const) {
        const r = runRdmaProbe({ kind, path, bytes: kind === 'imm_put' || kind === 'mp' ? 40 : 5000, count: 4 });
        expect(r.ok, `${kind} ${path}`).toBe(true);
        expect(r.latency_ns).toBeGreaterThan(0);
        expect(r.latency_ns).toBeLessThanOrEqual(r.cold_latency_ns);
        expect(r.throughput_gbps).toBeLessThan(14);
      }
    }
    // the DMA path goes through the real SDQ: the doorbell store, then the descriptor read's PCIe
    // round trip, which the PIO path does not pay (seed 2.2: 300-400 ns more)
    const pio = runRdmaProbe({ kind: 'put', path: 'pio', bytes: 64, count: 1 });
    const dma = runRdmaProbe({ kind: 'put', path: 'dma', bytes: 64, count: 1 });
    expect(dma.latency_ns - pio.latency_ns).toBeGreaterThanOrEqual(300);
    expect(dma.latency_ns - pio.latency_ns).toBeLessThanOrEqual(400);
  });

  it('--json is deterministic; the text form names the figures; bad flags exit 2', async () => {
    const a = await cli(['nic', 'rdma', '--kind', 'get', '--bytes', '3000', '--count', '3', '--json']);
    const b = await cli(['nic', 'rdma', '--kind', 'get', '--bytes', '3000', '--count', '3', '--json']);
    expect(a.code).toBe(0);
    expect(a.out).toBe(b.out);
    expect(JSON.parse(a.out)).toMatchObject({ kind: 'get', bytes: 3000, ok: true });
    const t = await cli(['nic', 'rdma', '--kind', 'mp', '--bytes', '8', '--count', '2']);
    expect(t.out).toMatch(/latency \(warm\)\s+\d+ ns/);
    expect((await cli(['nic', 'rdma', '--kind', 'atomic'])).err).toMatch(/--kind: expected imm_put, put, get, mp/);
    const big = await cli(['nic', 'rdma', '--kind', 'mp', '--bytes', '81']);
    expect(big.code).toBe(2);
    expect(big.err).toMatch(/at most 80 bytes/);
    expect((await cli(['nic', 'rdma', '--max-payload', '100'])).code).toBe(2);
  });

  it('--connect: over reliable connections, an IMM_PUT pays the setup round trip, a PUT overlaps it with its fetch; with link faults every operation completes and the senders retransmit; faults without --connect exit 2', async () => {
    const base = runRdmaProbe({ kind: 'imm_put', bytes: 8, count: 2 });
    const conn = runRdmaProbe({ kind: 'imm_put', bytes: 8, count: 2, connect: true });
    expect(base.e2e).toBeUndefined();
    expect(conn.e2e).toMatchObject({ connections: 4, retransmissions: 0, failed: 0 });
    // the connection's round trip: two link latencies (200 cycles each) and a little
    expect(conn.latency_ns - base.latency_ns).toBeGreaterThan(400);
    expect(conn.latency_ns - base.latency_ns).toBeLessThan(500);
    const put = runRdmaProbe({ kind: 'put', bytes: 4096, count: 2 });
    const putc = runRdmaProbe({ kind: 'put', bytes: 4096, count: 2, connect: true });
    expect(putc.latency_ns - put.latency_ns).toBeLessThan(100);
    const f = runRdmaProbe({ kind: 'put', bytes: 4096, count: 12, connect: true, dropRate: 0.03 });
    expect(f.ok).toBe(true);
    expect(f.e2e!.dropped).toBeGreaterThan(0);
    expect(f.e2e!.retransmissions).toBeGreaterThan(0);
    expect(f.e2e!.failed).toBe(0);
    const bad = await cli(['nic', 'rdma', '--drop-rate', '0.1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/need --connect/);
    const t = await cli(['nic', 'rdma', '--kind', 'mp', '--bytes', '8', '--count', '2', '--connect']);
    expect(t.out).toMatch(/connections\s+4 \(retransmitted packets 0/);
  });
});
