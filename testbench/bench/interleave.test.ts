/**
 * Benchmark honesty (issue 10 item 16): contenders are measured in interleaved rounds, the same
 * number of times each, and compared by medians (bench/suites/kernel.ts, bench/harness.ts).
 */
import { describe, expect, it } from 'vitest';
import { median } from '../../bench/harness.ts';
import { interleaved, VARIANTS } from '../../bench/suites/kernel.ts';

describe('interleaved rounds', () => {
  it('every contender runs once per round, in an order rotated by the round', () => {
    const order: string[] = [];
    const r = interleaved(['a', 'b', 'c'], 4, (v) => {
      order.push(v);
      return order.length;
    });
    expect(order.join('')).toBe('abc' + 'bca' + 'cab' + 'abc');
    expect(r.a).toHaveLength(4);
    expect(r.b).toHaveLength(4);
    expect(r.c).toHaveLength(4);
    expect(r.a).toEqual([1, 6, 8, 10]);
  });

  it('the kernel suite compares the kernel ring with both bare JavaScript rings and measures every variant', () => {
    expect([...VARIANTS].sort()).toEqual(['bare-class', 'bare-flat', 'channels', 'ring', 'ring-components', 'ring-noskip']);
  });
});

describe('median', () => {
  it('is the middle value, not the best', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(() => median([])).toThrow(RangeError);
  });
});
