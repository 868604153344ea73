/**
 * `netoffload gemini amo-scale`: the seed's dynamic-load-balancing counter (section III-D,
 * Fig. 17): P processes each do blocking FADD(1) on one shared word, one after the other with the
 * DMAPP software time between calls. Processes are spread round robin over the four NICs of two
 * ASICs; the word lives in the memory of ASIC 0's NIC 0, so its AMO unit serves every FADD (from
 * its own NIC's processes intra-NIC, from the other NIC inter-NIC, from ASIC 1 inter-ASIC).
 * Reported per P: mean and maximum latency per FADD, the aggregate rate, the AMO unit's
 * utilisation, and a correctness check: the final counter equals the number of FADDs and every
 * fetched value is distinct (a counter that hands out each ticket once).
 */
import { Component, NEVER, type Scope, Simulator } from '../../rtl/kernel/index.ts';
import { AMO_FADD } from '../../rtl/gemini/amo/ops.ts';
import type { GeminiNic } from '../../rtl/gemini/nic.ts';
import { type GeminiParams, geminiParams } from '../../rtl/gemini/params.ts';
import { GeminiSystem } from '../../rtl/gemini/system.ts';
import { AmoReq, Transfer, XFER_AMO } from '../../rtl/gemini/types.ts';

/** Byte address of the first process's result word in its node's memory (each process has 16 bytes: its FADD result and its completion word); the counter is word 0 of ASIC 0 NIC 0. */
const RESULT_BASE = 4096;

/** The processes of one node: each issues its next FADD swCycles after the previous one completed. */
class NodeProcesses extends Component {
  private readonly nextAt: Float64Array;
  private readonly cur: (Transfer | null)[];
  private readonly left: Int32Array;
  readonly latencies: number[] = [];
  readonly fetched: bigint[] = [];
  private ready = 0;

  constructor(
    parent: Scope,
    name: string,
    private readonly nic: GeminiNic,
    procs: number,
    ops: number,
    private readonly sw: number,
  ) {
    super(parent, name);
    nic.fma.cmd.bindProducer(this);
    this.nextAt = new Float64Array(procs).fill(0);
    this.cur = new Array<Transfer | null>(procs).fill(null);
    this.left = new Int32Array(procs).fill(ops);
  }

  get done(): boolean {
    for (let i = 0; i < this.left.length; i++) if (this.left[i]! > 0 || this.cur[i] !== null) return false;
    return true;
  }

  tick(t: number): number {
    let busy = false;
    const n = this.cur.length;
    for (let k = 0; k < n; k++) {
      const i = (this.ready + k) % n;
      const x = this.cur[i];
      if (x !== null && x !== undefined && x.doneCycle >= 0) {
        this.latencies.push(x.doneCycle - x.issueCycle + this.sw);
        // the fetched value as the process reads it: its result word in its own node's memory
        const w = this.nic.memory.load64(x.localAddr);
        this.fetched.push((BigInt(w.hi >>> 0) << 32n) | BigInt(w.lo >>> 0));
        this.cur[i] = null;
        this.nextAt[i] = x.doneCycle + this.sw;
      }
    }
    let issued = false;
    for (let k = 0; k < n; k++) {
      const i = (this.ready + k) % n;
      if (this.cur[i] === null && this.left[i]! > 0) {
        busy = true;
        if (!issued && this.nextAt[i]! <= t && this.nic.fma.cmd.canPush()) {
          const x = new Transfer();
          x.kind = XFER_AMO;
          x.srcAsic = this.nic.asic;
          x.srcNic = this.nic.index;
          x.localAddr = RESULT_BASE + 16 * i; // this process's result word and completion word
          x.cqAddr = x.localAddr + 8;
          x.cqData = this.left[i]!;
          const r = new AmoReq();
          r.op = AMO_FADD;
          r.aLo = 1;
          x.amo = r;
          this.nic.start(x);
          this.cur[i] = x;
          this.left[i]!--;
          issued = true;
          this.ready = (i + 1) % n;
        }
      } else if (this.cur[i] !== null) busy = true;
    }
    return busy ? t + 1 : NEVER;
  }
}

export interface AmoScaleRow {
  procs: number;
  fadds: number;
  mean_latency_us: number;
  max_latency_us: number;
  rate_mops: number;
  amo_unit_busy_pct: number;
  counter_ok: boolean;
}

export function runAmoScale(params: Partial<GeminiParams>, procs: number, opsPerProc: number): AmoScaleRow {
  const p = geminiParams(params);
  const sim = new Simulator({ freqHz: p.clockHz });
  const sys = new GeminiSystem(sim, p, 2);
  const nics = [sys.nic(0, 0), sys.nic(0, 1), sys.nic(1, 0), sys.nic(1, 1)];
  const nodes = nics.map((nic, k) => new NodeProcesses(sim, `procs${k}`, nic, Math.floor(procs / 4) + (k < procs % 4 ? 1 : 0), opsPerProc, p.swCycles));
  sim.runUntil(() => nodes.every((n) => n.done), 1e8);
  const lat = nodes.flatMap((n) => n.latencies);
  const fetched = nodes.flatMap((n) => n.fetched).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const total = procs * opsPerProc;
  const target = sys.nic(0, 0).amo;
  const c = target.cached(0);
  const final = c ? (BigInt(c.hi) << 32n) | BigInt(c.lo) : -1n;
  const distinct = fetched.every((v, i) => v === BigInt(i));
  const us = (cyc: number): number => (cyc / p.clockHz) * 1e6;
  const elapsed = sim.cycle;
  return {
    procs,
    fadds: total,
    mean_latency_us: us(lat.reduce((a, b) => a + b, 0) / lat.length),
    max_latency_us: us(Math.max(...lat)),
    rate_mops: total / us(elapsed),
    amo_unit_busy_pct: (target.stats.ops.value / elapsed) * 100,
    counter_ok: final === BigInt(total) && distinct && fetched.length === total,
  };
}
