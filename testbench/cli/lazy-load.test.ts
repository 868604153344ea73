/**
 * The command line imports only its own command group (cli/registry.ts, loadCommandGroup): the
 * naming rule that makes this safe, and the paths that must still see every command.
 */
import { describe, expect, it } from 'vitest';
import { commandFiles, filesForWord, loadCommandGroup } from '../../cli/registry.ts';
import { loadCommands } from '../../cli/main.ts';
import { cli } from '../lib/cli.ts';

describe('lazy command loading', async () => {
  const all = await loadCommands();
  const words = [...new Set(all.map((c) => c.path[0]!))].sort();

  it('every command is found by its first word alone (its file name starts with that word)', async () => {
    for (const w of words) {
      const group = await loadCommandGroup(w);
      const expected = all.filter((c) => c.path[0] === w).map((c) => c.path.join(' ')).sort();
      expect(group.map((c) => c.path.join(' ')).sort(), `commands of '${w}'`).toEqual(expected);
    }
  });

  it('a group loads only the files named for it', () => {
    expect(filesForWord('sharp')).toEqual(['sharp.ts']);
    expect(filesForWord('nic').length).toBeGreaterThan(1);
    expect(filesForWord('nic').every((f) => f.toLowerCase().startsWith('nic'))).toBe(true);
    expect(filesForWord('nosuchgroup')).toEqual([]);
    expect(commandFiles().length).toBeGreaterThan(words.length - 1);
  });

  it('flags, words that are no command and group help still see every command', async () => {
    expect(await loadCommandGroup('--help')).toEqual([]);
    expect(await loadCommandGroup('')).toEqual([]);
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const c of all) expect(help.out).toContain(c.path.join(' '));
    const group = await cli(['nic']);
    expect(group.code).toBe(2);
    expect(group.out).toContain('nic rdma');
    const unknown = await cli(['nosuchgroup']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown command 'nosuchgroup'");
    const sub = await cli(['sim', 'nosuch']);
    expect(sub.code).toBe(2);
    expect(sub.err).toContain("unknown command 'sim nosuch'");
  });
});
