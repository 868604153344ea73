import { Channel, Component, type Counter, NEVER, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';
import type { DmaRead, ReadChunk } from './tlp.ts';

/**
 * The PCIe endpoint's read side shared by several NIC requesters (docs/nic-frontend.md, "Read
 * mux"): the SDQ's descriptor reads and the RDMA transmit engine's payload reads in the NIC top
 * level (rtl/nic/nic.ts).
 *
 * Ports: per requester i, `ins[i]` (DmaRead requests, the mux consumes) and `outs[i]` (its
 * ReadChunks back, the mux produces); towards the endpoint, `epIn` (its `readIn`) and `epOut` (its
 * `readOut`).
 *
 * Per cycle (two independent halves, each at most one item):
 * - request: if `epIn` has room, a registered-pointer round-robin arbiter grants one requester
 *   whose request channel holds a read; the read is stamped with the requester's number
 *   (`DmaRead.port`, the tag extension: the requester's own `tag` is left untouched) and pushed
 *   on `epIn`. Fairness: a requester with a read waiting is granted within n grants (at most
 *   n - 1 others first), whatever the others do; reads of one requester keep their order.
 * - completion: the chunk at the head of `epOut` goes to `outs[req.port]` when that channel has
 *   room (head of line: a requester that stops taking its completions holds the others' behind
 *   it; both requesters in the NIC take one chunk every cycle they run).
 * Latency: one cycle each way on top of the endpoint's.
 */
export class ReadMux extends Component {
  readonly ins: Channel<DmaRead>[];
  readonly outs: Channel<ReadChunk>[];
  private readonly arb: RoundRobinArbiter;
  private readonly req = (i: number): boolean => this.ins[i]!.canPop();
  private readonly cGrants: Counter[];

  constructor(
    parent: Scope,
    name: string,
    /** the requesters' names (one input and one output each, in this order) */
    requesters: readonly string[],
    private readonly epIn: Channel<DmaRead>,
    private readonly epOut: Channel<ReadChunk>,
  ) {
    super(parent, name);
    const n = requesters.length;
    if (n < 1 || n > 64) throw new RangeError(`${this.path}: needs 1 to 64 requesters, got ${n}`);
    this.ins = requesters.map((r) => new Channel<DmaRead>(this, `${r}In`, { capacity: 4, latency: 1 }).bindConsumer(this));
    this.outs = requesters.map((r) => new Channel<ReadChunk>(this, `${r}Out`, { capacity: 4, latency: 1 }).bindProducer(this));
    epIn.bindProducer(this);
    epOut.bindConsumer(this);
    this.arb = new RoundRobinArbiter(this, 'arb', n);
    this.cGrants = requesters.map((r) => this.counter(`reads_${r}`));
  }

  /** The arbiter's priority pointer. */
  get pointer(): number {
    return this.arb.pointer;
  }

  tick(t: number): number {
    if (this.epIn.canPush()) {
      const i = this.arb.grant(this.req);
      if (i >= 0) {
        const r = this.ins[i]!.pop();
        r.port = i;
        this.epIn.push(r);
        this.cGrants[i]!.inc();
      }
    }
    if (this.epOut.canPop()) {
      const p = this.epOut.peek().req.port;
      if (!Number.isInteger(p) || p < 0 || p >= this.outs.length) throw new Error(`${this.path}: completion for port ${p}, which no requester has`);
      const o = this.outs[p]!;
      if (o.canPush()) o.push(this.epOut.pop());
    }
    // waiting work: run next cycle; a requester's push, the endpoint's pop of epIn, a completion,
    // or a requester's pop of a full output wakes us otherwise
    if (this.epOut.canPop()) return t + 1;
    if (this.epIn.canPush()) for (const c of this.ins) if (c.canPop()) return t + 1;
    return NEVER;
  }
}
