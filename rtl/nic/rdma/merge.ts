import { Channel, Component, NEVER, RoundRobinArbiter, type Scope } from '../../kernel/index.ts';

/**
 * N request channels onto one (a NIC's engines sharing the PCIe write port, the queue engine's
 * entry port or a link port): one item per cycle, the inputs with an item served by a
 * registered-pointer round-robin arbiter (an input with an item waits at most n - 1 grants).
 * Items of one input keep their order.
 */
export class Merge<T> extends Component {
  readonly ins: Channel<T>[] = [];
  private readonly arb: RoundRobinArbiter;
  private readonly ready: (i: number) => boolean;

  constructor(
    parent: Scope,
    name: string,
    /** the inputs: a count (the merge makes its own channels) or existing channels it consumes */
    inputs: number | Channel<T>[],
    readonly out: Channel<T>,
    capacity = 2,
  ) {
    super(parent, name);
    if (typeof inputs === 'number') for (let i = 0; i < inputs; i++) this.ins.push(new Channel<T>(this, `in${i}`, { capacity, latency: 1 }).bindConsumer(this));
    else for (const c of inputs) this.ins.push(c.bindConsumer(this));
    const n = this.ins.length;
    out.bindProducer(this);
    this.arb = new RoundRobinArbiter(this, 'arb', n);
    this.ready = (i: number): boolean => this.ins[i]!.canPop();
  }

  tick(t: number): number {
    if (!this.out.canPush()) return NEVER; // the consumer's pop wakes us
    const i = this.arb.grant(this.ready);
    if (i >= 0) this.out.push(this.ins[i]!.pop());
    for (const c of this.ins) if (c.canPop()) return t + 1;
    return NEVER;
  }
}
