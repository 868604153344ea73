import { Channel, type Scope } from '../kernel/index.ts';
import type { AtcConfig } from './atc/types.ts';
import type { HostMemConfig } from './hostmem/hostmem.ts';
import type { NetPacket } from './link/packet.ts';
import { buildMemPath, type MemPath } from './memcheck/mempath.ts';
import { buildPcie, type HostBytes, type Pcie, type PcieConfig, ReadMux } from './pcie/index.ts';
import type { DmaWrite } from './pcie/tlp.ts';
import { QueueEngine } from './queues/queueEngine.ts';
import type { QueueConfig, QueueEntry } from './queues/types.ts';
import { CollExpander } from './coll/collExpander.ts';
import { Merge } from './rdma/merge.ts';
import { RdmaRx } from './rdma/rdmaRx.ts';
import { RdmaTx } from './rdma/rdmaTx.ts';
import type { RdmaConfig } from './rdma/types.ts';
import { VpReporter } from './rdma/vpReporter.ts';
import { XlateRouter } from './rdma/xlateRouter.ts';
import { type E2eDone, E2eRx } from './e2e/e2eRx.ts';
import { E2eTx } from './e2e/e2eTx.ts';
import { type E2eConfig, e2eConfig } from './e2e/types.ts';
import { descConfig } from './desc/format.ts';
import { Hdq } from './vp/hdq.ts';
import { type DispatchedDesc, Readout } from './vp/readout.ts';
import { type VpConfig, vpConfig, VR_SDQ_BASE, VR_SDQ_SIZE } from './vp/regmap.ts';
import { VpRegisterFile, type VpError } from './vp/regfile.ts';
import { Sdq } from './vp/sdq.ts';
import { type SdqConfig, sdqConfig } from './vp/sdqConfig.ts';

/** memory-checker sources used by the RDMA engine */
export const SRC_TX = 0;
export const SRC_RX = 1;
/** the queue engine's virtual-mode EQ / MPQ writes (the checker's `queue_writer` source) */
export const SRC_QUEUES = 3;

export interface NicConfig {
  /** this NIC's node number (its link port) */
  node: number;
  pcie: Partial<PcieConfig>;
  vp: Partial<VpConfig>;
  /** HDQ slots per PIO VP (default 4) */
  hdqSlots: number;
  /** SDQ parameters other than the VP counts, which come from `vp` (defaults: rtl/nic/vp/sdqConfig.ts) */
  sdq: Partial<Omit<SdqConfig, 'pioVps' | 'dmaVps'>>;
  rdma: Partial<Omit<RdmaConfig, 'node' | 'vps'>>;
  queues: Partial<Omit<QueueConfig, 'vps'>>;
  atc: Partial<AtcConfig>;
  /** the ATT behind the ATC (its read latency) */
  att: Partial<HostMemConfig>;
  /** memory-checker items (default 4096) */
  items: number;
  /** the reliable end-to-end layer (defaults: rtl/nic/e2e/types.ts); the sender-context count must be the same on every NIC */
  e2e: Partial<E2eConfig>;
}

export interface Nic {
  node: number;
  pcie: Pcie;
  mem: MemPath;
  regs: VpRegisterFile;
  hdq: Hdq;
  sdq: Sdq;
  /** the round-robin readout over every VP's queue head (HDQ and SDQ), feeding the transmit engine */
  readout: Readout;
  /** the endpoint's read side shared by the SDQ (requester 0) and the transmit engine (requester 1) */
  readMux: ReadMux;
  /** collective descriptors expanded into one PUT per child, between the readout and the transmit engine */
  coll: CollExpander;
  queues: QueueEngine;
  tx: RdmaTx;
  rx: RdmaRx;
  /** reliable end-to-end: sender and receiver contexts (connect descriptors) */
  e2eTx: E2eTx;
  e2eRx: E2eRx;
}

/**
 * One TH Express-2 NIC (docs/nic-rdma.md, "Two NICs"): PCIe attachment with its host memory, the
 * VP register file, the HDQ (PIO VPs) and the SDQ (DMA VPs: doorbells from the register file,
 * descriptor reads through the read mux), the readout over both, the collective expander, the memory checker and ATC (with
 * the ATT), the RDMA transmit and receive engines, the host-memory queue engine, and the blocks
 * joining them (PCIe reads: SDQ and transmit engine through the read mux; PCIe writes: receive
 * engine and queues; queue entries: transmit, receive and front-end refusals; link: transmit and
 * receive). `linkTx` / `linkRx` are the NIC's link port. Component paths start with `<name>.`.
 */
