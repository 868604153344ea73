/**
 * The Gemini AMO unit against the BigInt golden model: a model-based test (fast-check commands:
 * AMOs of every kind including bad ones, host CPU stores that bypass the cache, flushes) over
 * cache shapes and both write policies; latency; bad requests among good ones from other ports;
 * the non-coherence the seed describes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMO_ERR_ALIGN, AMO_ERR_OP, AMO_ERR_RANGE, AMO_ERR_SIZE, AMO_FADD, AMO_NAMES, AMO_OK } from '../../rtl/gemini/amo/ops.ts';
import { amoUnitConfig } from '../../rtl/gemini/amo/unit.ts';
import { type AmoOpSpec, buildAmoWorld, oldValue } from '../../experiments/gemini/amoWorld.ts';
import { GoldenAmoUnit } from '../../models/gemini/amoModel.ts';

const MEM = 4096;
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
/** operands biased to carries, all-ones and equal values */
const operand = fc.oneof(u64, fc.constantFrom(0n, 1n, 0xffffffffn, 0x100000000n, (1n << 64n) - 1n, 1n << 63n));

interface Sys {
  world: ReturnType<typeof buildAmoWorld>;
  program: AmoOpSpec[];
}
interface Mdl {
  g: GoldenAmoUnit;
}

class AmoCmd implements fc.Command<Mdl, Sys> {
  constructor(readonly spec: AmoOpSpec) {}
  check(): boolean {
    return true;
  }
  run(m: Mdl, s: Sys): void {
    s.program.push(this.spec);
    const ini = s.world.initiators[0]!;
    ini.wakeNow();
    s.world.sim.runUntil(() => ini.done, 100000);
    const e = ini.events[ini.events.length - 1]!;
    const want = m.g.op(this.spec.op, this.spec.addr, this.spec.size ?? 8, this.spec.a, this.spec.b ?? 0n);
    expect(e.req.status).toBe(want.status);
    if (want.status === AMO_OK) {
      expect(oldValue(e.req)).toBe(want.old);
      expect(e.req.hit).toBe(want.hit);
    }
  }
  toString(): string {
    return `${AMO_NAMES[this.spec.op] ?? `op${this.spec.op}`}(@${this.spec.addr}/${this.spec.size ?? 8}, ${this.spec.a}, ${this.spec.b ?? 0n})`;
  }
}

class HostStoreCmd implements fc.Command<Mdl, Sys> {
  constructor(
    readonly addr: number,
    readonly v: bigint,
  ) {}
  check(): boolean {
    return true;
  }
  run(m: Mdl, s: Sys): void {
    s.world.memory.store64(this.addr, Number(this.v >> 32n), Number(this.v & 0xffffffffn));
    m.g.hostWrite(BigInt(this.addr), this.v);
  }
  toString(): string {
    return `host[${this.addr}] = ${this.v}`;
  }
}

class FlushCmd implements fc.Command<Mdl, Sys> {
  check(): boolean {
    return true;
  }
  run(m: Mdl, s: Sys): void {
    s.world.unit.writeBackAll((a, hi, lo) => s.world.memory.store64(a, hi, lo));
    m.g.flush();
    for (let a = 0; a < 96; a += 8) {
      const w = s.world.memory.load64(a);
      expect((BigInt(w.hi) << 32n) | BigInt(w.lo)).toBe(m.g.hostRead(BigInt(a)));
    }
  }
  toString(): string {
    return 'flush';
  }
}

/** Addresses: 12 aligned words (more than the small caches hold), some misaligned, some past the end. */
const addrArb = fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 0, max: 11 }).map((w) => w * 8) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 255 }).filter((a) => a % 8 !== 0) }, { weight: 1, arbitrary: fc.constantFrom(MEM, MEM + 8, MEM - 4) });
const opArb = fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 0, max: AMO_NAMES.length - 1 }) }, { weight: 1, arbitrary: fc.constantFrom(AMO_NAMES.length, 99, -1) });
const sizeArb = fc.oneof({ weight: 20, arbitrary: fc.constant(8) }, { weight: 1, arbitrary: fc.constantFrom(1, 2, 4, 16) });

const commands = [
  fc.record({ op: opArb, addr: addrArb, size: sizeArb, a: operand, b: operand }).map((s) => new AmoCmd(s)),
  fc.tuple(fc.integer({ min: 0, max: 11 }), operand).map(([w, v]) => new HostStoreCmd(w * 8, v)),
  fc.constant(new FlushCmd()),
];

describe('AMO unit vs golden model (model-based)', () => {
  const shapes = [
    { cacheLines: 64, cacheWays: 8, replacement: 'lru' as const, writePolicy: 'write-back' as const },
    { cacheLines: 4, cacheWays: 4, replacement: 'lru' as const, writePolicy: 'write-back' as const },
    { cacheLines: 8, cacheWays: 2, replacement: 'fifo' as const, writePolicy: 'write-back' as const },
    { cacheLines: 1, cacheWays: 1, replacement: 'lru' as const, writePolicy: 'write-through' as const },
    { cacheLines: 16, cacheWays: 4, replacement: 'fifo' as const, writePolicy: 'write-through' as const },
  ];
  it.each(shapes)('%j', (shape) => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 120, size: 'large' }), (cmds) => {
        const program: AmoOpSpec[] = [];
        const world = buildAmoWorld({ unit: { ...shape, memBytes: MEM }, memory: { readCycles: 5 }, programs: [program] });
        fc.modelRun(() => ({ model: { g: new GoldenAmoUnit({ ...shape, memBytes: MEM }) }, real: { world, program } }), cmds);
      }),
      { numRuns: 60 },
    );
  });
});

