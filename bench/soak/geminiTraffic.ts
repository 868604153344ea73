/**
 * The stimulus of the gemini-system soak entry: on every NIC of a two-ASIC Gemini system, a few
 * processes each making blocking DMAPP calls one after the other (put, get or AMO to a random NIC:
 * intra-NIC, inter-NIC or inter-ASIC; puts and gets of 8 B to 16 KiB, so both the FMA and the BTE
 * carry them, some strided), with a random software gap between calls. Calls are made on demand
 * and checked as they complete (`onDone`), then dropped: the component keeps one call per process.
 * Every process has its own 40 KiB of every node's memory from byte 64 KiB on (process g of all
 * NICs: 64 KiB + g x 40 KiB): its buffers (source of its puts and destination of its gets on its own
 * node, 16 KiB; their other end on the target, the next 16 KiB), its completion word and its
 * fetched-value word; so no two calls write the same bytes and none touches the AMO words.
 */
import { Component, NEVER, type Rng, type Scope } from '../../rtl/kernel/index.ts';
import { AMO_NAMES } from '../../rtl/gemini/amo/ops.ts';
import type { GeminiNic } from '../../rtl/gemini/nic.ts';
import { AmoReq, Transfer, XFER_AMO, XFER_GET, XFER_PUT } from '../../rtl/gemini/types.ts';

const SIZES = [8, 64, 200, 1024, 2040, 2048, 4096, 16384];
/** each process's share of every node's memory (see above) */
const REGION_BASE = 65536;
const REGION_BYTES = 40960;

export class GeminiCallers extends Component {
  private readonly cur: (Transfer | null)[];
  private readonly nextAt: Float64Array;
  /** calls completed */
  done = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly nic: GeminiNic,
    procs: number,
    /** every NIC, as [asic, index] */
    private readonly targets: readonly (readonly [number, number])[],
    /** the words of each NIC's memory the AMOs use: `amoWords` words from byte address `amoBase` */
    private readonly amoBase: number,
    private readonly amoWords: number,
    private readonly rng: Rng,
    /** a call made (`issued`) and its completion (`onDone`) */
    private readonly hooks: { issued(x: Transfer): void; onDone(x: Transfer): void },
  ) {
    super(parent, name);
    nic.fma.cmd.bindProducer(this);
    nic.bte.cmd.bindProducer(this);
    this.cur = new Array<Transfer | null>(procs).fill(null);
    this.nextAt = new Float64Array(procs);
  }

  /** calls in flight */
  get inFlight(): number {
    let n = 0;
    for (const x of this.cur) if (x !== null) n++;
    return n;
  }

  private make(proc: number): Transfer {
    const r = this.rng;
    const x = new Transfer();
    const region = REGION_BASE + ((2 * this.nic.asic + this.nic.index) * this.cur.length + proc) * REGION_BYTES;
    x.localAddr = region;
    x.remoteAddr = region + 16384;
    x.cqAddr = region + 32768;
    x.cqData = proc + 1;
    const k = r.int(10);
    x.kind = k < 4 ? XFER_PUT : k < 7 ? XFER_GET : XFER_AMO;
    [x.dstAsic, x.dstNic] = this.targets[r.int(this.targets.length)]!;
    x.srcAsic = this.nic.asic;
    x.srcNic = this.nic.index;
    if (x.kind === XFER_AMO) {
      const a = new AmoReq();
      a.op = r.int(AMO_NAMES.length);
      a.addr = this.amoBase + 8 * r.int(this.amoWords);
      // operands: small half of the time (FCSWAP's compare then sometimes matches), else any 64 bits
      const small = r.bool();
      a.aHi = small ? 0 : r.u32();
      a.aLo = small ? r.int(4) : r.u32();
      a.bHi = 0;
      a.bLo = r.bool() ? r.int(4) : r.u32();
      x.amo = a;
      x.bytes = 8;
      x.localAddr = region + 32776; // the fetched value
    } else {
      x.bytes = SIZES[r.int(SIZES.length)]!;
      if (x.bytes >= 64 && x.bytes <= 1024 && r.int(8) === 0) {
        // strided: whole elements of 8, 16 or 32 bytes, 128 bytes apart
        x.elemBytes = [8, 16, 32][r.int(3)]!;
        x.stride = 128;
        x.bytes -= x.bytes % x.elemBytes;
      }
    }
    return x;
  }

  tick(t: number): number {
    let wake = NEVER;
    let issued = false;
    for (let i = 0; i < this.cur.length; i++) {
      const x = this.cur[i];
      if (x !== null && x !== undefined) {
        if (x.doneCycle < 0) {
          wake = t + 1;
          continue;
        }
        this.cur[i] = null;
        this.done++;
        this.hooks.onDone(x);
        this.nextAt[i] = t + 1 + this.rng.int(200);
      }
      if (this.nextAt[i]! > t) {
        wake = Math.min(wake, this.nextAt[i]!);
        continue;
      }
      if (issued) {
        wake = t + 1;
        continue;
      }
      const y = this.make(i);
      if (this.nic.start(y)) {
        this.cur[i] = y;
        this.hooks.issued(y);
        issued = true;
        wake = t + 1;
      } else {
        this.nextAt[i] = t + 1; // the engine's command queue is full: try again next cycle
        wake = t + 1;
      }
    }
    return wake;
  }
}
