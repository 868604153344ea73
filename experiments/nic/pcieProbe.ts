/**
 * The PCIe probe experiment (`netoffload nic pcie`): on one PCIe attachment, the latency of a
 * 64-byte DMA read (issue to data visible at the NIC), of a 64-byte DMA write (issue to landed in
 * host memory) and of a 64-byte PIO store (CPU push to visible at the NIC), then streaming DMA
 * write and read bandwidth for `count` transfers of `size` bytes, next to the link's analytic
 * peak for the TLP sizes used.
 */
import { Simulator } from '../../rtl/kernel/index.ts';
import { buildPcie, DmaRead, DmaWrite, type Pcie, type PcieConfig, PioWrite, peakBytesPerSecond } from '../../rtl/nic/pcie/index.ts';

export interface PcieProbeResult {
  gen: number;
  lanes: number;
  second_socket: boolean;
  read64_ns: number;
  write64_ns: number;
  pio64_ns: number;
  size: number;
  count: number;
  write_gbps: number;
  read_gbps: number;
  peak_write_gbps: number;
  peak_read_gbps: number;
  cycles: number;
}

function fresh(cfg: Partial<PcieConfig>): { sim: Simulator; p: Pcie; landed: number[] } {
  const sim = new Simulator({});
  const p = buildPcie(sim, 'pcie', cfg);
  const landed: number[] = [];
  p.host.onWrite = (_t, c) => landed.push(c);
  return { sim, p, landed };
}

/** Run the pipes: pop whatever the NIC side produces until `done`. */
function run(sim: Simulator, p: Pcie, done: () => boolean, limit: number): void {
  sim.runUntil(() => {
    while (p.ep.readOut.canPop()) p.ep.readOut.pop();
    while (p.ep.pioOut.canPop()) p.ep.pioOut.pop();
    return done();
  }, limit);
}

/** `onDone(n)`: n transfers of this stream have completed (called when n grows). */
function stream(cfg: Partial<PcieConfig>, kind: 'write' | 'read', size: number, count: number, onDone?: (n: number) => void): { bytesPerNs: number; cycles: number } {
  const { sim, p, landed } = fresh(cfg);
  const reads: DmaRead[] = [];
  let issued = 0;
  let done = 0;
  const tlpsPerWrite = Math.ceil(size / p.cfg.mps);
  const cyclesPerNs = p.cfg.clockHz / 1e9;
  sim.runUntil(() => {
    while (p.ep.readOut.canPop()) p.ep.readOut.pop();
    if (issued < count) {
      if (kind === 'write' && p.ep.writeIn.canPush()) {
        const w = new DmaWrite();
        w.addr = issued * size;
        w.data = new Uint8Array(size);
        p.ep.writeIn.push(w);
        issued++;
      } else if (kind === 'read' && p.ep.readIn.canPush()) {
        const r = new DmaRead();
        r.addr = issued * size;
        r.len = size;
        reads.push(r);
        p.ep.readIn.push(r);
        issued++;
      }
    }
    if (onDone) {
      // completed transfers: writes whose every TLP landed; reads completed in issue order
      const n = kind === 'write' ? Math.floor(landed.length / tlpsPerWrite) : countDone(reads, done);
      if (n > done) onDone((done = n));
    }
    return issued === count && (kind === 'write' ? landed.length === count * tlpsPerWrite && p.up.inFlight === 0 : reads.every((r) => r.doneCycle >= 0));
  }, 1e9);
  const end = kind === 'write' ? landed[landed.length - 1]! : Math.max(...reads.map((r) => r.doneCycle));
  return { bytesPerNs: (count * size) / (end / cyclesPerNs), cycles: sim.cycle };
}

/** From `from` on, how many reads in issue order have completed (the prefix that is done). */
function countDone(reads: readonly DmaRead[], from: number): number {
  let n = from;
  while (n < reads.length && reads[n]!.doneCycle >= 0) n++;
  return n;
}

/**
 * `onProgress(done, total)` (optional): streamed transfers completed of both directions
 * (total = 2 x count; the three 64-byte probes before them are not counted).
 */
export function runPcieProbe(cfg: Partial<PcieConfig>, size: number, count: number, onProgress?: (done: number, total: number) => void): PcieProbeResult {
  const ns = (cycles: number, c: PcieConfig): number => (cycles * 1e9) / c.clockHz;
  // 64-byte read
  const a = fresh(cfg);
  const r = new DmaRead();
  r.addr = 0x1000;
  r.len = 64;
  a.p.ep.readIn.push(r);
  run(a.sim, a.p, () => r.doneCycle >= 0, 1e8);
  // 64-byte write
  const b = fresh(cfg);
  const w = new DmaWrite();
  w.addr = 0x1000;
  w.data = new Uint8Array(64);
  b.p.ep.writeIn.push(w);
  run(b.sim, b.p, () => b.landed.length > 0, 1e8);
  // 64-byte PIO store
  const c = fresh(cfg);
  const s = new PioWrite();
  s.addr = 0;
  s.data = new Uint8Array(64);
  c.p.host.pioIn.push(s);
  let pioAt = -1;
  c.sim.runUntil(() => {
    if (c.p.ep.pioOut.canPop()) {
      c.p.ep.pioOut.pop();
      pioAt = c.sim.cycle;
    }
    return pioAt >= 0;
  }, 1e8);
  const total = 2 * count;
  const ws = stream(cfg, 'write', size, count, onProgress && ((n) => onProgress(n, total)));
  const rs = stream(cfg, 'read', size, count, onProgress && ((n) => onProgress(count + n, total)));
  const pc = a.p.cfg;
  const wTlp = Math.min(pc.mps, size);
  const rTlp = Math.min(pc.cplBytes, size);
  return {
    gen: pc.gen,
    lanes: pc.lanes,
    second_socket: pc.secondSocket,
    read64_ns: ns(r.doneCycle, pc),
    write64_ns: ns(b.landed[0]!, pc),
    pio64_ns: ns(pioAt, pc),
    size,
    count,
    write_gbps: ws.bytesPerNs,
    read_gbps: rs.bytesPerNs,
    peak_write_gbps: peakBytesPerSecond(pc, wTlp, pc.reqOverhead) / 1e9,
    peak_read_gbps: peakBytesPerSecond(pc, rTlp, pc.cplOverhead) / 1e9,
    cycles: a.sim.cycle + b.sim.cycle + c.sim.cycle + ws.cycles + rs.cycles,
  };
}
