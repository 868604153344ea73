/**
 * Benchmark suite "nic": the TH Express-2 front end as far as it is modelled.
 * - Descriptor path with all 40 VPs busy (8 PIO through the HDQ, 32 DMA through the SDQ; issue 11's
 *   figure): descriptors dispatched per second of wall time, simulated cycles per second.
 * - PIO descriptor path with all 8 PIO VPs busy (CPU stores -> PCIe -> register file -> HDQ ->
 *   round-robin readout): descriptors read out per second of wall time, and simulated cycles per
 *   second.
 * - PCIe streaming of 4 KiB DMA writes: simulated cycles per second.
 * - Descriptor decoder: descriptors decoded per second.
 */
import { type BenchSuite, type Figure, rate } from '../harness.ts';
import { Rng } from '../../rtl/kernel/index.ts';
import { decodeDescriptor, descConfig } from '../../rtl/nic/desc/index.ts';
import { buildPcie, DmaWrite } from '../../rtl/nic/pcie/index.ts';
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildPioPath } from '../../experiments/nic/pioPath.ts';
import { buildDescPath } from '../../experiments/nic/descPath.ts';
import { randomDescBytes } from '../../vectors/blocks/nicdesc.ts';

export const suite: BenchSuite = {
  name: 'nic',
  async run({ quick }) {
    const figs: Figure[] = [];
    const opts = quick ? { time: 200, warmup: 50 } : {};
    // all 40 VPs busy: HDQ and SDQ
    const a = buildDescPath();
    a.run(2000); // warm-up
    const achunk = quick ? 2000 : 20000;
    let acycles = 0;
    let adescs = 0;
    let apio = 0;
    const ra = await rate(
      'nic.vps40',
      () => {
        const c0 = a.fe.sim.cycle;
        const d0 = a.out;
        const p0 = a.outPio;
        a.run(achunk);
        acycles += a.fe.sim.cycle - c0;
        adescs += a.out - d0;
        apio += a.outPio - p0;
        return a.out - d0;
      },
      opts,
    );
    figs.push({
      key: 'nic.desc_path_40vps.descriptors_per_s',
      label: 'descriptor path, 40 VPs busy (8 PIO via HDQ, 32 DMA via SDQ): descriptors dispatched per wall second',
      value: ra.perSecond,
      unit: ' /s',
      note: `${(acycles / adescs).toFixed(2)} simulated cycles per descriptor, ${((100 * apio) / adescs).toFixed(1)} % from PIO VPs, ${ra.samples} samples`,
    });
    figs.push({ key: 'nic.desc_path_40vps.cycles_per_s', label: 'descriptor path, 40 VPs busy: simulated cycles per wall second', value: (ra.perSecond * acycles) / adescs, unit: ' /s' });
    // PIO path
    const p = buildPioPath();
    p.run(1000); // warm-up
    const chunk = quick ? 2000 : 20000;
    let cycles = 0;
    let descs = 0;
    const r = await rate(
      'nic.pio',
      () => {
        const c0 = p.sim.cycle;
        const d0 = p.out;
        p.run(chunk);
        cycles += p.sim.cycle - c0;
        descs += p.out - d0;
        return p.out - d0;
      },
      opts,
    );
    figs.push({ key: 'nic.pio_path.descriptors_per_s', label: 'PIO path, 8 PIO VPs busy: descriptors read out of the HDQ per wall second', value: r.perSecond, unit: ' /s', note: `${(cycles / descs).toFixed(1)} simulated cycles per descriptor (bound: the NIC's 16 posted-header credits over the ~114-cycle credit round trip), ${r.samples} samples` });
    figs.push({ key: 'nic.pio_path.cycles_per_s', label: 'PIO path, 8 PIO VPs busy: simulated cycles per wall second', value: (r.perSecond * cycles) / descs, unit: ' /s' });
    // PCIe streaming writes
    const sim = new Simulator({});
    const pcie = buildPcie(sim, 'pcie', {});
    let addr = 0;
    const data = new Uint8Array(4096);
    const rs = await rate(
      'nic.pcie',
      () => {
        const c0 = sim.cycle;
        const goal = c0 + (quick ? 20000 : 200000);
        sim.runUntil(() => {
          if (pcie.ep.writeIn.canPush()) {
            const w = new DmaWrite();
            w.addr = addr;
            w.data = data;
            addr = (addr + 4096) % 2 ** 30;
            pcie.ep.writeIn.push(w);
          }
          return sim.cycle >= goal;
        }, 1e12);
        return sim.cycle - c0;
      },
      opts,
    );
    figs.push({ key: 'nic.pcie_stream.cycles_per_s', label: 'PCIe Gen3 x16, back-to-back 4 KiB DMA writes: simulated cycles per wall second', value: rs.perSecond, unit: ' /s' });
    // decoder
    const rng = new Rng(1);
    const cfg = descConfig({ nodes: 1024, items: 1024 });
    const pool = Array.from({ length: 1024 }, () => randomDescBytes(rng, cfg));
    let i = 0;
    const rd = await rate(
      'nic.decode',
      () => {
        for (let k = 0; k < 10000; k++) decodeDescriptor(pool[i++ & 1023]!, cfg);
        return 10000;
      },
      opts,
    );
    figs.push({ key: 'nic.decoder.descriptors_per_s', label: 'descriptor decoder (valid and broken mix): descriptors per wall second', value: rd.perSecond, unit: ' /s' });
    return figs;
  },
};
