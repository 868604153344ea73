import { Channel, Component, type Counter, NEVER, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';
import { type DescConfig, decodeDescriptor, type NicDesc } from '../desc/index.ts';

/** A whole descriptor at the head of a VP's on-chip queue (HDQ or SDQ buffer), waiting for readout. */
export interface QueuedDesc {
  vp: number;
  /** the descriptor's bytes (64 or 128; an SDQ entry whose size field is bad is handed on whole) */
  bytes: Uint8Array;
  /** per-VP sequence number of descriptors leaving its queue (0, 1, ...) */
  seq: number;
}

/**
 * A descriptor dispatched to the processing units (the RDMA engine consumes `Readout.out`): the
 * VP it came from, its per-VP sequence number, and the decode stage's verdict. A descriptor the
 * decoder rejects is dispatched too (reason != 0), so its VP gets the error event.
 */
export interface DispatchedDesc {
  vp: number;
  seq: number;
  /** true: fetched by DMA through the SDQ; false: written by PIO into the HDQ */
  dma: boolean;
  bytes: Uint8Array;
  /** DR_OK (0) or the decoder's reason code (rtl/nic/desc), the failing field, the decoded fields */
  reason: number;
  field: string;
  desc: NicDesc;
  /** cycle the readout granted it */
  cycle: number;
  /** run alone in the transmit engine (set by the collective expander on a collective's child PUTs) */
  fence?: boolean;
}

/**
 * The descriptor readout (docs/nic-frontend.md, "Readout"): one round-robin arbiter over every VP's
 * queue head, PIO and DMA VPs alike (seed 2.2: "read out in round-robin sequence and submitted to
 * corresponding processing units").
 *
 * Inputs: `heads[v]`, one channel per VP (the HDQ's for v < pioVps, the SDQ's for the others;
 * capacity 2, latency 1: the queue's output register). Per cycle, if `out` has room, the arbiter
 * (registered pointer) grants the first VP at or after the pointer whose head channel holds a
 * descriptor; that descriptor is popped, decoded (the decoder is combinational,
 * rtl/nic/desc/decode.ts) and pushed on `out` (capacity 2, latency 1). Fairness: a VP whose head
 * channel holds a descriptor is granted within `vps` grants (at most vps - 1 others first).
 */
export class Readout extends Component {
  readonly out: Channel<DispatchedDesc>;
  private readonly rr: RoundRobinArbiter;
  private readonly req = (i: number): boolean => this.heads[i]!.canPop();
  private readonly cGrants: Counter;
  private readonly cBad: Counter;
  private readonly perVp: Float64Array;

  constructor(
    parent: Scope,
    name: string,
    /** one head channel per VP, indexed by VP */
    readonly heads: readonly Channel<QueuedDesc>[],
    readonly pioVps: number,
    private readonly desc: DescConfig,
  ) {
    super(parent, name);
    if (heads.length < 1 || heads.length > 256) throw new RangeError(`readout: needs 1 to 256 VP head channels, got ${heads.length}`);
    if (!Number.isInteger(pioVps) || pioVps < 0 || pioVps > heads.length) throw new RangeError(`readout: pioVps must be an integer in [0, ${heads.length}], got ${pioVps}`);
    for (const h of heads) h.bindConsumer(this);
    this.out = new Channel<DispatchedDesc>(this, 'out', { capacity: 2, latency: 1 }).bindProducer(this);
    this.rr = new RoundRobinArbiter(this, 'rr', heads.length);
    this.cGrants = this.counter('dispatched');
    this.cBad = this.counter('decode_errors');
    this.perVp = new Float64Array(heads.length);
  }

  override reset(): void {
    this.perVp.fill(0);
  }

  /** Descriptors of VP `vp` dispatched so far (software's view of what the NIC has taken: its credits back). */
  dispatchedOf(vp: number): number {
    return this.perVp[vp] ?? 0;
  }

  /** The arbiter's priority pointer (the VP with the highest priority this cycle). */
  get pointer(): number {
    return this.rr.pointer;
  }

  tick(t: number): number {
    if (!this.out.canPush()) return NEVER; // woken by the consumer's pop
    const vp = this.rr.grant(this.req);
    if (vp < 0) return NEVER; // woken by a head push
    const q = this.heads[vp]!.pop();
    const d = decodeDescriptor(q.bytes, this.desc);
    if (d.reason !== 0) this.cBad.inc();
    this.out.push({ vp, seq: q.seq, dma: vp >= this.pioVps, bytes: q.bytes, reason: d.reason, field: d.field, desc: d.desc, cycle: t });
    this.cGrants.inc();
    this.perVp[vp]!++;
    return t + 1;
  }
}
