/**
 * The barrier checker of the CORE-Direct soak entries (bench/soak/barrierCheck.ts): it passes a
 * correct loop and names a rank that leaves before every rank entered, a rank that skips or
 * repeats a barrier, and a spread wider than its window.
 */
import { describe, expect, it } from 'vitest';
import { BarrierChecker } from '../../bench/soak/barrierCheck.ts';

/** every rank enters barrier k, then every rank leaves it */
function loop(c: BarrierChecker, from: number, to: number): void {
  let t = from * 100;
  for (let k = from; k < to; k++) {
    for (let r = 0; r < c.procs; r++) c.enter(r, k, t++);
    for (let r = 0; r < c.procs; r++) c.leave(r, k, t++);
  }
}

describe('barrier checker', () => {
  it('passes a correct loop and drops each barrier', () => {
    const c = new BarrierChecker(4);
    loop(c, 0, 50);
    expect([c.barriers, c.violations, c.problems]).toEqual([50, 0, []]);
  });

  it('fails a rank that leaves before every rank entered', () => {
    const c = new BarrierChecker(4);
    loop(c, 0, 2);
    c.enter(0, 2, 500);
    c.enter(1, 2, 501);
    c.leave(1, 2, 502);
    expect(c.problems[0]).toMatch(/rank 1 left barrier 2 at cycle 502 when only 2 of 4 ranks had entered it/);
  });

  it('fails a rank that skips a barrier or leaves one it is not in', () => {
    const c = new BarrierChecker(2);
    loop(c, 0, 1);
    c.enter(0, 2, 300);
    expect(c.problems[0]).toMatch(/rank 0 entered barrier 2 at cycle 300 while before barrier 1/);
    c.leave(1, 1, 301);
    expect(c.problems[1]).toMatch(/rank 1 left barrier 1 at cycle 301 without being in it/);
  });

  it('fails when a rank runs more barriers ahead than the window holds', () => {
    const c = new BarrierChecker(2);
    c.enter(1, 0, 1); // rank 1 never leaves barrier 0
    let t = 2;
    for (let k = 0; k < 5; k++) {
      c.enter(0, k, t++);
      c.leave(0, k, t++);
    }
    expect(c.violations).toBeGreaterThan(0);
    expect(c.problems.join('\n')).toMatch(/entered barrier 4 at cycle \d+ while barrier 0 is still open/);
  });
});
