import { describe, expect, it } from 'vitest';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import { mcastAddress } from '../../rtl/sharp/frame.ts';
import { runAllreduce, spreadMembers } from '../../experiments/sharp/scenario.ts';

// issue 10 item 12: job ids of 32,768 and above used to overflow the UD multicast address
describe('SHArP job ids use the whole 16-bit job field', () => {
  for (const job of [32767, 32768, 40000, 65535]) {
    it(`job ${job}: UD and RC+UD results reach every member`, () => {
      const fabric = new Fabric();
      for (const [i, dist] of (['ud', 'rc+ud'] as const).entries()) {
        const r = runAllreduce({ fabric, hosts: 16, bytes: 64, dist, iterations: 2, warmup: 0, job, group: 0xffff - i });
        expect(r.mismatches).toEqual([]);
        expect(r.ok).toBe(true);
      }
    });
  }

  it('two jobs whose ids differ only above bit 14 get distinct multicast groups and both complete', () => {
    const fabric = new Fabric();
    const a = runAllreduce({ fabric, hosts: 8, bytes: 32, dist: 'ud', iterations: 1, warmup: 0, job: 5, group: 1 });
    const b = runAllreduce({ fabric, hosts: 8, bytes: 32, dist: 'ud', iterations: 1, warmup: 0, job: 5 + 32768, group: 1 });
    expect(a.ok && b.ok).toBe(true);
    expect(mcastAddress(5, 1)).not.toBe(mcastAddress(5 + 32768, 1));
  });

  it('the multicast address is one-to-one on (job, group) and fits the 32-bit target field', () => {
    const seen = new Set<number>();
    for (const job of [1, 2, 0x3fff, 0x4000, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff]) {
      for (const group of [0, 1, 0x7fff, 0x8000, 0xffff]) {
        const m = mcastAddress(job, group);
        expect(Number.isInteger(m) && m >= 0 && m <= 0xffffffff).toBe(true);
        seen.add(m);
      }
    }
    expect(seen.size).toBe(9 * 5);
    expect(seen.has(0)).toBe(false);
    expect(() => mcastAddress(0, 0)).toThrow(/job id/);
    expect(() => mcastAddress(65536, 0)).toThrow(/job id/);
    expect(() => mcastAddress(1, 65536)).toThrow(/group id/);
  });

  it('job and group ids outside the 16-bit fields are refused before anything is allocated', () => {
    const fabric = new Fabric();
    const members = spreadMembers(fabric, 8);
    expect(() => fabric.am.createGroup(65536, 1, 0, members)).toThrow(/job id 65536 is not in 1\.\.65535/);
    expect(() => fabric.am.createGroup(0, 1, 0, members)).toThrow(/job id 0 .*reserved/);
    expect(() => fabric.am.createGroup(-1, 1, 0, members)).toThrow(/job id -1/);
    expect(() => fabric.am.createGroup(1, 70000, 0, members)).toThrow(/group id 70000/);
    expect(fabric.am.jobs.size).toBe(0);
    // nothing was granted: a full-size group still fits everywhere
    const r = runAllreduce({ fabric, hosts: 128, bytes: 8, iterations: 1, warmup: 0, job: 1 });
    expect(r.ok).toBe(true);
  });
});
