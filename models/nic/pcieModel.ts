/**
 * Golden model of the PCIe attachment (docs/nic-frontend.md, "PCIe"), written from the documented
 * timing and sharing no code with rtl/nic/pcie. It is a transaction-level calculation, not a
 * simulation: for one operation at a time in an otherwise idle link (the previous one finished),
 * it predicts the cycle every TLP lands, every completion reaches the NIC requester, the data a
 * read returns and the host memory after the operation. Wire time is kept in BigInt units (no
 * rounding): a cycle is 1e9 * codeD * 2GT * lanes units, a wire byte 16 * codeN * clockHz.
 *
 * Preconditions (asserted): a write needs at most the host's posted credits, a read at most
 * min(tags, host non-posted credits) requests, a PIO store at most the NIC's posted credits, so
 * no credit or tag ever binds in a serial run (tests with traffic that does bind them check
 * invariants instead).
 */

export interface PcieModelParams {
  gen: number;
  lanes: number;
  clockHz: number;
  mps: number;
  mrrs: number;
  cplBytes: number;
  reqOverhead: number;
  cplOverhead: number;
  flightNs: number;
  hostReadNs: number;
  pioNs: number;
  secondSocket: boolean;
  qpiNs: number;
  wcBytes: number;
  tags: number;
  hostPostedHeaders: number;
  hostPostedData: number;
  hostNonPostedHeaders: number;
  nicPostedHeaders: number;
  nicPostedData: number;
}

/** Capacities of the model's channels (the documented values). */
const TLP_QUEUE = 4; // endpoint -> link and root complex -> link queues

export interface LandedTlp {
  addr: number;
  len: number;
  /** write: the cycle it is applied to host memory; completion / PIO: first cycle the NIC requester can pop it */
  cycle: number;
}

export interface ModelWriteResult {
  tlps: LandedTlp[];
  /** cycle the last byte is in host memory */
  done: number;
}

export interface ModelReadResult {
  /** completions in the order the requester sees them (offset within the read) */
  chunks: (LandedTlp & { offset: number })[];
  /** first cycle the requester can pop the last chunk */
  done: number;
  data: Uint8Array;
}

export interface ModelPioResult {
  tlps: LandedTlp[];
  done: number;
}

function toCycles(ns: number, clockHz: number, atLeastOne: boolean): number {
  const c = Math.round((ns * clockHz) / 1e9);
  return atLeastOne && c < 1 ? 1 : c;
}

const GT2: Record<number, bigint> = { 1: 5n, 2: 10n, 3: 16n, 4: 32n };

/** Split [addr, addr + len) at multiples of `unit`. */
function pieces(addr: number, len: number, unit: number): { addr: number; off: number; len: number }[] {
  const out: { addr: number; off: number; len: number }[] = [];
  let off = 0;
  while (off < len) {
    const a = addr + off;
    const n = Math.min(unit - (a % unit), len - off);
    out.push({ addr: a, off, len: n });
    off += n;
  }
  return out;
}

/** A link direction: serializer state in BigInt units. */
class Wire {
  free = 0n;
  lastStart = -1;
  constructor(
    private readonly cycleU: bigint,
    private readonly byteU: bigint,
    private readonly flight: number,
  ) {}
  /** The TLP becomes visible to the serializer in cycle `vis`; returns [start cycle, arrival cycle]. */
  send(vis: number, wireBytes: number): [number, number] {
    const freeCycle = Number(this.free / this.cycleU); // first cycle t with free < (t + 1) * cycle
    const t = Math.max(vis, freeCycle, this.lastStart + 1);
    const tU = BigInt(t) * this.cycleU;
    const start = this.free > tU ? this.free : tU;
    const end = start + BigInt(wireBytes) * this.byteU;
    this.free = end;
    this.lastStart = t;
    const arrive = Number((end + this.cycleU - 1n) / this.cycleU) + this.flight;
    return [t, arrive];
  }
}

