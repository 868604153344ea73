/**
 * The dependency arrows point one way: rtl/ at the bottom (and rtl/kernel/ below the rest of rtl/),
 * then models/, then experiments/ and vectors/, then cli/ and bench/. testbench/ holds tests and
 * their helpers only, so nothing outside it may import from it. This test reads every import of
 * every TypeScript file and fails on an arrow that runs back up.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');

/** What each top-level folder may import (besides itself and node/npm packages). */
export const ALLOWED: Record<string, readonly string[]> = {
  'rtl/kernel': [],
  rtl: ['rtl/kernel'],
  models: ['rtl/kernel', 'rtl'],
  experiments: ['rtl/kernel', 'rtl', 'models'],
  vectors: ['rtl/kernel', 'rtl', 'models', 'experiments'],
  cli: ['rtl/kernel', 'rtl', 'models', 'experiments', 'vectors'],
  bench: ['rtl/kernel', 'rtl', 'models', 'experiments', 'vectors', 'cli'],
  docs: ['rtl/kernel', 'rtl', 'models', 'experiments', 'vectors'],
  testbench: ['rtl/kernel', 'rtl', 'models', 'experiments', 'vectors', 'cli', 'bench', 'docs'],
};

/** The layer a repository-relative path belongs to, or undefined for files outside the layers. */
export function layerOf(rel: string): string | undefined {
  const parts = rel.split(sep).join('/').split('/');
  if (parts[0] === 'rtl' && parts[1] === 'kernel') return 'rtl/kernel';
  return parts[0] !== undefined && parts[0] in ALLOWED ? parts[0] : undefined;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Every relative import of the file's text, as repository-relative target paths. */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec !== undefined) out.push(relative(ROOT, resolve(dirname(file), spec)));
  }
  return out;
}

/** Violations: 'from -> to' for each import that points up or sideways into a layer it may not use. */
export function violations(files: readonly { path: string; text: string }[]): string[] {
  const bad: string[] = [];
  for (const { path, text } of files) {
    const rel = relative(ROOT, path);
    const from = layerOf(rel);
    if (from === undefined) continue;
    for (const target of importsOf(path, text)) {
      const to = layerOf(target);
      if (to === undefined || to === from) continue;
      if (!(ALLOWED[from] ?? []).includes(to)) bad.push(`${rel} -> ${target}`);
    }
  }
  return bad;
}

describe('layout: imports point one way', () => {
  it('no file imports from a layer above its own, and nothing outside testbench/ imports testbench/', () => {
    const files = Object.keys(ALLOWED)
      .filter((l) => !l.includes('/'))
      .flatMap((l) => {
        try {
          return tsFiles(join(ROOT, l));
        } catch {
          return [];
        }
      })
      .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(violations(files)).toEqual([]);
  });

  it('the check sees an arrow that runs back up (rtl importing testbench, the kernel importing rtl)', () => {
    const up = [
      { path: join(ROOT, 'rtl/sharp/x.ts'), text: "import { a } from '../../testbench/sharp/y.ts';" },
      { path: join(ROOT, 'rtl/kernel/x.ts'), text: "import { b } from '../sharp/an.ts';" },
      { path: join(ROOT, 'vectors/x.ts'), text: "import type { C } from '../cli/errors.ts';" },
      { path: join(ROOT, 'experiments/x.ts'), text: "export { d } from '../vectors/format.ts';" },
      { path: join(ROOT, 'models/x.ts'), text: "const m = await import('../experiments/z.ts');" },
    ];
    expect(violations(up)).toHaveLength(5);
    const ok = [{ path: join(ROOT, 'cli/x.ts'), text: "import { a } from '../rtl/kernel/errors.ts';\nimport { b } from './y.ts';" }];
    expect(violations(ok)).toEqual([]);
  });
});
