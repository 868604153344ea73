/**
 * Soak entry for the TH Express-2 NIC front end as far as it is modelled: the PIO descriptor path
 * (experiments/nic/pioPath.ts): CPU stores from all 8 PIO VPs (each while its HDQ_FREE allows)
 * -> PCIe (write combining, credits) -> VP register file -> HDQ -> round-robin readout.
 *
 * Each VP's process writes numbered descriptors: random valid descriptors of every kind (64 and
 * 128 bytes; vectors/blocks/nicdesc.ts) whose event-data field carries the VP's running number.
 * About one store in 64 is a process writing into another VP's window, which the register file
 * must refuse (foreign_vp, reported on the writer) without touching either VP's descriptors. The
 * consumer of the HDQ's output stalls now and then (up to 400 cycles), so the queues fill and the
 * processes wait for HDQ_FREE.
 * Every descriptor read out is checked and dropped: it is the next one the golden HDQ assembly
 * model (models/nic/hdqModel.ts, fed the same stores) holds for that VP, byte for byte; its HDQ
 * sequence number and its event-data number are the VP's next (each descriptor exactly once, in
 * order per VP); the golden decoder (models/nic/descModel.ts) and the block's decoder
 * (rtl/nic/desc) both accept it with the same fields it was written with. Kept: per VP the
 * descriptors in flight (at most the HDQ's slots) and counters.
 */
import { buildPioPath } from '../../../experiments/nic/pioPath.ts';
import { decodeDescriptor, descConfig, DR_OK, encodeDescriptor } from '../../../rtl/nic/desc/index.ts';
import { Rng } from '../../../rtl/kernel/rng.ts';
import { HE_NAMES, HE_SEQUENCE, VE_FOREIGN_VP, VE_NAMES, type HdqDesc, type VpError } from '../../../rtl/nic/vp/index.ts';
import { HdqModel } from '../../../models/nic/hdqModel.ts';
import { modelDecode } from '../../../models/nic/descModel.ts';
import { randomValidDesc } from '../../../vectors/blocks/nicdesc.ts';
import type { SoakBlock } from '../block.ts';

const PIO_VPS = 8;
const SLOTS = 4;

export const blocks: SoakBlock[] = [
  {
    name: 'nic-pio',
    what: 'NIC front end: 8 PIO VPs storing numbered random descriptors (64/128 B, every kind; 1 in 64 stores into another VP\'s window; the consumer stalls now and then) through PCIe, register file and HDQ; each read-out checked against the golden HDQ model and decoder (exactly once, in order per VP)',
    start(seed) {
      const rng = new Rng(seed);
      const cfg = descConfig({});
      const model = new HdqModel();
      const issued = new Float64Array(PIO_VPS); // descriptors written per VP (the next number)
      const delivered = new Float64Array(PIO_VPS);
      let descs = 0;
      let foreignSent = 0;
      let foreignRefused = 0;
      const problems: string[] = [];
      const fail = (m: string): void => {
        if (problems.length < 10) problems.push(m);
      };
      let stallUntil = 0;
      const path = buildPioPath(PIO_VPS, SLOTS, {}, {
        take(t) {
          // the consumer stalls now and then for up to 400 cycles, so that the HDQ's queues fill
          if (t >= stallUntil && rng.int(256) === 0) stallUntil = t + 1 + rng.int(400);
          return t >= stallUntil;
        },
        store(vp) {
          if (rng.int(64) === 0) {
            foreignSent++;
            const data = new Uint8Array(64).map(() => rng.int(256));
            return { page: (vp + 1 + rng.int(PIO_VPS - 1)) % PIO_VPS, data };
          }
          const d = randomValidDesc(rng, cfg);
          d.eventData = issued[vp]! % 2 ** 32;
          issued[vp]!++;
          const data = encodeDescriptor(d);
          model.store(vp, 0, data);
          return { page: vp, data };
        },
        onDesc(d: HdqDesc) {
          descs++;
          const n = delivered[d.vp]!;
          delivered[d.vp] = n + 1;
          const want = model.accepted.get(d.vp)?.shift();
          if (want === undefined) return fail(`VP ${d.vp}: descriptor #${n} read out, but the golden model holds none for it`);
          if (want.length !== d.bytes.length || want.some((b, i) => b !== d.bytes[i])) return fail(`VP ${d.vp}: descriptor #${n} differs from the golden model's (${d.bytes.length} bytes read out, ${want.length} expected)`);
          if (d.seq !== n % 2 ** 31) fail(`VP ${d.vp}: HDQ sequence number ${d.seq}, expected ${n}`);
          const g = modelDecode(d.bytes, cfg);
          const r = decodeDescriptor(d.bytes, cfg);
          if (g.reason !== 'ok' || g.desc === null) return fail(`VP ${d.vp}: descriptor #${n} rejected by the golden decoder (${g.reason}, ${g.field})`);
          if (r.reason !== DR_OK) return fail(`VP ${d.vp}: descriptor #${n} rejected by the decoder (reason ${r.reason}, ${r.field})`);
          if (g.desc.eventData !== n % 2 ** 32) fail(`VP ${d.vp}: descriptor number ${g.desc.eventData} read out where ${n} was next (lost, repeated or reordered)`);
          if (r.desc.eventData !== g.desc.eventData || r.desc.dstVp !== g.desc.dstVp || r.desc.length !== g.desc.length || r.desc.bytes !== g.desc.bytes) fail(`VP ${d.vp}: descriptor #${n}: the decoder and the golden decoder disagree on its fields`);
        },
        onError(e: VpError) {
          if (e.kind === VE_FOREIGN_VP && e.vp >= 0 && e.vp < PIO_VPS) foreignRefused++;
          else fail(`unexpected refusal ${VE_NAMES[e.kind] ?? HE_NAMES[e.kind - HE_SEQUENCE] ?? e.kind} on VP ${e.vp} at cycle ${e.cycle}`);
        },
      });
      let lastDescs = 0;
      return {
        get cycle() {
          return path.sim.cycle;
        },
        runTo(to) {
          path.runTo(to);
        },
        check() {
          const out = problems.splice(0, problems.length);
          if (model.errors.length > 0) out.push(`the golden HDQ model refused ${model.errors.length} of the stores (first: ${JSON.stringify(model.errors[0])})`);
          for (let vp = 0; vp < PIO_VPS; vp++) {
            const held = model.accepted.get(vp)?.length ?? 0;
            if (held !== issued[vp]! - delivered[vp]! || held > SLOTS) out.push(`VP ${vp}: ${held} descriptors held, ${issued[vp]! - delivered[vp]!} in flight (at most ${SLOTS})`);
          }
          if (foreignRefused > foreignSent || foreignSent - foreignRefused > 64) out.push(`${foreignSent} stores into another VP's window, ${foreignRefused} refused`);
          if (descs <= lastDescs) out.push(`no descriptor read out since the last sample (${descs} in all)`);
          lastDescs = descs;
          return out;
        },
        summary() {
          return `${descs.toLocaleString('en-US')} descriptors read out and checked, ${foreignRefused.toLocaleString('en-US')} of ${foreignSent.toLocaleString('en-US')} foreign stores refused`;
        },
      };
    },
  },
];
