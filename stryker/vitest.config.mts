/**
 * The vitest configuration of a mutation run (scripts/mutate.ts): the project's settings, with the
 * test files limited to the ones mapped to the block under mutation (MUTATE_TESTS, comma-separated
 * globs, set by scripts/mutate.ts from its source-to-testbench map).
 */
import { defineConfig } from 'vitest/config';

const include = (process.env.MUTATE_TESTS ?? '').split(',').filter((g) => g !== '');
if (include.length === 0) throw new Error('stryker/vitest.config.mts: MUTATE_TESTS is empty (run through npm run mutate)');

export default defineConfig({
  test: {
    include,
    // fixed fast-check seed, so that property tests keep their names between Stryker's runs
    setupFiles: ['stryker/fixed-seed.ts'],
    exclude: ['**/node_modules/**', 'testbench/kernel/docs.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
