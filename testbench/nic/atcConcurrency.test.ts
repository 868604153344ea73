/**
 * The ATC world's concurrency judgements (issue 10 item 4, experiments/nic/atcWorld.ts):
 * - a stall where an accept was due fails (not only an accept that should have stalled);
 * - MSHR-full is judged while the consumer holds responses (releases learnt where the ATC pushes
 *   the response, not where the world pops it);
 * - buffer mode under random concurrency (preloads through the port, lookups of three VPs,
 *   refreshes, holds): every response, preload result and the final buffer against the world's
 *   buffer model.
 * Each check is shown to fail on a deliberately broken ATC.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Atc, MshrFile, RefreshEngine } from '../../rtl/nic/atc/index.ts';
import { AtcWorld } from '../../experiments/nic/atcWorld.ts';

const page = (p: number): number => (0x40 + p) * 4096;

/** Push when the request channel has room (stepping meanwhile). */
function push(w: AtcWorld, va: number, asid = 0, physical = false): void {
  for (let i = 0; i < 1000 && w.lookup(va, physical, asid) < 0; i++) w.step();
}

/** Run `f` with `obj[key]` replaced by `impl` (a deliberately broken RTL), restoring it after. */
function broken<T extends object, K extends keyof T>(obj: T, key: K, impl: T[K], f: () => void): void {
  const orig = obj[key];
  obj[key] = impl;
  try {
    f();
  } finally {
    obj[key] = orig;
  }
}

