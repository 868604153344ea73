import { Channel, type Scope } from '../kernel/index.ts';
import type { AtcConfig } from './atc/types.ts';
import type { HostMemConfig } from './hostmem/hostmem.ts';
import type { NetPacket } from './link/packet.ts';
import { buildMemPath, type MemPath } from './memcheck/mempath.ts';
import { buildPcie, type HostBytes, type Pcie, type PcieConfig } from './pcie/index.ts';
import type { DmaWrite } from './pcie/tlp.ts';
import { QueueEngine } from './queues/queueEngine.ts';
import type { QueueConfig, QueueEntry } from './queues/types.ts';
import { Merge } from './rdma/merge.ts';
import { RdmaRx } from './rdma/rdmaRx.ts';
import { RdmaTx } from './rdma/rdmaTx.ts';
import type { RdmaConfig, RdmaDescIn } from './rdma/types.ts';
import { VpReporter } from './rdma/vpReporter.ts';
import { XlateRouter } from './rdma/xlateRouter.ts';
import { descConfig } from './desc/format.ts';
import { Hdq } from './vp/hdq.ts';
import { Readout } from './vp/readout.ts';
import { type VpConfig, vpConfig } from './vp/regmap.ts';
import { VpRegisterFile } from './vp/regfile.ts';

/** memory-checker sources used by the RDMA engine */
export const SRC_TX = 0;
export const SRC_RX = 1;

export interface NicConfig {
  /** this NIC's node number (its link port) */
  node: number;
  pcie: Partial<PcieConfig>;
  vp: Partial<VpConfig>;
  /** HDQ slots per PIO VP (default 4) */
  hdqSlots: number;
  rdma: Partial<Omit<RdmaConfig, 'node' | 'vps'>>;
  queues: Partial<Omit<QueueConfig, 'vps'>>;
  atc: Partial<AtcConfig>;
  /** the ATT behind the ATC (its read latency) */
  att: Partial<HostMemConfig>;
  /** memory-checker items (default 4096) */
  items: number;
}

export interface Nic {
  node: number;
  pcie: Pcie;
  mem: MemPath;
  regs: VpRegisterFile;
  hdq: Hdq;
  queues: QueueEngine;
  tx: RdmaTx;
  rx: RdmaRx;
  /** descriptors from DMA VPs (the SDQ readout, or a testbench): VP and bytes */
  dmaDescIn: Channel<RdmaDescIn>;
}

/**
 * One TH Express-2 NIC (docs/nic-rdma.md, "Two NICs"): PCIe attachment with its host memory, the
 * VP register file and HDQ on the PIO path, the memory checker and ATC (with the ATT), the RDMA
 * transmit and receive engines, the host-memory queue engine, and the merges joining them
 * (descriptors: HDQ and `dmaDescIn`; PCIe writes: receive engine and queues; queue entries:
 * transmit, receive and front-end refusals; link: transmit and receive). `linkTx` / `linkRx` are the
 * NIC's link port. Component paths start with `<name>.`.
 */
export function buildNic(parent: Scope, name: string, cfg: Partial<NicConfig>, linkTx: Channel<NetPacket>, linkRx: Channel<NetPacket>, hostMem?: HostBytes): Nic {
  const node = cfg.node ?? 0;
  const scope: Scope = { sim: parent.sim, path: parent.path === '' ? name : `${parent.path}.${name}` };
  const vcfg = vpConfig(cfg.vp ?? {});
  const vps = vcfg.pioVps + vcfg.dmaVps;
  const pcie = buildPcie(scope, 'pcie', cfg.pcie ?? {}, hostMem);
  const mem = buildMemPath(scope, { checker: { items: cfg.items ?? 4096 }, atc: cfg.atc ?? {}, host: cfg.att ?? {} });
  const regs = new VpRegisterFile(scope, 'regs', vcfg, pcie.ep.pioOut);
  const hdq = new Hdq(scope, 'hdq', vcfg.pioVps, cfg.hdqSlots ?? 4, regs.hdqOut);
  const dmaDescIn = new Channel<RdmaDescIn>(scope, 'dmaDescIn', { capacity: 4, latency: 1 });
  const descIn = new Channel<RdmaDescIn>(scope, 'descIn', { capacity: 2, latency: 1 });
  // the PIO VPs' heads read out round-robin (rtl/nic/vp/readout.ts); the SDQ is not wired into this top level yet
  const pioReadout = new Readout(scope, 'readout', hdq.heads, vcfg.pioVps, descConfig({ vps }));
  new Merge<RdmaDescIn>(scope, 'descmux', [pioReadout.out, dmaDescIn], descIn);
  const dmaMux = new Merge<DmaWrite>(scope, 'dmamux', 2, pcie.ep.writeIn);
  const queues = new QueueEngine(scope, 'queues', { ...cfg.queues, vps }, dmaMux.ins[1]);
  const evMux = new Merge<QueueEntry>(scope, 'evmux', 3, queues.entIn);
  const pktMux = new Merge<NetPacket>(scope, 'pktmux', 2, linkTx);
  const router = new XlateRouter(scope, 'xlroute', mem.atc.resp, mem.checker.cfg.sources);
  const serve = new Channel<NetPacket>(scope, 'serve', { capacity: 2, latency: 1 });
  const rcfg = { ...cfg.rdma, node, vps, items: cfg.items ?? 4096 };
  const ck = mem.checker;
  const tx = new RdmaTx(scope, 'tx', rcfg, descIn, serve, ck.reqIn[SRC_TX]!, ck.respOut[SRC_TX]!, router.outs[SRC_TX]!, pcie.ep.readIn, pcie.ep.readOut, pktMux.ins[0]!, evMux.ins[0]!);
  const rx = new RdmaRx(scope, 'rx', rcfg, linkRx, ck.reqIn[SRC_RX]!, ck.respOut[SRC_RX]!, router.outs[SRC_RX]!, dmaMux.ins[0]!, pktMux.ins[1]!, evMux.ins[1]!, serve);
  new VpReporter(scope, 'reporter', regs.errOut, hdq.errOut, regs.doorbellOut, evMux.ins[2]!);
  return { node, pcie, mem, regs, hdq, queues, tx, rx, dmaDescIn };
}
