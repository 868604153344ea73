/**
 * One HPU: an rtl/hpu/core pipeline plus its runtime glue. It takes a handler task from the
 * scheduler, writes the handler's argument block (spin_args_t, rtl/hpu/handlers/include/spin.h)
 * into its cluster's L1, opens the sandbox (handler image, stack, args, packet, the message's HPU
 * memory), and restarts the core at the handler ELF's entry (crt0) with sp and a0 set. It serves
 * the handler's ecalls (DMA from/to host, put) by sending requests to the shared DMA / put
 * engines and holding the ecall until the response arrives. When the core halts (exit: the
 * handler's return value; a trap) or its cycle budget runs out (abort input), it reports to the
 * scheduler. States: IDLE, RUNNING, WAIT_SERVICE (an ecall in flight), DONE (report pending).
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { type HpuCoreBase, SYSCALL_RETRY } from '../core/coreBase.ts';
import { createHpuCore } from '../core/create.ts';
import type { HpuMemory } from '../core/memory.ts';
import type { TransferRequest } from './loggpEngine.ts';
import { ARGS_BYTES, ARGS_OFFSET, L1_BASE, L1_BYTES, L2_HANDLER_BASE, STACKS_OFFSET, type SpinParams } from './params.ts';
import { DONE_BUDGET, DONE_FAILED, DONE_OK, DONE_TRAP, HANDLER_COMPLETION, HANDLER_NAMES, type HandlerRecord, type MatchEntry, type SpinReport, type SpinTask } from './types.ts';

export const SYS_DMA_FROM_HOST = 0x500;
export const SYS_DMA_TO_HOST = 0x501;
export const SYS_PUT = 0x502;
export const SPIN_E_RANGE = -1;

const HPU_IDLE = 0;
const HPU_RUNNING = 1;
const HPU_WAIT_SERVICE = 2;
const HPU_DONE = 3;

/** The argument block's words, in spin_args_t order. */
const A_KIND = 0;
const A_MSG = 1;
const A_PKT = 2;
const A_PKT_LEN = 3;
const A_OFFSET = 4;
const A_INDEX = 5;
const A_HPU_MEM = 6;
const A_HPU_MEM_LEN = 7;
const A_HOST_BASE = 8;
const A_HOST_LEN = 9;
const A_MSG_LEN = 10;
const A_MSG_PACKETS = 11;
const A_SOURCE = 12;
const A_DROPPED = 13;
const A_FLOW = 14;

export class SpinHpu extends Component {
  readonly core: HpuCoreBase;
  private state = HPU_IDLE;
  private task: SpinTask | null = null;
  private startCycle = 0;
  private startRetired = 0;
  private budgetEnd = 0;
  private readonly argsAddr: number;
  private readonly stackTop: number;
  /** sandbox: [lo, hi) ranges the handler may load from / store to */
  private readonly lo = new Float64Array(5);
  private readonly hi = new Float64Array(5);
  private ranges = 0;
  private hostLo = 0;
  private hostHi = 0;

  constructor(
    parent: Scope,
    name: string,
    readonly index: number,
    readonly cluster: number,
    private readonly params: SpinParams,
    memory: HpuMemory,
    private readonly inp: Channel<SpinTask>,
    readonly done: Channel<SpinReport>,
    private readonly entries: readonly MatchEntry[],
    private readonly images: readonly { lo: number; hi: number }[],
    private readonly slotAddress: (c: number, s: number) => number,
    private readonly dmaReq: Channel<TransferRequest>,
    private readonly dmaResp: Channel<number>,
    private readonly putReq: Channel<TransferRequest>,
    private readonly putResp: Channel<number>,
    /** every finished handler run goes here (SpinUnit keeps them or hands them on) */
    private readonly onRecord: (r: HandlerRecord) => void,
    /** the scheduler's done vector: this HPU raises its bit when it pushes a report (scheduler.ts) */
    private readonly doneVector: Uint32Array,
  ) {
    super(parent, name);
    inp.bindConsumer(this);
    dmaReq.bindProducer(this);
    putReq.bindProducer(this);
    dmaResp.bindConsumer(this);
    putResp.bindConsumer(this);
    done.bindProducer(this);
    this.core = createHpuCore(this, 'core', { entry: 0, segments: [] }, { organisation: params.organisation, memBytes: memory.size, divLatency: params.divLatency }, memory);
    this.core.halted = true; // idle until the first task
    this.core.syscallHook = (rf) => this.service(rf);
    this.core.accessCheck = (addr, size) => this.allowed(addr, size);
    this.core.onHalt = () => this.wake(this.sim.cycle + 1);
    const l1 = L1_BASE + cluster * L1_BYTES;
    const local = index - cluster * params.hpusPerCluster;
    this.argsAddr = l1 + ARGS_OFFSET + local * ARGS_BYTES;
    this.stackTop = l1 + STACKS_OFFSET + (local + 1) * params.stackBytes;
  }

  private allowed(addr: number, size: number): boolean {
    const end = addr + size;
    for (let i = 0; i < this.ranges; i++) if (addr >= this.lo[i]! && end <= this.hi[i]!) return true;
    return false;
  }

  private addRange(lo: number, hi: number): void {
    this.lo[this.ranges] = lo;
    this.hi[this.ranges++] = hi;
  }

  tick(t: number): number {
    if (this.state === HPU_IDLE) {
      if (!this.inp.canPop()) return NEVER;
      this.begin(this.inp.pop(), t);
      return this.budgetEnd;
    }
    if (this.state === HPU_DONE || (this.core.halted && this.core.haltCycle <= t)) return this.finish(t);
    if (t >= this.budgetEnd) {
      // the cycle budget ran out: abort the core (it halts next cycle) and report
      this.core.abortIn.d = 1;
      return this.finish(t);
    }
    return this.budgetEnd;
  }

