import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Component, NEVER, Pipeline, Reg, RegOf, RoundRobinArbiter, Simulator, Sram } from '../../rtl/kernel/index.ts';

class Holder extends Component {
  tick(): number {
    return NEVER;
  }
}

describe('Reg: q is the committed value, d the next', () => {
  it('shows a write from the next cycle, last write wins', () => {
    const sim = new Simulator();
    const h = new Holder(sim, 'h');
    const r = new Reg(h, 'r', 8, 5);
    r.d = 6;
    r.d = 7;
    expect(r.q).toBe(5);
    expect(r.next).toBe(7);
    sim.step();
    expect(r.q).toBe(7);
    sim.step(10);
    expect(r.q).toBe(7);
    r.d = 1;
    sim.reset();
    expect(r.q).toBe(5);
  });

  it('RegOf holds structured values', () => {
    const sim = new Simulator();
    const h = new Holder(sim, 'h');
    const r = new RegOf<{ a: number }>(h, 's', { a: 0 });
    r.d = { a: 3 };
    expect(r.q.a).toBe(0);
    sim.step();
    expect(r.q.a).toBe(3);
  });
});

describe('Sram: read latency, ports and read-first semantics against an array model', () => {
  it('matches the model for random reads and writes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 2 }),
        fc.array(fc.tuple(fc.constantFrom('read', 'write', 'step'), fc.integer({ min: 0, max: 15 }), fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1 })), { maxLength: 100 }),
        (lat, ports, ops) => {
          const sim = new Simulator();
          const h = new Holder(sim, 'h');
          const ram = new Sram(h, 'ram', { depth: 16, fields: { v: 'u32' }, readLatency: lat, readPorts: ports, writePorts: ports });
          const V = ram.field('v');
          const mem = new Array<number>(16).fill(0);
          const pending: [number, number][] = [];
          const due: { at: number; port: number; addr: number; value: number; tag: number }[] = [];
          const usedRead = new Set<number>();
          const usedWrite = new Map<number, number>();
          let tag = 0;
          for (const [op, addr, val, portBit] of ops) {
            const port = portBit % ports;
            if (op === 'read') {
              if (usedRead.has(port)) {
                expect(() => ram.read(port, addr)).toThrow(/used twice/);
                continue;
              }
              usedRead.add(port);
              ram.read(port, addr, ++tag);
              due.push({ at: sim.cycle + lat, port, addr, value: mem[addr]!, tag });
            } else if (op === 'write') {
              const prev = usedWrite.get(port);
              if (prev !== undefined && prev !== addr) {
                expect(() => ram.write(port, addr, V, val)).toThrow(/two rows/);
                continue;
              }
              usedWrite.set(port, addr);
              ram.write(port, addr, V, val);
              pending.push([addr, val]);
              expect(ram.peek(addr, V)).toBe(mem[addr]); // not visible in the same cycle
            } else {
              sim.step();
              for (const [a, v] of pending) mem[a] = v;
              pending.length = 0;
              usedRead.clear();
              usedWrite.clear();
              for (let p = 0; p < ports; p++) {
                const d = due.find((x) => x.at === sim.cycle && x.port === p);
                expect(ram.respValid(p)).toBe(d !== undefined);
                if (d) {
                  expect(ram.respAddr(p)).toBe(d.addr);
                  expect(ram.respTag(p)).toBe(d.tag);
                  expect(ram.resp(p, V)).toBe(d.value);
                }
              }
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds a 1,048,576-entry table in a few tens of MB and rejects bad addresses', () => {
    const sim = new Simulator();
    const h = new Holder(sim, 'h');
    const ram = new Sram(h, 'big', { depth: 1 << 20, fields: { tag: 'u32', ppn: 'u32', valid: 'u8', lru: 'u8' } });
    expect(ram.storageBytes).toBe((1 << 20) * 10);
    expect(ram.storageBytes / 1048576).toBeLessThan(40);
    expect(() => ram.read(0, 1 << 20)).toThrow(/out of range/);
    expect(() => ram.read(2, 0)).toThrow(/read port 2/);
    expect(() => ram.field('nope')).toThrow(/no field nope/);
  });
});

