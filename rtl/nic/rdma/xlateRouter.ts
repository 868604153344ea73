import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import type { AtcReq } from '../atc/types.ts';

/**
 * Hands each ATC response to the engine that asked (by the memory checker's source number the
 * translation carries): one per cycle, in the ATC's order; a full output holds the ATC's response
 * port (head of line).
 */
export class XlateRouter extends Component {
  readonly outs: Channel<AtcReq>[] = [];
  readonly misrouted;

  constructor(
    parent: Scope,
    name: string,
    readonly inp: Channel<AtcReq>,
    sources: number,
  ) {
    super(parent, name);
    inp.bindConsumer(this);
    for (let s = 0; s < sources; s++) this.outs.push(new Channel<AtcReq>(this, `out${s}`, { capacity: 4, latency: 1 }).bindProducer(this));
    this.misrouted = this.counter('misrouted');
  }

  tick(t: number): number {
    if (!this.inp.canPop()) return NEVER;
    const r = this.inp.peek();
    const o = this.outs[r.source];
    if (o === undefined) {
      this.inp.pop();
      this.misrouted.inc();
    } else if (o.canPush()) {
      o.push(this.inp.pop());
    } else return NEVER; // the engine's pop wakes us
    return t + 1;
  }
}