describe('AMO unit timing', () => {
  it('a hit answers in opCycles, a miss adds the memory round trip', () => {
    const prog: AmoOpSpec[] = [
      { op: AMO_FADD, addr: 64, a: 1n },
      { op: AMO_FADD, addr: 64, a: 1n },
    ];
    const w = buildAmoWorld({ unit: { opCycles: 4 }, memory: { readCycles: 20 }, programs: [prog] });
    w.run();
    const [miss, hit] = w.initiators[0]!.events;
    expect(hit!.req.hit).toBe(true);
    expect(hit!.req.doneCycle - hit!.req.acceptCycle).toBe(4);
    expect(miss!.req.hit).toBe(false);
    // accept a; read pushed a+1, taken by memory a+2, response pushed a+2+19, visible a+22, fill a+22
    expect(miss!.req.doneCycle - miss!.req.acceptCycle).toBe(4 + 22);
    expect(oldValue(hit!.req)).toBe(1n);
  });

  it('back-to-back hits from several ports: one per cycle', () => {
    const programs = Array.from({ length: 4 }, () => Array.from({ length: 50 }, () => ({ op: AMO_FADD, addr: 0, a: 1n })));
    const w = buildAmoWorld({ programs, window: 8 });
    const cycles = w.run();
    expect(w.unit.stats.ops.value).toBe(200);
    expect(cycles).toBeLessThan(200 + 120);
    const olds = w.events().map((e) => oldValue(e.req)).sort((a, b) => (a < b ? -1 : 1));
    expect(olds).toEqual(Array.from({ length: 200 }, (_, i) => BigInt(i)));
  });
});

describe('bad requests', () => {
  it('misaligned, wrong size, unknown op and out of range are rejected with their code; other ports go on', () => {
    const bad: AmoOpSpec[] = [
      { op: AMO_FADD, addr: 4, a: 1n },
      { op: AMO_FADD, addr: 8, size: 4, a: 1n },
      { op: 42, addr: 8, a: 1n },
      { op: AMO_FADD, addr: 1 << 20, a: 1n },
      { op: AMO_FADD, addr: 8, a: 5n },
    ];
    const good: AmoOpSpec[] = Array.from({ length: 20 }, () => ({ op: AMO_FADD, addr: 8, a: 1n }));
    const w = buildAmoWorld({ programs: [bad, good, good], window: 4 });
    w.run();
    expect(w.initiators[0]!.events.map((e) => e.req.status)).toEqual([AMO_ERR_ALIGN, AMO_ERR_SIZE, AMO_ERR_OP, AMO_ERR_RANGE, AMO_OK]);
    for (const i of [1, 2]) expect(w.initiators[i]!.events.every((e) => e.req.status === AMO_OK)).toBe(true);
    expect(w.unit.cached(8)!.lo).toBe(45);
    expect(w.unit.stats.errors.value).toBe(4);
  });

  it('a bad configuration names the field', () => {
    expect(() => amoUnitConfig({ cacheLines: 12, cacheWays: 8 })).toThrow(/cacheWays \(8\) must divide cacheLines \(12\)/);
    expect(() => amoUnitConfig({ opCycles: 1 })).toThrow(/opCycles must be an integer in \[2, 1000\]/);
    expect(() => amoUnitConfig({ writePolicy: 'lazy' as never })).toThrow(/writePolicy/);
  });
});

describe('non-coherence with the host (seed 004)', () => {
  it('a host store to a cached word is not seen by the next AMO; the host sees AMO results only after write-back', () => {
    const prog: AmoOpSpec[] = [{ op: AMO_FADD, addr: 16, a: 5n }];
    const w = buildAmoWorld({ programs: [prog] });
    w.run();
    expect(w.memory.load64(16).lo).toBe(0); // write-back: the host still sees 0
    w.memory.store64(16, 0, 100); // host store, bypasses the NIC
    prog.push({ op: AMO_FADD, addr: 16, a: 1n });
    w.initiators[0]!.wakeNow();
    w.run();
    expect(oldValue(w.initiators[0]!.events[1]!.req)).toBe(5n); // the stale cached copy
    w.unit.writeBackAll((a, hi, lo) => w.memory.store64(a, hi, lo));
    expect(w.memory.load64(16).lo).toBe(6); // the host store is lost
  });

  it('write-through keeps host memory current after each AMO', () => {
    const prog: AmoOpSpec[] = [
      { op: AMO_FADD, addr: 16, a: 5n },
      { op: AMO_FADD, addr: 16, a: 5n },
    ];
    const w = buildAmoWorld({ unit: { writePolicy: 'write-through' }, programs: [prog] });
    w.run();
    w.sim.step(5);
    expect(w.memory.load64(16).lo).toBe(10);
  });
});
