// @ts-check
/**
 * StrykerJS base configuration (mutation testing, issue 19). Run it through `npm run mutate`
 * (scripts/mutate.ts), which sets `mutate`, the test files, the report paths and the incremental
 * file per block; see docs/verification.md.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'stryker/vitest.config.mts', related: false },
  coverageAnalysis: 'perTest',
  // one runner: the machine is shared (2 cores); never raise this in CI
  concurrency: 1,
  // a hanging mutant costs the test's normal time x 1.25 + 3 s, not minutes
  timeoutMS: 3000,
  timeoutFactor: 1.25,
  dryRunTimeoutMinutes: 10,
  reporters: ['html', 'json', 'progress'],
  tempDirName: 'out/mutation/.tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['out', '*.vcd', '*.fst'],
};
export default config;
