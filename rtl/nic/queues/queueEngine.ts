import { Channel, Component, type Counter, Fifo, NEVER, Reg, type Scope, Sram } from '../../kernel/index.ts';
import { type AtcReq, PAGE_BYTES } from '../atc/types.ts';
import type { MemCheckReq } from '../memcheck/types.ts';
import { DmaWrite } from '../pcie/tlp.ts';
import { BufferCheck } from '../rdma/bufferCheck.ts';
import {
  encodeIntq,
  INT_QUEUE_FAULT,
  INT_QUEUE_FULL,
  INT_QUEUE_UNREGISTERED,
  INT_SW_ERROR,
  Q_ENTRY_BYTES,
  Q_EPQ,
  Q_INTQ,
  Q_MAX_SIZE,
  type QueueConfig,
  queueConfig,
  type QueueEntry,
  type QueueSwWrite,
  QS_CONSUME,
  QS_REGISTER,
  QS_RPTR,
} from './types.ts';

const F_BASE = 0;
const F_SIZE = 1;
const F_PROD = 2;
const F_CONS = 3;
const F_OVF = 4;
const F_VIRT = 5;
const F_ITEM = 6;
const F_KEY = 7;

/** The memory-checker source and ATC responses the engine uses for virtual-mode queues. */
export interface QueueXlatePorts {
  mcReq: Channel<MemCheckReq>;
  mcResp: Channel<MemCheckReq>;
  xlIn: Channel<AtcReq>;
}

/**
 * What the engine does with the entry at the head of an input this cycle: one explicit decision
 * with named outcomes (the full rule of docs/nic-rdma.md).
 */
const D_WRITE = 0; // written to host memory at base + (prod mod size) x entry bytes; prod + 1
const D_DROP_FULL = 1; // EQ / MPQ / EPQ full: dropped, overflow count + 1, INTQ queue_full entry
const D_DROP_UNREG = 2; // EQ / MPQ not registered: dropped, INTQ queue_unregistered entry
const D_DISCARD = 3; // EPQ disabled or not registered: discarded and counted (debug queue)
const D_STALL_INTQ = 4; // INTQ full or not registered: the entry waits (never lost)
const D_STALL = 5; // no room downstream this cycle (DMA channel, internal interrupt FIFO, row hazard)
const D_BAD = 6; // malformed entry (kind, VP or size): dropped, INTQ sw_error entry
const D_XLATE = 7; // room in a virtual-mode EQ / MPQ: the entry is held while its address is checked and translated
const INTERNAL_INTQ = 4;

/**
 * The NIC's write side of the host-memory queues (seed 003, 2.7): EQ and MPQ per VP, one INTQ and
 * one EPQ, each a ring in host memory whose write port is the NIC and whose read port is software
 * (docs/nic-rdma.md, "Host-memory queues").
 *
 * State: a register file of 2 x vps + 2 rows (EQ of VP v: row v; MPQ: vps + v; INTQ: 2 vps; EPQ:
 * 2 vps + 1), each base, size, producer index, consumer index (free-running counts) and overflow
 * count; `irq`, the interrupt line, is 1 while the INTQ holds an entry.
 *
 * Per cycle: one software write from `swIn` (register or consume) applied at the edge, when the
 * internal interrupt FIFO has room for the refusal it may cause; and one entry, from the internal
 * interrupt FIFO (entries the engine generated itself) if that can go, else from `entIn`, decided
 * by the rule above and, when written, sent as one DmaWrite on `dmaOut` (to the PCIe endpoint). An
 * entry whose row the software write of the same cycle changes waits one cycle (row hazard).
 *
 * Virtual-address mode (EQ / MPQ registered with `virtual`, docs/nic-rdma.md): an entry with room
 * is held (D_XLATE) while the memory checker (`xlate.mcReq` / `mcResp`, acting for the VP with the
 * row's item and key) and the ATC (`xlate.xlIn`) check and translate its slot; then it is written
 * at the physical address (producer + 1) or dropped with an INTQ queue_fault entry (producer
 * unchanged). One entry at a time: entIn waits behind it (the internal FIFO still goes), and a
 * software write to its row waits.
 */
