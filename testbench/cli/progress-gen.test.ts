/**
 * Progress of vectors gen, nic pcie, coredirect overlap, gemini table and gemini fit (issue 10
 * item 13): lines on stderr through the shared helper (cli/progress.ts) as the work is produced,
 * stdout, --json and the files written unchanged. (coredirect fit: progress-fit.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serialize } from '../../vectors/format.ts';
import { GENERATE_REPORT_CHUNK, generateFile, loadBlocks } from '../../vectors/registry.ts';
import { expectProgressLines, progressOf } from '../lib/progressLines.ts';
import { cli } from '../lib/cli.ts';

describe('vectors gen: progress as records are produced', () => {
  it('every block reports each chunk of records in order, ending at the count, and the file is the same', async () => {
    const blocks = await loadBlocks();
    expect(blocks.size).toBeGreaterThanOrEqual(6);
    const count = 3 * GENERATE_REPORT_CHUNK + 5;
    for (const b of blocks.values()) {
      const cfg = b.defaultConfig();
      const seen: number[] = [];
      const loud = serialize(generateFile(b, cfg, 3, count, (n) => seen.push(n)));
      expect(loud, b.name).toBe(serialize(generateFile(b, cfg, 3, count)));
      expect(seen, b.name).toEqual([GENERATE_REPORT_CHUNK, 2 * GENERATE_REPORT_CHUNK, 3 * GENERATE_REPORT_CHUNK, count]);
    }
  });

  it('the command prints progress lines and writes the same file', async () => {
    const dir = tmpdir();
    const a = join(dir, `progmut-gen-a-${process.pid}.jsonl`);
    const b = join(dir, `progmut-gen-b-${process.pid}.jsonl`);
    const args = ['vectors', 'gen', '--block', 'memcheck', '--count', '300', '--seed', '4', '--json'];
    const quiet = await cli([...args, '--out', a]);
    const r = await cli([...args, '--out', b], { progressIntervalMs: 0 });
    expect(quiet.code).toBe(0);
    expect(r.code).toBe(0);
    expect(quiet.err).toBe('');
    expect(readFileSync(b, 'utf8')).toBe(readFileSync(a, 'utf8'));
    expect(expectProgressLines(r.err, 'vectors gen', 'memcheck records', 300)).toEqual([64, 128, 192, 256, 300]);
  });
});

describe('progress of nic pcie, coredirect overlap, gemini table and gemini fit', () => {
  it('nic pcie: streamed transfers, writes then reads', async () => {
    const { err } = await progressOf(['nic', 'pcie', '--count', '16', '--size', '1024', '--json']);
    const counts = expectProgressLines(err, 'nic pcie', 'streamed transfers (writes then reads)', 32);
    expect(counts).toContain(16);
  });

  it('coredirect overlap: processes summed over procs and modes', async () => {
    const { err } = await progressOf(['coredirect', 'overlap', '--procs', '4,8', '--mode', 'mq-rdma,ptp-rdma', '--json']);
    expect(expectProgressLines(err, 'coredirect overlap', 'processes (summed over --procs and --mode)', 24)).toEqual([4, 8, 16, 24]);
  });

  it('gemini table: one line per figure', async () => {
    const { out, err } = await progressOf(['gemini', 'table', '--json']);
    const t = JSON.parse(out) as { rows: unknown[]; pio_switch: unknown[] };
    const figures = t.rows.length + t.pio_switch.length;
    expect(expectProgressLines(err, 'gemini table', 'figures (seed rows, then PIO/DMA switch sizes)', figures)).toEqual(Array.from({ length: figures }, (_, i) => i + 1));
  });

  it('gemini fit: step sizes', async () => {
    const { err } = await progressOf(['gemini', 'fit', '--json']);
    expect(expectProgressLines(err, 'gemini fit', 'step sizes (32, 16, ..., 1 cycles)', 6)).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
