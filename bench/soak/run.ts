/**
 * `npm run soak [-- flags]`: runs every soak block (bench/soak/blocks/) for --cycles simulated
 * cycles (default 10^8), prints a table per block and writes the figures to out/soak.json. Exit 0
 * when every block passes, 1 when one fails, 2 on a bad flag. See docs/long-runs.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bool, type CommandIO, commandHelp, type CommandSpec, list, num, parseFlags, str, UsageError } from '../../cli/args.ts';
import { loadBlocks, soak, type SoakResult, soakTable } from './harness.ts';

export async function soakCommand(): Promise<CommandSpec> {
  const blocks = await loadBlocks();
  const names = blocks.map((b) => b.name);
  return {
    path: ['soak'],
    summary: 'long runs: every block for N simulated cycles; live heap and rate every few million cycles',
    details: `Blocks: ${names.join(', ')}.
Fails if a block's live heap (after a forced GC) at the end exceeds its heap at 10 % of the run by
more than 5 MB, if its simulation rate at the end is more than 20 % below the start, or if its
functional check (results against the golden model, progress) fails. Run as npm run soak -- FLAGS.`,
    flags: [
      { name: 'cycles', type: 'int', default: 100_000_000, min: 1000, max: 1e12, help: 'simulated cycles per block' },
      { name: 'samples', type: 'int', default: 20, min: 10, max: 1000, help: 'samples per block (a multiple of 10)' },
      { name: 'block', type: 'list', default: names, choices: names, help: 'blocks to run (comma-separated)' },
      { name: 'seed', type: 'int', default: 1, min: 0, max: 0xffffffff, help: 'seed of every block' },
      { name: 'no-rate-check', type: 'bool', help: 'report the rates (cycles per CPU second) but do not judge them' },
      { name: 'out', type: 'string', default: 'out/soak.json', help: 'where to write the figures' },
    ],
    run(f, io) {
      const samples = num(f, 'samples');
      if (samples % 10 !== 0) throw new UsageError(`--samples must be a multiple of 10 (so 10 % of the run is a sample), got ${samples}`);
      const chosen = list(f, 'block');
      const json = bool(f, 'json');
      const results: SoakResult[] = [];
      for (const b of blocks.filter((x) => chosen.includes(x.name))) {
        if (!json) io.err(`${b.name}: running ${num(f, 'cycles').toLocaleString('en-US')} cycles...\n`);
        const r = soak(b, { cycles: num(f, 'cycles'), samples, seed: num(f, 'seed'), checkRate: !bool(f, 'no-rate-check') });
        results.push(r);
        if (!json) io.out(soakTable(r) + '\n');
      }
      const path = str(f, 'out');
      mkdirSync(dirname(path), { recursive: true });
      const doc = { cycles: num(f, 'cycles'), samples, seed: num(f, 'seed'), node: process.version, ok: results.every((r) => r.ok), blocks: results };
      writeFileSync(path, JSON.stringify(doc, null, 2) + '\n');
      if (json) io.out(JSON.stringify(doc) + '\n');
      else io.out(`${results.filter((r) => r.ok).length}/${results.length} blocks pass; wrote ${path}\n`);
      return doc.ok ? 0 : 1;
    },
  };
}

export async function runSoak(argv: string[], io: CommandIO): Promise<number> {
  try {
    const cmd = await soakCommand();
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(commandHelp(cmd).replace('netoffload soak', 'npm run soak --'));
      return 0;
    }
    return await cmd.run(parseFlags(cmd, argv), io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`soak: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === invoked) {
  process.exitCode = await runSoak(process.argv.slice(2), { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) });
}
