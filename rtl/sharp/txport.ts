import type { Channel } from '../kernel/index.ts';
import type { Frame } from './frame.ts';

/**
 * Transmit side of a port: serializes frames onto a link. A frame ready at cycle r starts when
 * the port is free, s = max(r, busyUntil), and its tail leaves at s + ser; it is pushed into the
 * link channel at that cycle, and the channel's latency is the cable propagation, so the
 * receiver sees the whole frame at tail + propagation (store-and-forward at the receiver).
 *
 * A cut-through sender (a switch) passes r = tail-in - ser + hop latency: the head is forwarded
 * as soon as it arrives and the switch core has routed it.
 */
export class TxPort {
  busyUntil = 0;
  private readonly times: number[] = [];
  /** queued frames from `head` on; a sent frame's slot is cleared at once (the arrays are compacted only now and then) */
  private readonly frames: (Frame | null)[] = [];
  private head = 0;
  /** false once the link is down: frames are dropped */
  up = true;
  dropped = 0;
  sent = 0;

  constructor(
    readonly link: Channel<Frame>,
    /** data rate in bits per cycle */
    readonly bitsPerCycle: number,
  ) {}

  serCycles(bytes: number): number {
    return Math.max(1, Math.ceil((bytes * 8) / this.bitsPerCycle - 1e-9));
  }

  /** Queue a frame ready at cycle `ready`; returns the cycle its tail leaves. */
  send(frame: Frame, ready: number): number {
    if (!this.up) {
      this.dropped++;
      return ready;
    }
    const start = Math.max(ready, this.busyUntil);
    const tail = start + this.serCycles(frame.wireBytes);
    this.busyUntil = tail;
    this.times.push(tail);
    this.frames.push(frame);
    return tail;
  }

  /** Push every frame whose tail time has come; call from the owner's tick. */
  flush(t: number): void {
    while (this.head < this.times.length && this.times[this.head]! <= t && this.link.canPush()) {
      const f = this.frames[this.head]!;
      this.frames[this.head] = null;
      this.head++;
      if (this.up) {
        this.link.push(f);
        this.sent++;
      } else this.dropped++;
    }
    if (this.head > 64 && this.head * 2 > this.times.length) {
      this.times.splice(0, this.head);
      this.frames.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Earliest cycle with a frame to push (Infinity when none). */
  nextTime(): number {
    return this.head < this.times.length ? this.times[this.head]! : Number.POSITIVE_INFINITY;
  }

  pending(): number {
    return this.times.length - this.head;
  }

  /** Link failure: everything queued is lost. */
  down(): void {
    this.up = false;
    this.dropped += this.pending();
    this.times.length = 0;
    this.frames.length = 0;
    this.head = 0;
  }

  reset(): void {
    this.busyUntil = 0;
    this.times.length = 0;
    this.frames.length = 0;
    this.head = 0;
    this.up = true;
    this.dropped = 0;
    this.sent = 0;
  }
}
