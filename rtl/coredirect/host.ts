/**
 * Host CPU model of one MPI process (docs/coredirect.md): it enters a barrier, posts it, computes,
 * and tests or polls for completion, in a loop of `iterations` barriers. Two ways to progress it:
 *
 * - mq: the barrier is one MWR posted to the HCA (driver.ts); the HCA progresses it; the CPU only
 *   polls the MQ completion queue.
 * - ptp: the CPU progresses the barrier itself (point-to-point, the seed's PTP-RDMA / PTP-send):
 *   inside every MPI call it takes the arrivals it can see (receive CQEs, or a flag in memory
 *   written by an RDMA write) and posts the next sends. Nothing moves while it computes.
 *
 * One explicit state machine, one state per cycle of decision:
 *   START -> ENTER -> (POST) -> [WORK] -> CALL -> PROGRESS ... -> DECIDE -> WORK | CALL | ENTER | DONE
 * with FAILED when the HCA reports an error for this process (it never reports completion then).
 */
import { Component, type Counter, NEVER, type Rng, type Scope } from '../kernel/index.ts';
import { type BarrierOp } from './barrier.ts';
import { postMwr, postReceives, postSend, QueueHeads } from './driver.ts';
import { type HcaProcessPorts, N_ERROR, N_MEM, N_MWR_DONE, N_RECV, N_REJECT, noteArg, noteKind, noteReady } from './hca.ts';
import type { MwrTask, PostedEntry } from './tasks.ts';
import { T_RDMA_WRITE, T_RDMA_WRITE_IMM, T_SEND } from './tasks.ts';

export interface CpuParams {
  /** library cost of entering a barrier call (MPI_Barrier / MPI_Ibarrier) */
  enterNs: number;
  /** driver cost per MWR task written into the queues (mq) */
  postTaskNs: number;
  /**
   * mq: CPU time of one doorbell, an uncached store to a queue's doorbell page in the HCA's BAR,
   * rung once per queue an MWR post wrote to (each QP's send queue, the MQ): the store goes over the
   * front-side bus to the memory controller hub and on to PCIe, and an uncached store is not
   * buffered, so the CPU waits about one FSB round trip (assumption: 150 ns on the seed's Xeon X5472)
   */
  doorbellNs: number;
  /**
   * mq: CPU time to reap one send completion from the single send CQ (the seed: "send tasks are
   * completed asynchronously, out of the critical path using a single send completion queue"): one
   * CQE the HCA wrote, read as a cache miss like a poll that finds an entry (assumption: = pollNs,
   * 100 ns); the library reaps the previous barrier's send completions when it enters the next call
   */
  reapNs: number;
  /** one poll of a completion queue or of a flag in memory */
  pollNs: number;
  /** MPI_Test overhead beyond the poll */
  testNs: number;
  /** ptp: library cost to post one send, or to take one arrival */
  ptpStepNs: number;
}

export const CPU_DEFAULTS: Readonly<CpuParams> = { enterNs: 300, postTaskNs: 60, doorbellNs: 150, reapNs: 100, pollNs: 100, testNs: 150, ptpStepNs: 450 };

/** What one MWR post of a host costs the CPU (mq): tasks written, doorbells rung (queues written to), send completions to reap later. */
export interface PostCounts {
  tasks: number;
  doorbells: number;
  sends: number;
}

/** Doorbells and sends of one posted batch (the queues written to; the sends and RDMA writes, with or without immediate, among the MWR's tasks). */
export function postCounts(mwr: readonly MwrTask[], batch: readonly PostedEntry[]): PostCounts {
  const queues: number[] = [];
  for (const e of batch) if (!queues.includes(e.queue)) queues.push(e.queue);
  let sends = 0;
  for (const t of mwr) if (t.kind === T_SEND || t.kind === T_RDMA_WRITE || t.kind === T_RDMA_WRITE_IMM) sends++;
  return { tasks: mwr.length, doorbells: queues.length, sends };
}

export type Pattern = 'blocking' | 'work-then-wait' | 'test-loop';

/**
 * Opt-in observer of a barrier loop (long runs check each barrier as it finishes and keep nothing):
 * told the cycle a rank enters barrier `iter` (its ENTER state) and the cycle it sees that barrier
 * complete (DECIDE). The hosts record enter/leave cycles themselves only for the first RECORD_MAX.
 */
export interface BarrierObserver {
  enter(rank: number, iter: number, t: number): void;
  leave(rank: number, iter: number, t: number): void;
}

