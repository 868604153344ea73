import type { Component } from './component.ts';
import type { Simulator, Tracer } from './simulator.ts';
import { pathSelected, type TextSink } from './sink.ts';

/**
 * Text line trace: one line per cycle, `cycle: text of each selected component | ...`, for quick
 * debugging. Runs of identical lines are folded into one "... N identical cycles" line, which
 * makes the trace identical with activity skipping on and off.
 */
export class LineTracer implements Tracer {
  private readonly comps: Component[];
  private last: string | null = null;
  private lastCycle = -1;
  private repeats = 0;
  private closed = false;

  constructor(sim: Simulator, private readonly sink: TextSink, include?: readonly string[]) {
    this.comps = sim.components.filter((c) => c.lineTrace !== undefined && pathSelected(include, c.path));
    for (const c of this.comps) c._traced = true;
    sim.addTracer(this);
    sim._touch();
  }

  private flushRepeats(): void {
    if (this.repeats > 0) this.sink.write(`         ... ${this.repeats} identical cycle${this.repeats === 1 ? '' : 's'}\n`);
    this.repeats = 0;
  }

  sample(t: number): void {
    if (this.last !== null && t > this.lastCycle + 1) this.repeats += t - this.lastCycle - 1;
    const text = this.comps.map((c) => c.lineTrace!()).join(' | ');
    this.lastCycle = t;
    if (text === this.last) {
      this.repeats++;
      return;
    }
    this.flushRepeats();
    this.last = text;
    this.sink.write(`${String(t).padStart(8)}: ${text}\n`);
  }

  close(endCycle: number): void {
    if (this.closed) return;
    this.closed = true;
    if (this.last !== null && endCycle > this.lastCycle + 1) this.repeats += endCycle - this.lastCycle - 1;
    this.flushRepeats();
    this.sink.close();
  }
}
