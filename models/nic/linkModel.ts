/**
 * Golden timing model of the NIC link (docs/nic-rdma.md, "Link") for fault-free traffic with
 * receivers that take every packet at once and at most one sender per receiver: for each packet
 * (the cycle it was offered, its port, destination and wire bytes) the first cycle the receiver
 * can pop it. BigInt arithmetic, its own queue per port.
 */
export interface LinkModelPacket {
  /** cycle the packet was pushed on the port's transmit channel (visible one cycle later) */
  pushCycle: number;
  src: number;
  wireBytes: number;
}

export function linkArrivals(pkts: readonly LinkModelPacket[], bytesPerCycle: number, latency: number): number[] {
  const bpc = BigInt(bytesPerCycle);
  const free = new Map<number, bigint>(); // per port: byte slot the transmitter is free from
  const lastTake = new Map<number, bigint>(); // per port: cycle its previous packet was taken
  const lastPush = new Map<number, bigint>(); // per port (one sender per receiver): cycle its previous packet reached the receive channel
  const out: number[] = [];
  for (const p of pkts) {
    // taken in the first cycle t >= push + 1, after the previous packet of the port, with free < (t + 1) x bpc
    let t = BigInt(p.pushCycle + 1);
    const prev = lastTake.get(p.src);
    if (prev !== undefined && prev + 1n > t) t = prev + 1n;
    const f = free.get(p.src) ?? 0n;
    while (f >= (t + 1n) * bpc) t++;
    const start = f > t * bpc ? f : t * bpc;
    const end = start + BigInt(p.wireBytes);
    free.set(p.src, end);
    lastTake.set(p.src, t);
    const arrive = (end + bpc - 1n) / bpc + BigInt(latency);
    // the receiver pushes one packet per cycle, from the arrival cycle on; poppable one cycle later
    const prevPush = lastPush.get(p.src);
    const push = prevPush !== undefined && prevPush + 1n > arrive ? prevPush + 1n : arrive;
    lastPush.set(p.src, push);
    out.push(Number(push) + 1);
  }
  return out;
}
