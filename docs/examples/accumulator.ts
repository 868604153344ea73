// A producer sends 1, 2, 3, ... over a two-cycle channel; an accumulator adds them into a register.
import { Component, NEVER, NumChannel, Reg, Simulator, type Scope } from '../../rtl/kernel/index.ts';

class Producer extends Component {
  readonly out: NumChannel;
  private readonly next: Reg;
  constructor(parent: Scope, name: string, private readonly count: number) {
    super(parent, name);
    this.out = new NumChannel(this, 'out', { capacity: 2, latency: 2 }).bindProducer(this);
    this.next = new Reg(this, 'next', 32, 1);
  }
  tick(t: number): number {
    if (this.next.q > this.count) return NEVER; // done: sleep for good
    if (this.out.canPush()) {
      this.out.push(this.next.q); // next-state write: visible to the consumer at t + 2
      this.next.d = this.next.q + 1; // next-state write: visible here at t + 1
    }
    return t + 1;
  }
}

class Accumulator extends Component {
  readonly sum: Reg;
  constructor(parent: Scope, name: string, private readonly inp: NumChannel) {
    super(parent, name);
    inp.bindConsumer(this);
    this.sum = new Reg(this, 'sum', 32);
  }
  tick(): number {
    if (this.inp.canPop()) this.sum.d = this.sum.q + this.inp.pop();
    return NEVER; // the next push wakes us when its data becomes visible
  }
}

export function run(): { cycle: number; sum: number; evaluations: number } {
  const sim = new Simulator({ freqHz: 1e9 });
  const p = new Producer(sim, 'producer', 10);
  const acc = new Accumulator(sim, 'acc', p.out);
  sim.runUntil(() => acc.sum.q === 55, 1000);
  return { cycle: sim.cycle, sum: acc.sum.q, evaluations: sim.evaluations };
}
