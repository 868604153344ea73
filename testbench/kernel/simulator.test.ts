import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRing } from '../../rtl/examples/ring.ts';
import { Component, fileSink, LineTracer, MemorySink, NEVER, NumChannel, NumFifo, Process, Reg, Rng, Simulator, SimulationLimitError, VcdTracer, vcdTimescale } from '../../rtl/kernel/index.ts';

class Timer extends Component {
  fired: number[] = [];
  constructor(
    sim: Simulator,
    name: string,
    private readonly at: number[],
  ) {
    super(sim, name);
  }
  tick(t: number): number {
    if (this.at.includes(t)) this.fired.push(t);
    const next = this.at.find((x) => x > t);
    return next ?? NEVER;
  }
}

describe('Simulator', () => {
  it('jumps over idle time to the next wake-up and evaluates only then', () => {
    const sim = new Simulator();
    const a = new Timer(sim, 'a', [5, 1000, 1_000_000]);
    sim.step(2_000_000);
    expect(a.fired).toEqual([5, 1000, 1_000_000]);
    expect(sim.cycle).toBe(2_000_000);
    expect(sim.evaluations).toBe(4); // cycle 0, 5, 1000, 1e6
    const b = new Simulator({ skipping: false });
    const a2 = new Timer(b, 'a', [5, 1000]);
    b.step(2000);
    expect(a2.fired).toEqual([5, 1000]);
    expect(b.evaluations).toBe(2000);
  });

  it('runUntil returns at the cycle the condition holds and names the limit when it does not', () => {
    const sim = new Simulator();
    const a = new Timer(sim, 'a', [10]);
    expect(sim.runUntil(() => a.fired.length > 0, 100)).toBe(11);
    expect(() => sim.runUntil(() => false, 50)).toThrow(SimulationLimitError);
    expect(() => sim.runUntil(() => false, 50)).toThrow(/within 50 cycles.*idle/);
  });

  it('converts cycles to time at the clock frequency', () => {
    const sim = new Simulator({ freqHz: 250e6 });
    expect(sim.periodNs).toBe(4);
    expect(sim.cyclesToNs(10)).toBe(40);
    expect(sim.cyclesToUs(1000)).toBe(4);
    expect(sim.nsToCycles(100)).toBe(25);
    expect(() => new Simulator({ freqHz: 0 })).toThrow(/freqHz/);
    expect(() => sim.step(-1)).toThrow(/non-negative/);
  });

  it('rejects duplicate paths, bad names, wakes in the past and bad tick results', () => {
    const sim = new Simulator();
    new Timer(sim, 'x', []);
    expect(() => new Timer(sim, 'x', [])).toThrow(/duplicate/);
    expect(() => new Timer(sim, 'a.b', [])).toThrow(/invalid name/);
    const t = new Timer(sim, 'y', []);
    sim.step(5);
    expect(() => t.wake(2)).toThrow(/in the past/);
    class Bad extends Component {
      tick(x: number): number {
        return x;
      }
    }
    new Bad(sim, 'bad');
    expect(() => sim.step(2)).toThrow(/returned/);
  });

  it('rejects every path used twice, whatever kind of unit and scope holds it', () => {
    // queue names are kept by the component whose scope they are in, so every pairing is checked
    const sim = new Simulator();
    const a = new Timer(sim, 'a', []);
    new NumChannel(a, 'ch');
    expect(() => new NumChannel(a, 'ch')).toThrow(/duplicate path a\.ch/); // channel, channel
    expect(() => new Timer(a as unknown as Simulator, 'ch', [])).toThrow(/duplicate component path a\.ch/); // channel, then component
    new Timer(a as unknown as Simulator, 'sub', []);
    expect(() => new NumChannel(a, 'sub')).toThrow(/duplicate path a\.sub/); // component, then channel
    new NumFifo(a, 2); // fifo0
    expect(() => new NumChannel(a, 'fifo0')).toThrow(/duplicate path a\.fifo0/); // FIFO, then channel
    new NumChannel(a, 'fifo1');
    expect(() => new NumFifo(a, 2)).toThrow(/duplicate path a\.fifo1/); // channel, then FIFO
    expect(() => new NumFifo(a, 2, { name: 'ch' })).toThrow(/duplicate path a\.ch/);
    expect(() => new NumFifo(a, 2, { name: 'a.b' })).toThrow(/invalid name/);
    // a plain scope object naming a component's place shares that component's names
    const plain = { sim, path: 'a' };
    expect(() => new NumChannel(plain, 'ch')).toThrow(/duplicate path a\.ch/);
    new NumChannel(plain, 'p');
    expect(() => new NumChannel(a, 'p')).toThrow(/duplicate path a\.p/);
    // a plain scope naming no component (yet): whole paths
    const q = { sim, path: 'q' };
    new NumChannel(q, 'r');
    expect(() => new NumChannel(q, 'r')).toThrow(/duplicate path q\.r/);
    const qc = new Timer(sim, 'q', []);
    expect(() => new NumChannel(qc, 'r')).toThrow(/duplicate path q\.r/);
    expect(() => new Timer(q as unknown as Simulator, 'r', [])).toThrow(/duplicate component path q\.r/);
    const w = { sim, path: 'w' };
    new Timer(w as unknown as Simulator, 'v', []);
    expect(() => new NumChannel(w, 'v')).toThrow(/duplicate path w\.v/);
    const wc = new Timer(sim, 'w', []);
    expect(() => new NumFifo(wc, 2, { name: 'v' })).toThrow(/duplicate path w\.v/);
    // the simulator's own scope (also as a plain scope with an empty path)
    expect(() => new NumChannel({ sim, path: '' }, 'w')).toThrow(/duplicate path w$/);
    new NumChannel({ sim, path: '' }, 'late');
    expect(() => new Timer(sim, 'late', [])).toThrow(/duplicate component path late/);
    new NumChannel(sim, 'top');
    expect(() => new Timer(sim, 'top', [])).toThrow(/duplicate component path top/);
    expect(() => new NumChannel(sim, 'a')).toThrow(/duplicate path a$/);
    // many queues in one scope (the names move to a set)
    const many = new Timer(sim, 'many', []);
    for (let i = 0; i < 40; i++) new NumChannel(many, `c${i}`);
    expect(() => new NumChannel(many, 'c3')).toThrow(/duplicate path many\.c3/);
    expect(() => new NumChannel(many, 'c39')).toThrow(/duplicate path many\.c39/);
    expect(new NumChannel(many, 'c40').path).toBe('many.c40');
  });

  it('reset returns every register, channel, statistic and component to its reset state', () => {
    const r = buildRing(20);
    r.sim.step(200);
    const first = { recv: r.source.received, stats: JSON.stringify(r.sim.stats.toJSON()) };
    r.sim.reset();
    expect(r.sim.cycle).toBe(0);
    expect(r.source.received).toBe(0);
    r.sim.step(200);
    expect({ recv: r.source.received, stats: JSON.stringify(r.sim.stats.toJSON()) }).toEqual(first);
    expect(r.source.errors).toBe(0);
  });

  it('runs generator testbench processes (yield = one cycle, yield n = n cycles)', () => {
    const sim = new Simulator();
    const ch = new NumChannel(sim, 'ch', { capacity: 4, latency: 3 });
    const got: [number, number][] = [];
    const drv = new Process(sim, 'drv', function* () {
      for (let i = 0; i < 3; i++) {
        ch.push(100 + i);
        yield 2;
      }
    });
    ch.bindProducer(drv);
    const mon = new Process(sim, 'mon', function* () {
      for (;;) {
        while (ch.canPop()) got.push([sim.cycle, ch.pop()]);
        yield;
      }
    });
    ch.bindConsumer(mon);
    sim.step(20);
    expect(got).toEqual([
      [3, 100],
      [5, 101],
      [7, 102],
    ]);
    expect(drv.done).toBe(true);
  });
});

