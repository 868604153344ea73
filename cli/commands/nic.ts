/**
 * `netoffload nic pcie`: latency and bandwidth of the NIC's PCIe attachment.
 * `netoffload nic decode`: decode one descriptor (reason code, failing field, fields).
 */
import { bool, type CommandSpec, num, str, UsageError } from '../args.ts';
import { DESC_KIND_NAMES, DESC_REASON_NAMES, descConfig, decodeDescriptor } from '../../rtl/nic/desc/index.ts';
import { PCIE_DEFAULTS, pcieConfig, type PcieConfig } from '../../rtl/nic/pcie/index.ts';
import { runPcieProbe } from '../../experiments/nic/pcieProbe.ts';
import { withProgress } from '../progress.ts';

function parseHexBytes(s: string): Uint8Array {
  const h = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s;
  if (!/^([0-9a-fA-F]{2})*$/.test(h)) throw new UsageError(`--hex: '${s.length > 40 ? s.slice(0, 40) + '...' : s}' is not an even number of hexadecimal digits (byte 0 first)`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'pcie'],
    summary: 'PCIe attachment: 64-byte read / write / PIO latency and streaming DMA bandwidth',
    details: `
Builds one PCIe attachment (endpoint, both link directions, root complex, host memory; see
docs/nic-frontend.md) and measures: the latency of a 64-byte DMA read (issued by the NIC to its
data being visible at the NIC), of a 64-byte DMA write (issued to landed in host memory) and of a
64-byte PIO store (CPU store to visible at the NIC); then the bandwidth of --count back-to-back DMA
writes and reads of --size bytes (payload bytes over the time to the last byte), next to the
link's peak payload rate for the TLP sizes used (MPS-sized writes, completion-sized reads).`,
    flags: [
      { name: 'gen', type: 'int', default: PCIE_DEFAULTS.gen, min: 1, max: 4, help: 'PCIe generation' },
      { name: 'lanes', type: 'int', default: PCIE_DEFAULTS.lanes, min: 1, max: 16, help: 'lanes: 1, 2, 4, 8 or 16' },
      { name: 'mps', type: 'int', default: PCIE_DEFAULTS.mps, min: 128, max: 4096, help: 'max payload size (bytes, power of two)' },
      { name: 'mrrs', type: 'int', default: PCIE_DEFAULTS.mrrs, min: 128, max: 4096, help: 'max read request size (bytes, power of two)' },
      { name: 'cpl-bytes', type: 'int', default: PCIE_DEFAULTS.cplBytes, min: 64, max: 4096, help: 'completion size of the host (bytes, power of two, <= MPS)' },
      { name: 'flight-ns', type: 'number', default: PCIE_DEFAULTS.flightNs, min: 0, max: 1e6, help: 'one-way link latency (ns)' },
      { name: 'host-read-ns', type: 'number', default: PCIE_DEFAULTS.hostReadNs, min: 0, max: 1e6, help: 'host memory read latency (ns)' },
      { name: 'pio-ns', type: 'number', default: PCIE_DEFAULTS.pioNs, min: 0, max: 1e6, help: 'CPU store to root-complex egress (ns)' },
      { name: 'second-socket', type: 'bool', help: 'CPU and buffers on the socket not attached to the NIC (adds --qpi-ns)' },
      { name: 'qpi-ns', type: 'number', default: PCIE_DEFAULTS.qpiNs, min: 0, max: 1e6, help: 'second-socket penalty per PIO store and host read (ns)' },
      { name: 'tags', type: 'int', default: PCIE_DEFAULTS.tags, min: 1, max: 1024, help: 'outstanding read requests of the NIC' },
      { name: 'size', type: 'int', default: 4096, min: 1, max: 1 << 24, help: 'bytes per streamed transfer' },
      { name: 'count', type: 'int', default: 256, min: 1, max: 100000, help: 'streamed transfers per direction' },
    ],
    run(f, io) {
      const cfg: Partial<PcieConfig> = {
        gen: num(f, 'gen'),
        lanes: num(f, 'lanes'),
        mps: num(f, 'mps'),
        mrrs: num(f, 'mrrs'),
        cplBytes: num(f, 'cpl-bytes'),
        flightNs: num(f, 'flight-ns'),
        hostReadNs: num(f, 'host-read-ns'),
        pioNs: num(f, 'pio-ns'),
        secondSocket: bool(f, 'second-socket'),
        qpiNs: num(f, 'qpi-ns'),
        tags: num(f, 'tags'),
      };
      try {
        pcieConfig(cfg);
      } catch (e) {
        throw new UsageError((e as Error).message.replace('PCIe config: ', ''));
      }
      const count = num(f, 'count');
      const r = withProgress(io, { label: 'nic pcie', total: 2 * count, unit: 'streamed transfers (writes then reads)' }, (update) => runPcieProbe(cfg, num(f, 'size'), count, update));
      if (bool(f, 'json')) {
        io.out(JSON.stringify(r) + '\n');
        return 0;
      }
      io.out(`PCIe Gen${r.gen} x${r.lanes}${r.second_socket ? ', second socket' : ''}\n\n`);
      const rows: [string, string][] = [
        ['64-byte DMA read latency', `${r.read64_ns.toFixed(0)} ns`],
        ['64-byte DMA write latency', `${r.write64_ns.toFixed(0)} ns`],
        ['64-byte PIO store latency', `${r.pio64_ns.toFixed(0)} ns`],
        [`DMA write bandwidth (${r.count} x ${r.size} B)`, `${r.write_gbps.toFixed(2)} GB/s (peak ${r.peak_write_gbps.toFixed(2)})`],
        [`DMA read bandwidth (${r.count} x ${r.size} B)`, `${r.read_gbps.toFixed(2)} GB/s (peak ${r.peak_read_gbps.toFixed(2)})`],
      ];
      const w = Math.max(...rows.map((x) => x[0].length));
      for (const [k, v] of rows) io.out(`${k.padEnd(w)}  ${v}\n`);
      return 0;
    },
  },
  {
    path: ['nic', 'decode'],
    summary: 'decode one TH Express-2 descriptor: reason code, failing field, decoded fields',
    details: `
Decodes the descriptor given as hexadecimal bytes (byte 0 first, 64 or 128 bytes; layouts and
reason codes in docs/nic-frontend.md) with the NIC's decoder. Prints ok and the fields, or the
reason the NIC rejects it and the field at fault. A rejected descriptor is an answer, not an error
(exit 0); hex that is not bytes is a usage error (exit 2).`,
    flags: [
      { name: 'hex', type: 'string', required: true, help: 'descriptor bytes in hexadecimal, byte 0 first (0x optional)' },
      { name: 'vps', type: 'int', default: 40, min: 1, max: 256, help: 'virtual ports of the destination NIC' },
      { name: 'nodes', type: 'int', default: 65536, min: 1, max: 65536, help: 'nodes in the network' },
      { name: 'items', type: 'int', default: 4096, min: 1, max: 4096, help: 'memory-checker items' },
    ],
    run(f, io) {
      const bytes = parseHexBytes(str(f, 'hex'));
      const r = decodeDescriptor(bytes, descConfig({ vps: num(f, 'vps'), nodes: num(f, 'nodes'), items: num(f, 'items') }));
      const reason = DESC_REASON_NAMES[r.reason]!;
      const d = r.desc;
      const fields = r.reason === 0 ? { ...d, kind: DESC_KIND_NAMES[d.kind], data: Buffer.from(d.data).toString('hex') } : null;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ reason, code: r.reason, field: r.field, desc: fields }) + '\n');
        return 0;
      }
      if (fields === null) {
        io.out(`rejected: ${reason} (code ${r.reason}), field ${r.field}\n`);
        return 0;
      }
      io.out(`ok: ${fields.kind}, ${d.bytes} bytes\n`);
      for (const [k, v] of Object.entries(fields)) if (k !== 'kind' && k !== 'bytes') io.out(`  ${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
      return 0;
    },
  },
];
