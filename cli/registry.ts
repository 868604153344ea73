/**
 * The command registry: every cli/commands/*.ts exports `commands: CommandSpec[]`, found here.
 * Apart from cli/main.ts so that a command may list the others (sweep, completion) without
 * importing the entry module (whose top-level await runs the command line).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CommandSpec } from './args.ts';

const COMMAND_DIR = join(dirname(fileURLToPath(import.meta.url)), 'commands');

/** The command files, cli/commands/*.ts, in name order. */
export function commandFiles(): string[] {
  return readdirSync(COMMAND_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
}

/**
 * The files that may hold commands whose first word is `word`. Naming rule (checked by
 * testbench/sweep/cli-lazy.test.ts): a command's first word is a prefix of its file's name,
 * compared in lower case (`nic rdma` in nicRdma.ts, `alu testfloat` in alu-testfloat.ts).
 */
export function filesForWord(word: string): string[] {
  const w = word.toLowerCase();
  return commandFiles().filter((f) => f.toLowerCase().startsWith(w));
}

async function loadFiles(files: string[]): Promise<CommandSpec[]> {
  const all: CommandSpec[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(COMMAND_DIR, f)).href)) as { commands?: CommandSpec[] };
    if (!Array.isArray(mod.commands)) throw new Error(`cli/commands/${f} does not export 'commands'`);
    all.push(...mod.commands);
  }
  return all;
}

/**
 * The commands whose first word is `word`, loading only the files the naming rule allows (a
 * command line imports only its own command group, not the whole project: `sharp allreduce`
 * starts about 2 s sooner). Empty if there are none; callers then fall back to loadCommands().
 */
export async function loadCommandGroup(word: string): Promise<CommandSpec[]> {
  if (word === '' || word.startsWith('-')) return [];
  return (await loadFiles(filesForWord(word))).filter((c) => c.path[0] === word);
}

/** Commands live in cli/commands/*.ts, each exporting `commands: CommandSpec[]`; they are discovered here. */
export async function loadCommands(): Promise<CommandSpec[]> {
  const all = await loadFiles(commandFiles());
  const seen = new Set<string>();
  for (const c of all) {
    const k = c.path.join(' ');
    if (seen.has(k)) throw new Error(`command '${k}' is defined twice`);
    seen.add(k);
  }
  return all;
}