/**
 * Producer pushing items in order into a queue of `cap` entries (one push per cycle, a push in t
 * visible in t + 1, a pop seen by the producer one cycle late), consumer `pop(visible)` returning
 * the cycle it pops. Returns the pop cycles.
 */
function through(want: (k: number) => number, n: number, cap: number, pop: (k: number, visible: number) => number): { push: number[]; pop: number[] } {
  const push: number[] = [];
  const pops: number[] = [];
  for (let k = 0; k < n; k++) {
    let p = want(k);
    if (k > 0) p = Math.max(p, push[k - 1]! + 1);
    if (k >= cap) p = Math.max(p, pops[k - cap]! + 1);
    push.push(p);
    pops.push(pop(k, p + 1));
  }
  return { push, pop: pops };
}

/** A receiver that pops one item per cycle, each from its arrival on: the pop cycles. */
function onePerCycle(arrive: number[]): number[] {
  const out: number[] = [];
  let last = -Infinity;
  for (const a of arrive) out.push((last = Math.max(a, last + 1)));
  return out;
}

export class PcieModel {
  /** host memory, byte by byte (absent = 0) */
  readonly mem = new Map<number, number>();
  private readonly cycleU: bigint;
  private readonly byteU: bigint;
  private readonly flight: number;
  private readonly hostRead: number;
  private readonly pio: number;
  private readonly qpi: number;

  constructor(
    readonly p: PcieModelParams,
    /** draws the extra read latency of each read request in the order requests reach the host (return 0 for none) */
    private readonly jitter: () => number = () => 0,
  ) {
    const [codeN, codeD] = p.gen >= 3 ? [130n, 128n] : [10n, 8n];
    this.cycleU = 1_000_000_000n * codeD * GT2[p.gen]! * BigInt(p.lanes);
    this.byteU = 16n * codeN * BigInt(p.clockHz);
    this.flight = toCycles(p.flightNs, p.clockHz, true);
    this.hostRead = toCycles(p.hostReadNs, p.clockHz, true);
    this.pio = toCycles(p.pioNs, p.clockHz, true);
    this.qpi = p.secondSocket ? toCycles(p.qpiNs, p.clockHz, false) : 0;
  }

  /**
   * Items wanting to enter a sender's queue at want(k) (one per cycle, in order) go over a fresh
   * link direction with the given wire sizes; returns their push cycles and arrival cycles.
   */
  private overLink(want: (k: number) => number, wireBytes: number[]): { push: number[]; arrive: number[] } {
    const w = new Wire(this.cycleU, this.byteU, this.flight);
    const arrive: number[] = [];
    const { push } = through(want, wireBytes.length, TLP_QUEUE, (k, vis) => {
      const [t, a] = w.send(vis, wireBytes[k]!);
      arrive.push(a);
      return t;
    });
    return { push, arrive };
  }

  /** Software writes host memory directly (between cycles). */
  poke(addr: number, data: Uint8Array): void {
    for (let i = 0; i < data.length; i++) this.mem.set(addr + i, data[i]!);
  }

  peek(addr: number, len: number): Uint8Array {
    const out = new Uint8Array(len);
    for (let i = 0; i < len; i++) out[i] = this.mem.get(addr + i) ?? 0;
    return out;
  }

  /** A NIC DMA write pushed on the endpoint's write port in cycle `issue`. */
  write(issue: number, addr: number, data: Uint8Array): ModelWriteResult {
    const tl = pieces(addr, data.length, this.p.mps);
    const dataCredits = tl.reduce((s, x) => s + Math.ceil(x.len / 16), 0);
    if (tl.length > this.p.hostPostedHeaders || dataCredits > this.p.hostPostedData) throw new Error('PCIe model: write needs more posted credits than the host advertises');
    // endpoint takes the write in issue + 1 and emits one TLP per cycle from then on
    const { arrive } = this.overLink(
      () => issue + 1,
      tl.map((x) => x.len + this.p.reqOverhead),
    );
    // the root complex applies one write per cycle, when it is visible
    const land = onePerCycle(arrive);
    this.poke(addr, data);
    return { tlps: tl.map((x, k) => ({ addr: x.addr, len: x.len, cycle: land[k]! })), done: land[land.length - 1]! };
  }

