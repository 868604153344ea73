/**
 * A pool of worker threads running sweep points: `jobs` workers, each given one point at a time
 * and the next as soon as it answers, until every point has run. A worker that dies (an uncaught
 * error, running out of memory) loses the point it was running: the point is reported lost (it is
 * not recorded, so a rerun tries it again) and a fresh worker takes its place.
 */
import { Worker } from 'node:worker_threads';
import type { DoneMessage, RunMessage } from './protocol.ts';

const BOOTSTRAP = new URL('./tsxWorker.mjs', import.meta.url);

export interface PoolOptions {
  tasks: readonly RunMessage[];
  jobs: number;
  /** the worker's TypeScript entry module: it calls serveSweepWorker (protocol.ts) */
  entry: URL;
  /** called on the main thread as each point finishes, in completion order */
  onDone(m: DoneMessage): void;
}

export interface Lost {
  index: number;
  reason: string;
}

export function runPool(o: PoolOptions): Promise<Lost[]> {
  const lost: Lost[] = [];
  let next = 0;
  let running = 0;
  const workers = new Set<Worker>();
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (e: unknown): void => {
      if (failed) return;
      failed = true;
      for (const w of workers) void w.terminate();
      reject(e);
    };
    const finishIfDone = (): void => {
      if (running === 0 && next >= o.tasks.length && !failed) resolve(lost.sort((a, b) => a.index - b.index));
    };
    const start = (): void => {
      if (next >= o.tasks.length || failed) return;
      running++;
      const w = new Worker(BOOTSTRAP, { workerData: { entry: o.entry.href } });
      workers.add(w);
      let current: RunMessage | undefined;
      let ended = false;
      const give = (): void => {
        current = failed ? undefined : o.tasks[next++];
        if (current) w.postMessage(current);
        else {
          ended = true;
          workers.delete(w);
          void w.terminate();
          running--;
          finishIfDone();
        }
      };
      const die = (reason: string): void => {
        if (ended) return;
        ended = true;
        running--;
        if (current) lost.push({ index: current.index, reason });
        current = undefined;
        workers.delete(w);
        void w.terminate();
        start();
        finishIfDone();
      };
      w.on('message', (m: DoneMessage) => {
        if (ended || !current || m.index !== current.index) return;
        try {
          o.onDone(m);
        } catch (e) {
          ended = true;
          running--;
          fail(e);
          return;
        }
        give();
      });
      w.on('error', (e) => die(`worker failed: ${e.message}`));
      w.on('exit', (code) => die(`worker exited with code ${code}`));
      give();
    };
    const n = Math.max(1, Math.min(o.jobs, o.tasks.length));
    for (let i = 0; i < n; i++) start();
    finishIfDone();
  });
}
