import { type Channel, Component, type Counter, NEVER, type NumChannel, type Scope } from '../../kernel/index.ts';
import { encodeIntq, INT_ERROR, Q_INTQ, type QueueEntry } from '../queues/types.ts';
import type { VpError } from '../vp/regfile.ts';

/** INTQ error codes of refused register stores: 32 + the register file's or HDQ's refusal kind. */
export const RE_VP_STORE_BASE = 32;
/** a doorbell arrived and no SDQ engine is attached to this NIC (the doorbell is refused, never held) */
export const RE_NO_SDQ = 31;

/**
 * Turns the front end's refusals into INTQ entries on the offending VP (docs/nic-rdma.md, "Two
 * NICs"): refused register stores and HDQ refusals (`regErr`, `hdqErr`) become `error` entries with
 * code 32 + kind and the store's address as detail; doorbells, when no SDQ engine takes them, are
 * refused with code 31 (so the register file is never held by them). One input per cycle, the
 * register file's first.
 */
export class VpReporter extends Component {
  private readonly cRefusals: Counter;
  private readonly cDoorbells: Counter;

  constructor(
    parent: Scope,
    name: string,
    private readonly regErr: Channel<VpError>,
    private readonly hdqErr: Channel<VpError>,
    private readonly doorbells: NumChannel | null,
    private readonly out: Channel<QueueEntry>,
  ) {
    super(parent, name);
    regErr.bindConsumer(this);
    hdqErr.bindConsumer(this);
    doorbells?.bindConsumer(this);
    out.bindProducer(this);
    this.cRefusals = this.counter('store_refusals');
    this.cDoorbells = this.counter('doorbells_without_sdq');
  }

  tick(t: number): number {
    if (!this.out.canPush()) return NEVER;
    const src = this.regErr.canPop() ? this.regErr : this.hdqErr.canPop() ? this.hdqErr : null;
    if (src !== null) {
      const e = src.pop();
      this.cRefusals.inc();
      this.out.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code: RE_VP_STORE_BASE + e.kind, vp: e.vp, info: e.addr % 2 ** 32, addr: e.addr }) });
    } else if (this.doorbells !== null && this.doorbells.canPop()) {
      const v = this.doorbells.pop();
      this.cDoorbells.inc();
      const vp = Math.floor(v / 2 ** 17);
      this.out.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type: INT_ERROR, code: RE_NO_SDQ, vp, info: v % 2 ** 17, addr: 0 }) });
    }
    return this.regErr.canPop() || this.hdqErr.canPop() || (this.doorbells !== null && this.doorbells.canPop()) ? t + 1 : NEVER;
  }
}