export class QueueEngine extends Component {
  readonly cfg: QueueConfig;
  readonly entIn: Channel<QueueEntry>;
  readonly swIn: Channel<QueueSwWrite>;
  readonly dmaOut: Channel<DmaWrite>;
  /** interrupt line: 1 while the INTQ is not empty */
  readonly irq: Reg;
  readonly rows: Sram;
  private readonly intFifo: Fifo<QueueEntry>;
  private readonly rowsN: number;
  private readonly space: number;
  private readonly c: { written: Counter[]; dropFull: Counter; dropUnreg: Counter; discarded: Counter; bad: Counter; swRefused: Counter; faults: Counter };
  /** virtual mode: the check-and-translate step, the entry it holds (null: none) and that entry's row */
  private readonly xl: BufferCheck;
  private xlEntry: QueueEntry | null = null;
  private xlRow = -1;

  constructor(
    parent: Scope,
    name: string,
    cfg: Partial<QueueConfig> = {},
    dmaOut?: Channel<DmaWrite>,
    /** the memory checker's queue-writer source and its ATC responses (omitted: virtual-mode registrations are refused) */
    private readonly xlate: QueueXlatePorts | null = null,
  ) {
    super(parent, name);
    const c = queueConfig(cfg);
    this.cfg = c;
    this.rowsN = 2 * c.vps + 2;
    this.space = 2 ** c.addrBits;
    this.entIn = new Channel<QueueEntry>(this, 'entIn', { capacity: c.inCapacity, latency: 1 }).bindConsumer(this);
    this.swIn = new Channel<QueueSwWrite>(this, 'swIn', { capacity: 2, latency: 1 }).bindConsumer(this);
    this.dmaOut = (dmaOut ?? new Channel<DmaWrite>(this, 'dmaOut', { capacity: 2, latency: 1 })).bindProducer(this);
    this.irq = new Reg(this, 'irq', 1, 0);
    this.rows = new Sram(this, 'rows', { depth: this.rowsN, writePorts: 2, fields: { base: 'f64', size: 'u32', prod: 'f64', cons: 'f64', ovf: 'u32', virt: 'u32', item: 'u32', key: 'f64' } });
    this.xl = new BufferCheck(1);
    if (xlate !== null) {
      xlate.mcReq.bindProducer(this);
      xlate.mcResp.bindConsumer(this);
      xlate.xlIn.bindConsumer(this);
    }
    this.intFifo = new Fifo<QueueEntry>(this, INTERNAL_INTQ);
    this.c = {
      written: ['eq', 'mpq', 'intq', 'epq'].map((k) => this.counter(`written_${k}`)),
      dropFull: this.counter('dropped_full'),
      dropUnreg: this.counter('dropped_unregistered'),
      discarded: this.counter('epq_discarded'),
      bad: this.counter('bad_entries'),
      swRefused: this.counter('sw_refused'),
      faults: this.counter('queue_faults'),
    };
  }

  /** The engine's counts (statistics `written_<kind>`, `dropped_full`, ...). */
  get counts(): { written: number[]; droppedFull: number; droppedUnregistered: number; epqDiscarded: number; badEntries: number; swRefused: number; faults: number } {
    const c = this.c;
    return { written: c.written.map((x) => x.value), droppedFull: c.dropFull.value, droppedUnregistered: c.dropUnreg.value, epqDiscarded: c.discarded.value, badEntries: c.bad.value, swRefused: c.swRefused.value, faults: c.faults.value };
  }

  /** Register-file row of queue `kind` of VP `vp` (-1 when the pair names no queue). */
  row(kind: number, vp: number): number {
    if (kind === Q_INTQ) return 2 * this.cfg.vps;
    if (kind === Q_EPQ) return 2 * this.cfg.vps + 1;
    if ((kind !== 0 && kind !== 1) || !Number.isInteger(vp) || vp < 0 || vp >= this.cfg.vps) return -1;
    return kind * this.cfg.vps + vp;
  }

