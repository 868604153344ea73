/**
 * The MWR / MQ task-machine golden vectors (vectors/blocks/mwr.ts): the checked-in set replays
 * through the RTL, regenerates byte for byte, a tampered record is reported, another configuration
 * generates and replays, and bad configurations are refused naming the field.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, serialize } from '../../vectors/format.ts';
import { checkFile, generateFile, getBlock } from '../../vectors/registry.ts';
import { WorkQueue } from '../../rtl/coredirect/workQueue.ts';

const path = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden/mwr.jsonl');

describe('golden vectors: mwr', () => {
  const text = readFileSync(path, 'utf8');
  const file = parse(text, path);

  it('has a few hundred records covering completions, MQ errors and refused MWRs, and replays without a mismatch', async () => {
    expect(file.header.block).toBe('mwr');
    expect(file.records.length).toBeGreaterThanOrEqual(200);
    const outs = file.records.map((r) => r.out);
    expect(outs.some((o) => (o.signals as number) >= 2)).toBe(true);
    expect(outs.some((o) => o.mq_error === true)).toBe(true);
    for (const why of ['too_long', 'unknown_kind', 'bad_field']) expect(outs.some((o) => o.rejected === why)).toBe(true);
    const res = await checkFile(file);
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(file.records.length);
  });

  it('regenerates byte for byte from its seed, configuration and count', async () => {
    const block = await getBlock('mwr');
    expect(file.header.generator_version).toBe(block.generatorVersion);
    const again = serialize(generateFile(block, block.parseConfig(file.header.config), file.header.seed, file.header.count));
    expect(again === text).toBe(true);
  });

  it('reports a tampered record', async () => {
    const bad = parse(text, path);
    const rec = bad.records.find((r) => r.out.rejected === null && (r.out.signals as number) > 0)!;
    rec.out.signals = (rec.out.signals as number) + 1;
    const res = await checkFile(bad);
    expect(res.failed).toBe(1);
    expect(res.failures[0]!.id).toBe(rec.id);
    expect(res.failures[0]!.mismatches.join(' ')).toMatch(/out\.signals/);
  });

  it('another configuration generates and replays; bad configurations are refused', async () => {
    const block = await getBlock('mwr');
    const cfg = block.parseConfig({ qps: 5, sqLength: 40 });
    const res = await checkFile(parse(serialize(generateFile(block, cfg, 7, 120))));
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(() => block.parseConfig({ qps: 0 })).toThrow(/config.qps must be an integer in \[1, 16\]/);
    expect(() => block.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});

describe('mwr vectors: per-task order from the golden model (issue 13 item 4)', () => {
  const text = readFileSync(path, 'utf8');
  const file = parse(text, path);
  const outcome = ['rejected', 'posted', 'consumed', 'signals', 'mq_error', 'sent', 'completions'];

  it('every record names each executed entry with what must precede it; some entries wait for an enable or a completion', () => {
    const deps = file.records.flatMap((r) => Object.entries(r.out.order as Record<string, string[]>).flatMap(([k, v]) => v.map((x) => [k, x] as const)));
    expect(deps.some(([k, x]) => !k.startsWith('mq') && x.startsWith('mq.'))).toBe(true); // a disabled entry after its enable
    expect(deps.some(([, x]) => x.startsWith('cq'))).toBe(true); // a wait after its completions
    expect(deps.some(([k, x]) => k.startsWith('sq') && x.startsWith('sq'))).toBe(true); // a queue in order
  });

  /** Replays the golden set with a WorkQueue method replaced; returns the failures. */
  async function withBrokenQueue(method: 'headEnabled' | 'headCount', impl: (this: { ci: { q: number }; pi: { q: number } }) => unknown) {
    const proto = WorkQueue.prototype as unknown as Record<string, unknown>;
    const orig = proto[method];
    proto[method] = impl;
    try {
      return (await checkFile(parse(text, path))).failures;
    } finally {
      proto[method] = orig;
    }
  }

  it('an HCA that runs a disabled entry before its enable fails the replay on the order alone in some records', async () => {
    const failures = await withBrokenQueue('headEnabled', function () {
      return this.ci.q < this.pi.q; // ignores F_DISABLED
    });
    const msgs = failures.flatMap((f) => f.mismatches);
    expect(msgs.some((m) => /^order: (sq|rq)\d+\.\d+ ran in cycle \d+, not after mq\.\d+/.test(m))).toBe(true);
    // records whose outcome is unchanged (what the replayer checked before) are caught by the order
    expect(failures.some((f) => f.mismatches.every((m) => m.startsWith('order:')))).toBe(true);
  });

  it('an HCA whose waits do not wait (a wait runs before its completions) fails the replay', async () => {
    const failures = await withBrokenQueue('headCount', () => 0);
    const msgs = failures.flatMap((f) => f.mismatches);
    expect(msgs.some((m) => /^order: \w+\.\d+ ran in cycle \d+, not after cq\d+#\d+/.test(m))).toBe(true);
    expect(failures.some((f) => f.mismatches.every((m) => m.startsWith('order:')))).toBe(true);
  });

  it('a vector whose order names an event that never happens is reported on that record only; unknown or missing fields are refused naming the line', async () => {
    const bad = parse(text, path);
    const rec = bad.records.find((r) => Object.keys(r.out.order as object).includes('mq.1') && Object.keys(r.out.order as object).some((k) => k.startsWith('sq')))!;
    const order = rec.out.order as Record<string, string[]>;
    const sq = Object.keys(order).find((k) => k.startsWith('sq'))!;
    const last = Object.keys(order).filter((k) => k.startsWith('mq')).sort((a, b) => Number(a.slice(3)) - Number(b.slice(3))).pop()!;
    order[sq] = [...order[sq]!, last, 'cq9#1'];
    const res = await checkFile(bad);
    expect(res.failures.map((f) => f.id)).toEqual([rec.id]);
    const msg = res.failures[0]!.mismatches.join(' ');
    expect(msg).toMatch(/CQ 9 got only 0 completions/);
    expect(outcome.some((k) => msg.includes(`out.${k}`))).toBe(false);
    const extra = parse(text, path);
    extra.records[3]!.out.colour = 1;
    await expect(checkFile(extra)).rejects.toThrow(/^line 5: unknown field out\.colour/);
    const missing = parse(text, path);
    delete missing.records[4]!.out.order;
    await expect(checkFile(missing)).rejects.toThrow(/^line 6: missing field out\.order/);
  });
});
