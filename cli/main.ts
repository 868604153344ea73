import { pathToFileURL } from 'node:url';
import { CheckFailed, checkOutputs, commandHelp, type CommandIO, type CommandSpec, parseFlags, UsageError } from './args.ts';
import { SimulationLimitError } from '../rtl/kernel/simulator.ts';
import { InputError } from '../rtl/kernel/errors.ts';
import { loadCommandGroup, loadCommands } from './registry.ts';

export { loadCommands };

/** The longest command whose path starts `argv`, or undefined. */
function bestMatch(cmds: CommandSpec[], argv: string[]): CommandSpec | undefined {
  let best: CommandSpec | undefined;
  for (const c of cmds) {
    if (c.path.length <= argv.length && c.path.every((w, i) => argv[i] === w) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best;
}

export function overallHelp(cmds: CommandSpec[]): string {
  const lines = [
    'netoffload: cycle-accurate models of in-network and NIC offload hardware',
    '',
    'Usage: netoffload <command> [flags]     (netoffload <command> --help for its flags)',
    '',
    'Commands:',
  ];
  for (const c of [...cmds].sort((a, b) => a.path.join(' ').localeCompare(b.path.join(' ')))) {
    lines.push(`  ${c.path.join(' ')}`.padEnd(30) + c.summary);
  }
  return lines.join('\n') + '\n';
}

/** Runs one command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CommandIO): Promise<number> {
  try {
    // Fast path: only the command's own group is imported; help and errors load every command.
    let best = argv.length > 0 ? bestMatch(await loadCommandGroup(argv[0]!), argv) : undefined;
    if (!best) {
      const cmds = await loadCommands();
      if (argv.length === 0 || argv[0] === '--help' || argv[0] === 'help' || argv[0] === '-h') {
        io.out(overallHelp(cmds));
        return argv.length === 0 ? 2 : 0;
      }
      best = bestMatch(cmds, argv);
      if (!best) {
        const group = cmds.filter((c) => c.path[0] === argv[0]);
        if (group.length > 0) {
          const sub = argv[1];
          if (sub === undefined || sub === '--help') {
            io.out(overallHelp(group));
            return sub === '--help' ? 0 : 2;
          }
          throw new UsageError(`unknown command '${argv[0]} ${sub}' (try: ${group.map((c) => c.path.join(' ')).join(', ')})`);
        }
        throw new UsageError(`unknown command '${argv[0]}' (netoffload --help lists the commands)`);
      }
    }
    const rest = argv.slice(best.path.length);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.out(commandHelp(best));
      return 0;
    }
    const flags = parseFlags(best, rest);
    checkOutputs(best, flags);
    return await best.run(flags, io);
  } catch (e) {
    if (e instanceof UsageError || e instanceof InputError) {
      io.err(`netoffload: ${e.message}\n`);
      return 2;
    }
    if (e instanceof CheckFailed) {
      io.err(`netoffload: ${e.message}\n`);
      return 1;
    }
    if (e instanceof SimulationLimitError) {
      io.err(`netoffload: the simulation reached its cycle limit: ${e.message}\n`);
      return 1;
    }
    const err = e as Error;
    io.err(`netoffload: internal error: ${err?.message ?? String(e)}\n`);
    if (process.env.NETOFFLOAD_DEBUG) io.err(`${err?.stack ?? ''}\n`);
    return 3;
  }
}

export const stdio: CommandIO = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  errTTY: process.stderr.isTTY ? process.stderr : undefined,
};

const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === invoked) {
  const code = await runCli(process.argv.slice(2), stdio);
  process.exitCode = code;
}