export interface HostProgram {
  mode: 'mq' | 'ptp';
  rdma: boolean;
  /** this rank's barrier ops, and the local QP of each peer */
  ops: readonly BarrierOp[];
  qpOf: (peer: number) => number;
  qps: number;
  iterations: number;
  pattern: Pattern;
  /** work-then-wait: the work loop; test-loop: one work quantum */
  workNs: number;
  /** cycle at which the rank enters its first barrier */
  startNs: number;
  /** extra random delay before each barrier, uniform in [0, skewNs] (needs rng) */
  skewNs: number;
  rng?: Rng;
  /** the rank never enters (a missing peer) */
  absent: boolean;
  /** the MWR length limit (the send-queue length) */
  mwrLimit: number;
  /** shared tally of the cluster: barriers finished by all hosts, hosts settled (done or failed) */
  tally: { left: number; settled: number };
  /** told every enter and leave (optional) */
  observer?: BarrierObserver;
}

const S_START = 0;
const S_ENTER = 1;
const S_POST = 2;
const S_WORK = 3;
const S_CALL = 4;
const S_PROGRESS = 5;
const S_DECIDE = 6;
const S_DONE = 7;
const S_FAILED = 8;
/** iterations whose enter/leave cycles are recorded (longer loops only count) */
export const RECORD_MAX = 1024;

export const HOST_STATE_NAMES = ['START', 'ENTER', 'POST', 'WORK', 'CALL', 'PROGRESS', 'DECIDE', 'DONE', 'FAILED'] as const;

export class Host extends Component {
  state = S_START;
  private until = 0;
  iter = 0;
  /** per iteration (the first RECORD_MAX): cycle entered, cycle the rank saw completion (-1: not yet) */
  readonly entered: Float64Array;
  readonly left: Float64Array;
  /** total work cycles done inside barriers */
  workDone = 0;
  error: string | null = null;
  private readonly heads: QueueHeads;
  private readonly mwr: MwrTask[];
  private pending: PostedEntry[] | null = null;
  private opIdx = 0;
  private readonly arrivals: Int32Array;
  private readonly taken: Int32Array;
  private mwrDone = 0;
  private mwrWanted = 0;
  private worked = false;
  /** mq: the CPU's work per MWR post (the same MWR every iteration: counted at the first post) */
  counts: PostCounts | null = null;
  /** send completions of the previous call still to be reaped */
  private toReap = 0;
  private call: 'poll' | 'test' = 'poll';
  private readonly stat: { calls: Counter; polls: Counter };

  constructor(
    parent: Scope,
    name: string,
    readonly rank: number,
    readonly prog: HostProgram,
    readonly cpu: CpuParams,
    private readonly port: HcaProcessPorts,
    mwr: MwrTask[],
  ) {
    super(parent, name);
    port.doorbell.bindProducer(this);
    port.notify.bindConsumer(this);
    this.heads = new QueueHeads(prog.qps);
    this.mwr = mwr;
    this.entered = new Float64Array(Math.min(prog.iterations, RECORD_MAX)).fill(-1);
    this.left = new Float64Array(Math.min(prog.iterations, RECORD_MAX)).fill(-1);
    this.arrivals = new Int32Array(prog.qps);
    this.taken = new Int32Array(prog.qps);
    this.stat = { calls: this.counter('mpi_calls'), polls: this.counter('polls') };
  }

  get done(): boolean {
    return this.state === S_DONE;
  }
  get failed(): boolean {
    return this.state === S_FAILED;
  }
  /** the current state's name (reports) */
  get stateName(): string {
    return HOST_STATE_NAMES[this.state]!;
  }