describe('ATC world: a stall where an accept was due fails (issue 10 item 4)', () => {
  /** Misses to one page, a hit under them, then other pages: merges, a hit under the miss, MSHR-full stalls. */
  function mergeRun(): AtcWorld {
    const w = new AtcWorld({ atc: { entries: 16, ways: 2, mshrs: 2, mshrTargets: 3 }, readLatency: 20, jitter: 0, seed: 1 });
    push(w, page(0));
    w.drain();
    for (const p of [1, 1, 0, 1, 2, 3, 0]) {
      push(w, page(p) + p);
      w.step();
    }
    w.drain();
    return w;
  }

  it('the correct ATC passes and the run needed every judgement', () => {
    const w = mergeRun();
    expect(w.counts.merged).toBe(2);
    expect(w.judged.mustAccept).toBe(8);
    expect(w.judged.mustStall).toBeGreaterThan(0);
  });

  it('an ATC that never merges (stalls the second miss to a page until the fill) fails', () => {
    broken(MshrFile.prototype, 'merge', () => false, () => {
      expect(() => mergeRun()).toThrow(/not accepted in cycle \d+ although it must be \(merges into the outstanding miss/);
    });
  });

  it('an ATC that blocks hits under an outstanding miss fails', () => {
    type P = { lookup(t: number, r: unknown): boolean; mshr: MshrFile };
    const proto = Atc.prototype as unknown as P;
    const lookup = proto.lookup;
    broken(proto, 'lookup', function (this: P, t: number, r: unknown) {
      return this.mshr.busy > 0 ? false : lookup.call(this, t, r);
    }, () => {
      // the first request it blocks is the merge behind the miss (a blocking cache blocks merges and hits alike)
      expect(() => mergeRun()).toThrow(/not accepted in cycle \d+ although it must be \((hit|merges into)/);
    });
  });
});

describe('ATC world: a cycle the hit pipeline holds must have its reason', () => {
  /** Hits back to back with misses among them. */
  function hitRun(): AtcWorld {
    const w = new AtcWorld({ atc: { entries: 16, ways: 2, mshrs: 2, mshrTargets: 2 }, readLatency: 9, jitter: 0, seed: 1 });
    push(w, page(0));
    w.drain();
    for (let i = 0; i < 40; i++) push(w, page(i % 9 === 4 ? 1 + i : 0));
    w.drain();
    return w;
  }

  /** An ATC whose hit pipeline holds in some cycles for no reason, counting it as `counter`. */
  function spuriousHold(counter: 'drainTurnCycles' | 'outputStallCycles', f: () => void): void {
    type P = { tick(t: number): number; pipe: { valid(): boolean; stall(): void }; stats: Record<string, { inc(): void }> };
    const proto = Atc.prototype as unknown as P;
    const tick = proto.tick;
    broken(proto, 'tick', function (this: P, t: number) {
      if (t % 5 === 3 && this.pipe.valid()) {
        this.pipe.stall();
        this.stats[counter]!.inc();
        return t + 1;
      }
      return tick.call(this, t);
    }, f);
  }

  it('the correct ATC passes (it yields to miss waiters)', () => {
    expect(hitRun().atc.stats.drainTurnCycles.value).toBeGreaterThan(0);
  });

  it('a yield with no miss waiter ready fails', () => {
    spuriousHold('drainTurnCycles', () => expect(() => hitRun()).toThrow(/yielded the output port in cycle \d+ with no miss waiter ready/));
  });

  it('an output stall while the response channel has room fails', () => {
    spuriousHold('outputStallCycles', () => expect(() => hitRun()).toThrow(/stalled for a full response channel in cycle \d+, but the channel had room/));
  });
});

describe('ATC world: MSHR-full judged while the consumer holds responses (issue 10 item 4)', () => {
  /** Hits fill the response channel while the consumer holds; then three misses with two MSHRs. */
  function heldRun(breakIt?: (w: AtcWorld) => void): AtcWorld {
    const w = new AtcWorld({ atc: { entries: 16, ways: 2, mshrs: 2, mshrTargets: 2 }, readLatency: 12, jitter: 0, seed: 3 });
    breakIt?.(w);
    for (const p of [0, 1]) push(w, page(p));
    w.drain();
    for (let round = 0; round < 3; round++) {
      for (const p of [0, 1, 0, 1, 2 + 3 * round, 3 + 3 * round, 4 + 3 * round]) {
        for (let i = 0; i < 100 && w.lookup(page(p)) < 0; i++) w.hold(1);
        w.hold(1);
      }
      w.hold(40); // the fills come back; their waiters cannot be pushed while the channel is full
      w.step(40);
    }
    w.drain();
    return w;
  }

  it('the correct ATC passes; the third miss was judged must-stall during holds', () => {
    const w = heldRun();
    // the fills came back during the holds, but their waiters could not be pushed: the MSHRs stayed busy
    expect(w.judged.mustStallWhileHeld).toBeGreaterThan(20);
  });

  it('an ATC with one MSHR more than configured fails during the hold', () => {
    expect(() =>
      heldRun((w) => {
        // the RTL's MSHR file, drain queue and refresh engine get a third register the configuration does not have
        type Inner = { mshr: MshrFile; drainQ: Int32Array; refresh: { mshr: MshrFile } };
        const a = w.atc as unknown as Inner;
        const m = new MshrFile(3, 2);
        a.mshr = m;
        a.drainQ = new Int32Array(3);
        a.refresh.mshr = m;
      }),
    ).toThrow(/accepted as a new miss in cycle \d+ although all 2 MSHRs are busy|accepted in cycle \d+ although it must stall: new miss and all 2 MSHRs are busy/);
  });
});

// ---------------------------------------------------------------- buffer mode under concurrency

type Cmd = fc.Command<object, AtcWorld>;
const BASE = 0x200;
const ENTRIES = 16;

class BufLookup implements Cmd {
  constructor(
    readonly idx: number,
    readonly asid: number,
    readonly kind: 'cache' | 'bypass' | 'bad',
  ) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    // a few pages outside the buffer (always a fault)
    const p = BASE - 2 + (this.idx % (ENTRIES + 4));
    if (this.kind === 'bad') push(w, 2 ** 48 + this.idx);
    else push(w, p * 4096 + this.idx * 8, this.asid, this.kind === 'bypass');
    w.step();
  }
  toString = (): string => `lookup(${this.idx}, ${this.asid}, ${this.kind})`;
}

class Burst implements Cmd {
  constructor(readonly ps: [number, number][]) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    for (const [i, a] of this.ps) push(w, (BASE + (i % ENTRIES)) * 4096 + i, a);
    w.step();
  }
  toString = (): string => `burst(${JSON.stringify(this.ps)})`;
}

class Preload implements Cmd {
  constructor(
    readonly idx: number,
    readonly asid: number,
    readonly valid: boolean,
    readonly outside: boolean,
  ) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    const p = this.outside ? BASE + ENTRIES + this.idx : BASE + (this.idx % ENTRIES);
    for (let i = 0; i < 10 && !w.preload(p, 0x9000 + this.idx * 3 + this.asid, this.valid, this.asid); i++) w.step();
  }
  toString = (): string => `preload(${this.idx}, ${this.asid}, ${this.valid}, ${this.outside})`;
}

class Refresh implements Cmd {
  constructor(
    readonly idx: number,
    readonly span: number,
    readonly vp: number,
  ) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    const lo = BASE - 1 + (this.idx % ENTRIES);
    w.refresh(lo, lo + this.span, this.vp);
  }
  toString = (): string => `refresh(${this.idx}, ${this.span}, ${this.vp})`;
}

class Hold implements Cmd {
  constructor(readonly n: number) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    w.hold(this.n);
  }
  toString = (): string => `hold(${this.n})`;
}

class Step implements Cmd {
  constructor(readonly n: number) {}
  check = (): boolean => true;
  run(_m: object, w: AtcWorld): void {
    w.step(this.n);
  }
  toString = (): string => `step(${this.n})`;
}

