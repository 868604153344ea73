/**
 * Soak entry for the NIC's DMA descriptor path (experiments/nic/frontEnd.ts: PCIe, VP register
 * file, SDQ with its doorbells, VP scheduler, outstanding-read limit and SDQ buffer, the readout
 * shared with the HDQ, a consumer that stalls now and then): 32 DMA VPs, each with its own ring
 * (8 to 64 entries of 128 bytes, registered by the kernel), and 2 PIO VPs. Each DMA VP's process
 * writes numbered random valid descriptors of every kind (vectors/blocks/nicdesc.ts; the
 * event-data field carries the VP's running number) into free ring entries and rings its doorbell
 * for 1 to 8 of them while its ring has room (counted from the descriptors dispatched); about 1
 * doorbell in 64 is bad (count 0 or above the ring size: bad_doorbell; or into another VP's page:
 * foreign_vp on the writer). The PIO VPs store numbered descriptors into their HDQ windows.
 *
 * Every dispatched descriptor is checked and dropped: it is the next one the golden model
 * (models/nic/sdqModel.ts, fed the same ring writes, doorbells and PIO stores) holds for its VP,
 * byte for byte; its readout sequence number and its event-data number are the VP's next (each
 * descriptor exactly once, in ring order per VP); it came by DMA exactly when its VP is a DMA VP.
 * Every refusal is one the model made (same VP and kind) and nothing else is refused. Kept: per VP
 * its ring (in host memory and in the model) and the descriptors announced and not yet dispatched.
 */
