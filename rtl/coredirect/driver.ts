/**
 * The MWR posting rule (seed 001, section III.A), as the driver applies it on the host. The tasks
 * are posted in order, without interleaving with another MWR, to the queues they name:
 *
 * - a wait naming a QP goes to that QP's send queue; a wait with no queue (NULL_QUEUE) goes to the
 *   hardware management queue (MQ);
 * - a send, RDMA write or receive goes to its QP's send (receive) queue. If a wait already went to
 *   the MQ earlier in this MWR, the entry is posted DISABLED (the HCA will not process it until it
 *   is enabled);
 * - for every send, write or receive the driver also posts its enable task (send_enable /
 *   recv_enable naming the entry's index) to the MQ at that point of the order. An entry posted
 *   before any MQ wait is already enabled and its enable is a no-op, because an enable means
 *   "enable every posted entry of the queue up to index k" (idempotent). This is the reading that
 *   makes the seed's Tables III (first send enabled at posting) and IV (an enable for it in the MQ
 *   all the same) both hold;
 * - explicit enable tasks in the MWR go to the MQ as written.
 *
 * The whole MWR is checked before anything is posted: a bad task or an MWR longer than the limit
 * (the send-queue length) raises MwrError and posts nothing.
 */
import { InputError } from '../kernel/errors.ts';
import { F_DISABLED, F_SIGNAL, type MwrTask, NULL_QUEUE, type PostedEntry, Q_MQ, rqId, sqId, T_RDMA_WRITE, T_RDMA_WRITE_IMM, T_RECV, T_RECV_ENABLE, T_SEND, T_SEND_ENABLE, T_WAIT, TASK_NAMES } from './tasks.ts';

export class MwrError extends InputError {
  constructor(message: string) {
    super(message);
    this.name = 'MwrError';
  }
}

/** The producer indices the driver keeps for one process's queues (it is their only producer). */
export class QueueHeads {
  /** next index of each QP's send queue and receive queue (by queue id) */
  readonly pi: number[];
  mqPi = 0;
  constructor(readonly qps: number) {
    this.pi = new Array<number>(2 * qps).fill(0);
  }
  next(queue: number): number {
    return queue === Q_MQ ? this.mqPi : this.pi[queue]!;
  }
  bump(queue: number): void {
    if (queue === Q_MQ) this.mqPi++;
    else this.pi[queue]!++;
  }
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** Check one task; returns the problem or null. `qps` local QPs, CQs 0 .. qps + 1. */
export function taskProblem(t: MwrTask, qps: number): string | null {
  if (!isInt(t.kind) || t.kind < 0 || t.kind >= TASK_NAMES.length) return `unknown task kind ${JSON.stringify(t.kind)} (kinds: ${TASK_NAMES.join(', ')})`;
  const name = TASK_NAMES[t.kind]!;
  const qpOk = isInt(t.qp) && t.qp >= 0 && t.qp < qps;
  if (t.kind === T_WAIT) {
    if (!(t.qp === NULL_QUEUE || qpOk)) return `wait: queue ${String(t.qp)} is neither a QP in [0, ${qps}) nor -1 (the management queue)`;
    if (!isInt(t.cq) || t.cq < 0 || t.cq > qps + 1) return `wait: completion queue ${String(t.cq)} out of range [0, ${qps + 1}]`;
    if (!isInt(t.count) || t.count < 1 || t.count > 0xffff) return `wait: count ${String(t.count)} must be an integer in [1, 65535]`;
    return null;
  }
  if (!qpOk) return `${name}: QP ${String(t.qp)} out of range [0, ${qps})`;
  if ((t.kind === T_SEND_ENABLE || t.kind === T_RECV_ENABLE) && (!isInt(t.index) || t.index < 0)) return `${name}: index ${String(t.index)} must be a non-negative integer`;
  if (!isInt(t.flags) || (t.flags & ~F_SIGNAL) !== 0) return `${name}: flags ${String(t.flags)} (only the signal flag, 1, may be set)`;
  return null;
}

/**
 * Post one MWR: returns the queue entries in posting order and advances `heads`.
 * `limit` is the MWR length limit (the send-queue length).
 */
export function postMwr(tasks: readonly MwrTask[], heads: QueueHeads, limit: number, who = 'MWR'): PostedEntry[] {
  if (tasks.length === 0) throw new MwrError(`${who}: empty MWR (it needs at least one task)`);
  if (tasks.length > limit) throw new MwrError(`${who}: ${tasks.length} tasks exceed the MWR length limit of ${limit} (the send-queue length)`);
  for (let i = 0; i < tasks.length; i++) {
    const p = taskProblem(tasks[i]!, heads.qps);
    if (p !== null) throw new MwrError(`${who}: task ${i}: ${p}`);
  }
  const out: PostedEntry[] = [];
  let afterMqWait = false;
  const put = (queue: number, kind: number, qp: number, cq: number, count: number, target: number, flags: number): number => {
    const index = heads.next(queue);
    heads.bump(queue);
    out.push({ queue, index, kind, qp, cq, count, target, flags });
    return index;
  };
  for (const t of tasks) {
    const sig = t.flags & F_SIGNAL;
    switch (t.kind) {
      case T_WAIT:
        if (t.qp === NULL_QUEUE) {
          put(Q_MQ, T_WAIT, -1, t.cq, t.count, -1, sig);
          afterMqWait = true;
        } else put(sqId(t.qp), T_WAIT, -1, t.cq, t.count, -1, sig);
        break;
      case T_SEND:
      case T_RDMA_WRITE_IMM:
      case T_RDMA_WRITE:
      case T_RECV: {
        const recv = t.kind === T_RECV;
        const q = recv ? rqId(t.qp) : sqId(t.qp);
        const idx = put(q, t.kind, t.qp, -1, 0, -1, sig | (afterMqWait ? F_DISABLED : 0));
        put(Q_MQ, recv ? T_RECV_ENABLE : T_SEND_ENABLE, t.qp, -1, 0, idx, 0);
        break;
      }
      default: // explicit enables
        put(Q_MQ, t.kind, t.qp, -1, 0, t.index, sig);
    }
  }
  return out;
}

/** Post plain (enabled) receives outside an MWR: `n` receive WQEs on the QP. */
export function postReceives(qp: number, n: number, heads: QueueHeads): PostedEntry[] {
  const out: PostedEntry[] = [];
  for (let i = 0; i < n; i++) {
    const q = rqId(qp);
    out.push({ queue: q, index: heads.next(q), kind: T_RECV, qp, cq: -1, count: 0, target: -1, flags: 0 });
    heads.bump(q);
  }
  return out;
}

/** Post one plain (enabled) send or write outside an MWR (the CPU-progressed barriers). */
export function postSend(kind: number, qp: number, heads: QueueHeads): PostedEntry {
  const q = sqId(qp);
  const e: PostedEntry = { queue: q, index: heads.next(q), kind, qp, cq: -1, count: 0, target: -1, flags: 0 };
  heads.bump(q);
  return e;
}
