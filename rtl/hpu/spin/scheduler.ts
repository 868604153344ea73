/**
 * The cluster scheduler: places each handler task on a cluster and starts it on a free HPU there.
 *
 * Placement (one task per cycle): the message's home cluster (message id mod clusters) if it has
 * a free execution context (occupancy = waiting + running < bufferedSlots + hpusPerCluster), else
 * the least occupied cluster with one (lowest index on a tie). A placed task with a packet takes
 * an L1 packet slot and waits until the cluster DMA has copied the packet into it
 * (ceil(bytes / l1CopyBytesPerCycle) cycles). When no cluster has a free context, flow control: a
 * payload task is dropped (its bytes are counted for the message, which gets the flow-control
 * flag), a header or completion task waits at the head of the queue.
 * Dispatch: each cluster starts at most one task per cycle, its oldest ready one, on its
 * lowest-numbered free HPU. Finished handlers free their HPU and slot; their reports go on to
 * the message engine.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { L1_BASE, L1_BYTES, type SpinParams } from './params.ts';
import { DONE_OK, HANDLER_PAYLOAD, type SpinReport, type SpinTask } from './types.ts';

export class SpinScheduler extends Component {
  private readonly occupancy: Int32Array;
  private readonly waiting: SpinTask[][];
  private readonly freeL1: number[][];
  private readonly hpuBusy: Uint8Array;
  private readonly outbox: SpinReport[] = [];
  private readonly hpuCount: number;
  dropped = 0;
  droppedBytes = 0;
  placedHome = 0;
  placedOther = 0;
  maxOccupancy = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly params: SpinParams,
    private readonly inp: Channel<SpinTask>,
    private readonly done: readonly Channel<SpinReport>[],
    readonly reports: Channel<SpinReport>,
    readonly hpuTasks: readonly Channel<SpinTask>[],
    private readonly memory: Uint8Array,
  ) {
    super(parent, name);
    inp.bindConsumer(this);
    for (const d of done) d.bindConsumer(this);
    reports.bindProducer(this);
    const c = params.clusters;
    this.hpuCount = c * params.hpusPerCluster;
    for (const ch of hpuTasks) ch.bindProducer(this);
    this.occupancy = new Int32Array(c);
    this.waiting = Array.from({ length: c }, () => []);
    const slots = params.bufferedSlots + params.hpusPerCluster;
    this.freeL1 = Array.from({ length: c }, () => Array.from({ length: slots }, (_, i) => slots - 1 - i));
    this.hpuBusy = new Uint8Array(this.hpuCount);
  }

  /** Address of packet slot `s` in cluster `c`'s L1. */
  slotAddress(c: number, s: number): number {
    return L1_BASE + c * L1_BYTES + s * this.params.maxPacketBytes;
  }

  tick(t: number): number {
    const p = this.params;
    // finished handlers: free the HPU, the context and the packet slot
    for (let h = 0; h < this.hpuCount; h++) {
      const ch = this.done[h]!;
      if (!ch.canPop()) continue;
      const r = ch.pop();
      this.hpuBusy[h] = 0;
      const task = r.task;
      this.occupancy[task.cluster]!--;
      if (task.l1Slot >= 0) this.freeL1[task.cluster]!.push(task.l1Slot);
      this.outbox.push(r);
    }
    // placement of the oldest task
    if (this.inp.canPop()) {
      const task = this.inp.peek();
      const cap = p.bufferedSlots + p.hpusPerCluster;
      let c = task.msgId % p.clusters;
      if (this.occupancy[c]! >= cap) {
        c = -1;
        for (let k = 0; k < p.clusters; k++) if (this.occupancy[k]! < cap && (c < 0 || this.occupancy[k]! < this.occupancy[c]!)) c = k;
        if (c >= 0) this.placedOther++;
      } else this.placedHome++;
      if (c >= 0) {
        this.inp.pop();
        task.cluster = c;
        this.occupancy[c]!++;
        if (this.occupancy[c]! > this.maxOccupancy) this.maxOccupancy = this.occupancy[c]!;
        if (task.packet !== null) {
          task.l1Slot = this.freeL1[c]!.pop()!;
          this.memory.set(task.packet.payload, this.slotAddress(c, task.l1Slot));
          task.readyAt = t + Math.ceil(task.packet.payload.length / p.l1CopyBytesPerCycle);
        } else task.readyAt = t;
        this.waiting[c]!.push(task);
      } else if (task.kind === HANDLER_PAYLOAD) {
        // flow control: no execution context anywhere
        this.inp.pop();
        this.dropped++;
        this.droppedBytes += task.packet!.payload.length;
        this.outbox.push({ task, dropped: true, status: DONE_OK, value: 0, reason: '' });
      }
    }
    // dispatch: one ready task per cluster onto a free HPU
    let nextReady = NEVER;
    for (let c = 0; c < p.clusters; c++) {
      const w = this.waiting[c]!;
      if (w.length === 0) continue;
      const head = w[0]!;
      if (head.readyAt > t) {
        nextReady = Math.min(nextReady, head.readyAt);
        continue;
      }
      const base = c * p.hpusPerCluster;
      let h = -1;
      for (let k = 0; k < p.hpusPerCluster; k++)
        if (this.hpuBusy[base + k] === 0 && this.hpuTasks[base + k]!.canPush()) {
          h = base + k;
          break;
        }
      if (h < 0) continue;
      w.shift();
      this.hpuBusy[h] = 1;
      this.hpuTasks[h]!.push(head);
      if (w.length > 0) nextReady = t + 1;
    }
    while (this.outbox.length > 0 && this.reports.canPush()) this.reports.push(this.outbox.shift()!);
    if (this.outbox.length > 0 || this.inp.canPop()) return t + 1;
    for (let h = 0; h < this.hpuCount; h++) if (this.done[h]!.canPop()) return t + 1;
    return nextReady;
  }
}
