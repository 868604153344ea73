/**
 * `npm run bench`: runs every suite in bench/suites/*.ts (or those named on the command line),
 * prints the figures with their targets and writes them to bench/results.json.
 * `--quick` shortens every measurement (used by the test that keeps the suites runnable).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchSuite, Figure } from './harness.ts';

const here = dirname(fileURLToPath(import.meta.url));

export async function loadSuites(): Promise<BenchSuite[]> {
  const dir = join(here, 'suites');
  const out: BenchSuite[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.ts')).sort()) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { suite?: BenchSuite };
    if (!mod.suite) throw new Error(`bench/suites/${f} does not export 'suite'`);
    out.push(mod.suite);
  }
  return out;
}

function fmt(v: number): string {
  if (Math.abs(v) >= 1e6) return `${(v / 1e6).toFixed(2)} M`;
  if (Math.abs(v) >= 1e3) return `${(v / 1e3).toFixed(2)} k`;
  return v.toFixed(3);
}

export function meets(f: Figure): boolean | null {
  if (!f.target) return null;
  return f.target.op === '>=' ? f.value >= f.target.value : f.value <= f.target.value;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const names = args.filter((a) => !a.startsWith('--'));
  const suites = (await loadSuites()).filter((s) => names.length === 0 || names.includes(s.name));
  if (names.length > 0 && suites.length !== names.length) throw new Error(`unknown suite in ${names.join(', ')}`);
  const load0 = loadavg()[0]!;
  process.stdout.write(`load average (1 min) at the start: ${load0.toFixed(2)} on ${cpus().length} cores\n`);
  const results: Record<string, Figure[]> = {};
  const loads: Record<string, { start: number; end: number }> = {};
  for (const s of suites) {
    process.stdout.write(`\n== ${s.name} ==\n`);
    const l0 = loadavg()[0]!;
    const figs = await s.run({ quick });
    results[s.name] = figs;
    loads[s.name] = { start: Number(l0.toFixed(2)), end: Number(loadavg()[0]!.toFixed(2)) };
    for (const f of figs) {
      const ok = meets(f);
      const tgt = f.target ? ` (target ${f.target.op} ${fmt(f.target.value)}${f.unit}: ${ok ? 'met' : 'NOT met'})` : '';
      process.stdout.write(`  ${f.label.padEnd(58)} ${fmt(f.value).padStart(10)}${f.unit}${tgt}\n`);
      if (f.note) process.stdout.write(`      ${f.note}\n`);
    }
  }
  // a run of named suites replaces only their figures in results.json
  const file = join(here, 'results.json');
  const old = names.length > 0 && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { suites?: Record<string, Figure[]>; load_average_1min?: Record<string, { start: number; end: number }> }) : {};
  const kept = old.suites ?? {};
  const out = {
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    // the machine's 1-minute load average when each suite started and ended (a busy shared machine slows every figure)
    load_average_1min: { ...(old.load_average_1min ?? {}), ...loads },
    quick,
    suites: { ...kept, ...results },
  };
  if (!quick) writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  process.stdout.write(quick ? '\n(quick run: results.json not written)\n' : `\nwrote bench/results.json\n`);
}

const invoked = process.argv[1] ? pathToFileURL(process.argv[1]).href : '';
if (import.meta.url === invoked) await main();