  tick(t: number): number {
    if (t < this.until) return this.until;
    const p = this.prog;
    switch (this.state) {
      case S_START:
        if (p.absent) {
          this.state = S_DONE;
          p.tally.settled++;
          return NEVER;
        }
        this.state = S_ENTER;
        return this.delay(t, p.startNs - t);
      case S_ENTER: {
        if (this.iter < RECORD_MAX) this.entered[this.iter] = t;
        p.observer?.enter(this.rank, this.iter, t);
        this.worked = false;
        const batch: PostedEntry[] = [];
        if (!p.rdma) for (const o of p.ops) if (!o.send) batch.push(...postReceives(p.qpOf(o.peer), 1, this.heads));
        let cost = this.cpu.enterNs;
        if (p.mode === 'mq') {
          try {
            batch.push(...postMwr(this.mwr, this.heads, p.mwrLimit, `rank ${this.rank} MWR`));
          } catch (e) {
            return this.fail((e as Error).message);
          }
          this.counts ??= postCounts(this.mwr, batch);
          // reap the previous call's send completions, write the tasks, ring a doorbell per queue
          cost += this.toReap * this.cpu.reapNs + this.counts.tasks * this.cpu.postTaskNs + this.counts.doorbells * this.cpu.doorbellNs;
          this.toReap = this.counts.sends;
          this.mwrWanted++;
        } else this.opIdx = 0;
        this.pending = batch.length > 0 ? batch : null;
        this.state = S_POST;
        return this.delay(t, cost);
      }
      case S_POST:
        if (this.pending !== null) {
          if (!this.port.doorbell.canPush()) return NEVER;
          this.port.doorbell.push(this.pending);
          this.pending = null;
        }
        if (p.mode === 'ptp') {
          this.state = S_PROGRESS;
          return t + 1;
        }
        this.state = S_DECIDE;
        return t + 1;
      case S_WORK:
        this.state = S_CALL;
        return t + 1;
      case S_CALL: {
        if (this.call === 'poll') {
          // A polling loop changes nothing until a notification becomes visible: jump to the first
          // poll that sees one (the same cycle the spinning loop would reach), counting the polls.
          const w = this.nextPoll(t);
          if (w !== t) return w;
        }
        this.stat.calls.inc();
        this.stat.polls.inc();
        if (!this.drain(t)) return NEVER;
        this.state = p.mode === 'ptp' ? S_PROGRESS : S_DECIDE;
        return this.delay(t, this.cpu.pollNs + (this.call === 'test' ? this.cpu.testNs : 0));
      }
      case S_PROGRESS: {
        const o = p.ops[this.opIdx];
        if (o === undefined) {
          this.state = S_DECIDE;
          return t + 1;
        }
        const qp = p.qpOf(o.peer);
        if (o.send) {
          if (!this.port.doorbell.canPush()) return NEVER;
          this.port.doorbell.push([postSend(p.rdma ? T_RDMA_WRITE : T_SEND, qp, this.heads)]);
        } else if (this.arrivals[qp]! > this.taken[qp]!) this.taken[qp]!++;
        else {
          this.state = S_DECIDE;
          return t + 1;
        }
        this.opIdx++;
        return this.delay(t, this.cpu.ptpStepNs);
      }
      case S_DECIDE:
        if (this.complete()) {
          if (this.iter < RECORD_MAX) this.left[this.iter] = t;
          p.observer?.leave(this.rank, this.iter, t);
          this.iter++;
          p.tally.left++;
          if (this.iter >= p.iterations) {
            this.state = S_DONE;
            p.tally.settled++;
            return NEVER;
          }
          this.state = S_ENTER;
          return this.delay(t, p.skewNs > 0 ? p.rng!.int(p.skewNs + 1) : 0);
        }
        if (p.pattern === 'test-loop' || (p.pattern === 'work-then-wait' && !this.worked)) {
          this.worked = true;
          this.workDone += p.workNs;
          this.call = p.pattern === 'test-loop' ? 'test' : 'poll';
          this.state = S_WORK;
          return this.delay(t, p.workNs);
        }
        this.call = 'poll';
        this.state = S_CALL;
        return t + 1;
      default:
        return NEVER;
    }
  }

  /** anchor of the poll grid while the loop waits for an empty notification queue (-1: none) */
  private anchor = -1;

  /** t if the poll at t sees a notification; else the cycle of the first poll that will (or NEVER). */
  private nextPoll(t: number): number {
    const ch = this.port.notify;
    const base = this.anchor >= 0 ? this.anchor : t;
    if (!ch.canPop()) {
      this.anchor = base;
      return NEVER;
    }
    const r = noteReady(ch.peek());
    const period = this.cpu.pollNs + (this.prog.mode === 'ptp' ? 2 : 1);
    const k = r <= base ? 0 : Math.ceil((r - base) / period);
    const at = base + k * period;
    this.anchor = -1;
    if (at <= t) return t;
    this.stat.polls.inc(k);
    this.stat.calls.inc(k);
    this.until = at;
    return at;
  }

  private delay(t: number, d: number): number {
    this.until = t + Math.max(1, d);
    return this.until;
  }

  private complete(): boolean {
    return this.prog.mode === 'mq' ? this.mwrDone >= this.mwrWanted : this.opIdx >= this.prog.ops.length;
  }

  /** Take every notification visible now; false if the host failed. */
  private drain(t: number): boolean {
    const ch = this.port.notify;
    while (ch.canPop() && noteReady(ch.peek()) <= t) {
      const w = ch.pop();
      const k = noteKind(w);
      if (k === N_MWR_DONE) this.mwrDone++;
      else if (k === N_RECV || k === N_MEM) this.arrivals[noteArg(w)]!++;
      else if (k === N_ERROR || k === N_REJECT) {
        this.fail(`HCA error #${noteArg(w)}`);
        return false;
      }
    }
    return true;
  }

  private fail(msg: string): number {
    this.error = msg;
    if (this.state !== S_FAILED) this.prog.tally.settled++;
    this.state = S_FAILED;
    return NEVER;
  }
}
