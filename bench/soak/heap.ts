/**
 * Live heap for the soak benchmark: a full garbage collection, then V8's used heap plus the
 * ArrayBuffer backing stores (typed-array data lives outside the JavaScript heap), less the
 * kernel's slot slab (one fixed 512 MiB Float64Array of reserved address space, committed by the
 * operating system page by page as queues use it; it never grows). `gc` is taken from V8 at run
 * time, so neither `node --expose-gc` nor a test runner flag is needed.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SLAB_SIZE } from '../../rtl/kernel/queues.ts';

let gcFn: (() => void) | null = null;

function forcedGc(): () => void {
  if (gcFn) return gcFn;
  // sweep on the collecting thread, so the heap right after gc() holds live objects only (with
  // concurrent sweeping, dead objects and array buffers not yet swept would count, a sawtooth of MBs)
  setFlagsFromString('--no-concurrent-sweeping');
  setFlagsFromString('--no-concurrent-array-buffer-sweeping');
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) return (gcFn = g);
  setFlagsFromString('--expose-gc');
  gcFn = runInNewContext('gc') as () => void;
  return gcFn;
}

/** Bytes of live heap (JavaScript objects plus array buffers other than the slot slab) after a full collection. */
export function liveHeapBytes(): number {
  const gc = forcedGc();
  gc();
  gc(); // a second pass collects what the first one's finalizers released
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers - SLAB_SIZE * Float64Array.BYTES_PER_ELEMENT;
}
