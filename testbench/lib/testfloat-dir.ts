import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The Berkeley TestFloat vectors the tests replay: the copy checked in under vectors/testfloat/
 * (identical to ../shared/testfloat, which testbench/sharp/alu/testfloat.test.ts checks where that
 * directory exists), so a clone tests the same way on any machine.
 */
export const TESTFLOAT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'vectors', 'testfloat');

/** Where the project's reference material keeps the originals (a sibling of the repository). */
export const SHARED_TESTFLOAT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'testfloat');
