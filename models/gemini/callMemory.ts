/**
 * Golden model of what blocking DMAPP calls leave in the nodes' memories, written from
 * docs/gemini.md ("Where the bytes go") and independently of rtl/gemini/: words as BigInt in a map
 * per node, one call applied completely before the next (the calls are blocking), no timing.
 *
 * - A transfer is cut into pieces: 64-byte pieces from the buffer's start (the last one shorter),
 *   or, strided, elements of `elemBytes` bytes `stride` bytes apart; piece i lies at the same
 *   offset from the start of the initiator's buffer (`localAddr`) and of the target's
 *   (`remoteAddr`). A piece of exactly 8 bytes moves its word (put: initiator to target; get:
 *   target to initiator); longer or shorter pieces move no payload (the model's limit).
 * - An AMO applies its operation to the word at `amo.addr` in the target's memory (the driver's
 *   cache flush at the end makes memory hold the unit's values); a fetching one writes the old
 *   value to the initiator's `localAddr`.
 * - Every call ends with its completion word, `cqData` (high half 0), at the initiator's `cqAddr`.
 * Nothing else changes: no word another call did not name, in particular not word 0.
 */
import { amoApply, isFetching } from './amoModel.ts';

export interface GoldenCall {
  kind: 'put' | 'get' | 'amo';
  /** initiator and target node (any numbering the caller keeps) */
  src: number;
  dst: number;
  bytes: number;
  /** 0: contiguous; else element bytes of a strided transfer */
  elemBytes: number;
  stride: number;
  localAddr: number;
  remoteAddr: number;
  cqAddr: number;
  cqData: number;
  amo?: { op: string; addr: number; a: bigint; b: bigint };
}

export class GoldenCallMemory {
  private readonly mem: Map<number, bigint>[];

  constructor(nodes: number) {
    this.mem = Array.from({ length: nodes }, () => new Map<number, bigint>());
  }

  read(node: number, addr: number): bigint {
    return this.mem[node]!.get(addr) ?? 0n;
  }

  write(node: number, addr: number, v: bigint): void {
    if (addr % 8 !== 0) throw new Error(`golden call memory: word address ${addr} is not aligned`);
    this.mem[node]!.set(addr, v);
  }

  /** Every word written so far, per node (address -> value). */
  words(node: number): ReadonlyMap<number, bigint> {
    return this.mem[node]!;
  }

  call(c: GoldenCall): void {
    if (c.kind === 'amo') {
      const a = c.amo!;
      const old = this.read(c.dst, a.addr);
      this.write(c.dst, a.addr, amoApply(a.op, old, a.a, a.b));
      if (isFetching(a.op)) this.write(c.src, c.localAddr, old);
    } else {
      const unit = c.elemBytes > 0 ? c.elemBytes : 64;
      const step = c.elemBytes > 0 ? c.stride : 64;
      for (let off = 0, i = 0; off < c.bytes; off += unit, i++) {
        const len = Math.min(unit, c.bytes - off);
        if (len !== 8) continue;
        const from = c.kind === 'put' ? c.src : c.dst;
        const to = c.kind === 'put' ? c.dst : c.src;
        const fromAddr = (c.kind === 'put' ? c.localAddr : c.remoteAddr) + i * step;
        const toAddr = (c.kind === 'put' ? c.remoteAddr : c.localAddr) + i * step;
        this.write(to, toAddr, this.read(from, fromAddr));
      }
    }
    this.write(c.src, c.cqAddr, BigInt(c.cqData >>> 0));
  }
}
