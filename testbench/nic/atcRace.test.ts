/**
 * The ATC race vectors (vectors/blocks/atcRace.ts, issue 10 item 4): the checked-in sets
 * (vectors/golden/atc-race.jsonl, cache mode; atc-race-buffer.jsonl, buffer mode) replay through
 * the RTL without a mismatch (`netoffload vectors check` exits 0), regenerate byte for byte, contain
 * every race they are for, and fail on deliberately broken ATCs (never merging, no hits under a
 * miss, no stale refetch, a refresh that removes nothing, one cycle late, twice, never); bad files
 * are input errors naming the line.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { type BreakMode, withBrokenResponses } from '../lib/brokenResponses.ts';
import { Atc, type AtcReq, MshrFile, RefreshEngine } from '../../rtl/nic/atc/index.ts';
import { block as raceBlock, generateRace } from '../../vectors/blocks/atcRace.ts';
import { type Json, parse, serialize } from '../../vectors/format.ts';
import { type CheckSummary, checkFile, generateFile, getBlock } from '../../vectors/registry.ts';

const golden = join(dirname(fileURLToPath(import.meta.url)), '../../vectors/golden');
const load = (name: string) => {
  const path = join(golden, `${name}.jsonl`);
  const text = readFileSync(path, 'utf8');
  return { path, text, file: parse(text, path) };
};

async function cli(...argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (out += t) });
  return { code, out };
}

/** Run `f` with `obj[key]` replaced by `impl` (a deliberately broken RTL), restoring it after. */
async function broken<T extends object, K extends keyof T, R>(obj: T, key: K, impl: T[K], f: () => Promise<R>): Promise<R> {
  const orig = obj[key];
  obj[key] = impl;
  try {
    return await f();
  } finally {
    obj[key] = orig;
  }
}

const mismatches = (r: CheckSummary): string => r.failures.flatMap((f) => f.mismatches).join(' | ');

describe.each(['atc-race', 'atc-race-buffer'])('golden race vectors: %s', (name) => {
  const { path, text, file } = load(name);

  it('replays through the RTL without a mismatch (netoffload vectors check exits 0)', async () => {
    expect(file.header.block).toBe('atc-race');
    expect(file.records.length).toBeGreaterThanOrEqual(300);
    const r = await cli('vectors', 'check', path, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ passed: file.records.length, failed: 0 });
  });

  it('regenerates byte for byte from its seed, configuration and count, and holds the races it is for', () => {
    expect(file.header.generator_version).toBe(raceBlock.generatorVersion);
    const cfg = raceBlock.parseConfig(file.header.config);
    expect(serialize(generateFile(raceBlock, cfg, file.header.seed, file.header.count)) === text).toBe(true);
    const { model } = generateRace(cfg, file.header.seed, file.header.count);
    const n = model.counts;
    const lookups = file.records.filter((r) => r.in.op === 'lookup');
    // several requests in flight: more lookups issued than answered at some cycle
    const inFlight = Math.max(...lookups.map((r) => lookups.filter((s) => (s.cycles!.issue as number) <= (r.cycles!.issue as number) && (s.cycles!.resp as number) > (r.cycles!.issue as number)).length));
    expect(inFlight).toBeGreaterThanOrEqual(cfg.mode === 'cache' ? 8 : 4);
    if (cfg.mode === 'cache') {
      // responses overtake each other (hits under misses)
      const overtaken = lookups.filter((r, k) => lookups.slice(k + 1).some((x) => (x.cycles!.resp as number) < (r.cycles!.resp as number)));
      expect(overtaken.length).toBeGreaterThan(10);
      for (const k of ['merged', 'stallCycles', 'hitsUnderMiss', 'staleFills', 'yields', 'faults', 'evictions', 'removals'] as const) expect(n[k], k).toBeGreaterThan(0);
      const statuses = new Set(lookups.map((r) => r.out.status));
      expect([...statuses].sort()).toEqual(['bypass', 'error', 'fault', 'hit', 'merged', 'miss']);
      expect(new Set(file.records.filter((r) => r.in.op === 'refresh').map((r) => r.out.mode))).toEqual(new Set(['probe', 'sweep', 'bad']));
      // MSHR-full and target-full stalls: requests taken later than the cycle after their issue
      expect(lookups.filter((r) => (r.cycles!.accept as number) > (r.cycles!.issue as number) + 1).length).toBeGreaterThan(20);
    } else {
      for (const k of ['hits', 'faults', 'removals'] as const) expect(n[k], k).toBeGreaterThan(0);
      expect(new Set(file.records.filter((r) => r.in.op === 'preload').map((r) => r.out.result))).toEqual(new Set(['ok', 'rejected']));
      expect(new Set(file.records.filter((r) => r.in.op === 'refresh').map((r) => r.out.mode))).toEqual(new Set(['buffer', 'bad']));
    }
  });

  it('reports a tampered response cycle, status and accept cycle on their records', async () => {
    const bad = parse(text, path);
    const ls = bad.records.filter((r) => r.in.op === 'lookup');
    ls[3]!.cycles!.resp = (ls[3]!.cycles!.resp as number) + 1;
    ls[7]!.out.status = ls[7]!.out.status === 'hit' ? 'fault' : 'hit';
    ls[9]!.cycles!.accept = (ls[9]!.cycles!.accept as number) + 1;
    const r = await checkFile(bad);
    expect(r.failures.map((f) => f.id)).toEqual([ls[3]!.id, ls[7]!.id, ls[9]!.id]);
    expect(r.failures[0]!.mismatches.join(' ')).toMatch(/cycles\.resp: expected \d+, the response was visible in cycle \d+ \(early\)/);
    expect(r.failures[1]!.mismatches.join(' ')).toMatch(/out\.status: expected/);
    expect(r.failures[2]!.mismatches.join(' ')).toMatch(/cycles\.accept: expected \d+, taken in cycle \d+ \(early\)/);
  });
});

