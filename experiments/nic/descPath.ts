/**
 * The descriptor path with every VP busy (benchmark `nic`, issue 11: "descriptors processed per
 * second of wall time with 40 VPs busy"): the default front end (8 PIO + 32 DMA VPs; PCIe Gen3
 * x16; SDQ of 64 entries, 8 outstanding reads of up to 4 descriptors; readout taken every cycle).
 * Software: each DMA VP has a ring of `ring` 128-byte entries, filled once with valid 64-byte PUT
 * descriptors; each PIO VP's process writes 64-byte descriptors into its HDQ window. The CPU issues
 * one store per cycle, VPs in turn: a PIO VP stores a descriptor while fewer than `hdqSlots` of its
 * own are in flight; a DMA VP rings its doorbell with `burst` more descriptors while its ring has
 * room for them (counted by dispatched descriptors).
 */
import { blankDesc, DESC_PUT, encodeDescriptor } from '../../rtl/nic/desc/index.ts';
import type { PcieConfig } from '../../rtl/nic/pcie/index.ts';
import { VR_DOORBELL, VR_HDQ_WINDOW, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';
import type { SdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';
import { buildFrontEnd, type FrontEnd, reg64 } from './frontEnd.ts';

export interface DescPathOptions {
  pioVps?: number;
  dmaVps?: number;
  ring?: number;
  burst?: number;
  hdqSlots?: number;
  sdq?: Partial<Omit<SdqConfig, 'pioVps' | 'dmaVps'>>;
  pcie?: Partial<PcieConfig>;
}

export interface DescPath {
  fe: FrontEnd;
  /** descriptors dispatched so far, all VPs / PIO VPs only */
  readonly out: number;
  readonly outPio: number;
  /** run until `n` more descriptors have been dispatched */
  run(n: number): void;
}

export function buildDescPath(o: DescPathOptions = {}): DescPath {
  const pioVps = o.pioVps ?? 8;
  const dmaVps = o.dmaVps ?? 32;
  const ring = o.ring ?? 64;
  const burst = Math.min(o.burst ?? 16, ring);
  const slots = o.hdqSlots ?? 4;
  const fe = buildFrontEnd({ vp: { pioVps, dmaVps }, sdq: o.sdq ?? {}, pcie: o.pcie ?? {}, hdqSlots: slots });
  const eb = fe.sdqCfg.entryBytes;
  const vps = pioVps + dmaVps;
  const base = (vp: number): number => 0x1000000 + vp * ring * eb;
  const desc = (vp: number): Uint8Array => encodeDescriptor({ ...blankDesc(DESC_PUT), dstVp: vp % 40, dstNode: 1, length: 4096, userTag: vp });
  // the kernel registers the rings; software fills them once
  const setup: [number, number, Uint8Array][] = [];
  for (let vp = pioVps; vp < vps; vp++) {
    for (let i = 0; i < ring; i++) fe.pcie.mem.write(base(vp) + i * eb, desc(vp));
    setup.push([vp, VR_SDQ_BASE, reg64(base(vp))], [vp, VR_SDQ_SIZE, reg64(ring)]);
  }
  for (const [vp, off, v] of setup) {
    while (!fe.store(-1, vp, off, v)) fe.sim.step(1);
  }
  fe.sim.step(400);
  const pioDesc = Array.from({ length: pioVps }, (_, vp) => desc(vp));
  const doorbell = reg64(burst);
  const issued = new Float64Array(vps); // descriptors submitted per VP (software's count)
  let next = 0;
  const perVp = fe.sink.perVp;
  let outPio = 0;
  const cpu = (): void => {
    // one store per cycle, VPs in turn
    for (let k = 0; k < vps; k++) {
      const vp = next + k < vps ? next + k : next + k - vps;
      const inFlight = issued[vp]! - perVp[vp]!;
      const pio = vp < pioVps;
      if (pio ? inFlight < slots : inFlight + burst <= ring) {
        if (!fe.store(vp, vp, pio ? VR_HDQ_WINDOW : VR_DOORBELL, pio ? pioDesc[vp]! : doorbell)) return;
        issued[vp] = issued[vp]! + (pio ? 1 : burst);
        next = vp + 1 === vps ? 0 : vp + 1;
        return;
      }
    }
  };
  return {
    fe,
    get out() {
      return fe.sink.total;
    },
    get outPio() {
      outPio = 0;
      for (let vp = 0; vp < pioVps; vp++) outPio += perVp[vp]!;
      return outPio;
    },
    run(n: number): void {
      const goal = fe.sink.total + n;
      fe.sim.runUntil(() => {
        cpu();
        return fe.sink.total >= goal;
      }, 1e12);
    },
  };
}
