import type { Channel } from '../../kernel/index.ts';
import type { NetPacket } from '../link/packet.ts';
import type { QueueEntry } from '../queues/types.ts';

/**
 * What an RDMA engine's `notify` state sends out, in order: queue entries (events, interrupts,
 * minipackets, error packets for the EPQ) one per cycle, then at most one packet for the link, then
 * at most one packet for a second port (the receive engine's GET requests to the transmit engine).
 * Holds at most a few entries; the engine enters `notify` only with what one operation produced.
 */
export class Outbox {
  readonly entries: QueueEntry[] = [];
  pkt: NetPacket | null = null;
  side: NetPacket | null = null;

  /** One cycle of sending; true once everything has gone out. */
  drain(ev: Channel<QueueEntry>, pkt: Channel<NetPacket>, side: Channel<NetPacket> | null): boolean {
    if (this.entries.length > 0) {
      if (ev.canPush()) ev.push(this.entries.shift()!);
    } else if (this.pkt !== null) {
      if (pkt.canPush()) {
        pkt.push(this.pkt);
        this.pkt = null;
      }
    } else if (this.side !== null && side !== null && side.canPush()) {
      side.push(this.side);
      this.side = null;
    }
    return this.entries.length === 0 && this.pkt === null && this.side === null;
  }
}
