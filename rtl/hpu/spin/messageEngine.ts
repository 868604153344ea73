/**
 * The message engine (PsPIN's mpq_engine): the message table and, per message, one explicit
 * state machine with PsPIN's named states:
 *
 *   FREE --first packet--> HEADER (header task queued) --issued--> HEADER_RUNNING --done--> PAYLOAD
 *   (FREE goes straight to PAYLOAD when the match entry has no header handler)
 *   PAYLOAD: every packet becomes a payload task (packets that arrived during HEADER*
 *            were held and are released now); when the last packet has arrived -> PAYLOAD_DRAINING
 *   PAYLOAD_DRAINING --no payload task outstanding--> COMPLETION (completion task queued)
 *            --issued--> COMPLETION_RUNNING --done--> completion event to the host, FREE
 *   (without a completion handler, or for a failed message, PAYLOAD_DRAINING ends the message)
 *
 * So the header handler runs once and alone, payload handlers run many at once after it, and the
 * completion handler runs once after every payload handler, before the completion event. A failed
 * handler (non-zero return, trap, cycle budget) fails the message: its later payload tasks are
 * discarded, no completion handler runs, and the event says why. Tasks go to the scheduler in the
 * order they became ready, one per cycle; reports come back one per cycle.
 */
import { Channel, Component, NEVER, type Scope } from '../../kernel/index.ts';
import type { MatchedPacket } from './inbound.ts';
import { L2_HANDLER_BASE, type SpinParams } from './params.ts';
import { type CompletionEvent, DONE_OK, HANDLER_COMPLETION, HANDLER_HEADER, HANDLER_PAYLOAD, type MatchEntry, type SpinPacket, type SpinReport, type SpinTask } from './types.ts';

export const MSG_FREE = 0;
export const MSG_HEADER = 1;
export const MSG_HEADER_RUNNING = 2;
export const MSG_PAYLOAD = 3;
export const MSG_PAYLOAD_DRAINING = 4;
export const MSG_COMPLETION = 5;
export const MSG_COMPLETION_RUNNING = 6;
export const MSG_STATE_NAMES = ['Free', 'Header', 'HeaderRunning', 'Payload', 'PayloadDraining', 'Completion', 'CompletionRunning'] as const;

