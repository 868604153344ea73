/**
 * A mutation run gives every fast-check property a fixed seed (stryker/fixed-seed.ts): Stryker
 * re-runs a mutant's covering tests by name, and `@fast-check/vitest` puts the seed in the name.
 * Runs one property test of the repository under the mutation run's vitest configuration, in a
 * child process, and checks the name it reported.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { MUTATION_SEED } from '../../stryker/fixed-seed.js';

const ROOT = join(import.meta.dirname, '../..');

test('a property test under the mutation run configuration is named with the fixed seed', () => {
  const r = spawnSync(
    join(ROOT, 'node_modules/.bin/vitest'),
    ['run', '--config', 'stryker/vitest.config.mts', '--reporter=verbose', '-t', 'equals the golden model on random MWR sequences'],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, MUTATE_TESTS: 'testbench/coredirect/mwr.test.ts' }, timeout: 120_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  const names = r.stdout.split('\n').filter((l) => l.includes('equals the golden model on random MWR sequences'));
  expect(names.length).toBeGreaterThan(0);
  for (const l of names) expect(l).toContain(`(with seed=${MUTATION_SEED})`);
}, 150_000);
