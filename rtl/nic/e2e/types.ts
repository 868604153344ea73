/**
 * The reliable end-to-end layer's parameters (docs/nic-rdma.md, "Reliable end-to-end"): context
 * counts, window, timers, retry limit and back-off, with their defaults and checks.
 */

export interface E2eConfig {
  /** sender contexts on the chip: connections this NIC can have open as a sender at once (default 16) */
  senderContexts: number;
  /** receiver contexts on the chip: connections it can accept at once (default 16) */
  receiverContexts: number;
  /** packets a sender context holds unacknowledged (its retransmission buffer), default 16 */
  window: number;
  /** the receiver acknowledges every `ackEvery` packets received in order (and the last at the close), default 4 */
  ackEvery: number;
  /** cycles a sender context waits for any answer before it resends (default 3,000) */
  timeout: number;
  /** consecutive timeouts without an answer after which the transfer fails (error event e2e_failed), default 8 */
  retries: number;
  /** back-off after a CONN_NACK: backoff x 2^min(NACKs so far, 4) cycles before the request is sent again (default 256) */
  backoff: number;
  /** data packets the receiver holds between its context check and the receive engine (default 16); a packet finding it full is dropped and resent */
  rxBuffer: number;
  /** cycles an open receiver context may see no packet before it is freed (default timeout x (retries + 2)) */
  rxIdle: number;
}

export const E2E_DEFAULTS: Readonly<Omit<E2eConfig, 'rxIdle'>> = { senderContexts: 16, receiverContexts: 16, window: 16, ackEvery: 4, timeout: 3000, retries: 8, backoff: 256, rxBuffer: 16 };

export function e2eConfig(p: Partial<E2eConfig> = {}): E2eConfig {
  for (const k of Object.keys(p)) if (!(k in E2E_DEFAULTS) && k !== 'rxIdle') throw new RangeError(`e2e config: unknown parameter ${k}`);
  const b = { ...E2E_DEFAULTS, ...p };
  const c: E2eConfig = { ...b, rxIdle: p.rxIdle ?? b.timeout * (b.retries + 2) };
  const int = (n: keyof E2eConfig, lo: number, hi: number): void => {
    const v = c[n];
    if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`e2e config: ${n} must be an integer in [${lo}, ${hi}], got ${v}`);
  };
  int('senderContexts', 1, 1024);
  int('receiverContexts', 1, 1024);
  int('window', 1, 1024);
  int('ackEvery', 1, 1024);
  int('timeout', 16, 1e9);
  int('retries', 0, 1000);
  int('backoff', 1, 1e9);
  int('rxBuffer', 1, 1024);
  int('rxIdle', 16, 1e12);
  return c;
}
