import { Channel, Component, type Counter, NEVER, NumChannel, type Scope } from '../../kernel/index.ts';
import type { Tlp } from '../pcie/tlp.ts';
import { Q_EPQ, Q_EQ, Q_INTQ, Q_MPQ, QS_REGISTER, QS_RPTR, type QueueSwWrite } from '../queues/types.ts';
import {
  NC_EPQ_RPTR,
  NC_EPQ_SIZE,
  NC_INTQ_RPTR,
  NC_INTQ_SIZE,
  VE_BAD_ACCESS,
  VE_BAD_ADDRESS,
  VE_BAD_DOORBELL,
  VE_BAD_REGISTER,
  VE_BAD_VALUE,
  VE_FOREIGN_VP,
  VE_NOT_THIS_KIND,
  VE_PRIVILEGED,
  VE_READ_ONLY,
  type VpConfig,
  VR_DOORBELL,
  VR_EQ_BASE,
  VR_EQ_RPTR,
  VR_EQ_SIZE,
  VR_EQ_WPTR,
  VR_HDQ_FREE,
  VR_HDQ_WINDOW,
  VR_KEY,
  VR_LAST,
  VR_MPQ_BASE,
  VR_MPQ_RPTR,
  VR_MPQ_SIZE,
  VR_MPQ_WPTR,
  VR_SDQ_BASE,
  VR_SDQ_SIZE,
  VR_STORED,
  VR_BASE_VIRTUAL,
} from './regmap.ts';

/** A store into a PIO VP's HDQ window, handed to the HDQ. */
export interface HdqWrite {
  vp: number;
  /** byte offset inside the window */
  offset: number;
  data: Uint8Array;
}

/** A refused store: an INTQ entry for the offending VP (the writer; the page's VP for kernel stores). */
export interface VpError {
  vp: number;
  kind: number;
  /** NIC address of the store */
  addr: number;
  cycle: number;
}

/** the control page's registers, by offset / 8: the queue kind and what the register is */
const CTL_KIND = [Q_INTQ, Q_INTQ, Q_INTQ, Q_EPQ, Q_EPQ, Q_EPQ];
const CTL_STORED = 6;

/**
 * The virtual ports' memory-mapped registers (docs/nic-frontend.md, "Virtual ports") and the NIC
 * control page after them.
 *
 * One PIO write TLP per cycle from `pioIn` (the PCIe endpoint's PIO port), when all four outputs
 * have room. Its address selects a page (VP 0 .. vps - 1, or the control page at index vps) and an
 * offset. In order, the first failing rule refuses it (an entry on `errOut`, nothing else
 * changes): outside every page (bad_address); a process store to the control page (privileged) or
 * to a page that is not its own VP's (foreign_vp); the key from a process (privileged); in the HDQ
 * window of a DMA VP, or an SDQ register / doorbell of a PIO VP (not_this_kind; these two rules
 * look at the 8-byte register slot the store falls in); a register store not 8 bytes at an
 * 8-aligned offset (bad_access); no register there (bad_register); HDQ_FREE, EQ_WPTR, MPQ_WPTR
 * (read_only); a bad value (bad_value, bad_doorbell). Otherwise a register store is applied in the
 * cycle the TLP is popped (visible through `reg()` from the next evaluation), a doorbell is sent
 * on `doorbellOut` (vp * 2^17 + count), a window store goes to `hdqOut`, and a store to a queue's
 * size register (EQ_SIZE, MPQ_SIZE, INTQ_SIZE, EPQ_SIZE) or read pointer goes to the queue engine
 * on `queueOut`: a registration with the base register's current value (size 0 unregisters), or
 * the new read pointer (EQ_BASE / MPQ_BASE bit 0 set: a virtual-mode registration, with the item in
 * bits 32-47 of the size register and the VP's KEY). Registers are a plain array owned by this block; other blocks learn of
 * changes only through its output channels (the SDQ samples SDQ_BASE / SDQ_SIZE when a doorbell
 * reaches it).
 */
export class VpRegisterFile extends Component {
  readonly pioIn: Channel<Tlp>;
  readonly hdqOut: Channel<HdqWrite>;
  readonly doorbellOut: NumChannel;
  readonly errOut: Channel<VpError>;
  readonly queueOut: Channel<QueueSwWrite>;
  readonly vps: number;
  private readonly regs: Float64Array;
  private readonly ctl: Float64Array;
  private readonly cStores: Counter;
  private readonly cErrors: Counter;