describe('RoundRobinArbiter fairness', () => {
  it('grants like a rotating-priority model and serves every persistent requester within n grants', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }), { minLength: 1, maxLength: 200 }), (n, pattern) => {
        const sim = new Simulator();
        const h = new Holder(sim, 'h');
        const arb = new RoundRobinArbiter(h, 'arb', n);
        let ptr = 0;
        const waitingSince = new Array<number>(n).fill(-1); // grants seen since it started requesting
        for (const reqs of pattern) {
          const req = (i: number): boolean => reqs[i]!;
          let expected = -1;
          for (let k = 0; k < n; k++) {
            const i = (ptr + k) % n;
            if (req(i)) {
              expected = i;
              break;
            }
          }
          const g = arb.grant(req);
          expect(g).toBe(expected);
          if (g >= 0) {
            ptr = (g + 1) % n;
            for (let i = 0; i < n; i++) {
              if (i === g) waitingSince[i] = -1;
              else if (req(i)) waitingSince[i] = waitingSince[i]! < 0 ? 1 : waitingSince[i]! + 1;
              else waitingSince[i] = -1;
              // the bound: a requester that kept requesting has seen at most n - 1 other grants
              expect(waitingSince[i]!).toBeLessThanOrEqual(n - 1);
            }
          }
          sim.step();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses two grants in one cycle', () => {
    const sim = new Simulator();
    const arb = new RoundRobinArbiter(new Holder(sim, 'h'), 'a', 3);
    arb.grant(() => true);
    expect(() => arb.grant(() => true)).toThrow(/twice/);
  });
});

describe('Pipeline with stall and flush against a model', () => {
  it('delivers each value N unstalled cycles after its push', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.constantFrom('push', 'stall', 'flush', 'step', 'take'), { maxLength: 120 }), (N, ops) => {
        const sim = new Simulator();
        const h = new Holder(sim, 'h');
        const p = new Pipeline<number>(h, 'p', N);
        // model: entries with remaining un-stalled cycles until the output
        let inflight: { v: number; left: number }[] = [];
        let stalled = false;
        let pushed = false;
        let v = 0;
        let dropped = 0;
        for (const op of ops) {
          const atOut = inflight.find((e) => e.left === 0);
          if (op === 'push') {
            if (stalled || pushed) {
              expect(p.canPush()).toBe(false);
              continue;
            }
            p.push(++v);
            inflight.push({ v, left: N });
            pushed = true;
          } else if (op === 'stall') {
            if (pushed) continue;
            p.stall();
            stalled = true;
          } else if (op === 'flush') {
            p.flush();
            inflight = inflight.filter((e) => e.left === 0);
            if (pushed && inflight.every((e) => e.v !== v)) pushed = true; // a push before the flush is killed
          } else if (op === 'take') {
            expect(p.valid()).toBe(atOut !== undefined);
            if (atOut) {
              expect(p.take()).toBe(atOut.v);
              inflight = inflight.filter((e) => e !== atOut);
            }
          } else {
            sim.step();
            if (!stalled) {
              for (const e of inflight) e.left--;
              const lost = inflight.filter((e) => e.left < 0);
              dropped += lost.length;
              inflight = inflight.filter((e) => e.left >= 0);
            }
            stalled = false;
            pushed = false;
            const out = inflight.find((e) => e.left === 0);
            expect(p.valid()).toBe(out !== undefined);
            if (out) expect(p.out()).toBe(out.v);
            expect(p.occupancy()).toBe(inflight.length);
            const next = inflight.length ? Math.min(...inflight.map((e) => e.left)) : Infinity;
            expect(p.readyCycle()).toBe(next === Infinity ? Infinity : sim.cycle + next);
          }
        }
        sim.step();
        expect(p.dropped.value).toBeGreaterThanOrEqual(dropped);
      }),
      { numRuns: 300 },
    );
  });
});