const vpArb = fc.constantFrom(0, 0, 1, 2);
const bufCommands = [
  fc.tuple(fc.nat(40), vpArb, fc.constantFrom<'cache' | 'bypass' | 'bad'>('cache', 'cache', 'cache', 'cache', 'bypass', 'bad')).map(([i, a, k]) => new BufLookup(i, a, k)),
  fc.array(fc.tuple(fc.nat(40), vpArb), { minLength: 2, maxLength: 10 }).map((ps) => new Burst(ps)),
  fc.tuple(fc.nat(40), vpArb, fc.boolean(), fc.constantFrom(false, false, false, true)).map(([i, a, v, o]) => new Preload(i, a, v || i % 4 !== 0, o)),
  fc.tuple(fc.nat(40), fc.constantFrom(0, 0, 2, 20), fc.constantFrom(-1, 0, 1, 2)).map(([i, s, v]) => new Refresh(i, s, v)),
  fc.integer({ min: 1, max: 12 }).map((n) => new Hold(n)),
  fc.integer({ min: 1, max: 25 }).map((n) => new Step(n)),
];

function bufferWorld(hitLatency: number, respCapacity: number): AtcWorld {
  return new AtcWorld({ atc: { mode: 'buffer', entries: ENTRIES, ways: 4, bufferBasePage: BASE, hitLatency, respCapacity }, readLatency: 10, jitter: 0, seed: 1 });
}

describe('ATC buffer mode under concurrency against the world\'s buffer model (issue 10 item 4)', () => {
  it('responses (hit frame or fault), preload results and the final buffer agree under random interleavings', () => {
    const tot = { hits: 0, faults: 0, removals: 0, preloads: 0, accepts: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 5 }), fc.constantFrom(2, 4), fc.commands(bufCommands, { maxCommands: 60, size: 'max' }), (hl, cap, cmds) => {
        const w = bufferWorld(hl, cap);
        fc.modelRun(() => ({ model: {}, real: w }), cmds);
        w.drain();
        const s = w.atc.stats;
        tot.hits += s.hits.value;
        tot.faults += s.faults.value;
        tot.removals += w.counts.invalidations;
        tot.preloads += s.preloads.value;
        tot.accepts += w.judged.mustAccept;
      }),
      { numRuns: 120 },
    );
    for (const [k, v] of Object.entries(tot)) expect(v, k).toBeGreaterThan(0);
  });

  /** Preloads of three VPs racing lookups and a refresh of one VP. */
  function bufferRun(): AtcWorld {
    const w = bufferWorld(4, 4);
    for (let i = 0; i < 8; i++) {
      w.preload(BASE + i, 0x500 + i, true, i % 3);
      push(w, (BASE + i) * 4096 + 8, i % 3); // the same cycle's lookup reads the buffer before the preload writes it: a fault
      w.step();
    }
    w.refresh(BASE, BASE + 7, 1);
    for (let i = 0; i < 8; i++) push(w, (BASE + i) * 4096, i % 3);
    w.drain();
    return w;
  }

  it('the correct ATC passes', () => {
    const w = bufferRun();
    expect(w.atc.stats.hits.value).toBeGreaterThan(3);
    expect(w.atc.stats.faults.value).toBeGreaterThan(3);
    expect(w.counts.invalidations).toBe(3);
  });

  it('a buffer entry whose frame changes behind the model is caught in the response', () => {
    expect(() => {
      const w = bufferWorld(4, 4);
      w.preload(BASE + 3, 0x77, true, 0);
      w.step(3);
      w.atc.tags.pfn[3] = 0x78;
      push(w, (BASE + 3) * 4096);
      w.drain();
    }).toThrow(/buffer model says hit with frame 119, RTL answered status 0 frame 120/);
  });

  it('a buffer refresh that removes nothing is caught when its done register is set', () => {
    type P = { step(t: number, mon: unknown): boolean; mode: number; left: number; active: boolean };
    const proto = RefreshEngine.prototype as unknown as P;
    const step = proto.step;
    broken(proto, 'step', function (this: P, t: number, mon: unknown) {
      return this.mode === 3 ? (--this.left > 0 ? false : ((this.active = false), true)) : step.call(this, t, mon);
    }, () => {
      expect(() => bufferRun()).toThrow(/buffer refresh \[\d+, \d+\] of VP 1 done but VP 1 page \d+ is still loaded/);
    });
  });

  it('a preload the ATC rejects although it is inside the buffer is caught', () => {
    expect(() => {
      const w = bufferWorld(4, 4);
      w.atc.cfg.bufferBasePage = BASE + 1; // the RTL's idea of the buffer moves (the world keeps the configured one)
      w.preload(BASE, 0x77, true, 0);
      w.step(3);
    }).toThrow(/preload of page 512 frame 119 VP 0: result 1, expected 0/);
  });
});
