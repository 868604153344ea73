import type { Channel } from '../../kernel/index.ts';
import type { NetPacket } from '../link/packet.ts';
import type { QueueEntry } from '../queues/types.ts';

/**
 * What an RDMA engine's `notify` state sends out, in order: queue entries (events, interrupts,
 * minipackets, error packets for the EPQ) one per cycle, then the packets for the link (at most
 * `MAX_LINK_PACKETS`, one per cycle, in the order they were produced), then at most one packet for a
 * second port (the receive engine's GET requests to the transmit engine).
 * Holds at most a few entries; the engine enters `notify` only with what one operation produced.
 * Two link packets arise when one received packet both closes the source's previous, unfinished
 * transfer (its report) and is itself the refused last packet of a new transfer (its own report).
 */
export const MAX_LINK_PACKETS = 2;

export class Outbox {
  readonly entries: QueueEntry[] = [];
  private readonly pkts: NetPacket[] = [];
  side: NetPacket | null = null;

  /** Queue a packet for the link; more than `MAX_LINK_PACKETS` from one operation is a design error. */
  sendPacket(p: NetPacket): void {
    if (this.pkts.length >= MAX_LINK_PACKETS) throw new Error(`outbox: more than ${MAX_LINK_PACKETS} link packets from one operation`);
    this.pkts.push(p);
  }

  /** One cycle of sending; true once everything has gone out. */
  drain(ev: Channel<QueueEntry>, pkt: Channel<NetPacket>, side: Channel<NetPacket> | null): boolean {
    if (this.entries.length > 0) {
      if (ev.canPush()) ev.push(this.entries.shift()!);
    } else if (this.pkts.length > 0) {
      if (pkt.canPush()) pkt.push(this.pkts.shift()!);
    } else if (this.side !== null && side !== null && side.canPush()) {
      side.push(this.side);
      this.side = null;
    }
    return this.entries.length === 0 && this.pkts.length === 0 && this.side === null;
  }
}
