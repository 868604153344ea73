// Worker-thread bootstrap of a sweep (experiments/sweep/pool.ts): registers tsx so that the
// worker can load the TypeScript entry named in workerData.entry, then loads it. A worker does not
// inherit the main thread's tsx registration when the main thread registered it through the API
// (the `netoffload` bin, vitest), so every worker registers it itself.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