  /** Software's view of a queue: registers as at the start of this cycle. */
  state(kind: number, vp = 0): { base: number; size: number; prod: number; cons: number; overflows: number } {
    const r = this.row(kind, vp);
    if (r < 0) throw new RangeError(`${this.path}: no queue ${kind} for VP ${vp}`);
    const p = (f: number): number => this.rows.peek(r, f);
    return { base: p(F_BASE), size: p(F_SIZE), prod: p(F_PROD), cons: p(F_CONS), overflows: p(F_OVF) };
  }

  private swError(w: QueueSwWrite): string {
    const r = this.row(w.kind, w.vp);
    if (r < 0) return `kind ${w.kind} / VP ${w.vp} names no queue`;
    const eb = Q_ENTRY_BYTES[w.kind]!;
    if (w.op === QS_REGISTER) {
      if (w.size === 0) return '';
      if (w.virtual === true) {
        if (w.kind !== 0 && w.kind !== 1) return `only EQ and MPQ take a virtual address`;
        if (this.xlate === null) return `no translation path: virtual mode unavailable`;
        if (!Number.isInteger(w.item) || w.item! < 0 || w.item! > 0xffff) return `item ${w.item} is not in [0, 65535]`;
        if (!Number.isInteger(w.key) || w.key! < 0 || w.key! > 0xffffffff) return `key ${w.key} is not a 32-bit value`;
      }
      if (!Number.isInteger(w.size) || w.size < 1 || w.size > Q_MAX_SIZE || (w.size & (w.size - 1)) !== 0) return `size ${w.size} is not a power of two in [1, ${Q_MAX_SIZE}]`;
      if (!Number.isInteger(w.base) || w.base < 0 || w.base % eb !== 0) return `base ${w.base} is not a non-negative multiple of ${eb}`;
      if (w.base + w.size * eb > this.space) return `queue [${w.base}, +${w.size * eb}) runs past the address space`;
      return '';
    }
    if (w.op === QS_CONSUME) {
      const held = this.rows.peek(r, F_PROD) - this.rows.peek(r, F_CONS);
      if (!Number.isInteger(w.count) || w.count < 1 || w.count > held) return `consume ${w.count} with ${held} entries in the queue`;
      return '';
    }
    if (w.op === QS_RPTR) {
      const cons = this.rows.peek(r, F_CONS);
      const prod = this.rows.peek(r, F_PROD);
      if (!Number.isInteger(w.count) || w.count < cons || w.count > prod) return `read pointer ${w.count} outside [${cons}, ${prod}]`;
      return '';
    }
    return `unknown operation ${w.op}`;
  }

  /** Decision for entry e (see D_*), reading the rows as at the start of the cycle. */
  private decide(e: QueueEntry, fromFifo: boolean, hazardRow: number): number {
    if (!fromFifo && this.xlEntry !== null) return D_STALL; // one virtual-mode entry at a time, in order
    const r = this.row(e.kind, e.vp);
    if (r < 0 || e.data.length !== Q_ENTRY_BYTES[e.kind]) return fromFifo ? D_STALL : this.intFifo.canPush() ? D_BAD : D_STALL;
    if (r === hazardRow) return D_STALL;
    const size = this.rows.peek(r, F_SIZE);
    const full = size === 0 ? false : this.rows.peek(r, F_PROD) - this.rows.peek(r, F_CONS) >= size;
    if (e.kind === Q_INTQ) {
      if (size === 0 || full) return D_STALL_INTQ;
    } else if (e.kind === Q_EPQ) {
      if (!this.cfg.epqEnabled || size === 0) return D_DISCARD;
      if (full) return this.intFifo.canPush() ? D_DROP_FULL : D_STALL;
    } else {
      if (size === 0) return this.intFifo.canPush() ? D_DROP_UNREG : D_STALL;
      if (full) return this.intFifo.canPush() ? D_DROP_FULL : D_STALL;
      if (this.rows.peek(r, F_VIRT) === 1) return D_XLATE;
    }
    return this.dmaOut.canPush() ? D_WRITE : D_STALL;
  }

