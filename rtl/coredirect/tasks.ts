/**
 * CORE-Direct task and queue-entry formats (seed 001, section III.A). An MWR (Multiple Work
 * Request) is a list of tasks; the driver (driver.ts) posts each to a queue: a QP's send queue,
 * a QP's receive queue or the hardware management queue (MQ). See docs/coredirect.md.
 */

/** Task kinds. Numbers are the 4-bit opcode of a queue entry (vectors use the names). */
export const T_SEND = 0;
/** RDMA write with immediate data (zero bytes): generates a CQE at the target without a receive WQE */
export const T_RDMA_WRITE_IMM = 1;
/** RDMA write without immediate: lands in the target's memory (the CPU-progressed RDMA barrier polls it) */
export const T_RDMA_WRITE = 2;
export const T_RECV = 3;
/** wait for `count` new completions on completion queue `cq` */
export const T_WAIT = 4;
/** enable every posted entry of the QP's send queue up to and including index `index` */
export const T_SEND_ENABLE = 5;
/** enable every posted entry of the QP's receive queue up to and including index `index` */
export const T_RECV_ENABLE = 6;
export const TASK_NAMES = ['send', 'rdma_write_imm', 'rdma_write', 'recv', 'wait', 'send_enable', 'recv_enable'] as const;
export type TaskName = (typeof TASK_NAMES)[number];

/** The task is the one whose completion signals MWR completion (MQE_WR_FLAG_SIGNAL). */
export const F_SIGNAL = 1;
/** The entry was posted disabled: the HCA does not process it until an enable covers it. */
export const F_DISABLED = 2;

/** "no queue" for a wait: the driver posts it to the management queue */
export const NULL_QUEUE = -1;

/**
 * One task of an MWR, as the user writes it. `qp` is the local QP index the task names
 * (send/recv/write: the QP; wait: the QP whose send queue it blocks, or NULL_QUEUE for the MQ).
 * For a wait, `cq` names the completion queue and `count` the completions to wait for; for an
 * enable, `index` is the queue index the enable reaches.
 */
export interface MwrTask {
  kind: number;
  qp: number;
  cq: number;
  count: number;
  index: number;
  flags: number;
}

/** Completion queues of one process: per QP a receive CQ (cq = qp), then the send CQ, then the MQ CQ. */
export function recvCq(qp: number): number {
  return qp;
}
export function sendCq(qps: number): number {
  return qps;
}
export function mqCq(qps: number): number {
  return qps + 1;
}

export function task(kind: number, qp: number, extra: Partial<MwrTask> = {}): MwrTask {
  return { kind, qp, cq: -1, count: 0, index: -1, flags: 0, ...extra };
}

/** Queue identifiers inside a process: 2 * qp = the QP's send queue, 2 * qp + 1 its receive queue; Q_MQ = the management queue. */
export const Q_MQ = -1;
export function sqId(qp: number): number {
  return 2 * qp;
}
export function rqId(qp: number): number {
  return 2 * qp + 1;
}

/** A posted queue entry (what the driver writes into a queue). */
export interface PostedEntry {
  /** Q_MQ, sqId(qp) or rqId(qp) */
  queue: number;
  /** index of the entry in its queue (the producer index at posting) */
  index: number;
  kind: number;
  /** send/write/recv/enable: the QP; wait: -1 */
  qp: number;
  cq: number;
  count: number;
  /** enables: the index they reach */
  target: number;
  flags: number;
}

export function queueName(q: number): string {
  if (q === Q_MQ) return 'mq';
  return `${q % 2 === 0 ? 'sq' : 'rq'}${q >> 1}`;
}
