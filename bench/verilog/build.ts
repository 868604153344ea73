/**
 * Builds and runs the Verilator version of the benchmark ring (bench/verilog/ring.sv with the
 * driver bench/verilog/ring_main.cpp) for the kernel suite (bench/suites/kernel.ts).
 *
 * The SV ring's STAGES, DEPTH and CAPACITY are passed as -G parameters from the constants the
 * JavaScript rings use (STAGES from bench/ring-run.ts, the FIFO depth and channel capacity from
 * rtl/examples/ring.ts), so the two cannot drift apart. The build is the strongest single-thread
 * one: Verilator -O3, C++ -O3 -march=native, OPT_FAST=-O3, the generated functions split (see
 * VERILATOR_FLAGS). It is cached under
 * out/verilator-ring/<hash>/, the hash covering the sources, the flags, the parameters and the
 * Verilator version; a cache entry counts only once its build finished.
 *
 * Without `verilator` on the PATH, prepareVerilatorRing() returns `skipped` with the sentence the
 * suite prints; a failing build throws (the benchmark fails rather than silently skipping).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRing, RING_CHANNEL_CAPACITY, RING_FIFO_DEPTH } from '../../rtl/examples/ring.ts';
import { STAGES } from '../ring-run.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const RING_SV = join(here, 'ring.sv');
export const RING_MAIN = join(here, 'ring_main.cpp');
const REPO = join(here, '..', '..');

/**
 * The strongest single-thread build that builds in minutes. Verilator inlines the 1,000 stage
 * instances into one flat model whose evaluation it writes as a handful of C++ functions of 8,000 to
 * 12,000 lines each (one per 20,000-statement file, its default --output-split); gcc -O3 on such a
 * function did not finish in 32 minutes on this machine. --output-split-cfuncs 500 cuts them into
 * functions of at most 500 statements (--output-split 5000: smaller files, so make -j 2 has more to
 * share): the same code, about 2 CPU-minutes to build (measured with Verilator 5.006, gcc 12, make -j 2).
 */
export const VERILATOR_FLAGS: readonly string[] = [
  '-O3',
  '--cc',
  '--exe',
  '--build',
  '-CFLAGS',
  '-O3 -march=native',
  '-MAKEFLAGS',
  'OPT_FAST=-O3',
  '--output-split',
  '5000',
  '--output-split-cfuncs',
  '500',
  '--top-module',
  'ring',
  '-Wno-fatal',
];

export interface RingParams {
  stages: number;
  depth: number;
  capacity: number;
}

/** the parameters of the benchmark ring, from the constants the JavaScript rings are built with */
export function ringParams(): RingParams {
  return { stages: STAGES, depth: RING_FIFO_DEPTH, capacity: RING_CHANNEL_CAPACITY };
}

/** -G overrides for ring.sv's top-level parameters */
export function verilatorParams(p: RingParams = ringParams()): string[] {
  return [`-GSTAGES=${p.stages}`, `-GDEPTH=${p.depth}`, `-GCAPACITY=${p.capacity}`];
}

/** The `verilator` executable on `pathEnv` (a PATH value), or null. */
export function findVerilator(pathEnv: string = process.env.PATH ?? ''): string | null {
  for (const dir of pathEnv.split(delimiter)) {
    if (!dir) continue;
    const f = join(dir, 'verilator');
    try {
      accessSync(f, constants.X_OK);
      return f;
    } catch {
      // not in this directory
    }
  }
  return null;
}

export type VerilatorRing = { kind: 'skipped'; message: string } | { kind: 'ready'; binary: string; params: RingParams; cached: boolean; buildSeconds: number; version: string };

export interface PrepareOptions {
  pathEnv?: string;
  params?: RingParams;
  /** where cached builds go (default out/verilator-ring in the repository) */
  cacheDir?: string;
}