  /** A NIC DMA read pushed on the endpoint's read port in cycle `issue`. */
  read(issue: number, addr: number, len: number): ModelReadResult {
    const rq = pieces(addr, len, this.p.mrrs);
    if (rq.length > this.p.tags || rq.length > this.p.hostNonPostedHeaders) throw new Error('PCIe model: read needs more tags or non-posted credits than available');
    const data = this.peek(addr, len);
    const { arrive } = this.overLink(
      () => issue + 1,
      rq.map(() => this.p.reqOverhead),
    );
    // root complex: one request per cycle; ready after the memory latency
    const hostPop = onePerCycle(arrive);
    const reqs = rq.map((x, k) => ({ ready: hostPop[k]! + this.hostRead + this.qpi + this.jitter(), order: k, off: x.off, addr: x.addr, len: x.len }));
    // completion engine: serve the ready request with the earliest ready cycle (ties: order), all
    // its completions (one push per cycle) before the next; it is free the cycle after its last push
    const order: { off: number; addr: number; len: number }[] = [];
    const want: number[] = [];
    const left = [...reqs];
    let engineFree = -Infinity;
    let dArrive: number[] = [];
    while (left.length > 0) {
      const t = Math.max(engineFree, Math.min(...left.map((r) => r.ready)));
      let best = -1;
      for (let i = 0; i < left.length; i++) {
        const r = left[i]!;
        if (r.ready <= t && (best < 0 || r.ready < left[best]!.ready || (r.ready === left[best]!.ready && r.order < left[best]!.order))) best = i;
      }
      const r = left.splice(best, 1)[0]!;
      const cs = pieces(r.addr, r.len, this.p.cplBytes);
      for (let j = 0; j < cs.length; j++) {
        order.push({ off: r.off + cs[j]!.off, addr: cs[j]!.addr, len: cs[j]!.len });
        want.push(j === 0 ? t : -Infinity);
      }
      // replay the downstream queue and link for the completions so far (a later request cannot change earlier pushes)
      const res = this.overLink(
        (k) => want[k]!,
        order.map((x) => x.len + this.p.cplOverhead),
      );
      dArrive = res.arrive;
      engineFree = res.push[res.push.length - 1]! + 1;
    }
    // the endpoint takes one completion per cycle; the requester sees it the cycle after
    const ep = onePerCycle(dArrive);
    const chunks = order.map((x, k) => ({ addr: x.addr, len: x.len, offset: x.off, cycle: ep[k]! + 1 }));
    return { chunks, done: ep[ep.length - 1]! + 1, data };
  }

  /** A CPU store pushed on the root complex's PIO port in cycle `issue`. */
  pioWrite(issue: number, addr: number, len: number): ModelPioResult {
    const tl = pieces(addr, len, this.p.wcBytes);
    const dataCredits = tl.reduce((s, x) => s + Math.ceil(x.len / 16), 0);
    if (tl.length > this.p.nicPostedHeaders || dataCredits > this.p.nicPostedData) throw new Error('PCIe model: store needs more posted credits than the NIC advertises');
    const due = issue + 1 + this.pio + this.qpi;
    const { arrive } = this.overLink(
      () => due,
      tl.map((x) => x.len + this.p.reqOverhead),
    );
    // the endpoint hands one PIO write per cycle to the NIC, visible the cycle after
    const ep = onePerCycle(arrive);
    return { tlps: tl.map((x, k) => ({ addr: x.addr, len: x.len, cycle: ep[k]! + 1 })), done: ep[ep.length - 1]! + 1 };
  }
}
