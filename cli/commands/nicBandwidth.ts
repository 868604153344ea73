/**
 * `netoffload nic bandwidth`: RDMA PUT bandwidth between two NICs against message size, the
 * seed's Figure 2 (experiments/nic/bandwidth.ts).
 */
import { bool, type CommandSpec, list, optNum, str, UsageError } from '../args.ts';
import { withProgress } from '../progress.ts';
import { DEFAULT_SIZES, MAX_BYTES, MAX_COUNT, type PutBandwidthResult, runPutBandwidth, SEED_PEAK } from '../../experiments/nic/bandwidth.ts';

function sizes(raw: string[]): number[] {
  const out = raw.map((s) => {
    const v = /^\d+$/.test(s) ? Number(s) : NaN;
    if (!Number.isSafeInteger(v) || v < 1 || v > MAX_BYTES) throw new UsageError(`--sizes: '${s}' is not an integer in 1..${MAX_BYTES}`);
    return v;
  });
  if (new Set(out).size !== out.length) throw new UsageError(`--sizes: a size is listed twice (${raw.join(',')})`);
  return out;
}

export const commands: CommandSpec[] = [
  {
    path: ['nic', 'bandwidth'],
    summary: "RDMA PUT bandwidth between two NICs against message size, next to the seed's Figure 2",
    details: `
Builds two NICs on a link (docs/nic-rdma.md, "PUT bandwidth") and, for each size of --sizes, lets
one process post --count back-to-back PUTs (default: about 1 MiB, 32 to 1,024 PUTs) on one VP of
node 0 to the same VP of node 1, the software way: a PIO VP's descriptor stored into its HDQ window
(--path pio) or a DMA VP's written into its SDQ ring and announced by a doorbell (--path dma),
as fast as the VP's queue takes them; --bidir: node 1 does the same towards node 0 at once.
Translations are warm. Bandwidth: payload bytes landed in the target buffer over the time from
the first descriptor posted to the last remote event landing in the target's event queue, per
direction (--bidir: the sum of both). --tx-reads and --tx-ops change the transmit engine's payload
reads in flight and operations held at once, --rx-packets the receive engine's pipeline (what
limits the curve). The seed's peaks (11.7 GB/s from 4 KB unidirectional,
20.6 GB/s from 8 KB bidirectional, the same for PIO and DMA VPs) are printed beside the curve.`,
    flags: [
      { name: 'sizes', type: 'list', default: DEFAULT_SIZES.map(String), help: `message sizes in bytes, comma-separated, each 1..${MAX_BYTES}` },
      { name: 'bidir', type: 'bool', help: 'both NICs send to each other at once' },
      { name: 'path', type: 'string', default: 'pio', choices: ['pio', 'dma'], help: 'pio (HDQ window stores) or dma (SDQ ring, doorbell, descriptor fetch)' },
      { name: 'count', type: 'int', min: 1, max: MAX_COUNT, help: 'PUTs per direction and size (default: about 1 MiB of payload, 32 to 1,024)' },
      { name: 'tx-reads', type: 'int', min: 1, max: 256, help: 'payload reads the transmit engine keeps in flight (default: the NIC\'s, 16)' },
      { name: 'tx-ops', type: 'int', min: 1, max: 256, help: 'operations the transmit engine holds at once (default: the NIC\'s, 8; 1 = one at a time)' },
      { name: 'rx-packets', type: 'int', min: 1, max: 256, help: 'packets in the receive engine\'s pipeline (default: the NIC\'s, 4; 1 = one at a time)' },
    ],
    run(f, io) {
      const list_ = sizes(list(f, 'sizes'));
      const bidirectional = bool(f, 'bidir');
      const path = str(f, 'path') as 'pio' | 'dma';
      const count = optNum(f, 'count');
      const txReads = optNum(f, 'tx-reads');
      const txOps = optNum(f, 'tx-ops');
      const rxPackets = optNum(f, 'rx-packets');
      const rows: PutBandwidthResult[] = withProgress(io, { label: 'nic bandwidth', total: list_.length, unit: 'sizes' }, (update) =>
        list_.map((bytes, i) => {
          const r = runPutBandwidth({ bytes, bidirectional, path, ...(count === undefined ? {} : { count }), ...(txReads === undefined ? {} : { txReads }), ...(txOps === undefined ? {} : { txOps }), ...(rxPackets === undefined ? {} : { rxPackets }) });
          update(i + 1);
          return r;
        }),
      );
      const seed = bidirectional ? SEED_PEAK.bidirectional : SEED_PEAK.unidirectional;
      if (bool(f, 'json')) {
        io.out(JSON.stringify({ path, bidirectional, seed_peak_gbps: seed.gbPerS, seed_peak_from_bytes: seed.fromBytes, rows }) + '\n');
        return 0;
      }
      io.out(`RDMA PUT bandwidth, ${bidirectional ? 'bidirectional (sum of both directions)' : 'unidirectional'}, ${path} VP; seed Figure 2: ${seed.gbPerS} GB/s from ${seed.fromBytes / 1024} KB\n\n`);
      const head = ['bytes', 'count', 'GB/s', 'seed peak', 'of peak'];
      const body = rows.map((r) => [String(r.bytes), String(r.count), r.gbPerS.toFixed(2), r.bytes >= seed.fromBytes ? seed.gbPerS.toFixed(1) : `<= ${seed.gbPerS.toFixed(1)}`, `${((100 * r.gbPerS) / seed.gbPerS).toFixed(0)} %`]);
      const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
      const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padStart(w[i]!)).join(' | ')} |\n`;
      io.out(line(head) + `| ${w.map((x) => '-'.repeat(x - 1) + ':').join(' | ')} |\n` + body.map(line).join(''));
      const peak = rows.reduce((a, r) => (r.gbPerS > a.gbPerS ? r : a), rows[0]!);
      io.out(`\npeak ${peak.gbPerS.toFixed(2)} GB/s at ${peak.bytes} bytes (seed ${seed.gbPerS} GB/s from ${seed.fromBytes} bytes)\n`);
      return 0;
    },
  },
];