  private raise(type: number, code: number, vp: number, info: number, addr = 0): void {
    this.intFifo.push({ kind: Q_INTQ, vp: 0, data: encodeIntq({ type, code, vp, info, addr }) });
  }

  /** Address of the next entry of row r (virtual for a virtual-mode queue). */
  private slotAddr(r: number, kind: number): number {
    return this.rows.peek(r, F_BASE) + (this.rows.peek(r, F_PROD) % this.rows.peek(r, F_SIZE)) * Q_ENTRY_BYTES[kind]!;
  }

  /**
   * The held virtual-mode entry: one cycle of its check and translation; when both are in, the
   * entry is written at the physical address (producer + 1) or dropped with an INTQ queue_fault
   * entry (producer unchanged). Returns true when it is finished this cycle.
   */
  private translateStep(): boolean {
    const x = this.xlate!;
    const e = this.xlEntry!;
    if (!this.xl.step(x.mcReq, x.mcResp, x.xlIn)) return false;
    const r = this.xlRow;
    const code = this.xl.code;
    const va = this.slotAddr(r, e.kind);
    if (code !== 0) {
      if (!this.intFifo.canPush()) return false;
      this.c.faults.inc();
      this.raise(INT_QUEUE_FAULT, e.kind, e.vp, code, va);
    } else {
      if (!this.dmaOut.canPush()) return false;
      const w = new DmaWrite();
      w.tag = e.kind;
      w.addr = this.xl.pagePa[0]! + (va % PAGE_BYTES);
      w.data = e.data;
      this.dmaOut.push(w);
      this.rows.write(1, r, F_PROD, this.rows.peek(r, F_PROD) + 1);
      this.c.written[e.kind]!.inc();
    }
    this.xlEntry = null;
    this.xlRow = -1;
    return true;
  }

