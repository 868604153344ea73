/**
 * Transactions that travel between the Gemini blocks. Each is a mutable object made by its
 * initiator and handed from channel to channel (no copies); the blocks fill in results and cycles.
 */

/** One AMO request and, once answered, its response. */
export class AmoReq {
  /** request port of the AMO unit it enters (set by whoever pushes it) */
  port = 0;
  /** initiator's tag (free for the initiator) */
  tag = 0;
  op = 0;
  /** byte address in the target node's memory */
  addr = 0;
  /** bytes: the unit takes only 8 */
  size = 8;
  aHi = 0;
  aLo = 0;
  bHi = 0;
  bLo = 0;
  // ---- results
  /** AMO_OK or an AMO_ERR_* code (rtl/gemini/amo/ops.ts) */
  status = -1;
  /** old value of the word (fetching operations; also set for non-fetching ones) */
  oldHi = 0;
  oldLo = 0;
  /** the word was in the atomic cache when the operation executed */
  hit = false;
  acceptCycle = -1;
  /** cycle the response became visible on the port's response channel */
  doneCycle = -1;
}

export const MEM_READ = 0;
export const MEM_WRITE = 1;

/**
 * A host-memory transaction over HyperTransport: a read request (its response comes back as the
 * same object with `resp` set), or a posted write. `route` picks the output of the host-to-NIC
 * direction the response is delivered to. 8-byte transactions carry a word (`hi`, `lo`); DMA
 * transactions carry only a byte count (the model moves timing, not payload bytes).
 */
export class MemReq {
  kind = MEM_READ;
  addr = 0;
  bytes = 8;
  hi = 0;
  lo = 0;
  route = 0;
  /** owner's tag */
  tag = 0;
  /** set by host memory on the read response */
  resp = false;
  /** owner's reference (the transfer this packet belongs to) */
  owner: unknown = null;
}
