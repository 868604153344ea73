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
 *
 * Activity: the scheduler does not poll its HPUs' done channels. Each HPU raises its bit of the
 * done vector (`doneVector`, one bit per HPU: the done-valid wires into the scheduler's priority
 * encoder) when it pushes its report; the scheduler visits only the raised bits, lowest HPU first
 * (the order a full scan would take), pops the report if it is visible yet (the channel keeps its
 * one-cycle latency: a report pushed in this cycle is taken in the next) and lowers the bit when
 * the channel is empty. A cluster with no free HPU is not searched. So a cycle costs in proportion
 * to the handlers that end in it, not to the number of HPUs; results are those of the full scan.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { L1_BASE, L1_BYTES, type SpinParams } from './params.ts';
import { DONE_OK, HANDLER_PAYLOAD, type SpinReport, type SpinTask } from './types.ts';

export class SpinScheduler extends Component {
  private readonly occupancy: Int32Array;
  private readonly waiting: SpinTask[][];
  private readonly freeL1: number[][];
  private readonly hpuBusy: Uint8Array;
  /** per cluster: HPUs not running a task */
  private readonly freeHpus: Int32Array;
  /** one bit per HPU, raised by the HPU when it pushes a done report (see the file comment) */
  readonly doneVector: Uint32Array;
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
    this.freeHpus = new Int32Array(c).fill(params.hpusPerCluster);
    this.doneVector = new Uint32Array(Math.ceil(this.hpuCount / 32));
  }

  /** Address of packet slot `s` in cluster `c`'s L1. */
  slotAddress(c: number, s: number): number {
    return L1_BASE + c * L1_BYTES + s * this.params.maxPacketBytes;
  }

  tick(t: number): number {
    const p = this.params;
    // finished handlers (raised bits of the done vector, lowest first): free the HPU, the context and the packet slot
    let again = false;
    const dv = this.doneVector;
    for (let w = 0; w < dv.length; w++) {
      let m = dv[w]!;
      while (m !== 0) {
        const low = m & -m;
        m ^= low;
        const h = (w << 5) | (31 - Math.clz32(low));
        const ch = this.done[h]!;
        if (!ch.canPop()) continue; // pushed in this cycle: taken in the next
        const r = ch.pop();
        if (ch.held() === 0) dv[w]! &= ~low;
        else if (ch.canPop()) again = true;
        this.retire(h, r);
      }
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
      if (this.freeHpus[c] === 0) continue; // woken again by a done report
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
      this.freeHpus[c]!--;
      this.hpuTasks[h]!.push(head);
      if (w.length > 0) nextReady = t + 1;
    }
    while (this.outbox.length > 0 && this.reports.canPush()) this.reports.push(this.outbox.shift()!);
    if (this.outbox.length > 0 || this.inp.canPop() || again) return t + 1;
    return nextReady;
  }

  /** A finished handler's report: free its HPU, its context and its packet slot; pass the report on. */
  private retire(h: number, r: SpinReport): void {
    this.hpuBusy[h] = 0;
    const task = r.task;
    this.freeHpus[Math.floor(h / this.params.hpusPerCluster)]!++;
    this.occupancy[task.cluster]!--;
    if (task.l1Slot >= 0) this.freeL1[task.cluster]!.push(task.l1Slot);
    this.outbox.push(r);
  }
}