  constructor(
    parent: Scope,
    name: string,
    readonly cfg: VpConfig,
    /** the PCIe endpoint's PIO port (omitted: the block has its own input channel) */
    pioIn?: Channel<Tlp>,
    /** the queue engine's software port (omitted: the block has its own output channel) */
    queueOut?: Channel<QueueSwWrite>,
  ) {
    super(parent, name);
    this.vps = cfg.pioVps + cfg.dmaVps;
    this.regs = new Float64Array(this.vps * VR_STORED);
    this.ctl = new Float64Array(CTL_STORED);
    this.pioIn = (pioIn ?? new Channel<Tlp>(this, 'pioIn', { capacity: 2, latency: 1 })).bindConsumer(this);
    this.hdqOut = new Channel<HdqWrite>(this, 'hdqOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.doorbellOut = new NumChannel(this, 'doorbellOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.errOut = new Channel<VpError>(this, 'errOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.queueOut = (queueOut ?? new Channel<QueueSwWrite>(this, 'queueOut', { capacity: 4, latency: 1 })).bindProducer(this);
    this.cStores = this.counter('register_stores');
    this.cErrors = this.counter('refused_stores');
  }

  override reset(): void {
    this.regs.fill(0);
    this.ctl.fill(0);
  }

  /** Current value of a stored register (offset VR_KEY .. VR_MPQ_RPTR) of a VP. */
  reg(vp: number, offset: number): number {
    return this.regs[vp * VR_STORED + offset / 8]!;
  }

  /** Current value of a control-page register (offset NC_*). */
  control(offset: number): number {
    return this.ctl[offset / 8]!;
  }

  isPio(vp: number): boolean {
    return vp < this.cfg.pioVps;
  }

  private value(data: Uint8Array): number {
    const dv = new DataView(data.buffer, data.byteOffset, 8);
    return dv.getUint32(0, true) + dv.getUint32(4, true) * 2 ** 32;
  }

  /** The error kind of a value stored to a base, size or pointer register, or -1. */
  private valueError(what: 'base' | 'qsize' | 'sdqsize' | 'ptr', v: number): number {
    if (v >= 2 ** 48) return VE_BAD_VALUE;
    if (what === 'base') return v % 64 !== 0 ? VE_BAD_VALUE : -1;
    if (what === 'ptr') return -1;
    if (v === 0 && what === 'qsize') return -1;
    return v < 1 || v > 65536 || (v & (v - 1)) !== 0 ? VE_BAD_VALUE : -1;
  }

  /** The error kind of a store to the control page, or -1 when it is accepted. */
  private judgeControl(off: number, writer: number, data: Uint8Array): number {
    if (writer !== -1) return VE_PRIVILEGED;
    if (off % 8 !== 0 || data.length !== 8) return VE_BAD_ACCESS;
    if (off > NC_EPQ_RPTR) return VE_BAD_REGISTER;
    const v = this.value(data);
    const r = (off / 8) % 3;
    return this.valueError(r === 0 ? 'base' : r === 1 ? 'qsize' : 'ptr', v);
  }

  /** The error kind of a store, or -1 when it is accepted. */
  private judge(vp: number, off: number, writer: number, data: Uint8Array): number {
    if (vp < 0 || vp > this.vps) return VE_BAD_ADDRESS;
    if (vp === this.vps) return this.judgeControl(off, writer, data);
    if (writer !== -1 && writer !== vp) return VE_FOREIGN_VP;
    if (off >= VR_HDQ_WINDOW) return this.isPio(vp) ? -1 : VE_NOT_THIS_KIND;
    const slot = off - (off % 8); // the 8-byte register the store falls in
    if (slot === VR_KEY && writer !== -1) return VE_PRIVILEGED;
    if ((slot === VR_SDQ_BASE || slot === VR_SDQ_SIZE || slot === VR_DOORBELL) && this.isPio(vp)) return VE_NOT_THIS_KIND;
    if (off % 8 !== 0 || data.length !== 8) return VE_BAD_ACCESS;
    if (off > VR_LAST) return VE_BAD_REGISTER;
    if (off === VR_HDQ_FREE || off === VR_EQ_WPTR || off === VR_MPQ_WPTR) return VE_READ_ONLY;
    const v = this.value(data);
    if (v >= 2 ** 48) return VE_BAD_VALUE;
    // EQ / MPQ: base bit 0 selects virtual mode; size bits 32-47 name the memory-checker item (docs)
    if (off === VR_EQ_BASE || off === VR_MPQ_BASE) return v % 64 === 0 || v % 64 === VR_BASE_VIRTUAL ? -1 : VE_BAD_VALUE;
    if (off === VR_EQ_SIZE || off === VR_MPQ_SIZE) return this.valueError('qsize', v % 2 ** 32);
    switch (off) {
      case VR_KEY:
        return v >= 2 ** 32 ? VE_BAD_VALUE : -1;
      case VR_SDQ_BASE:
        return this.valueError('base', v);
      case VR_SDQ_SIZE:
        return this.valueError('sdqsize', v);
      case VR_EQ_RPTR:
      case VR_MPQ_RPTR:
        return this.valueError('ptr', v);
      default: {
        const size = this.reg(vp, VR_SDQ_SIZE);
        return size === 0 || v < 1 || v > size ? VE_BAD_DOORBELL : -1;
      }
    }
  }

  private toQueues(op: number, kind: number, vp: number, base: number, size: number, ptr: number): void {
    this.queueOut.push({ op, kind, vp, base, size, count: ptr });
  }

  /**
   * A registration of the VP's EQ or MPQ: the base register (bit 0: virtual) and the size register's
   * value `v` (low 32 bits the size, bits 32-47 the item of a virtual queue, checked with the VP's KEY).
   */
  private registerQueue(kind: number, vp: number, baseReg: number, v: number): void {
    const b = this.reg(vp, baseReg);
    const virtual = b % 64 === VR_BASE_VIRTUAL;
    const size = v % 2 ** 32;
    this.queueOut.push({ op: QS_REGISTER, kind, vp, base: b - (b % 64), size, count: 0, virtual, item: virtual ? Math.floor(v / 2 ** 32) : 0, key: virtual ? this.reg(vp, VR_KEY) : 0 });
  }

  /** An accepted store to the control page. */
  private applyControl(off: number, v: number): void {
    const r = off / 8;
    this.ctl[r] = v;
    const kind = CTL_KIND[r]!;
    if (off === NC_INTQ_SIZE || off === NC_EPQ_SIZE) this.toQueues(QS_REGISTER, kind, 0, this.ctl[r - 1]!, v, 0);
    else if (off === NC_INTQ_RPTR || off === NC_EPQ_RPTR) this.toQueues(QS_RPTR, kind, 0, 0, 0, v);
  }

  /** An accepted store to a VP register. */
  private apply(vp: number, off: number, v: number): void {
    if (off === VR_DOORBELL) {
      this.doorbellOut.push(vp * 2 ** 17 + v);
      return;
    }
    this.regs[vp * VR_STORED + off / 8] = v;
    if (off === VR_EQ_SIZE) this.registerQueue(Q_EQ, vp, VR_EQ_BASE, v);
    else if (off === VR_MPQ_SIZE) this.registerQueue(Q_MPQ, vp, VR_MPQ_BASE, v);
    else if (off === VR_EQ_RPTR) this.toQueues(QS_RPTR, Q_EQ, vp, 0, 0, v);
    else if (off === VR_MPQ_RPTR) this.toQueues(QS_RPTR, Q_MPQ, vp, 0, 0, v);
  }

  tick(t: number): number {
    if (!this.pioIn.canPop() || !this.hdqOut.canPush() || !this.doorbellOut.canPush() || !this.errOut.canPush() || !this.queueOut.canPush()) return NEVER;
    const p = this.pioIn.pop();
    const writer = p.pio === null ? -1 : p.pio.writer;
    const rel = p.addr - this.cfg.barBase;
    const vp = rel < 0 ? -1 : Math.floor(rel / this.cfg.pageBytes);
    const off = rel < 0 ? 0 : rel - vp * this.cfg.pageBytes;
    const data = p.data!;
    const err = this.judge(vp, off, writer, data);
    if (err >= 0) {
      this.errOut.push({ vp: writer !== -1 ? writer : vp, kind: err, addr: p.addr, cycle: t });
      this.cErrors.inc();
    } else if (vp === this.vps) {
      this.applyControl(off, this.value(data));
      this.cStores.inc();
    } else if (off >= VR_HDQ_WINDOW) {
      this.hdqOut.push({ vp, offset: off - VR_HDQ_WINDOW, data });
    } else {
      this.apply(vp, off, this.value(data));
      this.cStores.inc();
    }
    return this.pioIn.canPop() ? t + 1 : NEVER;
  }
}
