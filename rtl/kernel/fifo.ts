/**
 * FIFOs inside a component. The implementation lives in queues.ts, which FIFOs share with channels
 * (same slot mechanism, same slab); this module keeps the import path.
 */
export { Fifo, NumFifo, type FifoOptions, type TraceHeadOptions } from './queues.ts';