export class MessageEngine extends Component {
  readonly state: Uint8Array;
  private readonly msgId: Int32Array;
  private readonly entryOf: Int32Array;
  private readonly expected: Int32Array;
  private readonly msgLen: Int32Array;
  private readonly source: Int32Array;
  private readonly arrived: Int32Array;
  private readonly outstanding: Int32Array;
  private readonly droppedBytes: Int32Array;
  private readonly flowControl: Uint8Array;
  private readonly failed: Uint8Array;
  private readonly reason: string[];
  private readonly held: SpinPacket[][];
  /** the CAM: message id -> table entry */
  private readonly cam = new Map<number, number>();
  private readonly freeSlots: number[] = [];
  /** tasks ready for the scheduler, oldest first */
  private readonly ready: SpinTask[] = [];
  private readyHead = 0;
  /** the host's event queue: every completion event while `keepEvents` (the default), none otherwise */
  readonly events: CompletionEvent[] = [];
  keepEvents = true;
  /** every completion event as it is sent (opt-in) */
  onEvent: ((e: CompletionEvent) => void) | null = null;
  refused = 0;
  camMisses = 0;
  discarded = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly params: SpinParams,
    private readonly inp: Channel<MatchedPacket>,
    private readonly reports: Channel<SpinReport>,
    readonly tasks: Channel<SpinTask>,
    private readonly entries: readonly MatchEntry[],
    private readonly handlerMask: readonly number[],
    private readonly memory: Uint8Array,
  ) {
    super(parent, name);
    inp.bindConsumer(this);
    reports.bindConsumer(this);
    tasks.bindProducer(this);
    const n = params.messageSlots;
    this.state = new Uint8Array(n);
    this.msgId = new Int32Array(n);
    this.entryOf = new Int32Array(n);
    this.expected = new Int32Array(n);
    this.msgLen = new Int32Array(n);
    this.source = new Int32Array(n);
    this.arrived = new Int32Array(n);
    this.outstanding = new Int32Array(n);
    this.droppedBytes = new Int32Array(n);
    this.flowControl = new Uint8Array(n);
    this.failed = new Uint8Array(n);
    this.reason = new Array<string>(n).fill('');
    this.held = Array.from({ length: n }, () => []);
    for (let i = n - 1; i >= 0; i--) this.freeSlots.push(i);
  }

  private has(slot: number, kind: number): boolean {
    return (this.handlerMask[this.entryOf[slot]!]! & (1 << kind)) !== 0;
  }

  private task(slot: number, kind: number, packet: SpinPacket | null): SpinTask {
    return { slot, msgId: this.msgId[slot]!, entry: this.entryOf[slot]!, kind, packet, msgLen: this.msgLen[slot]!, msgPackets: this.expected[slot]!, source: this.source[slot]!, droppedBytes: this.droppedBytes[slot]!, flowControl: this.flowControl[slot]!, cluster: -1, l1Slot: -1, readyAt: 0 };
  }

  tick(t: number): number {
    if (this.reports.canPop()) this.onReport(this.reports.pop(), t);
    if (this.inp.canPop()) this.onPacket(this.inp.pop(), t);
    if (this.readyHead < this.ready.length && this.tasks.canPush()) this.issue();
    // one report and one packet per cycle: come back while more are waiting
    return this.readyHead < this.ready.length || this.reports.canPop() || this.inp.canPop() ? t + 1 : NEVER;
  }

  /** A packet from the inbound engine. */
  private onPacket(m: MatchedPacket, t: number): void {
    const p = m.packet;
    let slot: number;
    if (p.index === 0) {
      if (m.entry < 0 || this.freeSlots.length === 0 || this.cam.has(p.msgId)) {
        this.refused++;
        return;
      }
      slot = this.freeSlots.pop()!;
      this.cam.set(p.msgId, slot);
      this.start(slot, p, m.entry);
    } else {
      const s = this.cam.get(p.msgId);
      if (s === undefined) {
        this.camMisses++;
        return;
      }
      slot = s;
    }
    this.arrived[slot]!++;
    switch (this.state[slot]) {
      case MSG_HEADER:
      case MSG_HEADER_RUNNING:
        this.held[slot]!.push(p);
        break;
      case MSG_PAYLOAD:
        this.payloadTask(slot, p);
        break;
      default:
        throw new Error(`${this.path}: packet ${p.index} of message ${p.msgId} in state ${MSG_STATE_NAMES[this.state[slot]!]}`);
    }
    this.afterArrival(slot, t);
  }

  /** FREE -> HEADER or PAYLOAD: a new message in table entry `slot`. */
  private start(slot: number, p: SpinPacket, entry: number): void {
    this.msgId[slot] = p.msgId;
    this.entryOf[slot] = entry;
    this.expected[slot] = p.count;
    this.msgLen[slot] = p.msgLen;
    this.source[slot] = p.source;
    this.arrived[slot] = 0;
    this.outstanding[slot] = 0;
    this.droppedBytes[slot] = 0;
    this.flowControl[slot] = 0;
    this.failed[slot] = 0;
    this.reason[slot] = '';
    // the message's HPU memory: the match entry's initial contents, the rest zero
    const base = L2_HANDLER_BASE + slot * this.params.hpuMemBytes;
    this.memory.fill(0, base, base + this.params.hpuMemBytes);
    this.memory.set(this.entries[entry]!.hpuMemInit, base);
    if (this.has(slot, HANDLER_HEADER)) {
      this.state[slot] = MSG_HEADER;
      this.ready.push(this.task(slot, HANDLER_HEADER, p));
    } else this.state[slot] = MSG_PAYLOAD;
  }

  private payloadTask(slot: number, p: SpinPacket): void {
    if (!this.has(slot, HANDLER_PAYLOAD)) return;
    this.outstanding[slot]!++;
    this.ready.push(this.task(slot, HANDLER_PAYLOAD, p));
  }

  private afterArrival(slot: number, t: number): void {
    if (this.state[slot] === MSG_PAYLOAD && this.arrived[slot]! >= this.expected[slot]!) {
      this.state[slot] = MSG_PAYLOAD_DRAINING;
      this.drain(slot, t);
    }
  }

  /** PAYLOAD_DRAINING: when no payload task is outstanding, on to COMPLETION (or the end). */
  private drain(slot: number, t: number): void {
    if (this.outstanding[slot] !== 0) return;
    if (this.failed[slot] === 0 && this.has(slot, HANDLER_COMPLETION)) {
      this.state[slot] = MSG_COMPLETION;
      this.ready.push(this.task(slot, HANDLER_COMPLETION, null));
    } else this.finish(slot, t, 0);
  }

  /** The completion event goes to the host; the entry becomes FREE. */
  private finish(slot: number, t: number, value: number): void {
    const e: CompletionEvent = { msgId: this.msgId[slot]!, cycle: t, ok: this.failed[slot] === 0, reason: this.reason[slot]!, value, droppedBytes: this.droppedBytes[slot]!, flowControl: this.flowControl[slot] !== 0, packets: this.expected[slot]! };
    if (this.keepEvents) this.events.push(e);
    this.cam.delete(this.msgId[slot]!);
    this.held[slot]!.length = 0;
    this.state[slot] = MSG_FREE;
    this.freeSlots.push(slot);
    this.onEvent?.(e);
  }

  /** The head ready task goes to the scheduler (HEADER -> HEADER_RUNNING, COMPLETION -> COMPLETION_RUNNING). */
  private issue(): void {
    const task = this.ready[this.readyHead]!;
    this.ready[this.readyHead++] = undefined as unknown as SpinTask;
    if (this.readyHead > 1024 && this.readyHead * 2 > this.ready.length) {
      this.ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
    const slot = task.slot;
    if (task.kind === HANDLER_PAYLOAD && this.failed[slot] !== 0) {
      // the message failed: its later payload handlers do not run
      this.discarded++;
      this.outstanding[slot]!--;
      if (this.state[slot] === MSG_PAYLOAD_DRAINING) this.drain(slot, this.sim.cycle);
      return;
    }
    if (task.kind === HANDLER_HEADER) this.state[slot] = MSG_HEADER_RUNNING;
    else if (task.kind === HANDLER_COMPLETION) {
      task.droppedBytes = this.droppedBytes[slot]!;
      task.flowControl = this.flowControl[slot]!;
      this.state[slot] = MSG_COMPLETION_RUNNING;
    }
    this.tasks.push(task);
  }

  private fail(slot: number, why: string): void {
    if (this.failed[slot] === 0) {
      this.failed[slot] = 1;
      this.reason[slot] = why;
    }
  }

  /** A handler finished (or a payload task was dropped by flow control). */
  private onReport(r: SpinReport, t: number): void {
    const task = r.task;
    const slot = task.slot;
    if (r.dropped) {
      this.droppedBytes[slot]! += task.packet!.payload.length;
      this.flowControl[slot] = 1;
    } else if (r.status !== DONE_OK) this.fail(slot, r.reason);
    switch (task.kind) {
      case HANDLER_HEADER: {
        this.state[slot] = MSG_PAYLOAD;
        const held = this.held[slot]!;
        for (const p of held) {
          if (this.failed[slot] !== 0) this.discarded++;
          else this.payloadTask(slot, p);
        }
        held.length = 0;
        this.afterArrival(slot, t);
        break;
      }
      case HANDLER_PAYLOAD:
        this.outstanding[slot]!--;
        if (this.state[slot] === MSG_PAYLOAD_DRAINING) this.drain(slot, t);
        break;
      default:
        this.finish(slot, t, r.value);
    }
  }

  /** No task waiting to be issued and no packet waiting. */
  idle(): boolean {
    return this.readyHead >= this.ready.length && !this.inp.canPop();
  }

  /** Messages not yet FREE (for the end-of-run check). */
  busyMessages(): number {
    return this.params.messageSlots - this.freeSlots.length;
  }
}
