/**
 * Soak entry for the NIC back end (rtl/nic/nicPair.ts: two NICs, each with PCIe, VP register file,
 * HDQ and readout, memory checker and ATC, RDMA transmit and receive engines, host-memory queue
 * engine; the link between them): endless random IMM_PUT / PUT / GET traffic from eight PIO VPs,
 * four on each node, one operation in flight per VP, about 1 in 16 refused on purpose (wrong key,
 * range past the item). Each operation is checked against the golden NIC back-end model
 * (models/nic/rdmaModel.ts, queueModel.ts) when its events have landed, then dropped; the driver
 * consumes every EQ and INTQ entry (bench/soak/rdmaTraffic.ts).
 */
import { type SoakBlock } from '../block.ts';
import { RdmaTraffic } from '../rdmaTraffic.ts';

export const blocks: SoakBlock[] = [
  {
    name: 'nic-rdma',
    what: 'two NICs on a link, 8 PIO VPs (4 per node) each with one random IMM_PUT/PUT/GET in flight (1 B to 16 KiB, 1 in 16 refused on purpose), every operation checked against the golden back-end model (host bytes, EQ entries, producer counts, INTQ) as its events land; EQ and INTQ consumed by the driver',
    start(seed) {
      const tr = new RdmaTraffic(seed);
      let last = 0;
      return {
        get cycle() {
          return tr.sim.cycle;
        },
        runTo: (to) => tr.runTo(to),
        check() {
          const out = tr.check();
          if (tr.completed <= last) out.push(`no operation completed since the last sample (${tr.completed} in all)`);
          last = tr.completed;
          return out;
        },
        summary() {
          const d = tr.done;
          return `${tr.completed.toLocaleString('en-US')} operations checked (${d.imm_put.toLocaleString('en-US')} IMM_PUT, ${d.put.toLocaleString('en-US')} PUT, ${d.get.toLocaleString('en-US')} GET; ${tr.refused.toLocaleString('en-US')} refused on purpose), ${(tr.bytes / 1e6).toFixed(1)} MB moved`;
        },
      };
    },
  },
];
