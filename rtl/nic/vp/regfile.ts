import { Channel, Component, type Counter, NEVER, NumChannel, type Scope } from '../../kernel/index.ts';
import type { Tlp } from '../pcie/tlp.ts';
import {
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
  VR_EQ_SIZE,
  VR_HDQ_FREE,
  VR_HDQ_WINDOW,
  VR_KEY,
  VR_MPQ_BASE,
  VR_MPQ_SIZE,
  VR_SDQ_BASE,
  VR_SDQ_SIZE,
  VR_STORED,
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

/**
 * The virtual ports' memory-mapped registers (docs/nic-frontend.md, "Virtual ports").
 *
 * One PIO write TLP per cycle from `pioIn` (the PCIe endpoint's PIO port), when all three outputs
 * have room. Its address selects a VP page and an offset. In order, the first failing rule refuses
 * it (an entry on `errOut`, nothing else changes): outside every page (bad_address); a process
 * store to a page that is not its own VP's (foreign_vp); the key from a process (privileged);
 * in the HDQ window of a DMA VP, or an SDQ register / doorbell of a PIO VP (not_this_kind; these
 * two rules look at the 8-byte register slot the store falls in); a
 * register store not 8 bytes at an 8-aligned offset (bad_access); no register there
 * (bad_register); HDQ_FREE (read_only); a bad value (bad_value, bad_doorbell). Otherwise a
 * register store is applied in the cycle the TLP is popped (visible through `reg()` from the next
 * evaluation), a doorbell is sent on `doorbellOut` (vp * 2^17 + count), and a window store goes to
 * `hdqOut`. Registers are a plain array owned by this block; other blocks learn of changes only
 * through its output channels.
 */
export class VpRegisterFile extends Component {
  readonly pioIn: Channel<Tlp>;
  readonly hdqOut: Channel<HdqWrite>;
  readonly doorbellOut: NumChannel;
  readonly errOut: Channel<VpError>;
  readonly vps: number;
  private readonly regs: Float64Array;
  private readonly cStores: Counter;
  private readonly cErrors: Counter;

  constructor(
    parent: Scope,
    name: string,
    readonly cfg: VpConfig,
    /** the PCIe endpoint's PIO port (omitted: the block has its own input channel) */
    pioIn?: Channel<Tlp>,
  ) {
    super(parent, name);
    this.vps = cfg.pioVps + cfg.dmaVps;
    this.regs = new Float64Array(this.vps * VR_STORED);
    this.pioIn = (pioIn ?? new Channel<Tlp>(this, 'pioIn', { capacity: 2, latency: 1 })).bindConsumer(this);
    this.hdqOut = new Channel<HdqWrite>(this, 'hdqOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.doorbellOut = new NumChannel(this, 'doorbellOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.errOut = new Channel<VpError>(this, 'errOut', { capacity: 4, latency: 1 }).bindProducer(this);
    this.cStores = this.counter('register_stores');
    this.cErrors = this.counter('refused_stores');
  }

  override reset(): void {
    this.regs.fill(0);
  }

  /** Current value of a stored register (offset VR_KEY .. VR_SDQ_SIZE) of a VP. */
  reg(vp: number, offset: number): number {
    return this.regs[vp * VR_STORED + offset / 8]!;
  }

  isPio(vp: number): boolean {
    return vp < this.cfg.pioVps;
  }

  /** The error kind of a store, or -1 when it is accepted. */
  private judge(vp: number, off: number, writer: number, data: Uint8Array): number {
    if (vp < 0 || vp >= this.vps) return VE_BAD_ADDRESS;
    if (writer !== -1 && writer !== vp) return VE_FOREIGN_VP;
    if (off >= VR_HDQ_WINDOW) return this.isPio(vp) ? -1 : VE_NOT_THIS_KIND;
    const slot = off - (off % 8); // the 8-byte register the store falls in
    if (slot === VR_KEY && writer !== -1) return VE_PRIVILEGED;
    if ((slot === VR_SDQ_BASE || slot === VR_SDQ_SIZE || slot === VR_DOORBELL) && this.isPio(vp)) return VE_NOT_THIS_KIND;
    if (off % 8 !== 0 || data.length !== 8) return VE_BAD_ACCESS;
    if (off > VR_HDQ_FREE) return VE_BAD_REGISTER;
    if (off === VR_HDQ_FREE) return VE_READ_ONLY;
    const dv = new DataView(data.buffer, data.byteOffset, 8);
    const hi = dv.getUint32(4, true);
    const v = dv.getUint32(0, true) + hi * 2 ** 32;
    if (hi >= 0x10000) return VE_BAD_VALUE;
    switch (off) {
      case VR_KEY:
        return hi !== 0 ? VE_BAD_VALUE : -1;
      case VR_EQ_BASE:
      case VR_MPQ_BASE:
      case VR_SDQ_BASE:
        return v % 64 !== 0 ? VE_BAD_VALUE : -1;
      case VR_EQ_SIZE:
      case VR_MPQ_SIZE:
      case VR_SDQ_SIZE:
        return v < 1 || v > 65536 || (v & (v - 1)) !== 0 ? VE_BAD_VALUE : -1;
      default: {
        const size = this.reg(vp, VR_SDQ_SIZE);
        return size === 0 || v < 1 || v > size ? VE_BAD_DOORBELL : -1;
      }
    }
  }

  tick(t: number): number {
    if (!this.pioIn.canPop() || !this.hdqOut.canPush() || !this.doorbellOut.canPush() || !this.errOut.canPush()) return NEVER;
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
    } else if (off >= VR_HDQ_WINDOW) {
      this.hdqOut.push({ vp, offset: off - VR_HDQ_WINDOW, data });
    } else {
      const dv = new DataView(data.buffer, data.byteOffset, 8);
      const v = dv.getUint32(0, true) + dv.getUint32(4, true) * 2 ** 32;
      if (off === VR_DOORBELL) this.doorbellOut.push(vp * 2 ** 17 + v);
      else this.regs[vp * VR_STORED + off / 8] = v;
      this.cStores.inc();
    }
    return this.pioIn.canPop() ? t + 1 : NEVER;
  }
}