describe('race vectors for other configurations generate and replay without a mismatch', () => {
  const cases: { [k: string]: Json }[] = [
    { replacement: 'plru', ways: 4, entries: 16 },
    { mshrs: 1, mshrTargets: 1 },
    { hitLatency: 2, readLatency: 2 },
    { refreshProbeMax: 0, mshrs: 2, mshrTargets: 2, readLatency: 7 },
    { ways: 1, entries: 8, hitLatency: 6, readLatency: 60, mshrs: 5 },
    { mode: 'buffer', hitLatency: 2, entries: 32, ways: 4 },
  ];
  it.each(cases)('%j', async (over) => {
    const cfg = raceBlock.parseConfig({ ...raceBlock.configToJson(raceBlock.defaultConfig()), ...over });
    const res = await checkFile(parse(serialize(generateFile(raceBlock, cfg, 7, 400))));
    expect(res.failures.slice(0, 3)).toEqual([]);
    expect(res.passed).toBe(400);
  });
});

describe('a deliberately broken ATC fails the race vectors (netoffload vectors check exits 1)', () => {
  const cache = load('atc-race');

  it('never merging (a second miss to a page waits for the fill)', async () => {
    const r = await broken(MshrFile.prototype, 'merge', () => false, () => cli('vectors', 'check', cache.path));
    expect(r.code).toBe(1);
    const res = await broken(MshrFile.prototype, 'merge', () => false, () => checkFile(cache.file));
    expect(res.failed).toBeGreaterThan(20);
    expect(mismatches(res)).toMatch(/out\.status: expected merged, got hit/);
  });

  it('no hits under a miss (a blocking cache)', async () => {
    type P = { lookup(t: number, r: AtcReq): boolean; mshr: MshrFile };
    const proto = Atc.prototype as unknown as P;
    const lookup = proto.lookup;
    const res = await broken(proto, 'lookup', function (this: P, t: number, r: AtcReq) {
      return this.mshr.busy > 0 ? false : lookup.call(this, t, r);
    }, () => checkFile(cache.file));
    expect(res.failed).toBeGreaterThan(50);
    expect(mismatches(res)).toMatch(/cycles\.accept: expected \d+, taken in cycle \d+ \(late\)/);
  });

  it('a refresh that does not mark in-flight fills stale (the old translation is installed and returned)', async () => {
    type P = { start(t: number, rq: unknown): void; mshr: MshrFile };
    const proto = RefreshEngine.prototype as unknown as P;
    const start = proto.start;
    const res = await broken(proto, 'start', function (this: P, t: number, rq: unknown) {
      start.call(this, t, rq);
      this.mshr.stale.fill(0);
    }, () => checkFile(cache.file));
    expect(res.failed).toBeGreaterThan(0);
    expect(mismatches(res)).toMatch(/out\.pa: expected/);
  });

  it('buffer mode: a refresh that removes nothing', async () => {
    const buf = load('atc-race-buffer');
    type P = { step(t: number, mon: unknown): boolean; mode: number; left: number; active: boolean };
    const proto = RefreshEngine.prototype as unknown as P;
    const step = proto.step;
    const res = await broken(proto, 'step', function (this: P, t: number, mon: unknown) {
      if (this.mode !== 3) return step.call(this, t, mon);
      if (--this.left > 0) return false;
      this.active = false;
      return true;
    }, () => checkFile(buf.file));
    expect(res.failed).toBeGreaterThan(0);
    expect(mismatches(res)).toMatch(/out\.status: expected fault, got hit/);
  });

  /** The ATC under test pushes each response one cycle late (its doneCycle still claims the documented cycle), or one response twice or never. */
  const withResponses = (mode: BreakMode, id: number): Promise<CheckSummary> => withBrokenResponses<AtcReq, CheckSummary>(Atc.prototype, (a: Atc) => [a.resp], mode, id, () => checkFile(parse(cache.text, cache.path)));

  it('late, twice and never are mismatches on the record', async () => {
    const id = cache.file.records.filter((r) => r.in.op === 'lookup')[30]!.id;
    const late = await withResponses('late', id);
    expect(late.failed).toBeGreaterThan(100);
    expect(mismatches(late)).toMatch(/the response was visible in cycle \d+ \(late\)/);
    const twice = await withResponses('twice', id);
    expect(twice.failures.map((f) => f.id)).toEqual([id]);
    expect(twice.failures[0]!.mismatches.join(' ')).toMatch(/answered twice/);
    const never = await withResponses('never', id);
    expect(never.failures.map((f) => f.id)).toContain(id);
    expect(never.failures.find((f) => f.id === id)!.mismatches.join(' ')).toMatch(/no response \(lost\)/);
  });
});

