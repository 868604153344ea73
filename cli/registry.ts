/**
 * The command registry: every cli/commands/*.ts exports `commands: CommandSpec[]`, found here.
 * Apart from cli/main.ts so that a command may list the others (sweep, completion) without
 * importing the entry module (whose top-level await runs the command line).
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CommandSpec } from './args.ts';

/** Commands live in cli/commands/*.ts, each exporting `commands: CommandSpec[]`; they are discovered here. */
export async function loadCommands(): Promise<CommandSpec[]> {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort();
  const all: CommandSpec[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { commands?: CommandSpec[] };
    if (!Array.isArray(mod.commands)) throw new Error(`cli/commands/${f} does not export 'commands'`);
    all.push(...mod.commands);
  }
  const seen = new Set<string>();
  for (const c of all) {
    const k = c.path.join(' ');
    if (seen.has(k)) throw new Error(`command '${k}' is defined twice`);
    seen.add(k);
  }
  return all;
}