import { buildFrontEnd, refusalName, reg64 } from '../../../experiments/nic/frontEnd.ts';
import { Rng } from '../../../rtl/kernel/rng.ts';
import { descConfig, encodeDescriptor } from '../../../rtl/nic/desc/index.ts';
import { VR_DOORBELL, VR_HDQ_WINDOW, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../../rtl/nic/vp/index.ts';
import { SdqOrderModel } from '../../../models/nic/sdqModel.ts';
import { randomValidDesc } from '../../../vectors/blocks/nicdesc.ts';
import type { SoakBlock } from '../block.ts';

const PIO_VPS = 2;
const DMA_VPS = 32;
const VPS = PIO_VPS + DMA_VPS;
const HDQ_SLOTS = 4;
const ENTRY = 128;
const RING_SIZES = [8, 16, 32, 64] as const;
/** the driver acts between chunks of this many cycles (up to one store per cycle of the chunk) */
const CHUNK = 8;

export const blocks: SoakBlock[] = [
  {
    name: 'nic-sdq',
    what: 'NIC DMA descriptor path: 32 DMA VPs (rings of 8-64 entries) writing numbered random descriptors and ringing doorbells for 1-8 at a time (1 in 64 bad or foreign), 2 PIO VPs, the consumer stalling now and then; every dispatched descriptor checked against the golden SDQ model (exactly once, in ring order per VP), every refusal expected',
    start(seed) {
      const rng = new Rng(seed);
      const cfg = descConfig({ vps: VPS });
      const fe = buildFrontEnd({ vp: { pioVps: PIO_VPS, dmaVps: DMA_VPS }, sdq: { entryBytes: ENTRY }, hdqSlots: HDQ_SLOTS, keep: true });
      const model = new SdqOrderModel(PIO_VPS, DMA_VPS, ENTRY);
      const ringSize = new Int32Array(VPS);
      const ringBase = (vp: number): number => 0x100_0000 + vp * 64 * ENTRY;
      const written = new Float64Array(VPS); // descriptors written (software's running number)
      const announced = new Float64Array(VPS); // descriptors covered by accepted doorbells (DMA) or stored (PIO)
      const dispatched = new Float64Array(VPS);
      const problems: string[] = [];
      const fail = (m: string): void => {
        if (problems.length < 10) problems.push(m);
      };
      // the kernel registers the rings
      const setup: [number, number, Uint8Array][] = [];
      for (let vp = PIO_VPS; vp < VPS; vp++) {
        ringSize[vp] = RING_SIZES[rng.int(RING_SIZES.length)]!;
        model.register(vp, ringSize[vp]!);
        setup.push([vp, VR_SDQ_BASE, reg64(ringBase(vp))], [vp, VR_SDQ_SIZE, reg64(ringSize[vp]!)]);
      }
      for (const [vp, off, v] of setup) while (!fe.store(-1, vp, off, v)) fe.sim.step(1);
      fe.sim.step(400);
      const numbered = (vp: number): Uint8Array => {
        const d = randomValidDesc(rng, cfg);
        d.eventData = written[vp]! % 2 ** 32;
        written[vp]!++;
        return encodeDescriptor(d);
      };
      // refusals the model made and the NIC has not reported yet, by "vp:name"
      const refusalsDue = new Map<string, number>();
      let refusalsSeen = 0;
      let badSent = 0;
      let doorbells = 0;
      let stallUntil = 0;
      let next = PIO_VPS;
      /** one store per call at most: the next VP in turn that has something to do */
      const cpu = (): void => {
        for (let k = 0; k < VPS; k++) {
          const vp = (next + k) % VPS;
          if (vp < PIO_VPS) {
            if (announced[vp]! - dispatched[vp]! >= HDQ_SLOTS) continue;
            const bytes = numbered(vp);
            if (!fe.store(vp, vp, VR_HDQ_WINDOW, bytes)) return;
            model.pio(vp, bytes);
            announced[vp]!++;
          } else {
            const room = ringSize[vp]! - (announced[vp]! - dispatched[vp]!);
            if (room < 1) continue;
            if (rng.int(64) === 0) {
              // a bad doorbell: a count the register file refuses, or a store into another VP's page
              const foreign = rng.bool();
              const writer = foreign ? (vp + 1 + rng.int(VPS - 1)) % VPS : vp;
              const count = foreign ? 1 : rng.bool() ? 0 : ringSize[vp]! + 1 + rng.int(8);
              if (!fe.store(writer, vp, VR_DOORBELL, reg64(count))) return;
              const err = model.doorbell(writer, vp, count);
              const key = `${foreign ? writer : vp}:${err}`;
              refusalsDue.set(key, (refusalsDue.get(key) ?? 0) + 1);
              badSent++;
              next = (vp + 1) % VPS;
              return;
            }
            const n = 1 + rng.int(Math.min(8, room));
            // software fills the next n entries, then rings the doorbell
            for (let i = 0; i < n; i++) {
              const index = (model.tail(vp) + i) % ringSize[vp]!;
              const bytes = numbered(vp);
              const entry = new Uint8Array(ENTRY);
              entry.set(bytes);
              fe.pcie.mem.write(ringBase(vp) + index * ENTRY, entry);
              model.write(vp, index, entry);
            }
            if (!fe.store(vp, vp, VR_DOORBELL, reg64(n))) {
              written[vp]! -= n; // not rung: the same entries are rewritten next time
              return;
            }
            const err = model.doorbell(vp, vp, n);
            if (err !== '') fail(`VP ${vp}: the golden model refused a doorbell of ${n} with ${ring(vp)}: ${err}`);
            announced[vp]! += n;
            doorbells++;
          }
          next = (vp + 1) % VPS;
          return;
        }
      };
      const ring = (vp: number): string => `${announced[vp]! - dispatched[vp]!} of ${ringSize[vp]} entries announced`;
      const drain = (): void => {
        const got = fe.sink.got;
        for (let i = 0; i < got.length; i++) {
          const d = got[i]!;
          const n = dispatched[d.vp]!;
          dispatched[d.vp] = n + 1;
          const want = model.expected(d.vp).shift();
          if (d.vp >= PIO_VPS) model.released(d.vp, 1);
          if (want === undefined) {
            fail(`VP ${d.vp}: descriptor #${n} dispatched, but the golden model holds none for it`);
            continue;
          }
          if (want.length !== d.bytes.length || want.some((b, j) => b !== d.bytes[j])) fail(`VP ${d.vp}: descriptor #${n} differs from the golden model's (${d.bytes.length} bytes dispatched, ${want.length} expected)`);
          else if (d.desc.eventData !== n % 2 ** 32) fail(`VP ${d.vp}: descriptor number ${d.desc.eventData} dispatched where ${n} was next (lost, repeated or reordered)`);
          if (d.seq !== n % 2 ** 31) fail(`VP ${d.vp}: readout sequence number ${d.seq}, expected ${n}`);
          if (d.dma !== d.vp >= PIO_VPS) fail(`VP ${d.vp}: descriptor #${n} came ${d.dma ? 'by DMA' : 'by PIO'}`);
          if (d.reason !== 0) fail(`VP ${d.vp}: descriptor #${n} refused by the readout's decoder (reason ${d.reason}, ${d.field})`);
        }
        got.length = 0;
        const refusals = fe.sink.refusals;
        for (let i = 0; i < refusals.length; i++) {
          const e = refusals[i]!;
          refusalsSeen++;
          const key = `${e.vp}:${refusalName(e.kind)}`;
          const c = refusalsDue.get(key);
          if (c === undefined) fail(`unexpected refusal ${refusalName(e.kind)} on VP ${e.vp} at cycle ${e.cycle}`);
          else if (c === 1) refusalsDue.delete(key);
          else refusalsDue.set(key, c - 1);
        }
        refusals.length = 0;
        model.refusals.length = 0; // matched above through refusalsDue
      };
      let total = 0;
      let last = 0;
      return {
        get cycle() {
          return fe.sim.cycle;
        },
        runTo(to) {
          while (fe.sim.cycle < to) {
            const t = fe.sim.cycle;
            // the consumer stalls now and then for up to 300 cycles, so that the SDQ buffer and the HDQ fill
            if (t >= stallUntil && rng.int(512) === 0) stallUntil = t + 1 + rng.int(300);
            if (fe.sink.stalled !== t < stallUntil) {
              if (t < stallUntil) fe.sink.stalled = true;
              else fe.sink.resume();
            }
            for (let i = 0; i < CHUNK; i++) cpu(); // up to a store per cycle
            fe.sim.step(Math.min(CHUNK, to - t));
            total += fe.sink.got.length;
            drain();
          }
        },
        check() {
          const out = problems.splice(0, problems.length);
          for (let vp = 0; vp < VPS; vp++) {
            const held = model.expected(vp).length;
            const bound = vp < PIO_VPS ? HDQ_SLOTS : ringSize[vp]!;
            if (held !== announced[vp]! - dispatched[vp]! || held > bound) out.push(`VP ${vp}: the golden model holds ${held} descriptors, ${announced[vp]! - dispatched[vp]!} announced and not dispatched (at most ${bound})`);
          }
          let due = 0;
          for (const c of refusalsDue.values()) due += c;
          if (due > 16) out.push(`${due} refusals the golden model made have not been reported`);
          if (total <= last) out.push(`no descriptor dispatched since the last sample (${total} in all)`);
          last = total;
          return out;
        },
        summary() {
          return `${total.toLocaleString('en-US')} descriptors dispatched and checked (${doorbells.toLocaleString('en-US')} doorbells), ${refusalsSeen.toLocaleString('en-US')} of ${badSent.toLocaleString('en-US')} bad doorbells refused`;
        },
      };
    },
  },
];
