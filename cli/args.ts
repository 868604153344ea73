/**
 * Command-line parsing for `netoffload <command> [flags]`: every command declares its flags
 * (CommandSpec, FlagSpec: the API cli/commands/*.ts use); commander tokenizes the command line
 * (parseFlags); unknown commands, unknown flags and bad values raise UsageError (exit 2, one
 * message, no stack).
 */

import { closeSync, openSync, type Stats, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export type FlagType = 'string' | 'int' | 'number' | 'bool' | 'list';

export interface FlagSpec {
  name: string;
  type: FlagType;
  help: string;
  required?: boolean;
  default?: string | number | boolean | string[];
  /** allowed values (for string flags, and for each item of a list flag) */
  choices?: readonly string[];
  /** inclusive bounds for int/number flags */
  min?: number;
  max?: number;
  /**
   * The flag names a file the command writes (--out, --vcd, --json-out...). Checked before run(),
   * so that a path that cannot be written is a usage error (exit 2, naming the path) before any
   * simulation: not empty, not a directory, in an existing writable directory. 'mkdir': the
   * command creates missing parent directories, so the nearest existing ancestor must be a
   * writable directory. 'base': a base path the command appends suffixes to; its directory must
   * exist and be writable. 'dir': a directory the command writes files into (creating it and its
   * missing parents): an existing path must be a directory, and it (or its nearest existing
   * ancestor) must be writable.
   */
  output?: true | 'mkdir' | 'base' | 'dir';
}

export type FlagValues = Record<string, string | number | boolean | string[] | undefined>;

export interface CommandIO {
  out(text: string): void;
  err(text: string): void;
  /** stderr when it is a terminal (progress bars are drawn on it); absent: progress as lines through err() */
  errTTY?: NodeJS.WriteStream;
  /** milliseconds between progress lines (default cli/progress.ts PROGRESS_LINE_INTERVAL_MS) */
  progressIntervalMs?: number;
}

/** A check that failed in a way best said in one line (exit 1, the message on stderr). */
export class CheckFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailed';
  }
}

export interface CommandSpec {
  /** words after `netoffload`, e.g. ['vectors', 'gen'] */
  path: string[];
  summary: string;
  /** longer description for --help */
  details?: string;
  flags: FlagSpec[];
  /** name of a flag that may also be given as the one bare argument (e.g. `vectors check FILE`) */
  positional?: string;
  /** the positional flag (a 'list' flag) takes every bare argument, one item each (e.g. `sweep merge OUT SHARD...`) */
  variadic?: boolean;
  /** returns the exit code (0 ok, 1 check failed); throw UsageError for bad input */
  run(flags: FlagValues, io: CommandIO): number | Promise<number>;
}

const JSON_FLAG: FlagSpec = { name: 'json', type: 'bool', help: 'machine-readable JSON output' };

export function withJson(flags: FlagSpec[]): FlagSpec[] {
  return flags.some((f) => f.name === 'json') ? flags : [...flags, JSON_FLAG];
}

function parseValue(spec: FlagSpec, raw: string): string | number | boolean | string[] {
  const bad = (why: string): never => {
    throw new UsageError(`--${spec.name}: ${why} (got '${raw}')`);
  };
  switch (spec.type) {
    case 'bool':
      if (raw === 'true' || raw === '1') return true;
      if (raw === 'false' || raw === '0') return false;
      return bad('expected true or false');
    case 'int': {
      if (!/^-?(0x[0-9a-fA-F]+|\d+)$/.test(raw)) bad('expected an integer');
      const v = raw.startsWith('-') ? -Number(raw.slice(1)) : Number(raw);
      if (!Number.isSafeInteger(v)) bad('integer out of range');
      if (spec.min !== undefined && v < spec.min) bad(`must be >= ${spec.min}`);
      if (spec.max !== undefined && v > spec.max) bad(`must be <= ${spec.max}`);
      return v;
    }
    case 'number': {
      const v = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(v)) bad('expected a number');
      if (spec.min !== undefined && v < spec.min) bad(`must be >= ${spec.min}`);
      if (spec.max !== undefined && v > spec.max) bad(`must be <= ${spec.max}`);
      return v;
    }
    case 'list': {
      const items = raw.split(',').map((x) => x.trim());
      if (items.some((x) => x === '')) bad('expected a comma-separated list without empty items');
      if (spec.choices) for (const x of items) if (!spec.choices.includes(x)) bad(`'${x}' is not one of ${spec.choices.join(', ')}`);
      return items;
    }
    case 'string':
      if (spec.choices && !spec.choices.includes(raw)) bad(`expected one of ${spec.choices.join(', ')}`);
      return raw;
  }
}

