/**
 * Waveforms: channel and FIFO contents in the VCD (occupancy and head entry, a scope each under
 * their block), the GTKWave save file written next to a VCD (loaded headless in GTKWave when
 * available: CI installs it), WaveDrom JSON of a window of cycles, and a design without channels
 * or FIFOs dumping exactly the bytes it dumped before FIFOs were traced.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRing } from '../../rtl/examples/ring.ts';
import { Channel, Component, Fifo, gtkwName, gtkwSaveText, MemorySink, NEVER, Reg, type Scope, Simulator, VcdTracer, vcdWithSaveFile, WaveDromTracer } from '../../rtl/kernel/index.ts';

/** signal path -> value per cycle 0 .. n-1 (held between changes), from a VCD text with 1 tick per cycle */
function vcdTable(text: string, n: number): Map<string, bigint[]> {
  const names = new Map<string, string>();
  const scope: string[] = [];
  const cur = new Map<string, bigint>();
  const out = new Map<string, bigint[]>();
  let t = -1;
  const flush = (upTo: number): void => {
    for (let c = Math.max(0, t); c < Math.min(upTo, n); c++) for (const [id, v] of cur) (out.get(names.get(id)!) ?? out.set(names.get(id)!, []).get(names.get(id)!)!)[c] = v;
  };
  for (const line of text.split('\n')) {
    let m: RegExpExecArray | null;
    if ((m = /^\$scope module (\S+)/.exec(line))) scope.push(m[1]!);
    else if (line.startsWith('$upscope')) scope.pop();
    else if ((m = /^\$var wire \d+ (\S+) (\S+)/.exec(line))) names.set(m[1]!, [...scope, m[2]!].join('.'));
    else if ((m = /^#(\d+)/.exec(line))) {
      const nt = Number(m[1]);
      flush(nt);
      t = nt;
    } else if ((m = /^b([01]+) (\S+)/.exec(line))) cur.set(m[2]!, BigInt('0b' + m[1]));
    else if ((m = /^([01])(\S+)$/.exec(line))) cur.set(m[2]!, BigInt(m[1]!));
  }
  flush(n);
  return out;
}

class Counter extends Component {
  declare r: Reg;
  declare bit: Reg;
  constructor(p: Scope, n: string) {
    super(p, n);
    this.r = new Reg(this, 'r', 8);
    this.bit = new Reg(this, 'bit', 1);
  }
  tick(t: number): number {
    this.r.d = (this.r.q + 3) & 255;
    if (t % 4 === 0) this.bit.d = this.bit.q ^ 1;
    return t < 12 ? t + 1 : NEVER;
  }
}

/** pushes one object per cycle into a 4-entry FIFO and moves one to its channel every other cycle */
class Packer extends Component {
  declare readonly fifo: Fifo<{ tag: number }>;
  declare readonly plain: Fifo<{ tag: number }>;
  declare readonly out: Channel<{ tag: number }>;
  constructor(p: Scope, n: string) {
    super(p, n);
    this.fifo = new Fifo(this, 4, { name: 'q', traceHead: (e) => e.tag });
    this.plain = new Fifo(this, 4);
    this.out = new Channel<{ tag: number }>(this, 'out', { capacity: 8 }).bindProducer(this);
  }
  tick(t: number): number {
    if (t < 10 && this.fifo.canPush()) this.fifo.push({ tag: 100 + t });
    if (t < 10 && this.plain.canPush()) this.plain.push({ tag: t });
    if (t % 2 === 1 && this.fifo.canPop() && this.out.canPush()) this.out.push(this.fifo.pop());
    if (t % 3 === 2 && this.plain.canPop()) this.plain.pop();
    return t < 20 ? t + 1 : NEVER;
  }
}

describe('waveforms', () => {
  it('a design without channels or FIFOs dumps the same bytes as before FIFO tracing', () => {
    const sim = new Simulator({ freqHz: 250e6 });
    new Counter(sim, 'ctr');
    const sink = new MemorySink();
    new VcdTracer(sim, sink);
    sim.step(20);
    sim.closeTraces();
    // produced by the kernel before FIFO tracing (main at 9ada7f8) from this design
    const before = "$version netoffload VCD writer 1 $end\n$timescale 1ns $end\n$scope module top $end\n$scope module ctr $end\n$var wire 8 ! r $end\n$var wire 1 \" bit $end\n$upscope $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\nb0 !\n0\"\n$end\n#4\nb11 !\n1\"\n#8\nb110 !\n#12\nb1001 !\n#16\nb1100 !\n#20\nb1111 !\n0\"\n#24\nb10010 !\n#28\nb10101 !\n#32\nb11000 !\n#36\nb11011 !\n1\"\n#40\nb11110 !\n#44\nb100001 !\n#48\nb100100 !\n#52\nb100111 !\n0\"\n#80\n";
    expect(sink.text()).toBe(before);
  });

  it('dumps every FIFO and channel as a scope under its block with occupancy and head entry', () => {
    for (const skipping of [true, false]) {
      const sim = new Simulator({ skipping });
      const p = new Packer(sim, 'pk');
      const sink = new MemorySink();
      const vcd = new VcdTracer(sim, sink);
      const want = new Map<string, bigint[]>();
      const rec = (k: string, c: number, v: number): void => {
        (want.get(k) ?? want.set(k, []).get(k)!)[c] = BigInt(v);
      };
      for (let c = 0; c < 24; c++) {
        sim.step(1);
        // values held during cycle c (the VCD samples at its end): read now, before cycle c + 1 runs
        const f = p.fifo.held();
        rec('top.pk.q.count', c, f);
        rec('top.pk.q.head', c, f > 0 ? (p.fifo as unknown as { data: { head(): { tag: number } } }).data.head().tag : 0);
        rec('top.pk.out.count', c, p.out.occupancy());
      }
      sim.closeTraces();
      const text = sink.text();
      expect(text).toMatch(/\$scope module pk \$end\n\$scope module q \$end\n\$var wire 32 \S+ count \$end\n\$var wire 64 \S+ head \$end/);
      expect(text).toMatch(/\$scope module fifo0 \$end\n\$var wire 32 \S+ count \$end\n\$var wire 32 \S+ head_seq \$end/);
      expect(text).toMatch(/\$scope module out \$end\n\$var wire 32 \S+ count \$end\n(.*\n){2}\$var wire 32 \S+ head_seq \$end/);
      expect(vcd.signals.map((s) => `${s.scope.join('.')}.${s.name}`)).toEqual(['top.pk.q.count', 'top.pk.q.head', 'top.pk.fifo0.count', 'top.pk.fifo0.head_seq', 'top.pk.out.count', 'top.pk.out.push', 'top.pk.out.pop', 'top.pk.out.head_seq']);
      const got = vcdTable(text, 24);
      for (const [k, vals] of want) expect(got.get(k), `${k} (skipping ${skipping})`).toEqual(vals);
      // the unnamed FIFO's head_seq counts the entries it has delivered
      expect(got.get('top.pk.fifo0.head_seq')![23]).toBe(7n); // popped in cycles 2, 5, ..., 20
    }
  });

  it('writes a GTKWave save file next to the VCD, grouped by block, naming every signal of the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'netoffload-gtkw-'));
    try {
      const r = buildRing(3);
      const vcdPath = join(dir, 'ring.vcd');
      const vcd = vcdWithSaveFile(r.sim, vcdPath, { include: ['stage1', 'stage2'] });
      r.sim.step(30);
      r.sim.closeTraces();
      const save = readFileSync(join(dir, 'ring.gtkw'), 'utf8');
      expect(save).toBe(gtkwSaveText('ring.vcd', vcd.signals));
      expect(save).toContain('[dumpfile] "ring.vcd"');
      expect(save).toMatch(/@800200\n-stage1\n[\s\S]*@1000200\n-stage1\n@800200\n-stage2\n[\s\S]*@1000200\n-stage2\n$/);
      for (const s of vcd.signals) expect(save).toContain(`\n${gtkwName(s)}\n`);
      expect(save).toContain('\ntop.stage1.fifo0.head[63:0]\n');
      // GTKWave itself: load the dump with the save file headless and list the traces it shows
      const have = spawnSync('xvfb-run', ['--help']).error === undefined && spawnSync('gtkwave', ['--version']).error === undefined;
      if (!have) {
        if (process.env.NETOFFLOAD_REQUIRE_GTKWAVE) throw new Error('gtkwave or xvfb-run not installed but NETOFFLOAD_REQUIRE_GTKWAVE is set');
        return;
      }
      const tcl = join(dir, 'list.tcl');
      writeFileSync(tcl, 'set n [gtkwave::getTotalNumTraces]\nfor {set i 0} {$i < $n} {incr i} { puts "TRACE [gtkwave::getTraceNameFromIndex $i]" }\ngtkwave::/File/Quit\n');
      const list = (gtkw: string): string[] =>
        execFileSync('xvfb-run', ['-a', 'gtkwave', '-S', tcl, vcdPath, gtkw], { cwd: dir, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'ignore'] })
          .split('\n')
          .filter((l) => l.startsWith('TRACE '))
          .map((l) => l.slice(6));
      const shown = list(join(dir, 'ring.gtkw'));
      // two group markers per block plus every signal, each resolved in the dump
      expect(shown.length).toBe(vcd.signals.length + 4);
      expect(shown.filter((n) => n === 'stage1' || n === 'stage2').length).toBe(4);
      // a save file naming a signal the dump lacks shows one trace fewer (the check can fail)
      writeFileSync(join(dir, 'bad.gtkw'), save.replace('top.stage1.out.count[31:0]', 'top.stage1.out.nosuch[31:0]'));
      expect(list(join(dir, 'bad.gtkw')).length).toBe(vcd.signals.length + 3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws a window of cycles as WaveDrom JSON equal to the VCD over those cycles, with skipping on and off', () => {
    const run = (skipping: boolean): { wd: string; vcd: string } => {
      const r = buildRing(2, { skipping });
      const wd = new MemorySink();
      const vcd = new MemorySink();
      new WaveDromTracer(r.sim, wd, { from: 5, to: 21, include: ['stage1'] });
      new VcdTracer(r.sim, vcd, { include: ['stage1'] });
      r.sim.step(40);
      r.sim.closeTraces();
      return { wd: wd.text(), vcd: vcd.text() };
    };
    const on = run(true);
    expect(run(false).wd).toBe(on.wd);
    const doc = JSON.parse(on.wd) as { signal: [{ wave: string }, [string, ...{ name: string; wave: string; data?: string[] }[]]]; head: { tick: number } };
    expect(doc.signal[0].wave).toBe('p' + '.'.repeat(15));
    expect(doc.head.tick).toBe(5);
    const [block, ...lanes] = doc.signal[1];
    expect(block).toBe('stage1');
    const table = vcdTable(on.vcd, 40);
    for (const lane of lanes) {
      const vals = table.get(`top.stage1.${lane.name}`)!.slice(5, 21);
      // expand the wave back into values and compare cycle by cycle
      let di = 0;
      let cur = '';
      const expanded = [...lane.wave].map((ch) => (ch === '.' ? cur : (cur = ch === '=' ? lane.data![di++]! : ch)));
      const fmt = (v: bigint): string => (lane.name.endsWith('count') ? v.toString(10) : lane.wave.includes('=') ? `0x${v.toString(16)}` : v.toString());
      expect(expanded, lane.name).toEqual(vals.map(fmt));
    }
    expect(lanes.map((l) => l.name)).toEqual(['out.count', 'out.push', 'out.pop', 'out.head', 'fifo0.count', 'fifo0.head']);
  });

  it('refuses a window it cannot draw', () => {
    const r = buildRing(2);
    expect(() => new WaveDromTracer(r.sim, new MemorySink(), { from: 5, to: 5 })).toThrow(/need integers 0 <= A < B/);
    expect(() => new WaveDromTracer(r.sim, new MemorySink(), { from: 0, to: 10_000 })).toThrow(/at most 512/);
  });
});
