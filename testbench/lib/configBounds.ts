/**
 * Helper of the strength tests (issue 19): a configuration parser accepts an integer parameter at
 * both bounds and refuses one below, one above and a fraction with its documented message
 * (`<prefix>: <name> must be an integer in [lo, hi], got <value>`).
 */
import { expect } from 'vitest';

export function expectIntegerBounds<C>(parse: (p: Partial<C>) => C, prefix: string, name: keyof C & string, lo: number, hi: number): void {
  const at = (v: number): Partial<C> => ({ [name]: v }) as Partial<C>;
  expect(parse(at(lo))[name]).toBe(lo);
  expect(parse(at(hi))[name]).toBe(hi);
  for (const v of [lo - 1, hi + 1, lo + 0.5]) expect(() => parse(at(v))).toThrow(`${prefix}: ${name} must be an integer in [${lo}, ${hi}], got ${v}`);
}
