import { describe, expect, it } from 'vitest';
import type { Counter } from '../../rtl/kernel/index.ts';
import { Fabric } from '../../rtl/sharp/fabric.ts';
import type { FabricTiming } from '../../rtl/sharp/params.ts';
import type { DistMode } from '../../rtl/sharp/packet/index.ts';
import { runAllreduce } from '../../experiments/sharp/scenario.ts';
import { cli } from '../lib/cli.ts';

// issue 10 item 11: the UD multicast copy and the RC duplicate of RC+UD cost what they cost at the
// host's HCA and CPU; RC+UD is not slower than RC alone for pipelined messages

function run(dist: DistMode, bytes: number, timing: Partial<FabricTiming> = {}, hosts = 32, iterations = 3): { us: number; fabric: Fabric; ops: number } {
  const fabric = new Fabric({ hosts: 128, timing });
  const r = runAllreduce({ fabric, hosts, bytes, dist, iterations, warmup: 1 });
  expect(r.ok).toBe(true);
  fabric.sim.step(20_000); // the last duplicates arrive and are dropped after the last completion
  const frags = Math.max(1, Math.ceil(bytes / 256));
  return { us: r.latency_us, fabric, ops: (iterations + 1) * frags };
}

function count(fabric: Fabric, host: number, name: string): number {
  return (fabric.sim.stats.get(`${fabric.hosts[host]!.path}.${name}`) as Counter).value;
}

describe('SHArP result distribution costs at the host', () => {
  it('RC+UD: every result reaches the HCA twice and the CPU drops the second copy; RC and UD: once', () => {
    for (const dist of ['rc', 'ud', 'rc+ud'] as const) {
      const { fabric, ops } = run(dist, 512);
      const member = 0; // host 0 is in every group spreadMembers builds
      expect(count(fabric, member, 'hca_rx_messages')).toBe(dist === 'rc+ud' ? 2 * ops : ops);
      expect(count(fabric, member, 'duplicates_discarded')).toBe(dist === 'rc+ud' ? ops : 0);
    }
  });

  it('a UD datagram writes its 40-byte GRH into host memory, an RC message does not', () => {
    const rc = run('rc', 64);
    const ud = run('ud', 64);
    const m = 0;
    expect(count(ud.fabric, m, 'hca_rx_bytes_written') - count(rc.fabric, m, 'hca_rx_bytes_written')).toBe(40 * rc.ops);
  });

  it("the duplicate's poll is on the host's serial CPU: a dearer discard slows RC+UD and nothing else", () => {
    for (const dist of ['rc', 'ud', 'rc+ud'] as const) {
      const cheap = run(dist, 1024, { hostDiscardNs: 0 }).us;
      const dear = run(dist, 1024, { hostDiscardNs: 1000 }).us;
      if (dist === 'rc+ud') expect(dear).toBeGreaterThan(cheap + 0.5);
      else expect(dear).toBe(cheap);
    }
  });

  it('the HCA receive engine is a shared resource: a slower DMA write slows a pipelined UD message', () => {
    const fast = run('ud', 2048, { pcieWriteByteNs: 0.083 }).us;
    const slow = run('ud', 2048, { pcieWriteByteNs: 3 }).us;
    expect(slow).toBeGreaterThan(fast + 0.5);
  });

  it('RC+UD lies between UD and RC for a pipelined 2,048-byte message on 128 hosts (Table VI)', () => {
    const rc = run('rc', 2048, {}, 128, 2).us;
    const both = run('rc+ud', 2048, {}, 128, 2).us;
    const ud = run('ud', 2048, {}, 128, 2).us;
    expect(both).toBeLessThan(rc);
    expect(both).toBeGreaterThan(ud);
  });
});

describe('netoffload sharp table --timing', () => {
  it('rejects an unknown parameter or a bad value with exit 2 before simulating', async () => {
    for (const [arg, msg] of [
      ['bogusNs=1', /unknown parameter 'bogusNs'/],
      ['hcaNs=-1', /hcaNs needs a finite non-negative number/],
      ['hcaNs', /hcaNs needs a finite non-negative number/],
      ['hcaNs=', /hcaNs needs/],
      ['clockHz=0', /clockHz must be positive/],
    ] as const) {
      const r = await cli(['sharp', 'table', '--timing', arg]);
      expect(r.code, arg).toBe(2);
      expect(r.err, arg).toMatch(msg);
    }
  });
});
