/**
 * `netoffload coredirect ...`: output shapes, the calibration points reproduced by the defaults,
 * the predicted availability ordering, and bad input (exit 2, one line naming the problem).
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { HCA_DEFAULTS } from '../../rtl/coredirect/params.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('coredirect barrier', () => {
  it('the defaults reproduce the two calibration points at 64 processes (within 2 %)', async () => {
    const a = await cli('coredirect', 'barrier', '--procs', '64', '--mode', 'mq-rdma', '--json');
    expect(a.code).toBe(0);
    const ra = (JSON.parse(a.out) as { rows: { latency_us: number; seed_us: number }[] }).rows[0]!;
    expect(ra.seed_us).toBe(32);
    expect(Math.abs(ra.latency_us - 32) / 32).toBeLessThan(0.02);
    const b = await cli('coredirect', 'barrier', '--procs', '64', '--mode', 'mq-send', '--connections', 'dense', '--json');
    const rb = (JSON.parse(b.out) as { rows: { latency_us: number; seed_us: number }[] }).rows[0]!;
    expect(rb.seed_us).toBe(54);
    expect(Math.abs(rb.latency_us - 54) / 54).toBeLessThan(0.02);
  });

  it('prints a table, latency grows with the process count', async () => {
    const r = await cli('coredirect', 'barrier', '--procs', '4,16,48', '--mode', 'ptp-send', '--iterations', '6');
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toBe('CORE-Direct barrier, ptp-send, sparse connections, 8 processes per node');
    const lat = lines.slice(3).map((l) => Number(l.trim().split(/\s+/)[1]));
    expect(lat).toHaveLength(3);
    expect(lat[1]!).toBeGreaterThan(lat[0]!);
    expect(lat[2]!).toBeGreaterThan(lat[1]!);
  });

  it('rejects bad input with exit 2', async () => {
    for (const [args, msg] of [
      [['--procs', '1'], /--procs: '1' is not a process count/],
      [['--procs', '8,x'], /--procs: 'x'/],
      [['--mode', 'mq-magic'], /--mode/],
      [['--procs', '512', '--connections', 'dense'], /dense connections allow at most 256/],
      [['--ppn', '0'], /--ppn/],
    ] as const) {
      const r = await cli('coredirect', 'barrier', ...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('coredirect overlap', () => {
  it('both measures: the offloaded barrier leaves more CPU time than the CPU-progressed one', async () => {
    const r = await cli('coredirect', 'overlap', '--procs', '32', '--json');
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.out) as { rows: { mode: string; work_loop_availability: number; test_loop_availability: number }[] }).rows;
    expect(rows.map((x) => x.mode)).toEqual(['mq-rdma', 'mq-send', 'ptp-rdma', 'ptp-send']);
    const mq = rows.find((x) => x.mode === 'mq-rdma')!;
    for (const p of rows.filter((x) => x.mode.startsWith('ptp'))) {
      expect(mq.work_loop_availability).toBeGreaterThan(p.work_loop_availability);
      expect(p.work_loop_availability).toBeLessThanOrEqual(0.3);
    }
    expect(mq.work_loop_availability).toBeGreaterThanOrEqual(0.7);
    for (const x of rows) expect(x.test_loop_availability).toBeGreaterThan(0);
  });
});

describe('coredirect hang-check', () => {
  it('reports the hang and exits 0 (the check passed); bad ranks exit 2', async () => {
    const r = await cli('coredirect', 'hang-check', '--procs', '12', '--absent', '3,9', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as { hung: number; false_completions: number; pass: boolean };
    expect(j).toMatchObject({ hung: 10, false_completions: 0, pass: true });
    const bad = await cli('coredirect', 'hang-check', '--procs', '12', '--absent', '12');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--absent: '12' is not a rank in \[0, 12\)/);
  });
});

describe('coredirect host-share (issue 13)', () => {
  it('with the latency held at the seed\'s 32 us at 64 processes, a larger host CPU share lowers the work-loop availability below 90 %; one refit serves every --procs row', async () => {
    const r = await cli('coredirect', 'host-share', '--post-task-ns', '600', '--procs', '16,64', '--json');
    expect(r.code).toBe(0);
    const rows = (JSON.parse(r.out) as { rows: { procs: number; post_task_ns: number; task_ns: number; raw_us: number; host_share: number; work_loop_availability: number; test_loop_availability: number }[] }).rows;
    expect(rows.map((x) => x.procs)).toEqual([16, 64]);
    expect(rows[0]!.task_ns).toBe(rows[1]!.task_ns);
    expect(rows[0]!.raw_us).toBeLessThan(rows[1]!.raw_us);
    const row = rows[1]!;
    expect(row.post_task_ns).toBe(600);
    expect(Math.abs(row.raw_us - 32) / 32).toBeLessThan(0.02); // taskNs refitted
    expect(row.task_ns).toBeLessThan(HCA_DEFAULTS.taskNs); // the HCA's share went down by what the host's went up
    expect(row.host_share).toBeGreaterThan(0.2);
    expect(row.work_loop_availability).toBeLessThan(0.9);
    expect(row.work_loop_availability).toBeGreaterThanOrEqual(0.7);
  });

  it('a bad value exits 2 naming the flag', async () => {
    const r = await cli('coredirect', 'host-share', '--post-task-ns', '60,lots');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--post-task-ns: 'lots'/);
    const p = await cli('coredirect', 'host-share', '--procs', '64,1');
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/--procs: '1'/);
  });
});
