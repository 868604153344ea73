/**
 * Runs one `netoffload` command line (argv after this file) exactly as cli/main.ts does, then
 * writes one JSON line to stderr: {"exit": code, "maxrss_kb": the process's peak resident set,
 * "cpu_s": its user + system CPU seconds}.
 * The sharp suite spawns it to measure a whole command (Node start, module loading, fabric build,
 * run, output) with its wall time and peak memory, as `/usr/bin/time -v` would report them.
 */
import { runCli } from '../cli/main.ts';

const io = { out: (t: string): void => void process.stdout.write(t), err: (t: string): void => void process.stderr.write(t) };
const code = await runCli(process.argv.slice(2), io);
const ru = process.resourceUsage();
process.stderr.write(`${JSON.stringify({ exit: code, maxrss_kb: ru.maxRSS, cpu_s: (ru.userCPUTime + ru.systemCPUTime) / 1e6 })}\n`);
process.exitCode = code;