  private begin(task: SpinTask, t: number): void {
    const p = this.params;
    const e = this.entries[task.entry]!;
    const img = this.images[task.entry]!;
    const hpuMem = L2_HANDLER_BASE + task.slot * p.hpuMemBytes;
    const pkt = task.packet;
    const pktAddr = pkt !== null ? this.slotAddress(task.cluster, task.l1Slot) : 0;
    const w = this.core.mem.s32;
    const a = this.argsAddr >>> 2;
    w.fill(0, a, a + ARGS_BYTES / 4);
    w[a + A_KIND] = task.kind;
    w[a + A_MSG] = task.msgId;
    w[a + A_PKT] = pktAddr;
    w[a + A_PKT_LEN] = pkt?.payload.length ?? 0;
    w[a + A_OFFSET] = pkt?.offset ?? 0;
    w[a + A_INDEX] = pkt?.index ?? 0;
    w[a + A_HPU_MEM] = hpuMem;
    w[a + A_HPU_MEM_LEN] = p.hpuMemBytes;
    w[a + A_HOST_BASE] = e.hostBase;
    w[a + A_HOST_LEN] = e.hostLen;
    w[a + A_MSG_LEN] = task.msgLen;
    w[a + A_MSG_PACKETS] = task.msgPackets;
    w[a + A_SOURCE] = task.source;
    w[a + A_DROPPED] = task.kind === HANDLER_COMPLETION ? task.droppedBytes : 0;
    w[a + A_FLOW] = task.kind === HANDLER_COMPLETION ? task.flowControl : 0;
    this.ranges = 0;
    this.addRange(img.lo, img.hi);
    this.addRange(this.stackTop - p.stackBytes, this.stackTop);
    this.addRange(this.argsAddr, this.argsAddr + ARGS_BYTES);
    this.addRange(hpuMem, hpuMem + p.hpuMemBytes);
    if (pkt !== null) this.addRange(pktAddr, pktAddr + p.maxPacketBytes);
    this.hostLo = e.hostBase;
    this.hostHi = e.hostBase + e.hostLen;
    this.task = task;
    this.state = HPU_RUNNING;
    this.startCycle = t + 1;
    this.startRetired = this.core.retired;
    this.budgetEnd = t + 1 + p.handlerBudget;
    this.core.restart(e.elf.entry, this.stackTop, this.argsAddr);
  }

  /** The runtime's ecalls (a7 = SYS_*): start the transfer, then hold the ecall until its response. */
  private service(rf: Int32Array): number {
    if (this.state === HPU_WAIT_SERVICE) {
      const resp = rf[17] === SYS_PUT ? this.putResp : this.dmaResp;
      if (!resp.canPop()) return SYSCALL_RETRY;
      this.state = HPU_RUNNING;
      return resp.pop();
    }
    const op = rf[17]!;
    if (op !== SYS_DMA_FROM_HOST && op !== SYS_DMA_TO_HOST && op !== SYS_PUT) return -38; // ENOSYS
    const len = rf[12]! >>> 0;
    // spin.h: dma_from_host(local, host, len); dma_to_host(host, local, len); put(dest, local, len)
    const local = (op === SYS_DMA_FROM_HOST ? rf[10]! : rf[11]!) >>> 0;
    const remote = (op === SYS_DMA_FROM_HOST ? rf[11]! : rf[10]!) >>> 0;
    if (len === 0) return 0;
    if (!this.allowed(local, len)) return SPIN_E_RANGE;
    if (op !== SYS_PUT && (remote < this.hostLo || remote + len > this.hostHi)) return SPIN_E_RANGE;
    const ch = op === SYS_PUT ? this.putReq : this.dmaReq;
    if (!ch.canPush()) return SYSCALL_RETRY;
    ch.push({ op, local, remote, len, msgId: this.task!.msgId });
    this.state = HPU_WAIT_SERVICE;
    return SYSCALL_RETRY;
  }

  private finish(t: number): number {
    const task = this.task!;
    const c = this.core;
    if (this.state !== HPU_DONE) {
      let status = DONE_OK;
      let reason = '';
      let value = 0;
      const what = `${HANDLER_NAMES[task.kind]} handler of message ${task.msgId}${task.packet !== null ? ` (packet ${task.packet.index})` : ''} on HPU ${this.index}`;
      if (c.halted && c.exited && c.haltCycle <= t) {
        value = c.exitCode;
        if (task.kind !== HANDLER_COMPLETION && value !== 0) {
          status = DONE_FAILED;
          reason = `${what} returned ${value}`;
        }
      } else if (c.halted && c.trap !== null && c.haltCycle <= t) {
        status = DONE_TRAP;
        reason = `${what} trapped at pc 0x${(c.trap.pc >>> 0).toString(16)}: ${c.trap.reason}`;
      } else {
        status = DONE_BUDGET;
        reason = `${what} exceeded its budget of ${this.params.handlerBudget} cycles`;
      }
      this.onRecord({ msgId: task.msgId, kind: task.kind, hpu: this.index, cluster: this.cluster, start: this.startCycle, end: t, status, instructions: c.retired - this.startRetired, packetArrival: task.packet?.arrival ?? -1, packetIndex: task.packet?.index ?? -1 });
      this.pending = { task, dropped: false, status, value, reason };
      this.state = HPU_DONE;
    }
    if (!this.done.canPush()) return NEVER;
    this.done.push(this.pending!);
    this.doneVector[this.index >>> 5]! |= 1 << (this.index & 31);
    this.pending = null;
    this.task = null;
    this.state = HPU_IDLE;
    return this.inp.canPop() ? t + 1 : NEVER;
  }

  private pending: SpinReport | null = null;
}
