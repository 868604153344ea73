/**
 * The recursive-doubling barrier (seed 001, section IV) and the MWR each rank posts for it.
 *
 * N = 2^L ranks: at step l = 0 .. L-1 rank r signals r XOR 2^l and waits for a signal from it.
 * M ranks, M not a power of two, N the largest power of two below M: an extra rank r >= N first
 * signals r - N and then waits for r - N's signal; rank r < M - N first waits for r + N, runs the
 * N-rank algorithm, then signals r + N.
 */
import { F_SIGNAL, type MwrTask, NULL_QUEUE, recvCq, T_RDMA_WRITE_IMM, T_SEND, T_WAIT, task } from './tasks.ts';
import { InputError } from '../kernel/errors.ts';

/** One step of a rank's part of the barrier: signal `peer`, or wait for `peer`'s signal. */
export interface BarrierOp {
  send: boolean;
  peer: number;
}

export const MAX_PROCS = 1 << 16;

export function checkProcs(m: number): void {
  if (!Number.isSafeInteger(m) || m < 2 || m > MAX_PROCS) throw new InputError(`process count ${m}: must be an integer in [2, ${MAX_PROCS}]`);
}

/** The ops of rank r in an m-rank barrier, in order. */
export function barrierOps(m: number, r: number): BarrierOp[] {
  checkProcs(m);
  if (!Number.isSafeInteger(r) || r < 0 || r >= m) throw new InputError(`rank ${r} out of range [0, ${m})`);
  let n = 1;
  while (n * 2 <= m) n *= 2;
  const ops: BarrierOp[] = [];
  if (r >= n) {
    ops.push({ send: true, peer: r - n }, { send: false, peer: r - n });
    return ops;
  }
  const paired = r < m - n;
  if (paired) ops.push({ send: false, peer: r + n });
  for (let bit = 1; bit < n; bit *= 2) ops.push({ send: true, peer: r ^ bit }, { send: false, peer: r ^ bit });
  if (paired) ops.push({ send: true, peer: r + n });
  return ops;
}

/** The peers of rank r in order of first use: local QP j connects to peers[j] (sparse connections). */
export function barrierPeers(ops: readonly BarrierOp[]): number[] {
  const peers: number[] = [];
  for (const o of ops) if (!peers.includes(o.peer)) peers.push(o.peer);
  return peers;
}

/**
 * The MWR of one rank: a send (or RDMA write with immediate) per signal, a wait with no queue
 * (so: in the MQ) for one completion on the QP's receive CQ per wait; the last task carries the
 * signal flag. `qpOf(peer)` gives the local QP connected to the peer.
 */
export function barrierMwr(ops: readonly BarrierOp[], qpOf: (peer: number) => number, rdma: boolean): MwrTask[] {
  const tasks = ops.map((o) => {
    const qp = qpOf(o.peer);
    return o.send ? task(rdma ? T_RDMA_WRITE_IMM : T_SEND, qp) : task(T_WAIT, NULL_QUEUE, { cq: recvCq(qp), count: 1 });
  });
  tasks[tasks.length - 1]!.flags |= F_SIGNAL;
  return tasks;
}
