/**
 * The command-line parser (cli/args.ts parseFlags, on commander): the command-definition API is
 * unchanged, every usage error is one line on stderr with exit 2, and values are typed and checked.
 */
import { describe, expect, it } from 'vitest';
import { type CommandSpec, parseFlags } from '../../cli/args.ts';
import { cli } from '../lib/cli.ts';

const SPEC: CommandSpec = {
  path: ['demo', 'cmd'],
  summary: 'a command to parse against',
  positional: 'file',
  flags: [
    { name: 'file', type: 'string', help: 'a file' },
    { name: 'count', type: 'int', default: 3, min: 0, max: 10, help: 'a count' },
    { name: 'rate', type: 'number', help: 'a rate' },
    { name: 'mode', type: 'string', choices: ['a', 'b'], help: 'a mode' },
    { name: 'ways', type: 'list', choices: ['1', '2', '4'], help: 'a list' },
    { name: 'no-skipping', type: 'bool', help: 'a switch whose name starts with no-' },
    { name: 'need', type: 'string', required: true, help: 'a required flag' },
  ],
  run: () => 0,
};

describe('parseFlags', () => {
  it('types values, applies defaults, takes the positional argument and = forms', () => {
    expect(parseFlags(SPEC, ['--need', 'x'])).toEqual({ need: 'x', count: 3, 'no-skipping': false, json: false });
    expect(parseFlags(SPEC, ['F', '--need=x', '--count=0x0a', '--rate', '-2.5', '--mode', 'b', '--ways', '1,4', '--no-skipping', '--json=false'])).toEqual({
      file: 'F', need: 'x', count: 10, rate: -2.5, mode: 'b', ways: ['1', '4'], 'no-skipping': true, json: false,
    });
    expect(parseFlags(SPEC, ['--need', 'x', '--', '--file'])).toMatchObject({ file: '--file' });
  });

  const bad: [string[], RegExp][] = [
    [['--need', 'x', '--count', '11'], /^--count: must be <= 10 \(got '11'\)$/],
    [['--need', 'x', '--count', '1.5'], /^--count: expected an integer/],
    [['--need', 'x', '--rate', 'fast'], /^--rate: expected a number/],
    [['--need', 'x', '--mode', 'c'], /^--mode: expected one of a, b/],
    [['--need', 'x', '--ways', '1,3'], /^--ways: '3' is not one of 1, 2, 4/],
    [['--need', 'x', '--count'], /^--count needs a value$/],
    [['--need', 'x', '--count', '1', '--count', '2'], /^--count given twice$/],
    [['--need', 'x', '--no-skipping', '--no-skipping'], /^--no-skipping given twice$/],
    [['--need', 'x', '--cuont', '1'], /^unknown flag --cuont for 'demo cmd' \(did you mean --count\?\) \(flags: --file --count/],
    [['--need', 'x', 'F', 'G'], /^too many arguments/],
    [['--need', 'x', '--file', 'F', 'G'], /^unexpected argument 'G'/],
    [[], /^missing required flag --need \(a required flag\)$/],
    [['--need', 'x', '--json=perhaps'], /^--json: expected true or false/],
  ];
  for (const [argv, why] of bad) {
    it(`rejects ${argv.join(' ') || '(nothing)'}`, () => {
      expect(() => parseFlags(SPEC, argv)).toThrow(why);
    });
  }
});

describe('usage errors through the CLI', () => {
  const lines: string[][] = [
    ['sim', 'ring', '--stagez', '3'],
    ['sim', 'ring', '--stages'],
    ['sim', 'ring', 'extra'],
    ['sim', 'ring', '--stages', '0'],
    ['vectors', 'check'],
    ['nosuch'],
    ['sim', 'nosuch'],
  ];
  for (const argv of lines) {
    it(`${argv.join(' ')}: one line on stderr, exit 2`, async () => {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.out).toBe('');
      expect(r.err).toMatch(/^netoffload: [^\n]+\n$/);
    });
  }
});
