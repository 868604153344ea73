import { type Channel, Component, type Counter, NEVER, Reg, type Scope } from '../../kernel/index.ts';
import { encodeDescriptor } from '../desc/encode.ts';
import { blankDesc, DESC_COLL, DESC_PUT, DR_OK, type NicDesc } from '../desc/format.ts';
import type { DispatchedDesc } from '../vp/readout.ts';

/** Expander states (one explicit state machine). */
const S_PASS = 0; // forward every descriptor; a valid collective is loaded and its child 0 sent
const S_CHILD = 1; // send the held collective's next child, one per cycle
export const COLL_STATE_NAMES = ['pass', 'child'] as const;

/**
 * The PUT a collective descriptor sends to child `i` (docs/nic-rdma.md, "Collective descriptors"):
 * the collective's source buffer (local item, key, address, physical flag), length, user tag and
 * event data; the child's node, VP, item, key and address as the destination. The remote event is
 * the collective's remote-event flag (each child gets one); the local event and the interrupt only
 * on the last child (the parent's one local event at the end).
 */
export function childPut(c: NicDesc, i: number): NicDesc {
  const ch = c.children[i]!;
  const last = i + 1 === c.children.length;
  const d = blankDesc(DESC_PUT, 64);
  d.localEvent = c.localEvent && last;
  d.remoteEvent = c.remoteEvent;
  d.interrupt = c.interrupt && last;
  d.connect = c.connect;
  d.physical = c.physical;
  d.dstNode = ch.node;
  d.dstVp = ch.vp;
  d.userTag = c.userTag;
  d.eventData = c.eventData;
  d.length = c.length;
  d.localKey = c.localKey;
  d.localItem = c.localItem;
  d.localAddr = c.localAddr;
  d.remoteKey = ch.key;
  d.remoteItem = ch.item;
  d.remoteAddr = ch.addr;
  return d;
}

/**
 * Collective-descriptor expander (docs/nic-rdma.md, "Collective descriptors"), between the
 * readout and the RDMA transmit engine's descriptor input: a collective descriptor (seed 2.5:
 * "can be used for multiple times in hardware") becomes one RDMA PUT per child of the broadcast
 * tree, in child order, one per cycle while `out` has room; every other descriptor (and a
 * collective the decoder rejected, so its VP gets the decode error) passes unchanged. The engine
 * runs the children's PUTs one after another, each reading the same source buffer.
 *
 * State: `state` (S_PASS / S_CHILD), `child` (index of the next child to send), the held
 * collective (a register holding the dispatched descriptor).
 */
export class CollExpander extends Component {
  private readonly state: Reg;
  private readonly child: Reg;
  private held: DispatchedDesc | null = null;
  readonly stats: { collectives: Counter; children: Counter; passed: Counter };

  constructor(
    parent: Scope,
    name: string,
    readonly inp: Channel<DispatchedDesc>,
    readonly out: Channel<DispatchedDesc>,
  ) {
    super(parent, name);
    inp.bindConsumer(this);
    out.bindProducer(this);
    this.state = new Reg(this, 'state', 1, S_PASS);
    this.child = new Reg(this, 'child', 3, 0);
    this.stats = { collectives: this.counter('collectives'), children: this.counter('children'), passed: this.counter('passed') };
  }

  /** Nothing held and nothing waiting at the input. */
  get idle(): boolean {
    return this.state.q === S_PASS && !this.inp.canPop();
  }

  /** Push child k of `c` and return the next state (S_CHILD while children remain). */
  private sendChild(c: DispatchedDesc, k: number, t: number): number {
    const d = childPut(c.desc, k);
    this.out.push({ vp: c.vp, seq: c.seq, dma: c.dma, bytes: encodeDescriptor(d), reason: DR_OK, field: '', desc: d, cycle: t, fence: true });
    this.stats.children.inc();
    this.child.d = k + 1;
    return k + 1 < c.desc.children.length ? S_CHILD : S_PASS;
  }

  tick(t: number): number {
    if (!this.out.canPush()) return NEVER; // woken by the engine's pop
    if (this.state.q === S_CHILD) {
      const c = this.held!;
      const next = this.sendChild(c, this.child.q, t);
      this.state.d = next;
      if (next === S_PASS) this.held = null;
      return t + 1;
    }
    if (!this.inp.canPop()) return NEVER; // woken by the readout's push
    const x = this.inp.pop();
    if (x.reason !== DR_OK || x.desc.kind !== DESC_COLL) {
      this.out.push(x);
      this.stats.passed.inc();
      return t + 1;
    }
    this.stats.collectives.inc();
    const next = this.sendChild(x, 0, t);
    this.state.d = next;
    if (next === S_CHILD) this.held = x;
    return t + 1;
  }
}
