/**
 * `netoffload completion bash|zsh` (cli/commands/completion.ts): the scripts, run by the real
 * shells with the words typed so far, complete command words, subcommands, the flags of the command
 * typed, the choices of a flag, and file names for other values. zsh runs when it is installed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../cli/main.ts';
import { bashCompletion, commandTree, zshCompletion } from '../../cli/commands/completion.ts';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'completion-'));
writeFileSync(join(dir, 'spec-a.json'), '{}');
const cmds = await loadCommands();
const root = commandTree(cmds);
const bashFile = join(dir, 'netoffload.bash');
writeFileSync(bashFile, bashCompletion(root));
const zshFile = join(dir, '_netoffload');
writeFileSync(zshFile, zshCompletion(root));

/** What bash completes for the command line `line` (the last word is the one being completed). */
function bash(line: string): string[] {
  const words = line.split(' ');
  const script = `source ${bashFile}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})\nCOMP_CWORD=${words.length - 1}\n_netoffload\nprintf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['-c', script], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

let zshPresent = true;
try {
  execFileSync('zsh', ['-c', 'true']);
} catch {
  zshPresent = false;
}
/** What zsh completes: compadd and _files stand in for the completion system and print the candidates matching the word typed (PREFIX). */
function zsh(line: string): string[] {
  const words = line.split(' ');
  const script = [
    'compdef() { :; }',
    'compadd() { [[ $1 == -- ]] && shift; local x; for x in "$@"; do [[ $x == ${PREFIX}* ]] && print -r -- $x; done; return 0; }',
    '_files() { print -l -- ${PREFIX}*(N); }',
    `source ${zshFile}`,
    `words=(${words.map((w) => `'${w}'`).join(' ')})`,
    `CURRENT=${words.length}`,
    `PREFIX='${words[words.length - 1]}'`,
    '_netoffload || true',
  ].join('\n');
  return execFileSync('zsh', ['-f', '-c', script], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
}

const groups = [...new Set(cmds.map((c) => c.path[0]!))].sort();
const cases: [string, (got: string[]) => void][] = [
  ['netoffload ', (g) => expect(g).toEqual(groups)],
  ['netoffload at', (g) => expect(g).toEqual(['atc'])],
  ['netoffload atc ', (g) => expect(g).toEqual(['refresh-check', 'sweep'])],
  ['netoffload atc sweep --re', (g) => expect(g).toEqual(['--replacement', '--requests'])],
  ['netoffload atc sweep --replacement ', (g) => expect(g).toEqual(['lru', 'plru'])],
  ['netoffload atc sweep --ways 2 --replacement p', (g) => expect(g).toEqual(['plru'])],
  ['netoffload sweep ', (g) => expect(g).toEqual(['merge'])],
  ['netoffload sweep --slurm-d', (g) => expect(g).toEqual(['--slurm-dry-run'])],
  ['netoffload sweep merge --', (g) => expect(g).toEqual(['--files', '--help', '--json', '--spec'])],
  ['netoffload sweep --out sp', (g) => expect(g).toEqual(['spec-a.json'])],
  ['netoffload sim ring ', (g) => expect(g).toEqual(['_netoffload', 'netoffload.bash', 'spec-a.json'])],
  ['netoffload completion --shell ', (g) => expect(g).toEqual(['bash', 'zsh'])],
  ['netoffload nosuch ', (g) => expect(g).toEqual([])],
];

describe('netoffload completion', () => {
  it('every command and flag is in the tree', () => {
    for (const c of cmds) {
      let node = root;
      for (const w of c.path) node = node.commands.find((x) => x.name() === w)!;
      expect(node, c.path.join(' ')).toBeDefined();
      for (const f of c.flags) expect(node.options.some((o) => o.long === `--${f.name}`), `${c.path.join(' ')} --${f.name}`).toBe(true);
    }
  });
  for (const [line, check] of cases) it(`bash: '${line}'`, () => check(bash(line)));
  for (const [line, check] of cases) it.skipIf(!zshPresent)(`zsh: '${line}'`, () => check(zsh(line)));

  it('the command prints the scripts; a shell it does not know is a usage error', async () => {
    expect((await cli(['completion', 'bash'])).out).toBe(bashCompletion(root));
    expect((await cli(['completion', 'zsh'])).out).toBe(zshCompletion(root));
    const bad = await cli(['completion', 'fish']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--shell: expected one of bash, zsh/);
  });
});
