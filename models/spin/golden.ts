/**
 * Golden expectations for the sPIN handlers (rtl/hpu/handlers/*.c), written independently in
 * TypeScript from the handlers' specifications (no code shared with rtl/): given a message, the
 * packets whose payload handler ran, and the host memory before, what the host memory and the
 * puts must be afterwards. Floating point: the accumulate handler's double-complex product
 * (re = xr*yr - xi*yi, im = xr*yi + xi*yr, each operation rounded to nearest even, no fused
 * multiply-add) computed with JavaScript doubles.
 */

export interface GoldenMessage {
  data: Uint8Array;
  mtu: number;
  source: number;
  /** packets (by number) whose payload handler ran */
  ran: ReadonlySet<number>;
}

function packetRange(m: GoldenMessage, k: number): [number, number] {
  const lo = k * m.mtu;
  return [lo, Math.min(m.data.length, lo + m.mtu)];
}

/** accumulate: host[hostBase + off .. ] *= packet, as double complex, for every packet that ran. */
export function goldenAccumulate(host: Uint8Array, hostBase: number, m: GoldenMessage): void {
  const dv = new DataView(host.buffer, host.byteOffset, host.byteLength);
  const pv = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
  for (const k of m.ran) {
    const [lo, hi] = packetRange(m, k);
    for (let off = lo; off + 16 <= hi; off += 16) {
      const h = hostBase + off;
      const xr = dv.getFloat64(h, true);
      const xi = dv.getFloat64(h + 8, true);
      const yr = pv.getFloat64(off, true);
      const yi = pv.getFloat64(off + 8, true);
      const re = xr * yr - xi * yi;
      const im = xr * yi + xi * yr;
      dv.setFloat64(h, re, true);
      dv.setFloat64(h + 8, im, true);
    }
  }
}

/** unpack: byte i of the message goes to hostBase + floor(i / blocklen) * stride + i % blocklen. */
export function goldenUnpack(host: Uint8Array, hostBase: number, blocklen: number, stride: number, m: GoldenMessage): void {
  for (const k of m.ran) {
    const [lo, hi] = packetRange(m, k);
    for (let i = lo; i < hi; i++) host[hostBase + Math.floor(i / blocklen) * stride + (i % blocklen)] = m.data[i]!;
  }
}

/** histogram: 16 little-endian 32-bit counts of (byte >> 4) over the packets that ran, at hostBase. */
export function goldenHistogram(host: Uint8Array, hostBase: number, m: GoldenMessage): void {
  const counts = new Array<number>(16).fill(0);
  for (const k of m.ran) {
    const [lo, hi] = packetRange(m, k);
    for (let i = lo; i < hi; i++) counts[m.data[i]! >> 4]!++;
  }
  const dv = new DataView(host.buffer, host.byteOffset, host.byteLength);
  counts.forEach((c, i) => dv.setUint32(hostBase + 4 * i, c, true));
}

/**
 * pingpong: one put per non-empty packet that ran, back to the source, as long as the packet,
 * carrying the pre-set-up pong from HPU memory at the packet's offset (`pong`: the initial HPU
 * memory; zero beyond it).
 */
export function goldenPingpong(m: GoldenMessage, pong: Uint8Array): { dest: number; data: Uint8Array }[] {
  return [...m.ran]
    .sort((a, b) => a - b)
    .map((k) => {
      const [lo, hi] = packetRange(m, k);
      const data = new Uint8Array(hi - lo);
      for (let i = lo; i < hi; i++) data[i - lo] = i < pong.length ? pong[i]! : 0;
      return { dest: m.source, data };
    })
    .filter((x) => x.data.length > 0);
}

/** probe: the completion handler's event value. */
export function goldenProbeValue(droppedBytes: number, flowControl: boolean): number {
  return droppedBytes * 2 + (flowControl ? 1 : 0);
}