describe('Rng', () => {
  it('is deterministic per seed and forks independent streams', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const xs = Array.from({ length: 10 }, () => a.u32());
    expect(Array.from({ length: 10 }, () => b.u32())).toEqual(xs);
    expect(new Rng(43).u32()).not.toBe(xs[0]);
    const f1 = new Rng(1).fork('x');
    const f2 = new Rng(1).fork('y');
    expect(f1.u32()).not.toBe(f2.u32());
    const r = new Rng(9);
    for (let i = 0; i < 1000; i++) {
      const v = r.int(7);
      expect(v >= 0 && v < 7).toBe(true);
    }
    expect(() => r.int(0)).toThrow();
    expect(new Rng(5n).u64()).toBe(new Rng(5n).u64());
  });
});

describe('VCD writer', () => {
  it('derives the timescale from the clock period', () => {
    expect(vcdTimescale(1e9)).toEqual({ text: '1ns', ticksPerCycle: 1 });
    expect(vcdTimescale(250e6)).toEqual({ text: '1ns', ticksPerCycle: 4 });
    expect(vcdTimescale(100e6)).toEqual({ text: '10ns', ticksPerCycle: 1 });
    expect(vcdTimescale(640e6)).toEqual({ text: '100fs', ticksPerCycle: 15625 });
    expect(vcdTimescale(3e9).text).toBe('1fs');
  });

  it('writes IEEE 1364 structure: one scope per path segment, b-vectors, only changes, opt-in paths', () => {
    const r = buildRing(3, { freqHz: 500e6 });
    const sink = new MemorySink();
    const vcd = new VcdTracer(r.sim, sink, { include: ['stage2'] });
    r.sim.step(20);
    r.sim.closeTraces();
    const text = sink.text();
    expect(text).toContain('$timescale 1ns $end');
    expect(text).toContain('$scope module top $end');
    expect(text).toContain('$scope module stage2 $end');
    expect(text).toContain('$scope module out $end'); // the channel under the stage
    expect(text).not.toContain('$scope module stage1 $end');
    expect(text).toMatch(/\$var wire 32 \S+ count \$end/);
    expect(text).toMatch(/^#0\n\$dumpvars\n/m);
    expect(text).toMatch(/^b[01]+ \S+$/m);
    expect(text.trimEnd().endsWith('#40')).toBe(true); // 20 cycles x 2 ns
    expect(vcd.signalCount).toBeGreaterThan(3);
    // only changes are dumped: no identifier appears twice at one timestamp
    for (const block of text.split(/^#/m).slice(1)) {
      const ids = block.split('\n').slice(1).filter((l) => l && !l.startsWith('$')).map((l) => (l.startsWith('b') ? l.split(' ')[1] : l.slice(1)));
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('survives a round trip through GTKWave vcd2fst and fst2vcd with every value intact', () => {
    const have = spawnSync('vcd2fst', ['--help']).error === undefined;
    if (!have) {
      if (process.env.NETOFFLOAD_REQUIRE_GTKWAVE) throw new Error('vcd2fst not installed but NETOFFLOAD_REQUIRE_GTKWAVE is set');
      return; // GTKWave is installed by .ci/run; locally the check runs when it is available
    }
    const dir = mkdtempSync(join(tmpdir(), 'netoffload-vcd-'));
    try {
      const r = buildRing(4);
      const vcdPath = join(dir, 'ring.vcd');
      new VcdTracer(r.sim, fileSink(vcdPath));
      r.sim.step(60);
      r.sim.closeTraces();
      execFileSync('vcd2fst', [vcdPath, join(dir, 'ring.fst')]);
      execFileSync('fst2vcd', ['-o', join(dir, 'back.vcd'), join(dir, 'ring.fst')]);
      const a = vcdValues(readFileSync(vcdPath, 'utf8'));
      const b = vcdValues(readFileSync(join(dir, 'back.vcd'), 'utf8'));
      expect(a.size).toBeGreaterThan(10);
      expect(b).toEqual(a);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Map "scope.path.signal" -> list of [time, value as bigint] from a VCD text (value changes only). */
function vcdValues(text: string): Map<string, [number, bigint][]> {
  const names = new Map<string, string>();
  const scope: string[] = [];
  const out = new Map<string, [number, bigint][]>();
  let t = 0;
  const last = new Map<string, bigint>();
  let skipping = false; // inside a header block such as $date ... $end
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const toks = line.split(/\s+/);
    if (skipping) {
      if (toks.includes('$end')) skipping = false;
      continue;
    }
    if (['$date', '$version', '$timescale', '$comment'].includes(toks[0]!)) {
      skipping = !toks.includes('$end');
      continue;
    }
    if (toks[0] === '$scope') scope.push(toks[2]!);
    else if (toks[0] === '$upscope') scope.pop();
    else if (toks[0] === '$var') names.set(toks[3]!, [...scope, toks[4]!].join('.'));
    else if (line.startsWith('#')) t = Number(line.slice(1));
    else if (line.startsWith('$')) continue;
    else {
      let id: string;
      let v: bigint;
      if (line[0] === 'b') {
        id = toks[1]!;
        v = BigInt('0b' + toks[0]!.slice(1));
      } else {
        id = line.slice(1);
        v = BigInt(line[0]!);
      }
      const name = names.get(id)!;
      if (last.get(name) === v) continue;
      last.set(name, v);
      if (!out.has(name)) out.set(name, []);
      out.get(name)!.push([t, v]);
    }
  }
  return out;
}

describe('line trace', () => {
  it('prints one line per cycle, folding identical runs', () => {
    const sim = new Simulator();
    class Blink extends Component {
      readonly r = new Reg(this, 'r', 1);
      tick(t: number): number {
        if (t % 10 === 0) this.r.d = 1 - this.r.q;
        return t - (t % 10) + 10;
      }
      override lineTrace(): string {
        return `r=${this.r.q}`;
      }
    }
    new Blink(sim, 'b');
    const sink = new MemorySink();
    new LineTracer(sim, sink);
    sim.step(25);
    sim.closeTraces();
    expect(sink.text()).toBe(
      ['       0: r=0', '       1: r=1', '         ... 9 identical cycles', '      11: r=0', '         ... 9 identical cycles', '      21: r=1', '         ... 3 identical cycles', ''].join('\n'),
    );
  });
});
