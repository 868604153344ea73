/**
 * The sweep specification (docs/sweep.md): which `netoffload` command, which flags and which
 * values, as a cartesian grid, a list of points, or both (every listed point crossed with the
 * grid). Parsed and checked here, expanded into points with stable ids; every problem is an
 * InputError naming the spec file and what is wrong in it.
 *
 * {
 *   "command": "atc sweep",                        // words after `netoffload`
 *   "fixed":   { "requests": 2000 },               // flags every point gets (optional)
 *   "grid":    { "ways": [1, 2, 4], "entries": [256, 1024] },  // cartesian, last varies fastest
 *   "points":  [ { "replacement": "lru" }, { "replacement": "plru" } ]  // listed
 * }
 */
import { createHash } from 'node:crypto';
import { InputError } from '../../rtl/kernel/errors.ts';

/** A flag value in a spec: a string, a number, a boolean (a switch), or a list (a list flag: items joined with commas). */
export type SpecValue = string | number | boolean | (string | number)[];
export type Params = Record<string, SpecValue>;

/** What the spec reader needs to know of a command (a structural subset of cli/args.ts CommandSpec). */
export interface CommandShape {
  path: string[];
  flags: readonly { name: string; type: string }[];
}

export interface SweepSpec {
  /** the command's words, e.g. ['atc', 'sweep'] */
  command: string[];
  /** points in spec order */
  points: SweepPoint[];
}

export interface SweepPoint {
  /** position in the spec's expansion (0-based); results are ordered by it */
  index: number;
  /** stable key: hex digest of the command and its flags (independent of the point's position) */
  id: string;
  /** every flag of the point (fixed, listed and grid values), in the order they were given */
  params: Params;
  /** the command's arguments after its words, `--json` last */
  argv: string[];
}

/** Flags a spec may not set: the sweep adds --json itself, and --help runs nothing. */
const RESERVED = new Set(['json', 'help']);
/** Commands a sweep may not run (a sweep of sweeps, completion scripts). */
const NOT_SWEEPABLE = new Set(['sweep', 'completion']);
const TOP_KEYS = new Set(['command', 'description', 'fixed', 'grid', 'points']);
/** Most points one spec may expand to (a typo such as a 1,000-value grid axis is caught early). */
export const MAX_POINTS = 1_000_000;

export function isSweepable(path: readonly string[]): boolean {
  return !NOT_SWEEPABLE.has(path[0] ?? '');
}

/** The command-line form of one flag value: `--name value`, `--name` (true), `--name=false`. */
export function flagArgs(name: string, v: SpecValue): string[] {
  if (v === true) return [`--${name}`];
  if (v === false) return [`--${name}=false`];
  return [`--${name}`, Array.isArray(v) ? v.map(String).join(',') : String(v)];
}

/** The stable id of a point: the first 16 hex digits of SHA-256 over the command and its flags in name order. */
export function pointId(command: readonly string[], params: Params): string {
  const canon = Object.keys(params)
    .sort()
    .map((k) => flagArgs(k, params[k]!).join('\u0001'));
  return createHash('sha256').update(command.join(' ')).update('\u0000').update(canon.join('\u0000')).digest('hex').slice(0, 16);
}

function describeValue(v: unknown): string {
  return JSON.stringify(v) ?? String(v);
}

/**
 * Reads a spec's text. `commands` are the CLI's commands; `check(command, argv)` parses one point's
 * arguments as the command would (throwing an Error whose message says what is wrong), so that a
 * bad value is reported before anything runs.
 */
