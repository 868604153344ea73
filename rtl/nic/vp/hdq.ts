import { Channel, Component, type Counter, NEVER, type Scope } from '../../kernel/index.ts';
import type { QueuedDesc } from './readout.ts';
import type { HdqWrite, VpError } from './regfile.ts';

/** HDQ refusals (entries on errOut, on the VP that wrote). Codes continue the register file's. */
export const HE_SEQUENCE = 9; // a piece not continuing the descriptor being assembled (the partial one is dropped)
export const HE_BAD_SIZE = 10; // the first byte's size field is not 64 or 128 bytes
export const HE_FULL = 11; // a complete descriptor found the VP's HDQ full (software should have read HDQ_FREE)
export const HE_NAMES = ['hdq_sequence', 'hdq_bad_size', 'hdq_full'] as const;

/** A whole descriptor leaving the HDQ (per-VP sequence number: 0, 1, ... of accepted descriptors). */
export type HdqDesc = QueuedDesc;

/**
 * The on-chip hardware descriptor queue of the PIO VPs (docs/nic-frontend.md, "HDQ").
 *
 * Input: window stores from the register file (`hdqIn`), one per cycle. A descriptor is written
 * from window offset 0 on (write combining delivers it as 64-byte pieces, in order); the size
 * field of its first byte (bits 5:4: 0 = 64, 1 = 128 bytes) says when it is whole. A whole
 * descriptor enters its VP's queue of `slots` entries, or, if that is full, is refused with
 * `hdq_full` on `errOut` (never dropped silently; `free(vp)`, the HDQ_FREE register, tells software
 * how many it may write). A piece that does not continue the descriptor being assembled, or a
 * first piece with a bad size, is refused and the partial descriptor dropped (`hdq_sequence`,
 * `hdq_bad_size`).
 * Output (`heads[vp]`, one channel per PIO VP, capacity 2, latency 1: the VP's output register):
 * each VP's oldest descriptor moves into its head channel when that has room. The readout
 * (readout.ts) arbitrates round-robin over the head channels of every VP, PIO and DMA.
 */
export class Hdq extends Component {
  readonly hdqIn: Channel<HdqWrite>;
  readonly heads: Channel<HdqDesc>[];
  readonly errOut: Channel<VpError>;
  private readonly asm: Uint8Array[];
  private readonly asmLen: Int32Array;
  private readonly asmSize: Int32Array;
  private readonly q: Uint8Array[][];
  private readonly qHead: Int32Array;
  private readonly qCount: Int32Array;
  private readonly seq: Int32Array;
  private readonly cAccepted: Counter;
  private readonly cRefused: Counter;

  constructor(
    parent: Scope,
    name: string,
    readonly pioVps: number,
    readonly slots = 4,
    hdqIn?: Channel<HdqWrite>,
  ) {
    super(parent, name);
    if (!Number.isInteger(pioVps) || pioVps < 1 || pioVps > 256) throw new RangeError(`HDQ: pioVps must be an integer in [1, 256], got ${pioVps}`);
    if (!Number.isInteger(slots) || slots < 1 || slots > 1024) throw new RangeError(`HDQ: slots must be an integer in [1, 1024], got ${slots}`);
    this.hdqIn = (hdqIn ?? new Channel<HdqWrite>(this, 'hdqIn', { capacity: 2, latency: 1 })).bindConsumer(this);
    this.heads = Array.from({ length: pioVps }, (_, v) => new Channel<HdqDesc>(this, `head${v}`, { capacity: 2, latency: 1 }).bindProducer(this));
    this.errOut = new Channel<VpError>(this, 'errOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.asm = Array.from({ length: pioVps }, () => new Uint8Array(128));
    this.asmLen = new Int32Array(pioVps);
    this.asmSize = new Int32Array(pioVps);
    this.q = Array.from({ length: pioVps }, () => Array.from({ length: slots }, () => new Uint8Array(128)));
    this.qHead = new Int32Array(pioVps);
    this.qCount = new Int32Array(pioVps);
    this.seq = new Int32Array(pioVps);
    this.cAccepted = this.counter('accepted');
    this.cRefused = this.counter('refused');
  }

  override reset(): void {
    this.asmLen.fill(0);
    this.asmSize.fill(0);
    this.qHead.fill(0);
    this.qCount.fill(0);
    this.seq.fill(0);
  }

  /** The HDQ_FREE register of a PIO VP: descriptors it can take now. */
  free(vp: number): number {
    return this.slots - this.qCount[vp]!;
  }

  private refuse(t: number, vp: number, kind: number, addr: number): void {
    this.errOut.push({ vp, kind, addr, cycle: t });
    this.asmLen[vp] = 0;
    this.cRefused.inc();
  }

  tick(t: number): number {
    // input: one window store
    if (this.hdqIn.canPop() && this.errOut.occupancy() <= 2) {
      // room for the two refusals one store can cause
      const w = this.hdqIn.pop();
      const vp = w.vp;
      if (w.offset === 0) {
        if (this.asmLen[vp]! > 0) this.refuse(t, vp, HE_SEQUENCE, -1); // previous descriptor never completed
        const size = (w.data[0]! >> 4) & 3;
        if (size > 1 || w.data.length > 64 * (size + 1)) {
          this.refuse(t, vp, HE_BAD_SIZE, w.offset);
        } else {
          this.asmSize[vp] = 64 * (size + 1);
          this.asm[vp]!.set(w.data, 0);
          this.asmLen[vp] = w.data.length;
        }
      } else if (w.offset !== this.asmLen[vp] || this.asmLen[vp] === 0 || w.offset + w.data.length > this.asmSize[vp]!) {
        this.refuse(t, vp, HE_SEQUENCE, w.offset);
      } else {
        this.asm[vp]!.set(w.data, w.offset);
        this.asmLen[vp] = this.asmLen[vp]! + w.data.length;
      }
      if (this.asmLen[vp]! > 0 && this.asmLen[vp] === this.asmSize[vp]) {
        if (this.qCount[vp]! < this.slots) {
          const i = (this.qHead[vp]! + this.qCount[vp]!) % this.slots;
          this.q[vp]![i]!.set(this.asm[vp]!.subarray(0, this.asmSize[vp]!));
          this.qCount[vp] = this.qCount[vp]! + 1;
          this.asmLen[vp] = 0;
          this.cAccepted.inc();
        } else this.refuse(t, vp, HE_FULL, 0);
      }
    }
    // output: each VP's oldest descriptor into its head register
    let more = false;
    for (let vp = 0; vp < this.pioVps; vp++) {
      if (this.qCount[vp] === 0 || !this.heads[vp]!.canPush()) continue;
      const h = this.qHead[vp]!;
      const b = this.q[vp]![h]!;
      const size = 64 * (((b[0]! >> 4) & 3) + 1);
      this.heads[vp]!.push({ vp, bytes: b.slice(0, size), seq: this.seq[vp]!++ });
      this.qHead[vp] = (h + 1) % this.slots;
      this.qCount[vp] = this.qCount[vp]! - 1;
      if (this.qCount[vp]! > 0 && this.heads[vp]!.canPush()) more = true;
    }
    // a VP whose head channel is full sleeps until the readout pops it (the pop wakes this block)
    return more || this.hdqIn.canPop() ? t + 1 : NEVER;
  }
}
