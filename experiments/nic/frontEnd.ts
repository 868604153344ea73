/**
 * The TH Express-2 descriptor front end as one assembly (docs/nic-frontend.md): PCIe attachment ->
 * VP register file -> HDQ (PIO VPs) and SDQ (DMA VPs, descriptor reads through the PCIe endpoint)
 * -> readout across both -> a sink standing for the processing units, which takes one dispatched
 * descriptor per cycle unless stalled and takes every refusal of the three blocks (and the queue
 * registrations the register file sends: this assembly has no queue engine).
 */
import { Channel, Component, NEVER, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { descConfig, type DescConfig } from '../../rtl/nic/desc/index.ts';
import { buildPcie, type Pcie, type PcieConfig, PioWrite } from '../../rtl/nic/pcie/index.ts';
import type { QueueSwWrite } from '../../rtl/nic/queues/index.ts';
import { type DispatchedDesc, Hdq, HE_NAMES, Readout, VE_NAMES, type VpConfig, vpConfig, type VpError, VpRegisterFile, VR_SDQ_BASE, VR_SDQ_SIZE } from '../../rtl/nic/vp/index.ts';
import { Sdq, SE_NAMES } from '../../rtl/nic/vp/sdq.ts';
import { type SdqConfig, sdqConfig } from '../../rtl/nic/vp/sdqConfig.ts';

/** Name of a refusal code of the register file (0-8), HDQ (9-11) or SDQ (12-14). */
export function refusalName(kind: number): string {
  return kind < 9 ? VE_NAMES[kind]! : kind < 12 ? HE_NAMES[kind - 9]! : SE_NAMES[kind - 12]!;
}

/** Takes what the front end dispatches (one per cycle unless `stalled`) and every refusal. */
export class DescSink extends Component {
  stalled = false;
  /** dispatched descriptors (kept when `keep`), and how many per VP */
  readonly got: DispatchedDesc[] = [];
  readonly perVp: Float64Array;
  total = 0;
  readonly refusals: VpError[] = [];
  /** queue registrations and read pointers the register file sent (this assembly has no queue engine) */
  readonly queueOps: QueueSwWrite[] = [];
  constructor(
    parent: Scope,
    private readonly out: Channel<DispatchedDesc>,
    private readonly errs: Channel<VpError>[],
    vps: number,
    private readonly keep: boolean,
    private readonly queueOps_: Channel<QueueSwWrite> | null = null,
  ) {
    super(parent, 'sink');
    out.bindConsumer(this);
    for (const e of errs) e.bindConsumer(this);
    queueOps_?.bindConsumer(this);
    this.perVp = new Float64Array(vps);
  }
  /** Let the sink take again (a testbench call between cycles). */
  resume(): void {
    this.stalled = false;
    this.wake(this.sim.cycle);
  }
  tick(t: number): number {
    for (const e of this.errs) while (e.canPop()) this.refusals.push(e.pop());
    if (this.queueOps_ !== null) while (this.queueOps_.canPop()) this.queueOps.push(this.queueOps_.pop());
    if (this.stalled || !this.out.canPop()) return NEVER;
    const d = this.out.pop();
    this.perVp[d.vp]!++;
    this.total++;
    if (this.keep) this.got.push(d);
    return t + 1;
  }
}

export interface FrontEndOptions {
  vp?: Partial<VpConfig>;
  /** SDQ parameters other than the VP counts (taken from `vp`) */
  sdq?: Partial<Omit<SdqConfig, 'pioVps' | 'dmaVps'>>;
  pcie?: Partial<PcieConfig>;
  hdqSlots?: number;
  desc?: Partial<DescConfig>;
  /** keep every dispatched descriptor in the sink (tests), or only count them (benchmarks) */
  keep?: boolean;
  skipping?: boolean;
}

export interface FrontEnd {
  sim: Simulator;
  vpCfg: VpConfig;
  sdqCfg: SdqConfig;
  pcie: Pcie;
  regs: VpRegisterFile;
  hdq: Hdq;
  sdq: Sdq;
  readout: Readout;
  sink: DescSink;
  /** a CPU store of `data` at `off` in `vp`'s register page by `writer` (-1: the kernel); false if the root complex's store queue is full this cycle */
  store(writer: number, vp: number, off: number, data: Uint8Array): boolean;
}

export function buildFrontEnd(o: FrontEndOptions = {}): FrontEnd {
  const sim = new Simulator({ skipping: o.skipping ?? true });
  const vpCfg = vpConfig(o.vp ?? {});
  const sdqCfg = sdqConfig({ ...(o.sdq ?? {}), pioVps: vpCfg.pioVps, dmaVps: vpCfg.dmaVps });
  const pcie = buildPcie(sim, 'pcie', o.pcie ?? {});
  const regs = new VpRegisterFile(sim, 'vp', vpCfg, pcie.ep.pioOut);
  const hdq = new Hdq(sim, 'hdq', Math.max(1, vpCfg.pioVps), o.hdqSlots ?? 4, regs.hdqOut);
  const rings = { sdqBase: (vp: number) => regs.reg(vp, VR_SDQ_BASE), sdqSize: (vp: number) => regs.reg(vp, VR_SDQ_SIZE) };
  const sdq = new Sdq(sim, 'sdq', sdqCfg, rings, { doorbellIn: regs.doorbellOut, readIn: pcie.ep.readIn, readOut: pcie.ep.readOut });
  const heads = [...hdq.heads.slice(0, vpCfg.pioVps), ...sdq.heads];
  const readout = new Readout(sim, 'readout', heads, vpCfg.pioVps, descConfig({ vps: vpCfg.pioVps + vpCfg.dmaVps, ...(o.desc ?? {}) }));
  const sink = new DescSink(sim, readout.out, [regs.errOut, hdq.errOut, sdq.errOut], vpCfg.pioVps + vpCfg.dmaVps, o.keep ?? false, regs.queueOut);
  const store = (writer: number, vp: number, off: number, data: Uint8Array): boolean => {
    if (!pcie.host.pioIn.canPush()) return false;
    const w = new PioWrite();
    w.writer = writer;
    w.addr = vpCfg.barBase + vp * vpCfg.pageBytes + off;
    w.data = data;
    pcie.host.pioIn.push(w);
    return true;
  };
  return { sim, vpCfg, sdqCfg, pcie, regs, hdq, sdq, readout, sink, store };
}

/** An 8-byte little-endian register value. */
export function reg64(v: number): Uint8Array {
  const b = new Uint8Array(8);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, v % 2 ** 32, true);
  dv.setUint32(4, Math.floor(v / 2 ** 32), true);
  return b;
}
