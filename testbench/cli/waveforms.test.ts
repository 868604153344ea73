/**
 * The waveform flags (cli/waveforms.ts): `--vcd` writes the GTKWave save file next to the VCD,
 * `--wavedrom FILE --window A:B` WaveDrom JSON of those cycles; a bad window is a usage error
 * (exit 2, one line naming the flag) before anything is written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../lib/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'netoffload-waves-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('waveform flags', () => {
  it('sim ring --vcd writes FILE.gtkw next to it; --wavedrom draws the window', async () => {
    const r = await cli(['sim', 'ring', '--stages', '2', '--cycles', '30', '--vcd', join(dir, 'r.vcd'), '--wavedrom', join(dir, 'r.json'), '--window', '3:11', '--include', 'stage2']);
    expect(r.code).toBe(0);
    const save = readFileSync(join(dir, 'r.gtkw'), 'utf8');
    expect(save).toContain('[dumpfile] "r.vcd"');
    expect(save).toContain('-stage2\n');
    expect(save).not.toContain('stage1');
    const doc = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { signal: [{ wave: string }, [string, ...{ name: string }[]]]; head: { tick: number } };
    expect(doc.signal[0].wave).toBe('p.......');
    expect(doc.head.tick).toBe(3);
    expect(doc.signal[1][0]).toBe('stage2');
    expect(doc.signal[1].slice(1).map((l) => (l as { name: string }).name)).toContain('fifo0.head');
  });

  it('a bad --window is a usage error naming the flag, and nothing is written', async () => {
    for (const [w, why] of [['5:5', /B must be greater than A/], ['x', /expected A:B/], ['0:100000', /at most 512 cycles/], ['-1:4', /expected A:B/]] as const) {
      const out = join(dir, `bad-${w.replace(/\W/g, '_')}.json`);
      const r = await cli(['sim', 'ring', '--cycles', '10', '--wavedrom', out, '--window', w]);
      expect(r.code, w).toBe(2);
      expect(r.err).toMatch(why);
      expect(r.err.trim().split('\n').length).toBe(1);
      expect(existsSync(out)).toBe(false);
    }
    const r = await cli(['sim', 'ring', '--cycles', '10', '--window', '0:8']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--window: only with --wavedrom/);
  });

  it('docs/waveforms/ring.json (rendered to ring.svg in docs/kernel.md) is what the documented command writes', async () => {
    const out = join(dir, 'doc.json');
    const r = await cli(['sim', 'ring', '--stages', '2', '--cycles', '24', '--wavedrom', out, '--window', '0:16']);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(new URL('../../docs/waveforms/ring.json', import.meta.url), 'utf8'));
  });
});
