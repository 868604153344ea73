/**
 * Messages between a sweep's main thread (pool.ts) and its workers (serveSweepWorker): the main
 * thread sends one point at a time; the worker runs it through the command implementation and
 * sends back what the command returned and printed.
 */
import { parentPort } from 'node:worker_threads';

export interface RunMessage {
  index: number;
  /** the whole command line after `netoffload`: the command's words, then its flags */
  argv: string[];
}

export interface DoneMessage {
  index: number;
  code: number;
  out: string;
  err: string;
}

/** Runs one command line in-process and returns its exit code and output. */
export type PointRunner = (argv: string[]) => Promise<{ code: number; out: string; err: string }>;

/** The worker side: answer every RunMessage with its DoneMessage, one point at a time. */
export function serveSweepWorker(run: PointRunner): void {
  const port = parentPort;
  if (!port) throw new Error('serveSweepWorker: not in a worker thread');
  let queue = Promise.resolve();
  port.on('message', (m: RunMessage) => {
    queue = queue.then(async () => {
      const r = await run(m.argv);
      const done: DoneMessage = { index: m.index, code: r.code, out: r.out, err: r.err };
      port.postMessage(done);
    });
  });
}
