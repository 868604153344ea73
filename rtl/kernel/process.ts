import { Component, NEVER, type Scope } from './component.ts';

/**
 * A testbench process (Amaranth's add_testbench): a generator that runs as a component.
 * `yield` waits one cycle (Amaranth's `ctx.tick()`), `yield n` waits n cycles. The body may push
 * and pop channels it is bound to and read anything; it runs in cycle order like any component.
 */
export type ProcessBody = Generator<number | void, void, void>;

export class Process extends Component {
  private readonly make: (p: Process) => ProcessBody;
  private it: ProcessBody;
  done = false;

  constructor(parent: Scope, name: string, body: (p: Process) => ProcessBody) {
    super(parent, name);
    this.make = body;
    this.it = body(this);
  }

  override reset(): void {
    this.it = this.make(this);
    this.done = false;
  }

  tick(t: number): number {
    if (this.done) return NEVER;
    const r = this.it.next();
    if (r.done) {
      this.done = true;
      return NEVER;
    }
    const n = r.value ?? 1;
    if (!Number.isInteger(n) || n < 1) throw new Error(`${this.path}: a process must yield a positive whole number of cycles, got ${n}`);
    return t + n;
  }
}
