/**
 * Registered channels between components. The implementation lives in queues.ts, which channels
 * share with FIFOs (same slot mechanism, same slab); this module keeps the import path.
 */
export { Arrivals, Channel, ChannelCore, NumChannel, type ChannelOptions } from './queues.ts';