/** Find Verilator and build the ring (or reuse the cached build). */
export function prepareVerilatorRing(opts: PrepareOptions = {}): VerilatorRing {
  const verilator = findVerilator(opts.pathEnv);
  if (!verilator) return { kind: 'skipped', message: 'verilator is not on the PATH: the Verilator comparison was skipped (Debian: apt-get install -y verilator)' };
  const params = opts.params ?? ringParams();
  const v = spawnSync(verilator, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0) throw new Error(`${verilator} --version failed (${v.status ?? v.signal}): ${v.stderr.trim()}`);
  const version = v.stdout.trim();
  const args = [...VERILATOR_FLAGS, ...verilatorParams(params)];
  const hash = createHash('sha256')
    .update(readFileSync(RING_SV))
    .update('\0')
    .update(readFileSync(RING_MAIN))
    .update('\0')
    .update(JSON.stringify({ args, version }))
    .digest('hex')
    .slice(0, 16);
  const cacheDir = opts.cacheDir ?? join(REPO, 'out', 'verilator-ring');
  const dir = join(cacheDir, hash);
  const binary = join(dir, 'obj_dir', 'Vring');
  if (existsSync(join(dir, 'built')) && existsSync(binary)) return { kind: 'ready', binary, params, cached: true, buildSeconds: 0, version };

  const tmp = `${dir}.tmp${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const t0 = performance.now();
  const b = spawnSync(verilator, [...args, '-j', '2', '--Mdir', join(tmp, 'obj_dir'), RING_SV, RING_MAIN], { cwd: tmp, encoding: 'utf8', maxBuffer: 64 << 20 });
  const buildSeconds = (performance.now() - t0) / 1000;
  if (b.status !== 0) {
    const tail = `${b.stdout}\n${b.stderr}`.trim().split('\n').slice(-8).join('\n');
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`building the Verilator ring failed (${b.status ?? b.signal}):\n${tail}`);
  }
  writeFileSync(join(tmp, 'built'), `${version}\n${args.join(' ')}\n`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  return { kind: 'ready', binary, params, cached: false, buildSeconds, version };
}

/** What the driver prints (one JSON line). */
export interface VerilatorRun {
  stages: number;
  depth: number;
  capacity: number;
  cycles: number;
  measuredCycles: number;
  receivedBefore: number;
  received: number;
  errors: number;
  firstError: { cycle: number; token: number; value: number; want: number };
  perSecond: number;
  chunks: number;
}

/** Run the built driver with `args` (see ring_main.cpp); throws if it fails or built other parameters. */
export function runVerilatorRing(ring: Extract<VerilatorRing, { kind: 'ready' }>, args: string[]): VerilatorRun {
  const r = spawnSync(ring.binary, args, { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`Verilator ring ${args.join(' ')}: driver failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
  const run = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '') as VerilatorRun;
  const p = ring.params;
  if (run.stages !== p.stages || run.depth !== p.depth || run.capacity !== p.capacity) {
    throw new Error(`Verilator ring was built with ${run.stages} stages, depth ${run.depth}, capacity ${run.capacity}; expected ${p.stages}, ${p.depth}, ${p.capacity}`);
  }
  return run;
}

/**
 * Check that the Verilator ring does the kernel ring's work: after the same number of cycles from
 * reset, stage 0 of both has received the same number of tokens, all correct. Throws otherwise.
 */
export function checkSameWork(ring: Extract<VerilatorRing, { kind: 'ready' }>, cycles: number): string {
  const v = runVerilatorRing(ring, ['--cycles', String(cycles)]);
  const k = buildRing(ring.params.stages, { channelCapacity: ring.params.capacity });
  k.sim.step(cycles);
  const ks = k.source;
  if (v.errors !== 0) {
    const e = v.firstError;
    throw new Error(`Verilator ring: stage 0 received ${v.errors} wrong tokens (first: cycle ${e.cycle}: token ${e.token} came back as ${e.value}, expected ${e.want})`);
  }
  if (ks.errors !== 0) throw new Error(`kernel ring: ${ks.errors} wrong tokens (first: ${ks.firstError})`);
  if (v.received !== ks.received || v.received === 0) throw new Error(`Verilator ring received ${v.received} tokens in ${cycles} cycles, the kernel ring ${ks.received}: they do not do the same work`);
  return `after ${cycles} cycles from reset both rings have received ${v.received} tokens, all correct`;
}
