import { describe, expect, it } from 'vitest';
import { Rng } from '../../rtl/kernel/rng.ts';

describe('Rng.clone', () => {
  it('continues the stream exactly where the original stands, independently of it', () => {
    const a = new Rng(42);
    for (let i = 0; i < 5; i++) a.u32();
    const b = a.clone();
    const fromA = Array.from({ length: 100 }, () => a.u32());
    const fromB = Array.from({ length: 100 }, () => b.u32());
    expect(fromB).toEqual(fromA);
    // drawing from the copy did not move the original (and vice versa)
    const c = a.clone();
    c.u32();
    expect(a.state()).not.toEqual(c.state());
  });
});