export function buildNic(parent: Scope, name: string, cfg: Partial<NicConfig>, linkTx: Channel<NetPacket>, linkRx: Channel<NetPacket>, hostMem?: HostBytes, linkCtl?: Channel<NetPacket>): Nic {
  const node = cfg.node ?? 0;
  const scope: Scope = { sim: parent.sim, path: parent.path === '' ? name : `${parent.path}.${name}` };
  const vcfg = vpConfig(cfg.vp ?? {});
  const vps = vcfg.pioVps + vcfg.dmaVps;
  const pcie = buildPcie(scope, 'pcie', cfg.pcie ?? {}, hostMem);
  const mem = buildMemPath(scope, { checker: { items: cfg.items ?? 4096 }, atc: cfg.atc ?? {}, host: cfg.att ?? {} });
  const dmaMux = new Merge<DmaWrite>(scope, 'dmamux', 2, pcie.ep.writeIn);
  const router = new XlateRouter(scope, 'xlroute', mem.atc.resp, mem.checker.cfg.sources);
  const ck = mem.checker;
  // virtual-mode EQ / MPQ entries are checked and translated through the checker's queue-writer source
  const queues = new QueueEngine(scope, 'queues', { ...cfg.queues, vps }, dmaMux.ins[1], { mcReq: ck.reqIn[SRC_QUEUES]!, mcResp: ck.respOut[SRC_QUEUES]!, xlIn: router.outs[SRC_QUEUES]! });
  // software registers the queues by register stores: the register file drives the queue engine's software port
  const regs = new VpRegisterFile(scope, 'regs', vcfg, pcie.ep.pioOut, queues.swIn);
  const hdq = new Hdq(scope, 'hdq', Math.max(1, vcfg.pioVps), cfg.hdqSlots ?? 4, regs.hdqOut);
  const readMux = new ReadMux(scope, 'readmux', ['sdq', 'tx'], pcie.ep.readIn, pcie.ep.readOut);
  const sdq = new Sdq(scope, 'sdq', sdqConfig({ ...cfg.sdq, pioVps: vcfg.pioVps, dmaVps: Math.max(1, vcfg.dmaVps) }), { sdqBase: (v) => regs.reg(v, VR_SDQ_BASE), sdqSize: (v) => regs.reg(v, VR_SDQ_SIZE) }, { doorbellIn: regs.doorbellOut, readIn: readMux.ins[0]!, readOut: readMux.outs[0]! });
  // every VP's queue head read out round-robin (rtl/nic/vp/readout.ts) straight into the transmit engine
  const readout = new Readout(scope, 'readout', [...hdq.heads.slice(0, vcfg.pioVps), ...sdq.heads.slice(0, vcfg.dmaVps)], vcfg.pioVps, descConfig({ vps }));
  const feErr = new Channel<VpError>(scope, 'feErr', { capacity: 2, latency: 1 });
  new Merge<VpError>(scope, 'femux', [hdq.errOut, sdq.errOut], feErr);
  // inputs beyond the first two only carry connect traffic: round-robin over them leaves connectless timing as it was
  const evMux = new Merge<QueueEntry>(scope, 'evmux', 4, queues.entIn);
  const pktMux = new Merge<NetPacket>(scope, 'pktmux', 4, linkTx);
  const serve = new Channel<NetPacket>(scope, 'serve', { capacity: 2, latency: 1 });
  const rcfg = { ...cfg.rdma, node, vps, items: cfg.items ?? 4096 };
  const collOut = new Channel<DispatchedDesc>(scope, 'collOut', { capacity: 2, latency: 1 });
  const coll = new CollExpander(scope, 'coll', readout.out, collOut);
  // reliable end-to-end: the sender's contexts between the transmit engine and the link, the receiver's between the link's connection port and the receive engine
  const ecfg = e2eConfig(cfg.e2e ?? {});
  const e2eData = new Channel<NetPacket>(scope, 'e2eData', { capacity: 2, latency: 1 });
  const e2eAns = new Channel<NetPacket>(scope, 'e2eAns', { capacity: 2, latency: 1 });
  const e2eFwd = new Channel<NetPacket>(scope, 'e2eFwd', { capacity: 2, latency: 1 });
  const e2eDone = new Channel<E2eDone>(scope, 'e2eDone', { capacity: 2, latency: 1 });
  const e2eTx = new E2eTx(scope, 'e2etx', ecfg, node, e2eData, e2eAns, pktMux.ins[2]!, evMux.ins[3]!);
  const e2eCtl = linkCtl ?? new Channel<NetPacket>(scope, 'e2eCtl', { capacity: 2, latency: 1 });
  const e2eRx = new E2eRx(scope, 'e2erx', ecfg, node, rcfg.nodes ?? 2, e2eCtl, e2eAns, pktMux.ins[3]!, e2eFwd, e2eDone);
  const tx = new RdmaTx(scope, 'tx', rcfg, collOut, serve, ck.reqIn[SRC_TX]!, ck.respOut[SRC_TX]!, router.outs[SRC_TX]!, readMux.ins[1]!, readMux.outs[1]!, pktMux.ins[0]!, evMux.ins[0]!, e2eTx, e2eData);
  const rx = new RdmaRx(scope, 'rx', rcfg, linkRx, ck.reqIn[SRC_RX]!, ck.respOut[SRC_RX]!, router.outs[SRC_RX]!, dmaMux.ins[0]!, pktMux.ins[1]!, evMux.ins[1]!, serve, e2eFwd, e2eDone, ecfg.receiverContexts);
  // refusals of the register file, HDQ and SDQ become INTQ entries on the offending VP (the SDQ takes the doorbells)
  new VpReporter(scope, 'reporter', regs.errOut, feErr, null, evMux.ins[2]!);
  return { node, pcie, mem, regs, hdq, sdq, readout, readMux, coll, queues, tx, rx, e2eTx, e2eRx };
}
