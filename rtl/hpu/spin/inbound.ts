/**
 * Inbound engine: takes packets from the link in order; a message's first packet is matched
 * against the match entries (header matching, matchNs), every other packet goes through the CAM
 * lookup (camNs); one packet at a time (the matcher is not pipelined). The matched packet, with
 * the index of its match entry (-1: no entry matches its tag), goes to the message engine.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import { nsToCycles, type SpinParams } from './params.ts';
import type { MatchEntry, SpinPacket } from './types.ts';

export interface MatchedPacket {
  packet: SpinPacket;
  entry: number;
}

export class InboundEngine extends Component {
  readonly out: Channel<MatchedPacket>;
  private readonly matchCycles: number;
  private readonly camCycles: number;
  /** the packet in the matcher and the cycle its lookup ends */
  private cur: MatchedPacket | null = null;
  private doneAt = 0;
  matched = 0;
  unmatched = 0;

  constructor(parent: Scope, name: string, params: SpinParams, private readonly inp: Channel<SpinPacket>, private readonly entries: readonly MatchEntry[]) {
    super(parent, name);
    inp.bindConsumer(this);
    this.out = new Channel<MatchedPacket>(this, 'out', { capacity: 2, latency: 1 }).bindProducer(this);
    this.matchCycles = Math.max(1, nsToCycles(params.matchNs, params.freqHz));
    this.camCycles = Math.max(1, nsToCycles(params.camNs, params.freqHz));
  }

  /** Nothing in the matcher and nothing waiting. */
  idle(): boolean {
    return this.cur === null && !this.inp.canPop();
  }

  tick(t: number): number {
    if (this.cur !== null) {
      if (t < this.doneAt) return this.doneAt;
      if (!this.out.canPush()) return NEVER;
      this.out.push(this.cur);
      this.cur = null;
    }
    if (!this.inp.canPop()) return NEVER;
    const p = this.inp.pop();
    let entry = -1;
    if (p.index === 0) {
      for (let i = 0; i < this.entries.length; i++)
        if (this.entries[i]!.tag === p.tag) {
          entry = i;
          break;
        }
      if (entry < 0) this.unmatched++;
      else this.matched++;
    }
    this.cur = { packet: p, entry };
    this.doneAt = t + (p.index === 0 ? this.matchCycles : this.camCycles);
    return this.doneAt;
  }
}