/**
 * Parse `args` (the words after the command path) against the command's flags, with commander
 * (https://github.com/tj/commander.js) doing the tokenizing: long flags with a separate or
 * `=`-joined value, boolean flags, the optional positional argument, `--` ending the flags.
 * Values are checked by parseValue above (types, choices, bounds) and every problem is a
 * UsageError with a one-line message. The command-definition API (CommandSpec, FlagSpec) is the
 * project's own and unchanged; commander is an implementation detail of this function.
 */
export function parseFlags(cmd: CommandSpec, args: string[]): FlagValues {
  const specs = withJson(cmd.flags);
  const where = cmd.path.join(' ');
  const program = new Command(where)
    .exitOverride()
    .helpOption(false)
    .allowExcessArguments(false)
    .configureOutput({ writeOut: () => {}, writeErr: () => {}, outputError: () => {} });
  const seen = new Map<string, number>();
  const options = new Map<string, Option>();
  for (const spec of specs) {
    // a bool flag is a plain switch; commander's "--no-x negates x" reading is not ours: the
    // switch is registered under a neutral name and renamed in messages
    const opt = spec.type === 'bool' ? new Option(`--${spec.name}`, spec.help) : new Option(`--${spec.name} <${spec.type}>`, spec.help).argParser((raw: string) => parseValue(spec, raw));
    program.addOption(opt);
    options.set(spec.name, opt);
    program.on(`option:${opt.name()}`, () => {
      const n = (seen.get(spec.name) ?? 0) + 1;
      if (n > 1) throw new UsageError(`--${spec.name} given twice`);
      seen.set(spec.name, n);
    });
  }
  if (cmd.positional !== undefined) program.argument(cmd.variadic ? `[${cmd.positional}...]` : `[${cmd.positional}]`);
  // `--flag=true|false|1|0` for a bool flag: the value is read here, commander sees the switch or nothing
  const argv: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      argv.push(...args.slice(i));
      break;
    }
    const m = /^--([^=]+)=(.*)$/s.exec(a);
    const spec = m ? specs.find((f) => f.name === m[1]) : undefined;
    if (m && spec?.type === 'bool') {
      if (parseValue(spec, m[2]!) === true) argv.push(`--${spec.name}`);
      else if (seen.has(spec.name)) throw new UsageError(`--${spec.name} given twice`);
      else seen.set(spec.name, 1);
      continue;
    }
    argv.push(a);
  }
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) throw new UsageError(commanderMessage(e, cmd, specs));
    throw e;
  }
  const out: FlagValues = {};
  for (const spec of specs) {
    const opt = options.get(spec.name)!;
    const key = opt.attributeName();
    if (program.getOptionValueSource(key) !== 'cli') continue;
    out[spec.name] = spec.type === 'bool' ? true : (program.getOptionValue(key) as FlagValues[string]);
  }
  // a bool flag given as --x=false counts as given (false)
  for (const spec of specs) if (spec.type === 'bool' && seen.has(spec.name) && out[spec.name] === undefined) out[spec.name] = false;
  if (cmd.positional !== undefined && program.args.length > 0) {
    const raw = program.args[0]!;
    if (out[cmd.positional] !== undefined) throw new UsageError(`unexpected argument '${raw}' (--${cmd.positional} is given already; see netoffload ${where} --help)`);
    out[cmd.positional] = cmd.variadic ? [...program.args] : parseValue(specs.find((f) => f.name === cmd.positional)!, raw);
  }
  for (const spec of specs) {
    if (out[spec.name] === undefined) {
      if (spec.required) throw new UsageError(`missing required flag --${spec.name} (${spec.help})`);
      if (spec.default !== undefined) out[spec.name] = spec.default;
      else if (spec.type === 'bool') out[spec.name] = false;
    }
  }
  return out;
}

/** commander's error as this CLI's one-line message. */
function commanderMessage(e: CommanderError, cmd: CommandSpec, specs: FlagSpec[]): string {
  const where = cmd.path.join(' ');
  const quoted = /'([^']*)'/.exec(e.message)?.[1] ?? '';
  switch (e.code) {
    case 'commander.unknownOption': {
      const name = quoted.replace(/=.*$/, '');
      const hint = /Did you mean (\S+)\?/.exec(e.message)?.[1];
      return `unknown flag ${name} for '${where}'${hint ? ` (did you mean ${hint}?)` : ''} (flags: ${specs.map((f) => '--' + f.name).join(' ')})`;
    }
    case 'commander.optionMissingArgument':
      return `${quoted.split(' ')[0]} needs a value`;
    case 'commander.excessArguments':
      return `${e.message.replace(/^error: /, '').replace(/\.$/, '')} (flags start with --; see netoffload ${where} --help)`;
    default:
      return e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  }
}

/** Width of --help text and the column its descriptions start at. */
export const HELP_WIDTH = 100;
const HELP_COLUMN = 34;

