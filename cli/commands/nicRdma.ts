/**
 * `netoffload nic rdma`: one RDMA operation kind between two NICs: latency to the completion event
 * and back-to-back throughput (experiments/nic/rdmaProbe.ts).
 */
import { bool, CheckFailed, type CommandSpec, num, str, UsageError } from '../args.ts';
import { RDMA_PROBE_DEFAULTS, type RdmaProbeKind, runRdmaProbe } from '../../experiments/nic/rdmaProbe.ts';

const KINDS = ['imm_put', 'put', 'get', 'mp'] as const;

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'rdma'],
    summary: 'two NICs on a link: latency of one RDMA operation to its completion event, and back-to-back throughput',
    details: `
Builds two NICs (PCIe, VP registers, HDQ and SDQ, memory checker, ATC and ATT, RDMA engines, host-memory
queues; docs/nic-rdma.md) joined by a link, registers the queues and one item per side, and runs
--kind operations of --bytes from node 0 to node 1: the descriptor written by the CPU into a PIO
VP's HDQ window (--path pio), or into DMA VP 8's SDQ ring in host memory and announced by a
doorbell store, the SDQ fetching it by a PCIe read (--path dma). Completion is detected by the event landing in host memory, as in the seed:
the remote event (PUT, IMM_PUT), the MPQ entry (MP), the local event (GET). Prints the latency of a
cold operation (ATC misses) and of a warm one, and the throughput of --count operations with up to
4 in flight (the transmit engine overlaps up to 8 operations; nic bandwidth measures the stream). Exit 1 if the target buffer does not
hold the source bytes. This is the bare NIC, without the host's software costs: 'nic table'
adds the calibrated ones (docs/nic-calibration.md).
--connect sets the descriptors' connect flag: every operation runs over a reliable end-to-end
connection (sender and receiver contexts, connection setup overlapped with the data fetch, ACKs,
retransmission; docs/nic-rdma.md, "Reliable end-to-end"), and the end-to-end counts are printed.
--drop-rate and --ber (connect only) inject packet drops and bit errors on both directions of
the link; the retransmissions repair them.`,
    flags: [
      { name: 'kind', type: 'string', default: RDMA_PROBE_DEFAULTS.kind, help: 'imm_put, put, get or mp' },
      { name: 'bytes', type: 'int', default: RDMA_PROBE_DEFAULTS.bytes, min: 1, max: 1 << 24, help: 'payload bytes per operation (imm_put and mp: at most 80)' },
      { name: 'count', type: 'int', default: RDMA_PROBE_DEFAULTS.count, min: 1, max: 100000, help: 'operations in the throughput run' },
      { name: 'path', type: 'string', default: RDMA_PROBE_DEFAULTS.path, help: 'pio (HDQ window stores) or dma (SDQ ring in host memory, doorbell, descriptor fetch)' },
      { name: 'link-latency', type: 'int', default: RDMA_PROBE_DEFAULTS.linkLatency, min: 1, max: 1e6, help: 'link latency (cycles = ns at 1 GHz)' },
      { name: 'link-bytes', type: 'int', default: RDMA_PROBE_DEFAULTS.linkBytesPerCycle, min: 1, max: 4096, help: 'link rate (bytes per cycle)' },
      { name: 'att-latency', type: 'int', default: RDMA_PROBE_DEFAULTS.attLatency, min: 2, max: 1e6, help: 'ATT read latency of an ATC miss (cycles)' },
      { name: 'max-payload', type: 'int', default: RDMA_PROBE_DEFAULTS.maxPayload, min: 64, max: 4096, help: 'largest packet payload (bytes, power of two)' },
      { name: 'connect', type: 'bool', default: false, help: 'reliable end-to-end connections (the descriptor connect flag)' },
      { name: 'drop-rate', type: 'number', default: 0, min: 0, max: 0.5, help: 'link packet drop probability (with --connect)' },
      { name: 'ber', type: 'number', default: 0, min: 0, max: 0.001, help: 'link bit-error rate (with --connect)' },
    ],
    run(f, io) {
      const kind = str(f, 'kind');
      if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind: expected ${KINDS.join(', ')}, got '${kind}'`);
      const path = str(f, 'path');
      if (path !== 'pio' && path !== 'dma') throw new UsageError(`--path: expected pio or dma, got '${path}'`);
      const bytes = num(f, 'bytes');
      if ((kind === 'imm_put' || kind === 'mp') && bytes > 80) throw new UsageError(`--bytes: ${kind} carries at most 80 bytes, got ${bytes}`);
      const mp = num(f, 'max-payload');
      if ((mp & (mp - 1)) !== 0) throw new UsageError(`--max-payload must be a power of two, got ${mp}`);
      const connect = bool(f, 'connect');
      const dropRate = num(f, 'drop-rate');
      const ber = num(f, 'ber');
      if (!connect && (dropRate > 0 || ber > 0)) throw new UsageError('--drop-rate and --ber need --connect (a connectless operation that loses a packet never completes)');
      const r = runRdmaProbe({ kind: kind as RdmaProbeKind, path, bytes, count: num(f, 'count'), linkLatency: num(f, 'link-latency'), linkBytesPerCycle: num(f, 'link-bytes'), attLatency: num(f, 'att-latency'), maxPayload: mp, connect, dropRate, ber });
      if (bool(f, 'json')) io.out(JSON.stringify(r) + '\n');
      else {
        io.out(`${r.kind}, ${r.bytes} bytes, ${r.path} path\n`);
        io.out(`latency (warm)      ${r.latency_ns.toFixed(0)} ns\n`);
        io.out(`latency (cold)      ${r.cold_latency_ns.toFixed(0)} ns\n`);
        io.out(`throughput          ${r.throughput_gbps.toFixed(2)} GB/s (${r.count} operations)\n`);
        if (r.e2e !== undefined) {
          const e = r.e2e;
          io.out(`connections         ${e.connections} (retransmitted packets ${e.retransmissions}, timeouts ${e.timeouts}, CONN_NACKs ${e.conn_nacks}, failed ${e.failed}; link dropped ${e.dropped}, corrupted ${e.corrupted})\n`);
        }
        io.out(`data check          ${r.ok ? 'ok' : 'FAILED'}\n`);
      }
      if (!r.ok) throw new CheckFailed('the target buffer does not hold the source bytes');
      return 0;
    },
  },
];
