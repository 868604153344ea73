/**
 * Command-line parsing for `netoffload <command> [flags]`: every command declares its flags;
 * unknown commands, unknown flags and bad values raise UsageError (exit 2, one message, no stack).
 */

import { closeSync, openSync, type Stats, statSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

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
   * exist and be writable.
   */
  output?: true | 'mkdir' | 'base';
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

/** Parse `args` (the words after the command path) against the command's flags. */
export function parseFlags(cmd: CommandSpec, args: string[]): FlagValues {
  const specs = withJson(cmd.flags);
  const byName = new Map(specs.map((f) => [f.name, f]));
  const out: FlagValues = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      const pos = cmd.positional;
      if (pos === undefined || out[pos] !== undefined) throw new UsageError(`unexpected argument '${a}' (flags start with --; see netoffload ${cmd.path.join(' ')} --help)`);
      out[pos] = parseValue(byName.get(pos)!, a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const spec = byName.get(name);
    if (!spec) throw new UsageError(`unknown flag --${name} for '${cmd.path.join(' ')}' (flags: ${specs.map((f) => '--' + f.name).join(' ')})`);
    let raw: string;
    if (eq >= 0) raw = a.slice(eq + 1);
    else if (spec.type === 'bool') raw = 'true';
    else {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`--${name} needs a value`);
      raw = next;
      i++;
    }
    if (out[name] !== undefined) throw new UsageError(`--${name} given twice`);
    out[name] = parseValue(spec, raw);
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
  const usage = `netoffload ${cmd.path.join(' ')}${cmd.positional ? ` [${cmd.positional.toUpperCase()}]` : ''} [flags]`;
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
export function checkOutputPath(what: string, path: string, mode: true | 'mkdir' | 'base' = true): void {
  const bad = (why: string): never => {
    throw new UsageError(`${what} '${path}': ${why}`);
  };
  if (path.trim() === '') bad('empty path (give a file name)');
  const st = statOrNull(path);
  if (mode !== 'base' && st) {
    if (st.isDirectory()) bad('is a directory, not a file');
    try {
      closeSync(openSync(path, 'r+'));
    } catch (e) {
      bad(`cannot write it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    return;
  }
  let dir = dirname(path);
  if (mode === 'mkdir') {
    while (!statOrNull(dir) && dirname(dir) !== dir) dir = dirname(dir);
  }
  const dst = statOrNull(dir);
  if (!dst) bad(`directory '${dir}' does not exist`);
  if (!dst!.isDirectory()) bad(`'${dir}' is not a directory`);
  const probe = mode === 'base' || mode === 'mkdir' ? join(dir, `.netoffload-probe-${process.pid}`) : path;
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