export function parseSpec(text: string, file: string, commands: readonly CommandShape[], check: (command: CommandShape, argv: string[]) => void): SweepSpec {
  const bad = (why: string): never => {
    throw new InputError(`sweep spec ${file}: ${why}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return bad(`not valid JSON (${(e as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return bad('expected a JSON object with "command" and "grid" and/or "points"');
  const o = doc as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!TOP_KEYS.has(k)) bad(`unknown key "${k}" (keys: ${[...TOP_KEYS].join(', ')})`);
  if (typeof o.command !== 'string' || o.command.trim() === '') return bad('"command" must be a string naming a netoffload command, e.g. "atc sweep"');
  const words = o.command.trim().split(/\s+/);
  const cmd = commands.find((c) => c.path.length === words.length && c.path.every((w, i) => w === words[i]));
  if (!cmd) {
    const names = commands.filter((c) => isSweepable(c.path)).map((c) => c.path.join(' '));
    return bad(`"command": unknown command '${o.command}' (one of: ${names.join(', ')})`);
  }
  if (!isSweepable(cmd.path)) bad(`"command": '${o.command}' cannot be swept`);
  if (o.description !== undefined && typeof o.description !== 'string') bad('"description" must be a string');

  const flagNames = cmd.flags.map((f) => f.name).filter((n) => !RESERVED.has(n));
  const checkFlag = (where: string, name: string, v: unknown): SpecValue => {
    if (RESERVED.has(name)) bad(`${where}: --${name} is set by the sweep itself`);
    const spec = cmd.flags.find((f) => f.name === name);
    if (!spec) bad(`${where}: '${o.command}' has no flag --${name} (flags: ${flagNames.map((n) => '--' + n).join(' ')})`);
    const scalar = (x: unknown): x is string | number => (typeof x === 'string' && x !== '') || (typeof x === 'number' && Number.isFinite(x));
    if (typeof v === 'boolean') {
      if (spec!.type !== 'bool') bad(`${where}: --${name} takes a ${spec!.type} value, not ${v}`);
      return v;
    }
    if (spec!.type === 'bool') bad(`${where}: --${name} is a switch: give true or false (got ${describeValue(v)})`);
    if (Array.isArray(v)) {
      if (spec!.type !== 'list') bad(`${where}: --${name} takes one ${spec!.type} value, not a list (got ${describeValue(v)})`);
      if (v.length === 0 || !v.every(scalar)) bad(`${where}: --${name}: a list value needs at least one item, each a non-empty string or a finite number (got ${describeValue(v)})`);
      return v as (string | number)[];
    }
    if (!scalar(v)) bad(`${where}: --${name}: expected a non-empty string or a finite number (got ${describeValue(v)})`);
    return v as string | number;
  };
  const objectOf = (key: string): Record<string, unknown> | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return bad(`"${key}" must be an object of flag names to values`);
    return v as Record<string, unknown>;
  };

  const fixed: Params = {};
  for (const [k, v] of Object.entries(objectOf('fixed') ?? {})) fixed[k] = checkFlag(`"fixed"`, k, v);

  const axes: [string, SpecValue[]][] = [];
  for (const [k, vs] of Object.entries(objectOf('grid') ?? {})) {
    if (k in fixed) bad(`"grid": --${k} is in "fixed" too`);
    if (!Array.isArray(vs) || vs.length === 0) bad(`"grid": --${k} needs a non-empty array of values (got ${describeValue(vs)})`);
    const values = (vs as unknown[]).map((v, i) => checkFlag(`"grid" --${k} value ${i}`, k, v));
    const seen = new Set(values.map((v) => describeValue(v)));
    if (seen.size !== values.length) bad(`"grid": --${k} lists a value twice`);
    axes.push([k, values]);
  }

  let listed: Params[] = [{}];
  if (o.points !== undefined) {
    if (!Array.isArray(o.points) || o.points.length === 0) bad('"points" must be a non-empty array of objects (flag names to values)');
    listed = (o.points as unknown[]).map((p, i) => {
      if (p === null || typeof p !== 'object' || Array.isArray(p)) return bad(`"points"[${i}] must be an object of flag names to values`);
      const out: Params = {};
      for (const [k, v] of Object.entries(p)) {
        if (k in fixed) bad(`"points"[${i}]: --${k} is in "fixed" too`);
        if (axes.some(([a]) => a === k)) bad(`"points"[${i}]: --${k} is a "grid" axis too`);
        out[k] = checkFlag(`"points"[${i}]`, k, v);
      }
      return out;
    });
  }
  if (o.points === undefined && o.grid === undefined) bad('give "grid" (cartesian values), "points" (a list), or both');

  const gridSize = axes.reduce((n, [, vs]) => n * vs.length, 1);
  if (listed.length * gridSize > MAX_POINTS) bad(`${listed.length * gridSize} points is more than the ${MAX_POINTS.toLocaleString('en-US')} a spec may expand to`);

  const points: SweepPoint[] = [];
  const ids = new Map<string, number>();
  for (const base of listed) {
    for (let g = 0; g < gridSize; g++) {
      const params: Params = { ...fixed, ...base };
      let rest = g;
      const pick: [string, SpecValue][] = [];
      for (let a = axes.length - 1; a >= 0; a--) {
        const [k, vs] = axes[a]!;
        pick.unshift([k, vs[rest % vs.length]!]);
        rest = Math.floor(rest / vs.length);
      }
      for (const [k, v] of pick) params[k] = v;
      const index = points.length;
      const argv = [...Object.entries(params).flatMap(([k, v]) => flagArgs(k, v)), '--json'];
      const id = pointId(cmd.path, params);
      const twin = ids.get(id);
      if (twin !== undefined) bad(`points ${twin} and ${index} are the same (${argv.slice(0, -1).join(' ')})`);
      ids.set(id, index);
      try {
        check(cmd, argv);
      } catch (e) {
        bad(`point ${index} (${argv.slice(0, -1).join(' ') || 'no flags'}): ${(e as Error).message}`);
      }
      points.push({ index, id, params, argv });
    }
  }
  return { command: [...cmd.path], points };
}

/** `i/n`: shard i (0-based) of n. */
export interface Shard {
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new InputError(`--shard: expected i/n with 0 <= i < n, e.g. 0/4 (got '${text}')`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || count > 100_000) throw new InputError(`--shard ${text}: n must be 1 to 100000`);
  if (index >= count) throw new InputError(`--shard ${text}: i must be below n (shards are numbered 0 to ${count - 1}, as Slurm array task ids)`);
  return { index, count };
}

/** The points of one shard: every n-th point starting at i (round robin, so that shards of a sweep whose cost grows along it stay even). */
export function shardPoints(points: readonly SweepPoint[], shard: Shard): SweepPoint[] {
  return points.filter((p) => p.index % shard.count === shard.index);
}
