/**
 * Setup file of a mutation run (stryker/vitest.config.mts): every fast-check property runs from one
 * fixed seed. `@fast-check/vitest` names a property test `<label> (with seed=N)` with a fresh random
 * seed per process unless a global seed is configured, and Stryker re-runs the tests covering a
 * mutant by name: an unseeded property's name never matches again, so it never ran against any
 * mutant and what only it would catch counted as survived.
 */
import fc from 'fast-check';

/** The seed of every property in a mutation run (any fixed value; a test's own `seed` wins). */
export const MUTATION_SEED = 19;

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: MUTATION_SEED });