/** Words of `text` in lines of at most `width` characters (a longer word gets a line of its own). */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (cur && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * One flag of --help: the flag and its value placeholder, then the description in its own column
 * (on the next line when the flag is wider than the column), the enumeration of allowed values on
 * a line of its own ("one of: a, b, c"), wrapped, never run into the description.
 */
function flagHelp(f: FlagSpec): string[] {
  const placeholder = f.type === 'bool' ? '' : f.choices ? (f.type === 'list' ? ' <list>' : ' <choice>') : ` <${f.type}>`;
  const head = `  --${f.name}${placeholder}`;
  const dflt = f.default !== undefined ? `default ${Array.isArray(f.default) ? f.default.join(',') : String(f.default)}` : '';
  const range = f.min !== undefined && f.max !== undefined ? `${f.min} to ${f.max}` : f.min !== undefined ? `>= ${f.min}` : f.max !== undefined ? `<= ${f.max}` : '';
  const extra = [f.required ? 'required' : '', dflt, range].filter(Boolean).join('; ');
  const width = HELP_WIDTH - HELP_COLUMN;
  const body = wrapWords(f.help + (extra ? ` (${extra})` : ''), width);
  if (f.choices) body.push(...wrapWords(`${f.type === 'list' ? 'comma-separated, each one of' : 'one of'}: ${f.choices.join(', ')}`, width));
  const pad = ' '.repeat(HELP_COLUMN);
  const out: string[] = [];
  if (head.length <= HELP_COLUMN - 2) out.push(head.padEnd(HELP_COLUMN) + body[0]!);
  else out.push(head, pad + body[0]!);
  for (const l of body.slice(1)) out.push(pad + l);
  return out;
}

export function commandHelp(cmd: CommandSpec): string {
  const specs = withJson(cmd.flags);
  const usage = `netoffload ${cmd.path.join(' ')}${cmd.positional ? ` [${cmd.positional.toUpperCase()}${cmd.variadic ? '...' : ''}]` : ''} [flags]`;
  const lines = [...wrapWords(`netoffload ${cmd.path.join(' ')}: ${cmd.summary}`, HELP_WIDTH), '', `Usage: ${usage}`, ''];
  if (cmd.details) lines.push(cmd.details.trim(), '');
  lines.push('Flags:');
  for (const f of specs) lines.push(...flagHelp(f));
  lines.push(`  --help`.padEnd(HELP_COLUMN) + 'show this help');
  return lines.join('\n') + '\n';
}

/**
 * Checks every output flag of `cmd` that has a value (docs: FlagSpec.output). Throws UsageError
 * naming the flag and the path. Writes nothing except a probe file it removes again.
 */
export function checkOutputs(cmd: CommandSpec, flags: FlagValues): void {
  for (const spec of cmd.flags) {
    if (!spec.output) continue;
    const v = flags[spec.name];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new UsageError(`--${spec.name}: expected a path`);
    checkOutputPath(`--${spec.name}`, v, spec.output);
  }
}

/** The check behind FlagSpec.output, for commands that take an output path some other way. */
export function checkOutputPath(what: string, path: string, mode: true | 'mkdir' | 'base' | 'dir' = true): void {
  const bad = (why: string): never => {
    throw new UsageError(`${what} '${path}': ${why}`);
  };
  if (path.trim() === '') bad('empty path (give a file name)');
  const st = statOrNull(path);
  if (mode === 'dir' && st && !st.isDirectory()) bad('exists and is not a directory');
  if (mode !== 'base' && mode !== 'dir' && st) {
    if (st.isDirectory()) bad('is a directory, not a file');
    try {
      closeSync(openSync(path, 'r+'));
    } catch (e) {
      bad(`cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return;
  }
  let dir = mode === 'dir' && st ? path : dirname(path);
  if (mode === 'mkdir' || mode === 'dir') {
    while (!statOrNull(dir) && dirname(dir) !== dir) dir = dirname(dir);
  }
  const dst = statOrNull(dir);
  if (!dst) bad(`directory '${dir}' does not exist`);
  if (!dst!.isDirectory()) bad(`'${dir}' is not a directory`);
  const probe = mode === 'base' || mode === 'mkdir' || mode === 'dir' ? join(dir, `.netoffload-probe-${process.pid}`) : path;
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (e) {
    bad(`cannot create a file in '${dir}' (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Typed getters for the run() functions. */
export function str(flags: FlagValues, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string') throw new UsageError(`--${name} is required`);
  return v;
}
export function optStr(flags: FlagValues, name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}
export function num(flags: FlagValues, name: string): number {
  const v = flags[name];
  if (typeof v !== 'number') throw new UsageError(`--${name} is required`);
  return v;
}
export function optNum(flags: FlagValues, name: string): number | undefined {
  const v = flags[name];
  return typeof v === 'number' ? v : undefined;
}
export function bool(flags: FlagValues, name: string): boolean {
  return flags[name] === true;
}
export function list(flags: FlagValues, name: string): string[] {
  const v = flags[name];
  if (!Array.isArray(v)) throw new UsageError(`--${name} is required`);
  return v;
}
