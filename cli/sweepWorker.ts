/**
 * The worker thread of `netoffload sweep` (experiments/sweep/pool.ts starts it): runs each point
 * it is given through runCli in-process, the same code path as a command line, with progress off
 * (its lines carry wall-clock times) and the output collected for the results file.
 */
import { serveSweepWorker } from '../experiments/sweep/protocol.ts';
import { runCli } from './main.ts';

serveSweepWorker(async (argv) => {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), progressIntervalMs: Infinity });
  return { code, out, err };
});