  tick(t: number): number {
    const intqRow = 2 * this.cfg.vps;
    let intqProd = this.rows.peek(intqRow, F_PROD);
    let intqCons = this.rows.peek(intqRow, F_CONS);
    // ---- software port (write port 0) ----
    let hazardRow = -1;
    let acted = false;
    let sw = this.swIn.canPop() ? this.swIn.peek() : null;
    if (sw !== null && this.xlEntry !== null && this.row(sw.kind, sw.vp) === this.xlRow) sw = null; // the held entry's row waits
    const err = sw === null ? '' : this.swError(sw);
    // a refused write needs room for its INTQ entry; an accepted one never waits (it may be the
    // consume that frees the INTQ the internal FIFO is waiting for)
    if (sw !== null && (err === '' || this.intFifo.canPush())) {
      acted = true;
      const w = this.swIn.pop();
      if (err !== '') {
        this.c.swRefused.inc();
        const vp = Number.isInteger(w.vp) && w.vp >= 0 && w.vp <= 0xffff ? w.vp : 0xffff;
        const kind = Number.isInteger(w.kind) && w.kind >= 0 && w.kind <= 255 ? w.kind : 255;
        this.raise(INT_SW_ERROR, kind, vp, w.op === QS_REGISTER ? w.size >>> 0 : w.count >>> 0);
      } else {
        const r = this.row(w.kind, w.vp);
        hazardRow = r;
        if (w.op === QS_REGISTER) {
          this.rows.write(0, r, F_BASE, w.size === 0 ? 0 : w.base);
          this.rows.write(0, r, F_SIZE, w.size);
          this.rows.write(0, r, F_PROD, 0);
          this.rows.write(0, r, F_CONS, 0);
          this.rows.write(0, r, F_OVF, 0);
          const virt = w.size !== 0 && w.virtual === true;
          this.rows.write(0, r, F_VIRT, virt ? 1 : 0);
          this.rows.write(0, r, F_ITEM, virt ? w.item! : 0);
          this.rows.write(0, r, F_KEY, virt ? w.key! : 0);
          if (r === intqRow) intqProd = intqCons = 0;
        } else {
          const cons = w.op === QS_RPTR ? w.count : this.rows.peek(r, F_CONS) + w.count;
          this.rows.write(0, r, F_CONS, cons);
          if (r === intqRow) intqCons = cons;
        }
      }
    }
    // ---- the held virtual-mode entry (write port 1 when it finishes: the entry port rests that cycle) ----
    const held = this.xlEntry !== null;
    const xlDone = held && this.translateStep();
    // ---- entry port (write port 1): internal interrupt FIFO first, then entIn ----
    let blockedOnIntqOnly = true;
    let e: QueueEntry | null = null;
    let d = D_STALL;
    let fromFifo = false;
    if (!xlDone && this.intFifo.canPop()) {
      d = this.decide(this.intFifo.peek(), true, hazardRow);
      if (d !== D_STALL_INTQ && d !== D_STALL) {
        fromFifo = true;
        e = this.intFifo.pop();
      } else if (d === D_STALL) blockedOnIntqOnly = false;
    }
    if (!xlDone && e === null && this.entIn.canPop()) {
      d = this.decide(this.entIn.peek(), false, hazardRow);
      if (d !== D_STALL_INTQ && d !== D_STALL) e = this.entIn.pop();
      else if (d === D_STALL) blockedOnIntqOnly = false;
    }
    if (e !== null) {
      const r = this.row(e.kind, e.vp);
      switch (d) {
        case D_WRITE: {
          const size = this.rows.peek(r, F_SIZE);
          const prod = this.rows.peek(r, F_PROD);
          const w = new DmaWrite();
          w.tag = e.kind;
          w.addr = this.rows.peek(r, F_BASE) + (prod % size) * Q_ENTRY_BYTES[e.kind]!;
          w.data = e.data;
          this.dmaOut.push(w);
          this.rows.write(1, r, F_PROD, prod + 1);
          if (r === intqRow) intqProd = prod + 1;
          this.c.written[e.kind]!.inc();
          break;
        }
        case D_XLATE:
          this.xlEntry = e;
          this.xlRow = r;
          this.xl.begin(this.rows.peek(r, F_ITEM), this.rows.peek(r, F_KEY), this.slotAddr(r, e.kind), e.data.length, true, e.vp, false);
          break;
        case D_DROP_FULL:
          this.rows.write(1, r, F_OVF, this.rows.peek(r, F_OVF) + 1);
          this.c.dropFull.inc();
          this.raise(INT_QUEUE_FULL, e.kind, e.kind === Q_EPQ ? 0xffff : e.vp, 0);
          break;
        case D_DROP_UNREG:
          this.c.dropUnreg.inc();
          this.raise(INT_QUEUE_UNREGISTERED, e.kind, e.vp, 0);
          break;
        case D_DISCARD:
          this.c.discarded.inc();
          break;
        case D_BAD: {
          this.c.bad.inc();
          const vp = Number.isInteger(e.vp) && e.vp >= 0 && e.vp <= 0xffff ? e.vp : 0xffff;
          this.raise(INT_SW_ERROR, Number.isInteger(e.kind) && e.kind >= 0 && e.kind <= 255 ? e.kind : 255, vp, e.data.length);
          break;
        }
      }
      if (fromFifo && d !== D_WRITE) throw new Error(`${this.path}: internal interrupt entry not written`);
    }
    this.irq.d = intqProd - intqCons > 0 ? 1 : 0;
    // something happened, or an entry waits for room downstream: run again next cycle. An entry
    // blocked only by a full or unregistered INTQ sleeps: the software write that frees it wakes us.
    if (acted || held || e !== null || !blockedOnIntqOnly || this.swIn.canPop()) return t + 1;
    return NEVER;
  }
}
