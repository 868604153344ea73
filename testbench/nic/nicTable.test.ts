/**
 * `netoffload nic table` (experiments/nic/nicTable.ts): the fit of the host costs on the seed's
 * Table 1 reproduces the defaults the rig applies (HOST_COSTS); the host costs act where they
 * model (send: every cell; PIO chunks: 128-byte PIO descriptors only; polling: per line of the
 * completion entry); the table has every cell with its seed figure and a correctly computed
 * error; Table 2 is Table 1 plus the MPI costs; the bare rig equals `nic rdma`; bad flags exit 2.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../lib/cli.ts';
import { HOST_COSTS, hostCosts, NO_HOST_COSTS } from '../../experiments/nic/hostCpu.ts';
import { errorPct, FIG2_LARGE, figure2Points, fitHost, type HostFit, MPI_COSTS, runCell, runFigure2, SEED_TABLE1, SEED_TABLE2, solve, table1Cells, table2 } from '../../experiments/nic/nicTable.ts';
import { runRdmaProbe } from '../../experiments/nic/rdmaProbe.ts';

describe('nic table', () => {
  let fit: HostFit;
  beforeAll(() => {
    fit = fitHost();
  }, 120_000);

  it('the least-squares fit on Table 1 reproduces HOST_COSTS, every cell within 5 %', () => {
    expect(fit.fitted).toEqual({ ...HOST_COSTS });
    expect(hostCosts()).toEqual({ ...HOST_COSTS });
    for (const r of fit.rows) expect(Math.abs(r.error_pct), r.label).toBeLessThanOrEqual(5);
    // the solution satisfies its normal equations
    const back = fit.normal.map((row) => row.reduce((a, v, k) => a + v * fit.exact[k]!, 0));
    back.forEach((v, j) => expect(v).toBeCloseTo(fit.rhs[j]!, 9));
  });

  it('each host cost acts where it models: send on every cell, PIO chunks on 128-byte PIO descriptors, polling per line of the entry', () => {
    const cells = table1Cells();
    cells.forEach((c, i) => {
      const row = fit.jacobian[i]!;
      expect(row[0], `${c.kind} ${c.path} sendNs`).toBe(1);
      expect(row[1], `${c.kind} ${c.path} pioChunkNs`).toBe(c.path === 'pio' && c.kind === 'mp' ? 1 : 0);
      expect(row[2], `${c.kind} ${c.path} pollLineNs`).toBe(c.kind === 'mp' ? 2 : 1);
    });
  });

  it('Table 1 has every cell once with the seed figure and its error; Table 2 is Table 1 plus the MPI costs', () => {
    const rows = fit.rows;
    expect(rows).toHaveLength(12);
    const keys = new Set(rows.map((r) => `${r.path}/${r.connect}/${r.kind}`));
    expect(keys.size).toBe(12);
    for (const path of ['pio', 'dma'] as const)
      for (const connect of [false, true])
        for (const kind of ['imm_put', 'put', 'mp'] as const) {
          const r = rows.find((x) => x.path === path && x.connect === connect && x.kind === kind)!;
          expect(r, `${path} ${connect} ${kind}`).toBeDefined();
          expect(r.seed_ns).toBe(SEED_TABLE1[path][connect ? 'connect' : 'connectless'][kind]);
          expect(r.error_pct).toBeCloseTo((100 * (r.model_ns - r.seed_ns)) / r.seed_ns, 9);
          expect(r.ok).toBe(true);
        }
    expect(errorPct(1100, 1000)).toBeCloseTo(10, 12);
    expect(errorPct(900, 1000)).toBeCloseTo(-10, 12);
    const t2 = table2(rows);
    expect(t2).toHaveLength(8);
    for (const r of t2) {
      const kind = r.channel === 'ER' ? 'imm_put' : 'mp';
      const cell = rows.find((x) => x.path === r.path && x.connect === r.connect && x.kind === kind)!;
      const mpi = r.channel === 'ER' ? MPI_COSTS.erSendCopyNs + MPI_COSTS.erRecvCopyNs + MPI_COSTS.progressNs : MPI_COSTS.progressNs;
      expect(r.model_ns).toBe(cell.model_ns + mpi);
      expect(r.seed_ns).toBe(SEED_TABLE2[r.path][r.connect ? 'connect' : 'connectless'][r.channel === 'ER' ? 'er' : 'sr']);
      expect(r.error_pct).toBeCloseTo((100 * (r.model_ns - r.seed_ns)) / r.seed_ns, 9);
    }
    expect(MPI_COSTS.erSendCopyNs + MPI_COSTS.erRecvCopyNs + MPI_COSTS.progressNs).toBe(300); // the seed's "about 300 ns"
  });

  it('with no host costs the rig measures what nic rdma measures', () => {
    for (const c of [{ kind: 'imm_put', path: 'pio', connect: false }, { kind: 'put', path: 'dma', connect: true }, { kind: 'mp', path: 'dma', connect: false }] as const) {
      const bare = runCell(c, NO_HOST_COSTS);
      const probe = runRdmaProbe({ kind: c.kind, path: c.path, connect: c.connect, bytes: 8, count: 1 });
      expect(bare.latency_ns, `${c.kind} ${c.path}`).toBe(probe.latency_ns);
      expect(bare.landed_ns).toBe(bare.latency_ns);
    }
  });

  it('host costs and the solver refuse bad input', () => {
    expect(() => hostCosts({ sendNs: -1 })).toThrow(/sendNs must be a whole number of ns/);
    expect(() => hostCosts({ pollLineNs: 1.5 })).toThrow(/pollLineNs/);
    expect(() => hostCosts({ bogus: 1 } as never)).toThrow(/unknown host cost 'bogus'/);
    expect(() => solve([[1, 2], [2, 4]], [1, 2])).toThrow(/singular/);
    expect(solve([[2, 1], [1, 3]], [3, 5])).toEqual([expect.closeTo(0.8, 12), expect.closeTo(1.4, 12)]);
  });

  it('Figure 2: each direction on each VP kind at the size the seed peak starts from and at 64 KiB, against the seed peak', () => {
    const asked: string[] = [];
    const rows = runFigure2((p) => {
      asked.push(`${p.direction}/${p.path}/${p.bytes}`);
      return p.bytes / 1000 + (p.path === 'dma' ? 0.5 : 0);
    });
    expect(rows).toHaveLength(8);
    expect(new Set(asked).size).toBe(8);
    expect(figure2Points()).toHaveLength(8);
    for (const direction of ['unidirectional', 'bidirectional'] as const)
      for (const path of ['pio', 'dma'] as const)
        for (const bytes of [direction === 'unidirectional' ? 4096 : 8192, FIG2_LARGE]) {
          const r = rows.find((x) => x.direction === direction && x.path === path && x.bytes === bytes)!;
          expect(r, `${direction} ${path} ${bytes}`).toBeDefined();
          expect(r.seed_gbps).toBe(direction === 'unidirectional' ? 11.7 : 20.6);
          expect(r.model_gbps).toBe(bytes / 1000 + (path === 'dma' ? 0.5 : 0));
          expect(r.error_pct).toBeCloseTo((100 * (r.model_gbps - r.seed_gbps)) / r.seed_gbps, 9);
        }
  });

  it('the command: --json rows, text marks, bad flags exit 2', async () => {
    const j = await cli(['nic', 'table', '--json', '--latency-only']);
    expect(j.code).toBe(0);
    const o = JSON.parse(j.out);
    expect(o.host).toEqual({ ...HOST_COSTS });
    expect(o.table1).toHaveLength(12);
    expect(o.table2).toHaveLength(8);
    expect(o.figure2).toBeUndefined();
    expect(o.table1.map((r: { model_ns: number }) => r.model_ns)).toEqual(fit.rows.map((r) => r.model_ns));
    const bad = await cli(['nic', 'table', '--bogus']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/unknown flag --bogus/);
    const v = await cli(['nic', 'table', '--fit=maybe']);
    expect(v.code).toBe(2);
    expect(v.err).toMatch(/--fit/);
  }, 60_000);
});