describe('race vector files: bad input is an error naming the line', () => {
  const { path, text } = load('atc-race');

  it('unknown and missing fields, in every record kind', async () => {
    const edit = (f: (recs: { in: { [k: string]: Json }; out: { [k: string]: Json }; cycles?: { [k: string]: Json } }[]) => void) => {
      const file = parse(text, path);
      f(file.records);
      return checkFile(file);
    };
    await expect(edit((r) => (r[4]!.in.colour = 'red'))).rejects.toThrow(/^line 6: unknown field in\.colour in a lookup record/);
    const k = parse(text, path).records.findIndex((r) => r.in.op === 'refresh');
    await expect(edit((r) => delete r[k]!.in.vp)).rejects.toThrow(new RegExp(`^line ${k + 2}: missing field in\\.vp in a refresh record`));
    await expect(edit((r) => delete r[2]!.cycles!.accept)).rejects.toThrow(/^line 4: missing field cycles\.accept in a lookup record/);
    await expect(edit((r) => (r[2]!.out.evicted = null))).rejects.toThrow(/^line 4: unknown field out\.evicted/);
    await expect(edit((r) => (r[2]!.in.asid = 70000))).rejects.toThrow(/record 2: in\.asid must be an integer in \[0, 65535\]/);
  });

  it('records out of issue order', async () => {
    const file = parse(text, path);
    file.records[10]!.cycles!.issue = 0;
    await expect(checkFile(file)).rejects.toThrow(/^line 12: cycles\.issue 0 is before the previous record's/);
  });

  it('a bad configuration names the field', async () => {
    const b = await getBlock('atc-race');
    expect(() => b.parseConfig({ mshrTargets: 0 })).toThrow(/mshrTargets/);
    expect(() => b.parseConfig({ mshrTargets: 'three' as unknown as number })).toThrow(/config\.mshrTargets must be an integer/);
    expect(() => b.parseConfig({ colour: 1 })).toThrow(/unknown field 'colour'/);
  });
});
